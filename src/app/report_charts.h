// The six charts of the HTML report, each with its heading, its one-line lesson and where
// its figures come from: the roofline, bandwidth against working set, against transfer size,
// the matmul ladder and the two CPU/GPU crossovers. Every word comes from the texts.
//
// Thread safety: pure functions.
#pragma once

#include <vector>

#include "app/machine_summary.h"
#include "app/report_sources.h"
#include "report/html_report.h"
#include "report/i18n.h"

namespace gpuprobe::app {

/// The charts in the order the report shows them.
std::vector<report::HtmlChart> ReportCharts(const ReportSources& sources, const MachineSummary& summary,
                                            const report::Texts& texts);

}  // namespace gpuprobe::app
