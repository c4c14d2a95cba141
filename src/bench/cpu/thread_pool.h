// A fixed pool of worker threads, each pinned to one CPU, that runs one function on N
// workers and waits for all: the parallel region every CPU benchmark times. Worker 0 is the
// calling thread, so a region with one worker has no hand-off at all.
//
// Between regions a worker spins for a short while (kSpinSeconds) before it parks on a
// condition variable, as OpenMP runtimes do: back-to-back regions then start in about a
// microsecond instead of the 10-30 us an OS wake-up costs, and an idle pool still sleeps.
//
// Thread safety: Run() must be called from the thread that created the pool.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuprobe::bench {

class ThreadPool {
 public:
  /// How long an idle worker spins before it parks (libgomp spins for a comparable time).
  static constexpr double kSpinSeconds = 200e-6;

  /// One worker per entry of `cpu_ids` (the OS CPU numbers to pin to; -1 = do not pin).
  explicit ThreadPool(std::vector<int> cpu_ids);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(cpu_ids_.size()); }
  /// The OS CPU numbers the workers are pinned to (-1 = not pinned).
  const std::vector<int>& cpu_ids() const { return cpu_ids_; }
  /// Runs fn(worker) for worker = 0 .. count-1 in parallel (count is clamped to size()) and
  /// returns when all have finished.
  void Run(int count, const std::function<void(int)>& fn);

 private:
  void WorkerLoop(int index);
  /// Waits until state_ differs from `seen`: spins, then parks. Returns the new state.
  std::uint64_t AwaitChange(std::uint64_t seen);
  /// Publishes a region of `active` workers (0 = stop) and wakes parked workers.
  void Publish(int active);

  std::vector<int> cpu_ids_;
  std::vector<std::thread> threads_;
  // The hand-off. state_ holds (generation << 16) | active workers in one word, so a worker
  // that was not needed in one region can never mix its count with the next region's. Run()
  // writes task_ before it publishes the state; only active workers read task_, and the next
  // Run() cannot start before they have finished. A worker announces in sleepers_ that it is
  // about to park; Run() bumps state_ and then reads sleepers_ (both seq_cst), so one side
  // always sees the other and no wake-up is lost.
  std::uint64_t generation_ = 0;  ///< Run()'s own count (the caller's thread only)
  std::atomic<std::uint64_t> state_{0};
  std::atomic<int> sleepers_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(int)>* task_ = nullptr;
  std::atomic<int> remaining_{0};
};

/// Pins the calling thread to OS CPU `cpu`; false when the OS refuses.
bool PinCurrentThread(int cpu);

}  // namespace gpuprobe::bench
