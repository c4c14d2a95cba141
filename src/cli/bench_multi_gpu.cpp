#include "cli/bench_multi_gpu.h"

#include <fmt/format.h>

#include "cli/multi_gpu_view.h"
#include "core/units.h"
#include "report/json_document.h"

namespace gpuprobe::cli {

core::Result<core::ExitCode> RunMultiGpuBench(VerbContext& ctx, bench::MultiGpuHost& host,
                                              const bench::MultiGpuRequest& request) {
  const report::Texts& t = ctx.texts;
  auto outcome = bench::RunMultiGpuPipeline(host, request, [&ctx, &t](const bench::CollectiveProgress& p) {
    ctx.err << Tr(t, "collectives.progress", fmt::arg("index", p.index), fmt::arg("total", p.total),
                  fmt::arg("collective", p.collective), fmt::arg("size", core::FormatBytesBinary(static_cast<double>(p.size_bytes))))
            << "\n";
    ctx.err.flush();
  });
  if (!outcome.ok()) return outcome.status();
  const bench::MultiGpuOutcome& o = *outcome;
  const bool json = ctx.options.json;
  if (o.collectives_plan && !o.collectives) {
    ctx.out << (json ? report::RenderJson(CollectivesPlanJson(*o.collectives_plan, o.machine))
                     : RenderCollectivesPlan(*o.collectives_plan, o.machine, t));
    return core::ExitCode::kOk;
  }
  if (o.p2p_plan && !o.p2p) {
    ctx.out << (json ? report::RenderJson(P2pPlanJson(*o.p2p_plan, o.machine)) : RenderP2pPlan(*o.p2p_plan, o.machine, t));
    return core::ExitCode::kOk;
  }
  if (o.collectives) {
    auto link = PlannerLinkFor(o.first_gpu_name, o.collectives->gpus, t);
    ctx.out << (json ? report::RenderJson(CollectivesReportJson(*o.collectives, link)) : RenderCollectivesReport(*o.collectives, link, t));
    return o.collectives->all_verified ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
  }
  // Copies go between two GPUs at a time: the link two of them share.
  auto link = PlannerLinkFor(o.first_gpu_name, 2, t);
  ctx.out << (json ? report::RenderJson(P2pReportJson(*o.p2p, link)) : RenderP2pReport(*o.p2p, link, t));
  return o.p2p->all_verified ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace gpuprobe::cli
