// The HTML report: one self-contained file (inline CSS and SVG, no script, no fetch) that a
// team can mail around, open offline and print. This file only lays out what it is given;
// what goes in (figures, charts, findings) is decided by the caller.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace gpuprobe::report {

struct HtmlTableRow {
  std::vector<std::string> cells;
};

struct HtmlChart {
  std::string heading;
  std::string lesson;   ///< the one line a reader should take away
  std::string svg;      ///< from RenderXyChart / RenderBarChart
  std::string note;     ///< where the figures come from (measured, spec, model)
};

struct HtmlFinding {
  std::string severity;  ///< "fail", "warn" or "info" (the CSS class)
  std::string title;
  std::string detail;
  std::string fix;
  std::string severity_label = {};  ///< what the reader sees; the severity itself when empty
};

/// The page's own words, in the reader's language (English defaults).
struct HtmlLabels {
  std::string lang = "en";              ///< the html lang attribute: "en", "zh"
  std::string machine = "This machine, CPU and GPU side by side";
  std::string findings = "Findings";
  std::string severity = "Severity", finding = "Finding", evidence = "Evidence", fix = "What to do";
  std::string next = "Next";
};

struct HtmlReport {
  HtmlLabels labels;
  std::string title;                    ///< "gpuprobe report: <host>"
  std::string subtitle;                 ///< version, date, sources
  std::vector<std::string> verdict;     ///< three lines
  std::vector<std::string> machine_header;
  std::vector<HtmlTableRow> machine;    ///< the CPU vs GPU table
  std::vector<std::string> machine_notes;
  std::vector<HtmlChart> charts;
  std::vector<HtmlFinding> findings;
  std::string findings_empty;           ///< shown when there is no finding
  std::vector<std::string> next;        ///< commands to run next
};

/// The complete document, starting with <!DOCTYPE html>.
std::string RenderHtmlReport(const HtmlReport& report);

}  // namespace gpuprobe::report
