// Charts as inline SVG, drawn by us rather than by a JavaScript library: the HTML report then
// needs no script at all, opens offline in any browser, prints crisply, and the charts can
// be checked in unit tests as text. Two kinds cover the report: x-y charts (lines and
// points, linear or log axes, vertical markers such as "L2 size") and horizontal bar charts.
//
// Thread safety: pure functions.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gpuprobe::report {

enum class Scale { kLinear, kLog };

struct Axis {
  std::string title;
  Scale scale = Scale::kLinear;
  /// Tick label for a value; plain "%g" when empty.
  std::function<std::string(double)> format;
  /// Log axes only: ticks at powers of two (sizes in bytes) instead of ten.
  bool binary = false;
};

struct Series {
  enum class Style { kLine, kDashedLine, kPoints, kLineAndPoints };
  std::string name;
  std::string color;   ///< CSS colour, e.g. "#1f77b4"
  Style style = Style::kLineAndPoints;
  std::vector<double> x, y;
  std::vector<std::string> point_labels;  ///< optional, one per point, drawn beside it
};

struct VerticalMarker {
  double x = 0;
  std::string label;
};

struct XyChart {
  std::string id;       ///< unique in the page: data-chart attribute
  std::string title;    ///< aria-label
  Axis x, y;
  std::vector<Series> series;
  std::vector<VerticalMarker> markers;
  std::string no_data = "no data";  ///< shown when there is nothing to draw (the caller translates it)
};

struct Bar {
  std::string label;
  double value = 0;
  std::string color;
  std::string note;     ///< drawn after the value, e.g. "42% of peak"
};

struct BarChart {
  std::string id, title;
  std::function<std::string(double)> format;  ///< value label
  Scale scale = Scale::kLinear;
  std::vector<Bar> bars;
  std::string no_data = "no data";  ///< shown when there is nothing to draw (the caller translates it)
};

/// Escapes &, <, >, " and ' for XML text and attributes.
std::string XmlEscape(const std::string& text);

/// Tick positions for [lo, hi]: powers of ten (log; powers of two when `binary`) or 1-2-5
/// steps (linear), at most about ten.
std::vector<double> Ticks(double lo, double hi, Scale scale, bool binary = false);

/// The SVG element; points that are not finite (or not positive on a log axis) are left out.
/// A chart with no drawable point renders a "no data" note instead of marks.
std::string RenderXyChart(const XyChart& chart);
std::string RenderBarChart(const BarChart& chart);

/// Number of drawable points in the chart (what RenderXyChart will draw).
int DrawablePoints(const XyChart& chart);

}  // namespace gpuprobe::report
