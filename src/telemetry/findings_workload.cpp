// The work on the GPU: memory against processes ("allocated is not used": memory can be
// held by nobody visible, or by a job doing nothing), utilisation against the host ("a busy
// GPU is not a full one": GPU-Util counts time with any kernel), and the contradictions inside
// one capture that tell the operator something (power with no kernel, memory traffic with no
// kernel). Only compute jobs count (process_kind.h): a desktop's display server and windowed
// applications are not jobs.
#include <fmt/format.h>

#include "telemetry/findings_rules.h"
#include "telemetry/process_kind.h"

namespace gpuprobe::telemetry::rules {
namespace {

constexpr double kNearlyFull = 0.95;             // of usable memory
constexpr double kHeldShare = 0.10;              // of usable memory: "holds memory"
constexpr double kOneJobShare = 0.90;            // of used memory: one job holds it all
constexpr double kUnaccountedShare = 0.25;       // of used memory
constexpr double kVideoBusyPercent = 5;          // encoder/decoder above this: video work
constexpr double kStarvedVideoPercent = 30;
constexpr double kBusyNotBandwidthMemory = 20;   // memory util below this at >= 90% GPU-Util
constexpr double kBandwidthBoundMemory = 70;
constexpr double kFullyBusyPercent = 90;
constexpr double kPowerShareWithoutWork = 0.40;  // of the power limit, at <= 5% GPU-Util
constexpr double kMemoryBusyWithoutKernels = 20;
constexpr double kVideoEngineBusy = 50;          // encoder or decoder % that is the GPU's main work

// "python3, llama-server, ..." for the evidence: file names only, at most three.
std::string JobNames(const std::vector<const ProcessInfo*>& jobs) {
  std::string out;
  for (size_t i = 0; i < jobs.size() && i < 3; ++i) {
    std::string name = jobs[i]->name.empty() ? fmt::format("pid {}", jobs[i]->pid) : jobs[i]->name;
    size_t slash = name.find_last_of("/\\");
    if (slash != std::string::npos && slash + 1 < name.size()) name = name.substr(slash + 1);
    out += (out.empty() ? "" : ", ") + name;
  }
  if (jobs.size() > 3) out += ", ...";
  return out;
}

std::optional<double> KnownMemory(const std::vector<const ProcessInfo*>& processes) {
  double sum = 0;
  for (const auto* p : processes) {
    if (!p->used_memory_bytes) return std::nullopt;
    sum += *p->used_memory_bytes;
  }
  return sum;
}

// Whether the video engines are working: empty when neither is reported.
std::optional<double> VideoPercent(const Snapshot& s) {
  if (!s.utilization_encoder_percent && !s.utilization_decoder_percent) return std::nullopt;
  return std::max(s.utilization_encoder_percent.value_or(0), s.utilization_decoder_percent.value_or(0));
}

void CheckMemory(Judge& j) {
  const Snapshot& s = j.s;
  auto usable = UsableBytes(s);
  if (!s.memory_used_bytes || !usable || *usable <= 0) {
    j.NotJudged("memory_nearly_full", {"memory.used", "memory.total"});
    return;
  }
  double used = *s.memory_used_bytes;
  // A vGPU host hands each VM its framebuffer whole: full is how it is meant to look.
  bool vgpu_host = s.virtualization_mode == "Host VGPU";
  if (used / *usable >= kNearlyFull && !vgpu_host) {
    // One job holding nearly all of it is how frameworks that take the memory up front look
    // (TensorFlow, JAX, vLLM): by design, and no other job fits. Otherwise the next
    // allocation of whoever grows fails.
    const ProcessInfo* owner = nullptr;
    for (const auto* p : ComputeJobs(s)) {
      if (p->used_memory_bytes && *p->used_memory_bytes >= kOneJobShare * used) owner = p;
    }
    Finding& f = j.Raise("memory_nearly_full", owner ? Severity::kInfo : Severity::kWarn);
    Arg(&f, "used", GiB(used));
    Arg(&f, "usable", GiB(*usable));
    Arg(&f, "percent", OneDecimal(100 * used / *usable));
    j.Use(&f, "memory.used");
    j.Use(&f, "memory.total");
    j.Show(&f, "memory.reserved");
    if (owner) {
      f.variant = "one_job";
      Arg(&f, "names", JobNames({owner}));
      Arg(&f, "held", GiB(*owner->used_memory_bytes));
      f.facts.push_back({"process used_memory", fmt::format("{:.0f} MiB", *owner->used_memory_bytes / (1024.0 * 1024.0))});
    }
  }
  if (s.mig_enabled.value_or(false) || used < kGiB) return;  // under MIG, processes live in instances
  if (!s.processes_known) {
    j.NotJudged("memory_held_without_process", {"processes"});
    return;
  }
  if (s.processes.empty()) {
    Finding& f = j.Raise("memory_held_without_process", Severity::kWarn);
    Arg(&f, "used", GiB(used));
    j.Use(&f, "memory.used");
    j.Show(&f, "utilization.gpu");
    if (!s.graphics_processes_known) {
      f.missing.push_back("graphics processes");
      f.notes.push_back("graphics_processes_not_listed");
    }
    return;
  }
  std::vector<const ProcessInfo*> all;
  for (const auto& p : s.processes) all.push_back(&p);
  auto listed = KnownMemory(all);
  if (!listed) {
    // Windows (WDDM) and vGPU guests report no per-process memory: nothing to reconcile.
    j.NotJudged("memory_unaccounted", {"process used_memory"});
    return;
  }
  double unaccounted = used - *listed;
  if (unaccounted >= kGiB && unaccounted >= kUnaccountedShare * used) {
    Finding& f = j.Raise("memory_unaccounted", Severity::kInfo);
    Arg(&f, "unaccounted", GiB(unaccounted));
    Arg(&f, "used", GiB(used));
    Arg(&f, "listed", GiB(*listed));
    Arg(&f, "count", std::to_string(s.processes.size()));
    j.Use(&f, "memory.used");
    f.facts.push_back({"process used_memory (sum)", fmt::format("{:.0f} MiB", *listed / (1024.0 * 1024.0))});
    if (!s.graphics_processes_known) f.missing.push_back("graphics processes");
  }
}

// Kernels ran but nobody is listed: a job that just ended (GPU-Util looks back up to a
// second) or one this view cannot see (another container, a VM). A display or a game (a
// graphics process) explains it, so any listed process does.
void CheckBusyWithoutProcess(Judge& j) {
  const Snapshot& s = j.s;
  auto busy = IsBusy(s);
  if (!busy || !*busy || s.mig_enabled.value_or(false)) return;
  if (!s.processes_known) {
    j.NotJudged("busy_without_process", {"processes"});
    return;
  }
  if (!s.processes.empty() || !s.graphics_processes_known) return;
  Finding& f = j.Raise("busy_without_process", Severity::kInfo);
  Arg(&f, "util", Whole(*s.utilization_gpu_percent));
  Arg(&f, "used", s.memory_used_bytes ? GiB(*s.memory_used_bytes) : "?");
  j.Use(&f, "utilization.gpu");
  j.Use(&f, "memory.used");
  j.Show(&f, "power.draw");
}

void CheckIdleAndStarved(Judge& j) {
  const Snapshot& s = j.s;
  auto usable = UsableBytes(s);
  auto idle = IsIdle(s);
  auto video = VideoPercent(s);
  if (!s.processes_known) {
    bool could_hold = s.memory_used_bytes && usable && *s.memory_used_bytes >= kHeldShare * *usable;
    if (idle.value_or(true) && could_hold) j.NotJudged("memory_reserved_idle", {"processes"});
    bool partly_busy = s.utilization_gpu_percent && *s.utilization_gpu_percent > kIdlePercent && *s.utilization_gpu_percent < kBusyPercent;
    if (partly_busy) j.NotJudged("gpu_starved_by_host", {"processes"});
    return;
  }
  auto jobs = ComputeJobs(s);
  if (jobs.empty() || s.mig_enabled.value_or(false)) return;
  if (!idle) {
    j.NotJudged("memory_reserved_idle", {"utilization.gpu"});
    j.NotJudged("gpu_starved_by_host", {"utilization.gpu"});
    return;
  }
  double util = *s.utilization_gpu_percent;
  if (*idle) {
    if (video && *video > kVideoBusyPercent) return;  // the video engines are the work (NVENC/NVDEC)
    auto held = KnownMemory(jobs);
    bool estimated = !held;
    if (!held) held = s.memory_used_bytes;  // per-process memory not reported: the GPU's used memory
    if (!held || !usable || *held < kHeldShare * *usable) return;
    if (!video) {
      j.NotJudged("memory_reserved_idle", {"utilization.encoder", "utilization.decoder"});
      return;
    }
    Finding& f = j.Raise("memory_reserved_idle", Severity::kInfo);
    f.variant = estimated ? "estimated" : "";
    Arg(&f, "held", GiB(*held));
    Arg(&f, "count", std::to_string(jobs.size()));
    Arg(&f, "names", JobNames(jobs));
    Arg(&f, "util", Whole(util));
    j.Use(&f, "utilization.gpu");
    j.Use(&f, "utilization.encoder");
    j.Use(&f, "utilization.decoder");
    j.Use(&f, "memory.used");
    if (estimated) f.missing.push_back("process used_memory");
    else f.facts.push_back({"compute process used_memory (sum)", fmt::format("{:.0f} MiB", *held / (1024.0 * 1024.0))});
    return;
  }
  if (util >= kBusyPercent) return;
  // 5-30 %: a job holds the GPU but kernels run only part of the time, unless the work is
  // on the video engines (GPU-Util does not count NVENC/NVDEC).
  if (!video) {
    j.NotJudged("gpu_starved_by_host", {"utilization.encoder", "utilization.decoder"});
    return;
  }
  if (*video >= kStarvedVideoPercent) return;
  Finding& f = j.Raise("gpu_starved_by_host", Severity::kWarn);
  Arg(&f, "util", Whole(util));
  Arg(&f, "count", std::to_string(jobs.size()));
  Arg(&f, "names", JobNames(jobs));
  j.Use(&f, "utilization.gpu");
  j.Use(&f, "utilization.encoder");
  j.Use(&f, "utilization.decoder");
  j.Show(&f, "memory.used");
}

// Video work (NVENC/NVDEC) runs on its own engines, which GPU-Util does not count: a GPU
// encoding at full speed can read 7 %. Needs a process with a context, so a listed set of
// processes without any compute job settles it.
void CheckVideoEngines(Judge& j) {
  const Snapshot& s = j.s;
  auto busy = IsBusy(s);
  if (!busy || *busy) return;
  auto video = VideoPercent(s);
  if (!video) {
    if (s.processes_known && ComputeJobs(s).empty()) return;
    j.NotJudged("video_engine_busy", {"utilization.encoder", "utilization.decoder"});
    return;
  }
  if (*video < kVideoEngineBusy) return;
  Finding& f = j.Raise("video_engine_busy", Severity::kInfo);
  bool encoder = s.utilization_encoder_percent.value_or(0) >= s.utilization_decoder_percent.value_or(0);
  f.variant = encoder ? "encoder" : "decoder";
  Arg(&f, "video", Whole(*video));
  Arg(&f, "util", Whole(*s.utilization_gpu_percent));
  j.Use(&f, "utilization.gpu");
  j.Use(&f, encoder ? "utilization.encoder" : "utilization.decoder");
}

void CheckUtilisationShape(Judge& j) {
  const Snapshot& s = j.s;
  if (!s.utilization_gpu_percent) return;  // MIG and old cards: utilisation rules cannot start
  double util = *s.utilization_gpu_percent;
  if (util >= kFullyBusyPercent) {
    if (!s.utilization_memory_percent) {
      j.NotJudged("busy_not_bandwidth_bound", {"utilization.memory"});
      j.NotJudged("bandwidth_bound", {"utilization.memory"});
    } else if (*s.utilization_memory_percent < kBusyNotBandwidthMemory || *s.utilization_memory_percent >= kBandwidthBoundMemory) {
      bool bound = *s.utilization_memory_percent >= kBandwidthBoundMemory;
      Finding& f = j.Raise(bound ? "bandwidth_bound" : "busy_not_bandwidth_bound", Severity::kInfo);
      Arg(&f, "util", Whole(util));
      Arg(&f, "memory_util", Whole(*s.utilization_memory_percent));
      j.Use(&f, "utilization.gpu");
      j.Use(&f, "utilization.memory");
    }
  }
  if (util > kIdlePercent) return;
  // Contradictions of an idle GPU-Util.
  auto video = VideoPercent(s);
  if (!s.power_draw_watts || !s.power_limit_watts || *s.power_limit_watts <= 0) {
    j.NotJudged("power_without_utilization", {"power.draw", "power.limit"});
  } else if (*s.power_draw_watts >= kPowerShareWithoutWork * *s.power_limit_watts && !(video && *video > kVideoBusyPercent)) {
    Finding& f = j.Raise("power_without_utilization", Severity::kInfo);
    Arg(&f, "power", Whole(*s.power_draw_watts));
    Arg(&f, "limit", Whole(*s.power_limit_watts));
    Arg(&f, "percent", Whole(100 * *s.power_draw_watts / *s.power_limit_watts));
    Arg(&f, "util", Whole(util));
    j.Use(&f, "utilization.gpu");
    j.Use(&f, "power.draw");
    j.Use(&f, "power.limit");
    j.Show(&f, "pstate");
    j.Use(&f, "utilization.encoder");
  }
  if (!s.utilization_memory_percent) {
    j.NotJudged("memory_busy_without_kernels", {"utilization.memory"});
  } else if (*s.utilization_memory_percent >= kMemoryBusyWithoutKernels) {
    Finding& f = j.Raise("memory_busy_without_kernels", Severity::kInfo);
    Arg(&f, "memory_util", Whole(*s.utilization_memory_percent));
    Arg(&f, "util", Whole(util));
    j.Use(&f, "utilization.gpu");
    j.Use(&f, "utilization.memory");
    j.Show(&f, "display_active");
    j.Show(&f, "pcie.tx_throughput");
    j.Show(&f, "pcie.rx_throughput");
    if (s.display_active.value_or(false)) f.notes.push_back("display_active");
  }
}

}  // namespace

void CheckWorkload(Judge& judge) {
  CheckMemory(judge);
  CheckBusyWithoutProcess(judge);
  CheckIdleAndStarved(judge);
  CheckVideoEngines(judge);
  CheckUtilisationShape(judge);
}

void CheckConfiguration(Judge& j) {
  const Snapshot& s = j.s;
  // Persistence keeps the driver initialised between clients. A desktop's display server
  // already keeps it open, so it matters on headless machines only.
  bool desktop = s.display_active.value_or(false);
  for (const auto& p : s.processes) {
    ProcessKind kind = ClassifyProcess(p.type);
    desktop |= kind == ProcessKind::kGraphics || kind == ProcessKind::kComputeGraphics;
  }
  if (s.persistence_mode && !*s.persistence_mode && !desktop) {
    if (!s.processes_known) {
      // Without the process list a desktop (Xorg, a compositor) cannot be told from a server.
      j.NotJudged("persistence_off", {"processes"});
    } else {
      Finding& f = j.Raise("persistence_off", Severity::kInfo);
      j.Use(&f, "persistence_mode");
      j.Use(&f, "display_active");
    }
  }
  if (s.mig_enabled.value_or(false) && !s.utilization_gpu_percent) {
    Finding& f = j.Raise("mig_hides_utilization", Severity::kInfo);
    Arg(&f, "instances", std::to_string(s.mig_instances.size()));
    j.Use(&f, "mig.mode.current");
  }
}

}  // namespace gpuprobe::telemetry::rules
