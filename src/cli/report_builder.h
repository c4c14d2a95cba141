// The content of the HTML report: the side-by-side table, six charts (roofline, bandwidth
// against working set, against transfer size, the matmul ladder, two crossover curves),
// each with its one-line lesson and where its figures come from, and the findings.
#pragma once

#include <string>
#include <vector>

#include "cli/machine_summary.h"
#include "core/status.h"
#include "report/html_report.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

struct ReportHeader {
  std::string title;     ///< "gpuprobe report: <host>"
  std::string subtitle;  ///< version, date, origins
};

/// The spec to compare with: the detected GPU's when the sources name one, else `compare_with`
/// ("h200"); NotFound with suggestions for an unknown name.
core::Result<const model::GpuSpec*> ResolveGpuSpec(const ReportSources& sources, const std::string& compare_with);

/// "gpuprobe report: <host>" and "gpuprobe <version>, <UTC time>, from <origins>".
ReportHeader MakeReportHeader(const ReportSources& sources);

/// Writes the report atomically. Refuses (InvalidArgument, file untouched) to replace an
/// existing file that is not a gpuprobe report, so a mistyped -o never destroys data.
core::Status WriteReportFile(const std::string& path, const std::string& html);

report::HtmlReport BuildHtmlReport(const ReportSources& sources, const MachineSummary& summary,
                                   const std::vector<std::string>& verdict, const ReportHeader& header,
                                   const report::Texts& texts);

}  // namespace gpuprobe::cli
