// The CPU backend's context and the helpers every CPU benchmark uses: aligned buffers,
// partitioning over workers, pseudo-random fills first-touched by the worker that will use
// the data, and the timed parallel region.
//
// Thread safety: a CpuContext belongs to one thread (its pool runs the workers).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "bench/backend.h"
#include "bench/cpu/thread_pool.h"
#include "model/cpu_spec.h"

namespace gpuprobe::bench {

class CpuContext : public BackendContext {
 public:
  CpuContext(model::CpuSpec spec, std::vector<int> cpu_ids);
  std::string BackendName() const override { return "cpu"; }
  const DeviceInfo& Device() const override { return device_; }
  int Threads() const override { return pool_.size(); }
  ThreadPool& pool() { return pool_; }
  const model::CpuSpec& spec() const { return spec_; }
  void set_measured_clock_hz(double hz) { spec_.measured_clock_hz = hz; }
  /// The RAM free for a run (MemAvailable), 0 when unknown; bench/memory_budget.h reads it.
  void set_memory_free_bytes(std::uint64_t bytes) { device_.memory_free_bytes = bytes; }

 private:
  model::CpuSpec spec_;
  DeviceInfo device_;
  ThreadPool pool_;
};

/// Opens the CPU context with `threads` workers (0 = one per physical core), detecting the
/// CPU's facts.
std::unique_ptr<CpuContext> OpenCpuContext(int threads);

/// Whether the running CPU executes AVX2 and FMA (cpuid, at run time).
bool CpuHasAvx2Fma();
/// Whether it executes AVX-512F.
bool CpuHasAvx512();

/// A 2 MiB-aligned array (transparent huge pages where the kernel allows), uninitialised.
template <typename T>
class AlignedArray {
 public:
  AlignedArray() = default;
  explicit AlignedArray(std::size_t count) : count_(count) {
    void* p = AllocateAligned(count * sizeof(T));
    data_.reset(static_cast<T*>(p));
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return count_; }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }
  bool ok() const { return data_ != nullptr; }

 private:
  static void* AllocateAligned(std::size_t bytes);
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::size_t count_ = 0;
  std::unique_ptr<T, Free> data_;
};

void* AllocateAlignedBytes(std::size_t bytes);
template <typename T>
void* AlignedArray<T>::AllocateAligned(std::size_t bytes) {
  return AllocateAlignedBytes(bytes);
}

/// [begin, end) of worker `w` of `workers` over n elements, boundaries on multiples of 64.
void Partition(std::size_t n, int workers, int w, std::size_t* begin, std::size_t* end);

/// A deterministic pseudo-random value in [0, 1) for element i (splitmix64-based), so every
/// worker fills its own part (first touch) and any element can be recomputed to verify.
double RandomUnit(std::uint64_t seed, std::uint64_t i);

/// Times fn on `workers` workers of the pool: monotonic clock around the whole region.
double TimeParallel(ThreadPool& pool, int workers, const std::function<void(int)>& fn);

/// Fills `array` with RandomUnit(seed, i) * scale + offset, each worker its own part.
template <typename T>
void FillRandom(ThreadPool& pool, int workers, AlignedArray<T>& array, std::uint64_t seed, double scale = 1.0,
                double offset = 0.0) {
  pool.Run(workers, [&](int w) {
    std::size_t begin, end;
    Partition(array.size(), workers, w, &begin, &end);
    for (std::size_t i = begin; i < end; ++i) array[i] = static_cast<T>(RandomUnit(seed, i) * scale + offset);
  });
}

/// Out-of-memory as a Status naming what was being allocated.
/// `what` is the English name of the buffer (for the log), `what_key` its text key.
core::Status AllocationFailed(const std::string& what, const std::string& what_key, double bytes);

}  // namespace gpuprobe::bench
