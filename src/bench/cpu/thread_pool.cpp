#include "bench/cpu/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

namespace gpuprobe::bench {

bool PinCurrentThread(int cpu) {
  if (cpu < 0) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

ThreadPool::ThreadPool(std::vector<int> cpu_ids) : cpu_ids_(std::move(cpu_ids)) {
  if (cpu_ids_.empty()) cpu_ids_.push_back(-1);
  PinCurrentThread(cpu_ids_[0]);
  for (size_t i = 1; i < cpu_ids_.size(); ++i) {
    threads_.emplace_back([this, i] { WorkerLoop(static_cast<int>(i)); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    ++generation_;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
  // Give the caller back the whole machine.
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

void ThreadPool::WorkerLoop(int index) {
  PinCurrentThread(cpu_ids_[static_cast<size_t>(index)]);
  unsigned long seen = 0;
  while (true) {
    const std::function<void(int)>* task = nullptr;
    bool run = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (stop_) return;
      task = task_;
      run = index < active_;
    }
    if (run) {
      (*task)(index);
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &fn;
    active_ = count;
    remaining_.store(count - 1, std::memory_order_release);
    ++generation_;
  }
  start_.notify_all();
  fn(0);
  // The regions are milliseconds long; spinning (with yields) keeps the end time exact.
  while (remaining_.load(std::memory_order_acquire) > 0) std::this_thread::yield();
}

}  // namespace gpuprobe::bench
