#include "bench/multi_gpu_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "bench/gpu_absence.h"
#include "bench/nccl_library.h"

namespace gpuprobe::bench {
namespace {

class Machine : public MultiGpuHost {
 public:
  GpuInventory ListDevices() override {
    GpuInventory inventory;
    auto devices = QueryCudaDevices();
    if (devices.ok()) {
      inventory.devices = *devices;
    } else {
      inventory.query = devices.status();
    }
    return inventory;
  }
  core::Result<CollectivesReport> RunCollectives(const CollectivesPlan& plan, const std::vector<int>& devices,
                                                const std::function<void(const CollectiveProgress&)>& progress) override {
    auto nccl = nccl::LoadNccl();
    if (!nccl.ok()) return nccl.status();
    return bench::RunCollectives(plan, **nccl, devices, progress);
  }
  core::Result<P2pReport> RunP2p(const P2pPlan& plan, const std::vector<int>& devices) override {
    return bench::RunP2p(plan, devices);
  }
};

// Why no GPU is here: the query's own failure, else "none is visible".
core::Status Absence(const GpuInventory& inventory) {
  return inventory.query.ok() ? core::Status::NotFound("no GPU is visible").WithKeys("error.cuda.no_device", {}, "error.cuda.no_device.hint")
                              : inventory.query;
}

core::Result<std::vector<CollectivePlanEntry>> Select(const CollectivesPlan& plan, const std::vector<std::string>& names) {
  if (names.empty()) return plan.collectives;
  std::vector<CollectivePlanEntry> out;
  std::string known;
  for (const auto& e : plan.collectives) known += (known.empty() ? "" : ", ") + std::string(model::CollectiveId(e.collective));
  for (const auto& name : names) {
    auto c = model::CollectiveFromId(name);
    auto it = std::find_if(plan.collectives.begin(), plan.collectives.end(),
                           [&](const CollectivePlanEntry& e) { return c && e.collective == *c; });
    if (it == plan.collectives.end()) {
      return core::Status::InvalidArgument(fmt::format("unknown collective '{}'; known: {}", name, known))
          .WithKeys("collectives.error.unknown_collective", {{"name", name}, {"known", known}});
    }
    out.push_back(*it);
  }
  return out;
}

std::vector<int> Indices(const GpuInventory& inventory) {
  std::vector<int> out;
  for (const auto& d : inventory.devices) out.push_back(d.index);
  return out;
}

}  // namespace

std::unique_ptr<MultiGpuHost> MachineMultiGpuHost() { return std::make_unique<Machine>(); }

bool IsMultiGpuBenchmark(const std::string& name) { return name == "collectives" || name == "p2p"; }

core::Status MultiGpuBlocked(const GpuInventory& inventory, const std::string& kind) {
  if (inventory.devices.empty()) {
    core::Status why = Absence(inventory);
    std::string id = GpuAbsenceId(why);
    return core::Status::Unavailable(fmt::format("bench {} needs at least two GPUs and none can be used here: {}", kind, why.message()),
                                     fmt::format("gpuprobe bench {} --dry-run shows the plan; run it on a machine with two or more GPUs", kind))
        .WithKeys("collectives.error.no_gpu", {{"verb", kind}, {"reason_key", GpuAbsenceReasonKey(id)}, {"detail", why.message()}},
                  "collectives.error.no_gpu.hint");
  }
  if (inventory.devices.size() == 1) {
    const std::string& name = inventory.devices[0].name;
    return core::Status::Unavailable(
               fmt::format("bench {} needs at least two GPUs: only one is visible ({}), so there is nothing to exchange data with", kind, name),
               "gpuprobe bench --backend cuda measures this GPU alone")
        .WithKeys("collectives.error.one_gpu", {{"verb", kind}, {"name", name}}, "collectives.error.one_gpu.hint");
  }
  return core::Status::Ok();
}

MultiGpuMachine DescribeMachine(const GpuInventory& inventory, const std::string& kind) {
  MultiGpuMachine out;
  out.gpus = static_cast<int>(inventory.devices.size());
  if (!MultiGpuBlocked(inventory, kind).ok()) {
    // The short reason (the long one, with its hint, is the run's exit-3 message).
    if (inventory.devices.size() == 1) {
      out.blocked_reason = {"collectives.plan.why_one_gpu", {{"name", inventory.devices[0].name}}};
    } else {
      core::Status why = Absence(inventory);
      out.blocked_reason = {GpuAbsenceReasonKey(GpuAbsenceId(why)), {{"detail", why.message()}}};
    }
    return out;
  }
  std::uint64_t min_free = 0;
  bool known = true;
  for (const auto& d : inventory.devices) {
    if (d.memory_free_bytes == 0) known = false;
    min_free = min_free == 0 ? d.memory_free_bytes : std::min(min_free, d.memory_free_bytes);
  }
  out.min_free_bytes = known ? min_free : 0;
  return out;
}

core::Result<MultiGpuOutcome> RunMultiGpuPipeline(MultiGpuHost& host, const MultiGpuRequest& request,
                                                  const std::function<void(const CollectiveProgress&)>& progress) {
  const bool collectives = request.kind == "collectives";
  if (!collectives && !request.names.empty()) {
    return core::Status::InvalidArgument("bench p2p takes no further names").WithKeys("collectives.error.p2p_args", {});
  }
  GpuInventory inventory = host.ListDevices();
  MultiGpuOutcome out;
  out.machine = DescribeMachine(inventory, request.kind);
  if (!inventory.devices.empty()) out.first_gpu_name = inventory.devices.front().name;
  // A machine that cannot run plans for no GPUs: the plan shows what would run, not sizes for a
  // machine it does not have.
  const int gpus = out.machine.blocked_reason.empty() ? out.machine.gpus : 0;
  if (collectives) {
    CollectivesPlan plan = MakeCollectivesPlan(gpus, out.machine.min_free_bytes);
    GPUPROBE_ASSIGN_OR_RETURN(plan.collectives, Select(plan, request.names));
    out.collectives_plan = plan;
  } else {
    out.p2p_plan = MakeP2pPlan(gpus);
  }
  if (request.dry_run) return out;
  GPUPROBE_RETURN_IF_ERROR(MultiGpuBlocked(inventory, request.kind));
  if (collectives) {
    GPUPROBE_ASSIGN_OR_RETURN(out.collectives, host.RunCollectives(*out.collectives_plan, Indices(inventory), progress));
  } else {
    GPUPROBE_ASSIGN_OR_RETURN(out.p2p, host.RunP2p(*out.p2p_plan, Indices(inventory)));
  }
  return out;
}

}  // namespace gpuprobe::bench
