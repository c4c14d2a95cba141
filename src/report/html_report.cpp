#include "report/html_report.h"

#include <fmt/format.h>

#include "report/svg_chart.h"

namespace gpuprobe::report {
namespace {

// Print-friendly: charts never split across pages, colours survive printing, no fixed
// widths beyond the page.
constexpr const char* kStyle = R"(
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 2rem auto; max-width: 980px; padding: 0 1rem;
       color: #1d2329; line-height: 1.45; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ccd3da; padding-bottom: 0.2rem; }
.subtitle { color: #5b6670; margin-top: 0; }
.verdict { background: #eef5ff; border-left: 4px solid #2f6fd6; padding: 0.6rem 1rem; }
.verdict p { margin: 0.2rem 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #e2e7ec; vertical-align: top; }
th { background: #f3f5f7; }
.notes { color: #5b6670; font-size: 0.85rem; }
figure { margin: 1.2rem 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; display: block; }
figcaption .lesson { font-weight: bold; }
figcaption .source { color: #5b6670; font-size: 0.85rem; }
svg .grid { stroke: #e6eaee; stroke-width: 1; }
svg .frame { fill: none; stroke: #9aa5af; stroke-width: 1; }
svg .tick, svg .legend-label, svg .point-label, svg .bar-label, svg .bar-value, svg .marker-label { font-size: 11px; fill: #333c44; }
svg .axis-title { font-size: 12px; fill: #1d2329; }
svg .marker { stroke: #8a6d00; stroke-width: 1; stroke-dasharray: 3 3; }
svg .no-data { font-size: 14px; fill: #8a949c; }
.sev-fail { color: #b3261e; font-weight: bold; }
.sev-warn { color: #8a5a00; font-weight: bold; }
.sev-info { color: #2f6fd6; }
code { background: #f3f5f7; padding: 0 0.2rem; }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; } }
)";

std::string Paragraphs(const std::vector<std::string>& lines, const char* tag = "p") {
  std::string out;
  for (const auto& l : lines) out += fmt::format("<{0}>{1}</{0}>\n", tag, XmlEscape(l));
  return out;
}

}  // namespace

std::string RenderHtmlReport(const HtmlReport& r) {
  const HtmlLabels& l = r.labels;
  std::string html = fmt::format("<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n", XmlEscape(l.lang));
  html += "<meta name=\"generator\" content=\"gpuprobe\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // No network: forbid every fetch, so a report can never phone home or break offline.
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n";
  html += fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n", XmlEscape(r.title), kStyle);
  html += fmt::format("<h1>{}</h1>\n<p class=\"subtitle\">{}</p>\n", XmlEscape(r.title), XmlEscape(r.subtitle));
  if (!r.verdict.empty()) html += "<section class=\"verdict\" id=\"verdict\">\n" + Paragraphs(r.verdict) + "</section>\n";

  html += "<h2 id=\"machine\">" + XmlEscape(l.machine) + "</h2>\n<table class=\"machine\">\n<tr>";
  for (const auto& h : r.machine_header) html += "<th>" + XmlEscape(h) + "</th>";
  html += "</tr>\n";
  for (const auto& row : r.machine) {
    html += "<tr>";
    for (const auto& c : row.cells) html += "<td>" + XmlEscape(c) + "</td>";
    html += "</tr>\n";
  }
  html += "</table>\n";
  if (!r.machine_notes.empty()) html += "<div class=\"notes\">\n" + Paragraphs(r.machine_notes) + "</div>\n";

  for (const auto& c : r.charts) {
    html += fmt::format("<h2>{}</h2>\n<figure>\n{}<figcaption><p class=\"lesson\">{}</p>", XmlEscape(c.heading), c.svg,
                        XmlEscape(c.lesson));
    if (!c.note.empty()) html += fmt::format("<p class=\"source\">{}</p>", XmlEscape(c.note));
    html += "</figcaption>\n</figure>\n";
  }

  html += "<h2 id=\"findings\">" + XmlEscape(l.findings) + "</h2>\n";
  if (r.findings.empty()) {
    html += "<p>" + XmlEscape(r.findings_empty) + "</p>\n";
  } else {
    html += fmt::format("<table class=\"findings\">\n<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>\n",
                        XmlEscape(l.severity), XmlEscape(l.finding), XmlEscape(l.evidence), XmlEscape(l.fix));
    for (const auto& f : r.findings) {
      html += fmt::format("<tr><td class=\"sev-{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", XmlEscape(f.severity),
                          XmlEscape(f.severity_label.empty() ? f.severity : f.severity_label), XmlEscape(f.title),
                          XmlEscape(f.detail), XmlEscape(f.fix));
    }
    html += "</table>\n";
  }
  if (!r.next.empty()) {
    html += "<h2 id=\"next\">" + XmlEscape(l.next) + "</h2>\n<ul>\n";
    for (const auto& n : r.next) html += "<li><code>" + XmlEscape(n) + "</code></li>\n";
    html += "</ul>\n";
  }
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace gpuprobe::report
