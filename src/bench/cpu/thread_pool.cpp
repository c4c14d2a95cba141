#include "bench/cpu/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace gpuprobe::bench {
namespace {

// One spin step: tells the core this is a wait loop (saves power, frees the sibling
// hyperthread) without giving the time slice away.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace

bool PinCurrentThread(int cpu) {
  if (cpu < 0) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

ThreadPool::ThreadPool(std::vector<int> cpu_ids) : cpu_ids_(std::move(cpu_ids)) {
  if (cpu_ids_.empty()) cpu_ids_.push_back(-1);
  if (cpu_ids_.size() > 0xffff) cpu_ids_.resize(0xffff);  // the worker count shares a word with the generation
  PinCurrentThread(cpu_ids_[0]);
  for (size_t i = 1; i < cpu_ids_.size(); ++i) {
    threads_.emplace_back([this, i] { WorkerLoop(static_cast<int>(i)); });
  }
}

ThreadPool::~ThreadPool() {
  Publish(0);  // a region of no workers: the stop signal
  for (auto& t : threads_) t.join();
  // Give the caller back the whole machine.
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

void ThreadPool::Publish(int active) {
  ++generation_;
  state_.store((generation_ << 16) | static_cast<std::uint64_t>(active));
  if (sleepers_.load() > 0) {
    // Taking the mutex orders this notify after a parking worker's predicate check.
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_.notify_all();
  }
}

std::uint64_t ThreadPool::AwaitChange(std::uint64_t seen) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kSpinSeconds);
  for (int spins = 0;; ++spins) {
    std::uint64_t now = state_.load(std::memory_order_acquire);
    if (now != seen) return now;
    CpuRelax();
    // Read the clock only every 64 spins: it costs more than a spin step.
    if ((spins & 63) == 63 && std::chrono::steady_clock::now() > deadline) break;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  sleepers_.fetch_add(1);
  wake_.wait(lock, [&] { return state_.load() != seen; });
  sleepers_.fetch_sub(1);
  return state_.load();
}

void ThreadPool::WorkerLoop(int index) {
  PinCurrentThread(cpu_ids_[static_cast<size_t>(index)]);
  std::uint64_t seen = 0;
  while (true) {
    seen = AwaitChange(seen);
    int active = static_cast<int>(seen & 0xffff);
    if (active == 0) return;
    if (index < active) {
      (*task_)(index);
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
}

void ThreadPool::Run(int count, const std::function<void(int)>& fn) {
  count = std::clamp(count, 1, size());
  if (count == 1) {
    fn(0);
    return;
  }
  task_ = &fn;
  remaining_.store(count - 1, std::memory_order_relaxed);
  Publish(count);
  fn(0);
  // Workers finish within the region's own time; spinning keeps the end time exact.
  for (int spins = 0; remaining_.load(std::memory_order_acquire) > 0; ++spins) {
    if (spins < 4096) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace gpuprobe::bench
