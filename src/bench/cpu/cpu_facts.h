// Detects the CPU facts predictions use: model and vendor (/proc/cpuinfo), cores, NUMA nodes
// and caches (hwloc), the highest clock the OS reports (sysfs), the DRAM configuration where
// SMBIOS tells it (dmidecode), and the clock actually running under load (measured).
//
// Thread safety: call from one thread; MeasureClockUnderLoad pins the pool's workers.
#pragma once

#include <vector>

#include "bench/cpu/thread_pool.h"
#include "model/cpu_spec.h"

namespace gpuprobe::bench {

/// Everything but the measured clock. Missing sources leave fields at their defaults.
model::CpuSpec DetectCpuSpec();

/// OS CPU numbers for one worker per physical core (SMT siblings after all cores), from hwloc.
std::vector<int> WorkerCpuIds(int max_workers);

/// Runs a chain of dependent integer adds (one per cycle on every modern core) on `workers`
/// workers at once for about `seconds` and returns the median clock in Hz; 0 on architectures
/// without the probe.
double MeasureClockUnderLoad(ThreadPool& pool, int workers, double seconds);
/// `measured_hz` when it is a clock a core can run at: 0 (not measured) above 6.5 GHz or above
/// 2.5x the maximum the OS reports (`max_hz`, 0 when unknown; a virtual machine reports its
/// nominal clock), which a probe reads on a core that runs its chain faster than one add per cycle.
double PlausibleClockHz(double measured_hz, double max_hz);

/// Cycles of the probe's dependent add chain run on the calling thread: returns
/// (cycles, seconds) so callers can interleave it with other work.
double ProbeClockOnce(double seconds);

}  // namespace gpuprobe::bench
