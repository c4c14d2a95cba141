// A fixed pool of worker threads, each pinned to one CPU, that runs one function on N
// workers and waits for all: the parallel region every CPU benchmark times. Worker 0 is the
// calling thread, so a region with one worker has no hand-off at all.
//
// Thread safety: Run() must be called from the thread that created the pool.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuprobe::bench {

class ThreadPool {
 public:
  /// One worker per entry of `cpu_ids` (the OS CPU numbers to pin to; -1 = do not pin).
  explicit ThreadPool(std::vector<int> cpu_ids);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(cpu_ids_.size()); }
  /// Runs fn(worker) for worker = 0 .. count-1 in parallel (count is clamped to size()) and
  /// returns when all have finished.
  void Run(int count, const std::function<void(int)>& fn);

 private:
  void WorkerLoop(int index);

  std::vector<int> cpu_ids_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  unsigned long generation_ = 0;
  const std::function<void(int)>* task_ = nullptr;
  int active_ = 0;
  std::atomic<int> remaining_{0};
  bool stop_ = false;
};

/// Pins the calling thread to OS CPU `cpu`; false when the OS refuses.
bool PinCurrentThread(int cpu);

}  // namespace gpuprobe::bench
