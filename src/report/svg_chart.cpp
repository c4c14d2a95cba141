#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

namespace gpuprobe::report {
namespace {

constexpr double kWidth = 720, kHeight = 380;
constexpr double kLeft = 92, kRight = 24, kTop = 44, kBottom = 56;
constexpr double kCharWidth = 6.6;  // average glyph width at 11px, for legend layout

bool Drawable(double x, double y, Scale xs, Scale ys) {
  if (!std::isfinite(x) || !std::isfinite(y)) return false;
  if (xs == Scale::kLog && x <= 0) return false;
  if (ys == Scale::kLog && y <= 0) return false;
  return true;
}

double Transform(double v, Scale s) { return s == Scale::kLog ? std::log10(v) : v; }

std::string Label(const Axis& axis, double v) { return axis.format ? axis.format(v) : fmt::format("{:g}", v); }

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) { lo = std::min(lo, v); hi = std::max(hi, v); }
  bool empty() const { return !(hi >= lo); }
};

/// Widens a range to tick boundaries (and pads a degenerate one) so every point is inside.
Range Nice(Range r, Scale s, bool binary) {
  if (s == Scale::kLog) {
    double base = binary ? 2 : 10;
    auto log_b = [&](double v) { return std::log(v) / std::log(base); };
    double lo = std::pow(base, std::floor(log_b(r.lo) + 1e-9));
    double hi = std::pow(base, std::ceil(log_b(r.hi) - 1e-9));
    if (hi <= lo) hi = lo * base;
    return {lo, hi};
  }
  if (r.hi == r.lo) {
    double pad = r.lo == 0 ? 1 : std::abs(r.lo) * 0.1;
    return {r.lo - pad, r.hi + pad};
  }
  auto ticks = Ticks(r.lo, r.hi, s, false);
  double step = ticks.size() > 1 ? ticks[1] - ticks[0] : (r.hi - r.lo);
  return {std::floor(r.lo / step) * step, std::ceil(r.hi / step) * step};
}

std::string Dash(Series::Style style) { return style == Series::Style::kDashedLine ? " stroke-dasharray=\"6 4\"" : ""; }

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> Ticks(double lo, double hi, Scale scale, bool binary) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) return ticks;
  if (scale == Scale::kLog) {
    if (lo <= 0) return ticks;
    double base = binary ? 2 : 10;
    auto log_b = [&](double v) { return std::log(v) / std::log(base); };
    int first = static_cast<int>(std::ceil(log_b(lo) - 1e-9));
    int last = static_cast<int>(std::floor(log_b(hi) + 1e-9));
    int stride = std::max(1, (last - first + 1 + 9) / 10);  // at most ~10 labels
    if (binary) {
      while (stride % 2 != 0 && stride < 10) ++stride;  // even powers of two: 4 KiB, 16 KiB, ...
      first = (first + stride - 1) / stride * stride;
    }
    for (int e = first; e <= last; e += stride) ticks.push_back(std::pow(base, e));
    return ticks;
  }
  if (hi == lo) return {lo};
  double raw = (hi - lo) / 6;
  double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  }
  return ticks;
}

int DrawablePoints(const XyChart& chart) {
  int n = 0;
  for (const auto& s : chart.series) {
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (Drawable(s.x[i], s.y[i], chart.x.scale, chart.y.scale)) ++n;
    }
  }
  return n;
}

