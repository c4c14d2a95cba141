#include "report/svg_chart.h"

#include <gtest/gtest.h>

#include "report/html_report.h"

namespace gpuprobe::report {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgChartTest, EscapesMarkup) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST(SvgChartTest, LogTicksArePowersOfTen) {
  auto ticks = Ticks(3, 20000, Scale::kLog);
  ASSERT_EQ(ticks.size(), 4u);
  EXPECT_DOUBLE_EQ(ticks[0], 10);
  EXPECT_DOUBLE_EQ(ticks[3], 10000);
  EXPECT_TRUE(Ticks(0, 10, Scale::kLog).empty());
  // Many decades are thinned to about ten labels.
  EXPECT_LE(Ticks(1, 1e30, Scale::kLog).size(), 11u);
}

TEST(SvgChartTest, LinearTicksUseOneTwoFiveSteps) {
  auto ticks = Ticks(0, 100, Scale::kLinear);
  ASSERT_GE(ticks.size(), 3u);
  double step = ticks[1] - ticks[0];
  EXPECT_TRUE(step == 10 || step == 20 || step == 50) << step;
  EXPECT_DOUBLE_EQ(ticks.front(), 0);
}

XyChart TwoSeries() {
  XyChart c;
  c.id = "bw";
  c.title = "Bandwidth <against> size";
  c.x = {"working set", Scale::kLog, [](double v) { return std::to_string(static_cast<long long>(v)); }};
  c.y = {"GB/s", Scale::kLinear, {}};
  c.series.push_back({"CPU", "#1f77b4", Series::Style::kLineAndPoints, {1e3, 1e4, 1e5}, {50, 40, 20}, {"", "", "DRAM"}});
  c.series.push_back({"GPU model", "#d62728", Series::Style::kDashedLine, {1e3, 1e5}, {100, 90}, {}});
  c.markers.push_back({3e4, "L2"});
  return c;
}

TEST(SvgChartTest, DrawsEveryPointLineLegendAndMarker) {
  std::string svg = RenderXyChart(TwoSeries());
  EXPECT_EQ(svg.rfind("<svg class=\"chart\" data-chart=\"bw\"", 0), 0u);
  EXPECT_NE(svg.find("aria-label=\"Bandwidth &lt;against&gt; size\""), std::string::npos);
  EXPECT_EQ(Count(svg, "<circle"), 3);        // only the CPU series has points
  EXPECT_EQ(Count(svg, "class=\"series\""), 2);
  EXPECT_EQ(Count(svg, "stroke-dasharray=\"6 4\""), 2);  // dashed line and its legend entry
  EXPECT_NE(svg.find(">DRAM</text>"), std::string::npos);
  EXPECT_NE(svg.find(">L2</text>"), std::string::npos);
  EXPECT_EQ(svg.find("no data"), std::string::npos);
  EXPECT_EQ(DrawablePoints(TwoSeries()), 5);
}

TEST(SvgChartTest, LeavesOutPointsALogAxisCannotShow) {
  XyChart c = TwoSeries();
  c.series[0].x = {0, -5, 1e4};
  std::string svg = RenderXyChart(c);
  EXPECT_EQ(Count(svg, "<circle"), 1);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(SvgChartTest, EmptyChartSaysNoData) {
  XyChart c = TwoSeries();
  for (auto& s : c.series) s.x.clear();
  std::string svg = RenderXyChart(c);
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"marks\""), std::string::npos);
  EXPECT_EQ(DrawablePoints(c), 0);
}

TEST(SvgChartTest, BarChartHasOneBarPerPositiveValue) {
  BarChart b{"ladder", "Matmul ladder", [](double v) { return std::to_string(static_cast<int>(v)); }, Scale::kLog,
             {{"naive", 1, "#999", ""}, {"blocked", 40, "#1f77b4", "91%"}, {"broken", 0, "#000", ""}}};
  std::string svg = RenderBarChart(b);
  EXPECT_EQ(Count(svg, "<rect class=\"bar\""), 2);
  EXPECT_NE(svg.find("40  91%"), std::string::npos);
  EXPECT_NE(svg.find(">broken</text>"), std::string::npos);  // labelled, no bar
}

TEST(HtmlReportTest, SelfContainedEscapedAndComplete) {
  HtmlReport r;
  r.title = "gpuprobe report: host<1>";
  r.verdict = {"line one", "line two", "line three"};
  r.machine_header = {"", "CPU", "GPU"};
  r.machine = {{{"Memory bandwidth", "20 GB/s", "4.8 TB/s (spec)"}}};
  r.charts.push_back({"Bandwidth", "caches are fast", RenderXyChart(TwoSeries()), "measured"});
  r.findings.push_back({"warn", "Clocks throttled", "power cap", "check cooling"});
  r.next = {"gpuprobe bench --full"};
  std::string html = RenderHtmlReport(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("host&lt;1&gt;"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("class=\"sev-warn\""), std::string::npos);
  EXPECT_NE(html.find("caches are fast"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(HtmlReportTest, NoFindingsSaysSo) {
  HtmlReport r;
  r.findings_empty = "Nothing to report.";
  EXPECT_NE(RenderHtmlReport(r).find("Nothing to report."), std::string::npos);
}

}  // namespace
}  // namespace gpuprobe::report
