#include "cli/bench_multi_gpu.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "app/gpu_absence.h"
#include "bench/cuda/cuda_device.h"
#include "bench/multi_gpu.h"
#include "bench/multi_gpu_plan.h"
#include "bench/nccl_library.h"
#include "cli/multi_gpu_view.h"
#include "core/units.h"
#include "report/json_document.h"

namespace gpuprobe::cli {
namespace {

struct Machine {
  std::vector<bench::CudaDeviceInfo> devices;
  core::Status query;  ///< the device query's status
};

Machine Discover() {
  Machine m;
  auto devices = bench::QueryCudaDevices();
  if (devices.ok()) {
    m.devices = *devices;
  } else {
    m.query = devices.status();
  }
  return m;
}

core::Status Blocked(const Machine& m, const std::string& kind) { return MultiGpuBlocked(m.devices, m.query, kind); }

MultiGpuMachine PlanMachine(const Machine& m, const std::string& kind, const report::Texts& t) {
  MultiGpuMachine out;
  out.gpus = static_cast<int>(m.devices.size());
  core::Status blocked = Blocked(m, kind);
  if (!blocked.ok()) {
    // The short reason (the long one, with its hint, is the run's exit-3 message).
    if (m.devices.size() == 1) {
      out.blocked_reason = Tr(t, "collectives.plan.why_one_gpu", fmt::arg("name", m.devices[0].name));
    } else {
      core::Status why = m.query.ok() ? core::Status::NotFound("no GPU is visible") : m.query;
      out.blocked_reason = Tr(t, app::GpuAbsenceReasonKey(app::GpuAbsenceId(why)), fmt::arg("detail", why.message()));
    }
    return out;
  }
  std::uint64_t min_free = 0;
  bool known = true;
  for (const auto& d : m.devices) {
    if (d.memory_free_bytes == 0) known = false;
    min_free = min_free == 0 ? d.memory_free_bytes : std::min(min_free, d.memory_free_bytes);
  }
  out.min_free_bytes = known ? min_free : 0;
  return out;
}

core::Result<std::vector<bench::CollectivePlanEntry>> Select(const bench::CollectivesPlan& plan, const std::vector<std::string>& names) {
  if (names.empty()) return plan.collectives;
  std::vector<bench::CollectivePlanEntry> out;
  std::string known;
  for (const auto& e : plan.collectives) known += (known.empty() ? "" : ", ") + std::string(model::CollectiveId(e.collective));
  for (const auto& name : names) {
    auto c = model::CollectiveFromId(name);
    auto it = std::find_if(plan.collectives.begin(), plan.collectives.end(),
                           [&](const bench::CollectivePlanEntry& e) { return c && e.collective == *c; });
    if (it == plan.collectives.end()) {
      return core::Status::InvalidArgument(fmt::format("unknown collective '{}'; known: {}", name, known))
          .WithKeys("collectives.error.unknown_collective", {{"name", name}, {"known", known}});
    }
    out.push_back(*it);
  }
  return out;
}

core::Result<core::ExitCode> RunCollectivesBench(VerbContext& ctx, const MultiGpuOptions& o, const Machine& m) {
  MultiGpuMachine machine = PlanMachine(m, o.kind, ctx.texts);
  int gpus = machine.blocked_reason.empty() ? machine.gpus : 0;
  bench::CollectivesPlan plan = bench::MakeCollectivesPlan(gpus, machine.min_free_bytes);
  auto selected = Select(plan, o.names);
  if (!selected.ok()) return selected.status();
  plan.collectives = *selected;
  if (o.dry_run) {
    if (ctx.options.json) {
      ctx.out << report::RenderJson(CollectivesPlanJson(plan, machine));
    } else {
      ctx.out << RenderCollectivesPlan(plan, machine, ctx.texts);
    }
    return core::ExitCode::kOk;
  }
  GPUPROBE_RETURN_IF_ERROR(Blocked(m, o.kind));
  auto nccl = bench::nccl::LoadNccl();
  if (!nccl.ok()) return nccl.status();
  std::vector<int> devices;
  for (const auto& d : m.devices) devices.push_back(d.index);
  const report::Texts& t = ctx.texts;
  auto report = bench::RunCollectives(plan, **nccl, devices, [&t](const bench::CollectiveProgress& p) {
    std::string line = Tr(t, "collectives.progress", fmt::arg("index", p.index), fmt::arg("total", p.total),
                          fmt::arg("collective", p.collective),
                          fmt::arg("size", core::FormatBytesBinary(static_cast<double>(p.size_bytes))));
    std::fprintf(stderr, "%s\n", line.c_str());
  });
  if (!report.ok()) return report.status();
  auto link = PlannerLinkFor(m.devices.front().name, report->gpus, ctx.texts);
  if (ctx.options.json) {
    ctx.out << report::RenderJson(CollectivesReportJson(*report, link));
  } else {
    ctx.out << RenderCollectivesReport(*report, link, ctx.texts);
  }
  return report->all_verified ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

core::Result<core::ExitCode> RunP2pBench(VerbContext& ctx, const MultiGpuOptions& o, const Machine& m) {
  if (!o.names.empty()) {
    return core::Status::InvalidArgument("bench p2p takes no further names").WithKeys("collectives.error.p2p_args", {});
  }
  MultiGpuMachine machine = PlanMachine(m, o.kind, ctx.texts);
  bench::P2pPlan plan = bench::MakeP2pPlan(machine.blocked_reason.empty() ? machine.gpus : 0);
  if (o.dry_run) {
    if (ctx.options.json) {
      ctx.out << report::RenderJson(P2pPlanJson(plan, machine));
    } else {
      ctx.out << RenderP2pPlan(plan, machine, ctx.texts);
    }
    return core::ExitCode::kOk;
  }
  GPUPROBE_RETURN_IF_ERROR(Blocked(m, o.kind));
  std::vector<int> devices;
  for (const auto& d : m.devices) devices.push_back(d.index);
  auto report = bench::RunP2p(plan, devices);
  if (!report.ok()) return report.status();
  // Copies go between two GPUs at a time: the link two of them share.
  auto link = PlannerLinkFor(m.devices.front().name, 2, ctx.texts);
  if (ctx.options.json) {
    ctx.out << report::RenderJson(P2pReportJson(*report, link));
  } else {
    ctx.out << RenderP2pReport(*report, link, ctx.texts);
  }
  return report->all_verified ? core::ExitCode::kOk : core::ExitCode::kProblemsFound;
}

}  // namespace

core::Status MultiGpuBlocked(const std::vector<bench::CudaDeviceInfo>& devices, const core::Status& query,
                             const std::string& kind) {
  // One GPU and no GPU are told apart: the fixes differ.
  if (devices.empty()) {
    core::Status why = query.ok() ? core::Status::NotFound("no GPU is visible") : query;
    std::string id = app::GpuAbsenceId(why);
    return core::Status::Unavailable(fmt::format("bench {} needs at least two GPUs and none can be used here: {}", kind, why.message()),
                                     fmt::format("gpuprobe bench {} --dry-run shows the plan; run it on a machine with two or more GPUs", kind))
        .WithKeys("collectives.error.no_gpu",
                  {{"verb", kind}, {"reason_key", app::GpuAbsenceReasonKey(id)}, {"detail", why.message()}},
                  "collectives.error.no_gpu.hint");
  }
  if (devices.size() == 1) {
    return core::Status::Unavailable(
               fmt::format("bench {} needs at least two GPUs: only one is visible ({}), so there is nothing to exchange data with", kind,
                           devices[0].name),
               "gpuprobe bench --backend cuda measures this GPU alone")
        .WithKeys("collectives.error.one_gpu", {{"verb", kind}, {"name", devices[0].name}}, "collectives.error.one_gpu.hint");
  }
  return core::Status::Ok();
}

bool IsMultiGpuBenchmark(const std::string& name) { return name == "collectives" || name == "p2p"; }

core::Result<core::ExitCode> RunMultiGpuBench(VerbContext& ctx, const MultiGpuOptions& options) {
  Machine m = Discover();
  if (options.kind == "collectives") return RunCollectivesBench(ctx, options, m);
  return RunP2pBench(ctx, options, m);
}

}  // namespace gpuprobe::cli