std::string RenderXyChart(const XyChart& chart) {
  std::string svg = fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n",
      XmlEscape(chart.id), kWidth, kHeight, XmlEscape(chart.title));
  Range xr, yr;
  for (const auto& s : chart.series) {
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!Drawable(s.x[i], s.y[i], chart.x.scale, chart.y.scale)) continue;
      xr.Add(s.x[i]);
      yr.Add(s.y[i]);
    }
  }
  if (xr.empty()) {
    svg += fmt::format("<text class=\"no-data\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n</svg>\n",
                       kWidth / 2, kHeight / 2, XmlEscape(chart.no_data));
    return svg;
  }
  for (const auto& m : chart.markers) {
    if (Drawable(m.x, 1, chart.x.scale, Scale::kLinear)) xr.Add(m.x);
  }
  xr = Nice(xr, chart.x.scale, chart.x.binary);
  yr = Nice(yr, chart.y.scale, chart.y.binary);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double v) {
    double a = Transform(xr.lo, chart.x.scale), b = Transform(xr.hi, chart.x.scale);
    return kLeft + (Transform(v, chart.x.scale) - a) / (b - a) * plot_w;
  };
  auto py = [&](double v) {
    double a = Transform(yr.lo, chart.y.scale), b = Transform(yr.hi, chart.y.scale);
    return kTop + plot_h - (Transform(v, chart.y.scale) - a) / (b - a) * plot_h;
  };

  // Grid, ticks and axis titles.
  svg += "<g class=\"axes\">\n";
  for (double t : Ticks(xr.lo, xr.hi, chart.x.scale, chart.x.binary)) {
    svg += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>"
                       "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       px(t), kTop, kTop + plot_h, kTop + plot_h + 16, XmlEscape(Label(chart.x, t)));
  }
  for (double t : Ticks(yr.lo, yr.hi, chart.y.scale, chart.y.binary)) {
    svg += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\"/>"
                       "<text class=\"tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                       kLeft, py(t), kLeft + plot_w, kLeft - 6, py(t) + 4, XmlEscape(Label(chart.y, t)));
  }
  svg += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", kLeft, kTop, plot_w, plot_h);
  svg += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLeft + plot_w / 2,
                     kHeight - 12, XmlEscape(chart.x.title));
  svg += fmt::format("<text class=\"axis-title\" transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                     kTop + plot_h / 2, XmlEscape(chart.y.title));
  for (const auto& m : chart.markers) {
    if (!Drawable(m.x, 1, chart.x.scale, Scale::kLinear)) continue;
    svg += fmt::format("<line class=\"marker\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>"
                       "<text class=\"marker-label\" x=\"{3:.1f}\" y=\"{4}\">{5}</text>\n",
                       px(m.x), kTop, kTop + plot_h, px(m.x) + 3, kTop + 12, XmlEscape(m.label));
  }
  svg += "</g>\n";

  // Legend: one row above the plot, wrapping when long.
  svg += "<g class=\"legend\">\n";
  double lx = kLeft, ly = 14;
  for (const auto& s : chart.series) {
    double w = 22 + kCharWidth * static_cast<double>(s.name.size()) + 14;
    if (lx + w > kWidth - kRight && lx > kLeft) { lx = kLeft; ly += 14; }
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{2:.1f}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2.5\"{4}/>"
                       "<text class=\"legend-label\" x=\"{5:.1f}\" y=\"{6}\">{7}</text>\n",
                       lx, ly - 4, lx + 16, XmlEscape(s.color), Dash(s.style), lx + 20, ly, XmlEscape(s.name));
    lx += w;
  }
  svg += "</g>\n";

  // Marks last, above the grid. Point labels that would overlap an earlier one move down a
  // line, up to three times, and are left out after that (the legend still names the series).
  struct Box { double x0, y0, x1, y1; };
  std::vector<Box> placed;
  auto place_label = [&](double x, double y, const std::string& text) -> std::optional<double> {
    double w = kCharWidth * static_cast<double>(text.size());
    for (int attempt = 0; attempt < 4; ++attempt) {
      Box b{x, y - 10 + 12.0 * attempt, x + w, y + 2 + 12.0 * attempt};
      bool clash = false;
      for (const auto& p : placed) clash |= b.x0 < p.x1 && p.x0 < b.x1 && b.y0 < p.y1 && p.y0 < b.y1;
      if (!clash) {
        placed.push_back(b);
        return y + 12.0 * attempt;
      }
    }
    return std::nullopt;
  };
  svg += "<g class=\"marks\">\n";
  for (const auto& s : chart.series) {
    std::vector<std::pair<double, double>> pts;
    std::vector<std::string> labels;
    for (size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
      if (!Drawable(s.x[i], s.y[i], chart.x.scale, chart.y.scale)) continue;
      pts.emplace_back(px(s.x[i]), py(s.y[i]));
      labels.push_back(i < s.point_labels.size() ? s.point_labels[i] : "");
    }
    if (pts.empty()) continue;
    bool line = s.style != Series::Style::kPoints;
    bool points = s.style == Series::Style::kPoints || s.style == Series::Style::kLineAndPoints;
    if (line && pts.size() > 1) {
      std::string d;
      for (const auto& [x, y] : pts) d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : " L", x, y);
      svg += fmt::format("<path class=\"series\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", d,
                         XmlEscape(s.color), Dash(s.style));
    }
    if (points || pts.size() == 1) {
      for (size_t i = 0; i < pts.size(); ++i) {
        svg += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", pts[i].first,
                           pts[i].second, XmlEscape(s.color));
        if (!labels[i].empty()) {
          if (auto y = place_label(pts[i].first + 6, pts[i].second - 6, labels[i])) {
            svg += fmt::format("<text class=\"point-label\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", pts[i].first + 6, *y,
                               XmlEscape(labels[i]));
          }
        }
        svg += "\n";
      }
    }
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

std::string RenderBarChart(const BarChart& chart) {
  const double row = 28, label_w = 250, value_w = 200;
  double height = std::max(60.0, 16 + row * static_cast<double>(chart.bars.size()));
  std::string svg = fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\">\n",
      XmlEscape(chart.id), kWidth, height, XmlEscape(chart.title));
  double max_value = 0, min_positive = std::numeric_limits<double>::infinity();
  for (const auto& b : chart.bars) {
    if (!std::isfinite(b.value) || b.value <= 0) continue;
    max_value = std::max(max_value, b.value);
    min_positive = std::min(min_positive, b.value);
  }
  if (max_value <= 0) {
    svg += fmt::format("<text class=\"no-data\" x=\"{}\" y=\"30\" text-anchor=\"middle\">{}</text>\n</svg>\n", kWidth / 2,
                       XmlEscape(chart.no_data));
    return svg;
  }
  const double bar_w = kWidth - label_w - value_w;
  // Log bars start a decade below the smallest value so the smallest still shows.
  double log_lo = std::floor(std::log10(min_positive)) - 1, log_hi = std::log10(max_value);
  auto length = [&](double v) {
    if (chart.scale == Scale::kLog) return bar_w * (std::log10(v) - log_lo) / std::max(1e-9, log_hi - log_lo);
    return bar_w * v / max_value;
  };
  svg += "<g class=\"marks\">\n";
  double y = 8;
  for (const auto& b : chart.bars) {
    svg += fmt::format("<text class=\"bar-label\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", label_w - 8, y + 15,
                       XmlEscape(b.label));
    if (std::isfinite(b.value) && b.value > 0) {
      double w = std::max(1.0, length(b.value));
      svg += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", label_w, y + 2,
                         w, row - 8, XmlEscape(b.color));
      std::string text = chart.format ? chart.format(b.value) : fmt::format("{:g}", b.value);
      if (!b.note.empty()) text += "  " + b.note;
      svg += fmt::format("<text class=\"bar-value\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", label_w + w + 6, y + 15, XmlEscape(text));
    }
    svg += "\n";
    y += row;
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

}  // namespace gpuprobe::report
