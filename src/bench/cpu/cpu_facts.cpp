#include "bench/cpu/cpu_facts.h"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "core/file_io.h"
#include "core/strings.h"
#include "core/subprocess.h"
#include "model/cpu_identity.h"

namespace gpuprobe::bench {
namespace {

bool HasFlag(const std::vector<std::string>& flags, const char* flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// One block of 256 dependent adds: 256 cycles on any core that retires one dependent add
// per cycle (all x86 and Arm cores since the 2000s). Register + register, not + immediate:
// recent x86 cores (Intel Golden Cove and later) fold chains of immediate adds at rename,
// several per cycle, which made the probe read 4-5x the real clock.
inline void AddChain(unsigned long* x) {
#if defined(__x86_64__)
  __asm__ volatile(".rept 256\n\tadd %0, %0\n\t.endr" : "+r"(*x));
#elif defined(__aarch64__)
  __asm__ volatile(".rept 256\n\tadd %0, %0, #1\n\t.endr" : "+r"(*x));
#else
  (void)x;
#endif
}

constexpr bool kHaveProbe =
#if defined(__x86_64__) || defined(__aarch64__)
    true;
#else
    false;
#endif

}  // namespace

double ProbeClockOnce(double seconds) {
  if (!kHaveProbe) return 0;
  unsigned long x = 0;
  unsigned long blocks = 0;
  auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 64; ++i) AddChain(&x);
    blocks += 64;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  return static_cast<double>(blocks) * 256.0 / elapsed;
}

double MeasureClockUnderLoad(ThreadPool& pool, int workers, double seconds) {
  if (!kHaveProbe) return 0;
  std::vector<double> clocks(static_cast<size_t>(std::max(1, workers)), 0.0);
  // Several short probes per worker, all workers at once (the all-core clock). Another
  // process can only make a probe look slower (a preempted slice), never faster, so the
  // high end of the samples is the clock: the 90th percentile, which also ignores one odd
  // probe at the top.
  std::vector<double> samples;
  std::mutex mutex;
  pool.Run(workers, [&](int w) {
    std::vector<double> mine;
    for (int i = 0; i < 9; ++i) mine.push_back(ProbeClockOnce(seconds / 9));
    std::lock_guard<std::mutex> lock(mutex);
    samples.insert(samples.end(), mine.begin(), mine.end());
    (void)w;
  });
  std::sort(samples.begin(), samples.end());
  return samples.empty() ? 0 : samples[samples.size() * 9 / 10];
}

double PlausibleClockHz(double measured_hz, double max_hz) {
  // No shipping core runs above 6.5 GHz; a virtual machine reports its nominal clock as the
  // maximum while the core turbos well above it (2.3 GHz reported, 3.5 GHz measured), so only
  // a reading far beyond it (2.5x) is the probe fooled by the core rather than a fast clock.
  constexpr double kFastestCoreHz = 6.5e9;
  if (measured_hz <= 0 || measured_hz > kFastestCoreHz) return 0;
  if (max_hz > 0 && measured_hz > 2.5 * max_hz) return 0;
  return measured_hz;
}

std::vector<int> WorkerCpuIds(int max_workers) {
  std::vector<int> cores_first, siblings;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) == 0 && hwloc_topology_load(topology) == 0) {
    int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    for (int c = 0; c < cores; ++c) {
      hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
      int pu_index = 0;
      for (int p = 0;; ++p) {
        hwloc_obj_t pu = hwloc_get_obj_inside_cpuset_by_type(topology, core->cpuset, HWLOC_OBJ_PU, static_cast<unsigned>(p));
        if (pu == nullptr) break;
        (pu_index++ == 0 ? cores_first : siblings).push_back(static_cast<int>(pu->os_index));
      }
    }
    hwloc_topology_destroy(topology);
  }
  if (cores_first.empty()) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 0; i < std::max(1L, n); ++i) cores_first.push_back(i);
  }
  cores_first.insert(cores_first.end(), siblings.begin(), siblings.end());
  if (max_workers > 0 && static_cast<int>(cores_first.size()) > max_workers) cores_first.resize(static_cast<size_t>(max_workers));
  return cores_first;
}

