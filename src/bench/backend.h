// Backends run benchmarks: the CPU (always) and CUDA (where built and a driver exists).
// Lifecycle after ggml: the registry holds Backends; a Backend probes without failing and
// opens a BackendContext on one device; benchmarks prepare their buffers on a context.
//
// Thread safety: a Backend may be probed from any thread; a BackendContext belongs to the
// thread that opened it (it may run its own worker threads internally).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::bench {

/// Whether something can run here; never an error (a missing GPU is a reason, not a failure).
struct Availability {
  bool available = false;
  std::string reason;  ///< one sentence when unavailable, e.g. "no NVIDIA driver found"
  std::string hint;    ///< what to install or run
  core::TextRef reason_text{};  ///< the reason as a text key ("bench.skip.*"); empty: English only

  static Availability Yes() { return {true, "", "", {}}; }
  static Availability No(std::string reason, std::string hint = {}) {
    return {false, std::move(reason), std::move(hint), {}};
  }
  /// No, with the reason's text key and arguments for views in other languages.
  static Availability NoKeyed(std::string reason, std::string key, core::MessageArgs args = {}) {
    return {false, std::move(reason), {}, {std::move(key), std::move(args)}};
  }
};

struct DeviceInfo {
  std::string backend;          ///< "cpu", "cuda"
  int index = 0;
  std::string name;             ///< "AMD EPYC 9654", "NVIDIA H200"
  std::string pci_bus_id;       ///< "0000:01:00.0"; empty for the CPU
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_free_bytes = 0;
};

/// The device's state sampled right after a case's timed runs (GPU: clocks, power,
/// temperature and throttle reasons through NVML).
struct DeviceSample {
  std::string note;       ///< "SM 1980 MHz, 612 W, 58 C"; empty when nothing was sampled
  double clock_hz = 0;    ///< the compute clock then, 0 when unknown
  bool throttled = false; ///< a thermal limit or a hardware slowdown was holding the clocks down
  /// The board was at its power limit (NVML's SW power cap): the normal state of a GPU
  /// under sustained tensor load, reported as information, not as throttling.
  bool power_capped = false;
  double power_w = 0;     ///< board power draw then, 0 when unknown
};

class BackendContext {
 public:
  virtual ~BackendContext() = default;
  /// Samples the device after a case (default: nothing to sample, as on the CPU).
  virtual DeviceSample Sample() { return {}; }
  /// "cpu" or "cuda".
  virtual std::string BackendName() const = 0;
  virtual const DeviceInfo& Device() const = 0;
  /// Worker threads (CPU) or 0 where the notion does not apply.
  virtual int Threads() const { return 0; }
  /// The user's --seconds (0 = not given): a sustained-load benchmark (burn) runs this long.
  double requested_seconds() const { return requested_seconds_; }
  void set_requested_seconds(double seconds) { requested_seconds_ = seconds; }

 private:
  double requested_seconds_ = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  /// Whether the backend can run on this machine, with the reason when not.
  virtual Availability Probe() const = 0;
  /// Opens a context on device `index`. Unavailable when Probe() says no.
  virtual core::Result<std::unique_ptr<BackendContext>> Open(int index) = 0;
};

/// The backends of this build in a fixed order (cpu first), filled by RegisterCpuBackend and
/// RegisterCudaBackend; passed around, never global.
class BackendRegistry {
 public:
  void Add(std::unique_ptr<Backend> backend) { backends_.push_back(std::move(backend)); }
  const std::vector<std::unique_ptr<Backend>>& backends() const { return backends_; }
  Backend* Find(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<Backend>> backends_;
};

}  // namespace gpuprobe::bench
