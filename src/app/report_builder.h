// The HTML report's content: the verdict, the side-by-side table with its notes, the six
// charts (app/report_charts.h), the findings and the next commands, every word from the
// texts in the reader's language.
//
// Thread safety: pure functions, except MakeReportHeader (reads the host name and the clock).
#pragma once

#include <string>
#include <vector>

#include "app/machine_summary.h"
#include "app/report_sources.h"
#include "core/status.h"
#include "model/gpu_spec.h"
#include "report/html_report.h"
#include "report/i18n.h"

namespace gpuprobe::app {

struct ReportHeader {
  std::string title;     ///< "gpuprobe report: <host>"
  std::string subtitle;  ///< version, date, origins
};

/// The spec to compare with: the detected GPU's when the sources name one, else `compare_with`
/// ("h200"); NotFound with suggestions for an unknown name.
core::Result<const model::GpuSpec*> ResolveGpuSpec(const ReportSources& sources, const std::string& compare_with);

/// "gpuprobe report: <host>" and "gpuprobe <version>, <UTC time>, from <origins>".
ReportHeader MakeReportHeader(const ReportSources& sources, const report::Texts& texts);

report::HtmlReport BuildHtmlReport(const ReportSources& sources, const MachineSummary& summary,
                                   const std::vector<std::string>& verdict, const ReportHeader& header,
                                   const report::Texts& texts);

}  // namespace gpuprobe::app