model::CpuSpec DetectCpuSpec() {
  model::CpuSpec spec;
  auto cpuinfo = core::ReadSystemFile("/proc/cpuinfo", 8 << 20);
  if (cpuinfo.ok()) {
    model::CpuIdentity id = model::ParseCpuInfo(*cpuinfo);
    spec.model_name = id.model_name;
    spec.vendor = id.vendor;
    spec.family = id.family;
    spec.model_number = id.model_number;
    spec.logical_cpus = std::max(1, id.logical_cpus);
    spec.physical_cores = id.physical_cores.value_or(spec.logical_cpus);
    spec.sockets = id.sockets.value_or(1);
    spec.has_avx2 = HasFlag(id.flags, "avx2");
    spec.has_fma = HasFlag(id.flags, "fma") || HasFlag(id.flags, "asimd");
    spec.has_avx512f = HasFlag(id.flags, "avx512f");
    spec.has_avx512_bf16 = HasFlag(id.flags, "avx512_bf16");
    spec.has_avx512_fp16 = HasFlag(id.flags, "avx512_fp16");
    spec.has_amx = HasFlag(id.flags, "amx_tile");
    spec.has_neon = HasFlag(id.flags, "asimd");
    if (id.max_mhz) spec.max_clock_hz = *id.max_mhz * 1e6;
  }
  auto meminfo = core::ReadSystemFile("/proc/meminfo");
  if (meminfo.ok()) {
    model::CpuIdentity id;
    model::AddMemInfo(*meminfo, &id);
    if (id.memory_total_bytes) spec.memory_total_bytes = static_cast<std::uint64_t>(*id.memory_total_bytes);
  }
  auto max_freq = core::ReadSystemFile("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (max_freq.ok()) {
    if (auto khz = core::ParseDouble(*max_freq)) spec.max_clock_hz = *khz * 1e3;
  }

  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) == 0 && hwloc_topology_load(topology) == 0) {
    int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    int pus = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    int packages = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE);
    int numa = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
    if (cores > 0) spec.physical_cores = cores;
    if (pus > 0) spec.logical_cpus = pus;
    if (packages > 0) spec.sockets = packages;
    if (numa > 0) spec.numa_nodes = numa;
    auto cache = [&](hwloc_obj_type_t type, std::uint64_t* size, std::uint64_t* total) {
      int n = hwloc_get_nbobjs_by_type(topology, type);
      for (int i = 0; i < n; ++i) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topology, type, static_cast<unsigned>(i));
        if (obj->attr == nullptr) continue;
        if (i == 0) *size = obj->attr->cache.size;
        if (total) *total += obj->attr->cache.size;
      }
    };
    std::uint64_t unused = 0;
    cache(HWLOC_OBJ_L1CACHE, &spec.l1d_bytes, nullptr);
    cache(HWLOC_OBJ_L2CACHE, &spec.l2_bytes, &unused);
    cache(HWLOC_OBJ_L3CACHE, &spec.l3_bytes, &spec.l3_total_bytes);
    hwloc_topology_destroy(topology);
  }

  core::SubprocessOptions options;
  options.timeout_seconds = 3;
  auto dmi = core::RunSubprocess({"dmidecode", "-t", "memory"}, options);
  if (dmi.ok() && dmi->exit_code == 0) {
    spec.dram_bandwidth_bytes_per_s = model::DramPeakFromDmidecode(dmi->stdout_text, &spec.dram_basis, &spec.dram_basis_text);
  } else {
    spec.dram_basis = "unknown: dmidecode is not installed or not permitted, so the configured memory speed cannot be read";
    spec.dram_basis_text = {"bench.dram.no_dmidecode", {}};
  }
  return spec;
}

}  // namespace gpuprobe::bench
