// Benchmark: one claim of the mental model, made measurable. Each benchmark has a stable id
// ("memory.triad"), declares the work of one iteration (bytes, FLOPs) so the model can predict
// it and the runner can turn time into a rate, and verifies its own results.
//
// A benchmark runs as one or more cases (sizes, thread counts, variants). For each case the
// runner prepares an instance (buffers filled, first-touched by their threads), times
// RunOnce() repeatedly, and then calls Verify().
//
// Thread safety: Benchmark objects are immutable after registration; instances belong to the
// runner's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/backend.h"
#include "core/status.h"
#include "model/cpu_spec.h"

namespace gpuprobe::bench {

enum class Metric {
  kBandwidth,   ///< bytes per second (bytes_read + bytes_written per iteration / time)
  kFlops,       ///< floating-point operations per second
  kOps,         ///< other operations per second (integer ops, items, work units)
  kLatency,     ///< seconds per item (time / items)
};

/// "B/s", "FLOP/s", "op/s", "s".
const char* MetricUnit(Metric metric);
/// "bandwidth", "flops", "ops", "latency".
const char* MetricName(Metric metric);

struct BenchmarkInfo {
  std::string id;           ///< stable "group.name", lower snake_case
  std::string group;        ///< "memory", "compute", ...
  std::string title;        ///< short, for tables
  std::string description;  ///< one line for `bench --list`
  std::string claim;        ///< the mental-model claim it demonstrates
  std::vector<std::string> backends;  ///< "cpu", "cuda"
  Metric metric = Metric::kBandwidth;
};

/// A benchmark's description with id = group + "." + name (the only id scheme in use).
BenchmarkInfo MakeBenchmarkInfo(std::string group, const std::string& name, std::string title, std::string description,
                                std::string claim, Metric metric, std::vector<std::string> backends = {"cpu"});

/// One measured configuration of a benchmark.
struct BenchCase {
  BenchCase() = default;
  BenchCase(std::string label_, std::uint64_t size_, int threads_, double param_, std::string variant_)
      : label(std::move(label_)), size(size_), threads(threads_), param(param_), variant(std::move(variant_)) {}

  std::string label;        ///< "all threads", "1 thread", "64 KiB", "n=1024"
  std::uint64_t size = 0;   ///< benchmark-defined: elements, bytes or matrix order
  int threads = 0;          ///< worker threads (0 = all the context has)
  double param = 0;         ///< benchmark-defined: stride, serial fraction, variant index
  std::string variant;      ///< benchmark-defined variant name ("naive", "openblas", ...)
  std::string backend;      ///< set by a benchmark that runs on several backends: whose case this is
};

/// Work of one iteration (one RunOnce()).
struct Work {
  double bytes_read = 0;
  double bytes_written = 0;
  double flops = 0;
  double ops = 0;           ///< for kOps metrics
  double items = 0;         ///< for kLatency metrics: dependent loads, launches, ...
  double Bytes() const { return bytes_read + bytes_written; }
};

struct Verification {
  bool verified = false;
  std::string detail;       ///< "every element matched", or what did not
  double checksum = 0;      ///< a value comparable across backends for the same inputs
};

/// A result measured earlier in the same run, for predictions relative to it.
struct EarlierResult {
  std::string id;
  std::string case_label;
  std::string backend;
  double value = 0;
  double param = 0;
  int threads = 0;
};

struct Prediction {
  std::optional<double> value;  ///< in the metric's unit; empty when the model cannot say
  std::string basis;            ///< the formula or reason, one line (English)
  core::TextRef basis_text{};   ///< the same as a text key (texts "bench.basis.*"); empty: English only
  /// The value is a comparison point measured in this run (an OpenMP region, a library
  /// called directly), not the model: beating it is a result, not a model error.
  bool anchor = false;
};

/// Every buffer one case holds while it runs, by where it lives: checked against the free
/// memory before a run (bench/memory_budget.h), so a --size too big is refused, not tried.
struct Footprint {
  double host_bytes = 0;    ///< the machine's RAM (pinned or pageable)
  double device_bytes = 0;  ///< the GPU's memory
};

/// What one case should cost by the model, for planning a run without running it
/// (scripts/gpu-check --dry-run): the runner's loop around it is modelled by run_estimate.h.
struct PlanEstimate {
  std::optional<double> seconds_per_iteration;  ///< one RunOnce; empty when the model cannot say
  double extra_seconds = 0;     ///< outside the runner's loop: a burn's load, the first walk of a cycle
  double host_elements = 0;     ///< elements the host fills or checks (Prepare, Verify)
  std::string basis;            ///< where the iteration time comes from
};

struct PredictionContext {
  const model::CpuSpec& cpu;
  const std::vector<EarlierResult>& earlier;
  /// The context the case runs on (GPU predictions read the device's figures from it).
  const BackendContext* context = nullptr;
  /// The earlier result of `id` with the same backend and (when non-empty) case label.
  const EarlierResult* Find(const std::string& id, const std::string& backend,
                            const std::string& case_label = {}) const;
};

class BenchmarkInstance {
 public:
  virtual ~BenchmarkInstance() = default;
  /// Runs one iteration and returns its duration in seconds on the backend's own clock
  /// (monotonic clock around a parallel region on the CPU; CUDA events on the GPU).
  virtual core::Result<double> RunOnce() = 0;
  /// Checks the outputs of the iterations run so far, outside any timed region.
  virtual Verification Verify() = 0;
  /// Extra facts measured during the run (e.g. "clock_hz"), 0 when absent.
  virtual double MeasuredClockHz() const { return 0; }
  /// A note for the result, e.g. "non-temporal stores", "AVX2 kernel".
  virtual std::string Note() const { return {}; }
  /// Test hook: damages the last results so Verify() must fail. Returns false when the
  /// instance has nothing to damage (tests then fail: every benchmark must support it).
  virtual bool CorruptForTest() { return false; }
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  virtual const BenchmarkInfo& Info() const = 0;
  /// The cases to run on `context`; `full` selects the long sweep. `size_override` (0 = none)
  /// replaces the default size where the benchmark has one.
  virtual std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec& cpu, bool full,
                                       std::uint64_t size_override) const = 0;
  /// Whether this case can run here (default: yes).
  virtual Availability Check(const BackendContext& context, const BenchCase& c) const;
  /// The work of one iteration.
  virtual Work WorkFor(const BenchCase& c) const = 0;
  /// The model's prediction, in the metric's unit.
  virtual Prediction Predict(const PredictionContext& context, const BenchCase& c) const = 0;
  /// The cost of `c` for a plan. Default: one iteration = the work over the predicted rate
  /// (or the predicted latency x items); empty without a prediction.
  virtual PlanEstimate Plan(const PredictionContext& context, const BenchCase& c) const;
  /// Every buffer `c` allocates on `context`; empty where the benchmark does not declare it
  /// (its buffers are small, or do not follow --size). Default: empty.
  virtual std::optional<Footprint> FootprintFor(const BackendContext& context, const BenchCase& c) const;
  /// Allocates and fills buffers for `c`.
  virtual core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context,
                                                                   const BenchCase& c) const = 0;
};

}  // namespace gpuprobe::bench
