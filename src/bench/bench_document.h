// BenchDocument: one bench run as every verb sees it: `bench` prints it and saves it, the
// tour and `report` summarise it, `history` records it, `advise --cpu-results` reads it. This
// file is its one owner: the JSON form (schema gpuprobe.bench.v1) is written and read only
// here, so a reader never walks the JSON by hand and a field means the same everywhere.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/result.h"
#include "core/status.h"
#include "model/cpu_spec.h"

namespace gpuprobe::bench {

/// The schema this build writes and reads. Readers accept every v1 document: fields added
/// since are optional and default to "unknown".
inline constexpr const char* kBenchSchema = "gpuprobe.bench.v1";

struct BenchDocument {
  std::string gpuprobe_version;         ///< the version that measured (ours when made here)
  model::CpuSpec cpu;                   ///< the CPU facts the predictions used
  std::vector<std::string> gpus;        ///< "GPU 0: NVIDIA H200", one per GPU measured
  std::string gpu_absent_reason;        ///< why no GPU was measured (empty when one was, or not asked)
  std::vector<BenchResult> results;     ///< in run order
  bool full = false;                    ///< --full run (longer, complete sweeps)
  double wall_seconds = 0;              ///< the run's duration

  /// The results of `id` on `backend`, in run order.
  std::vector<const BenchResult*> ResultsOf(const std::string& id, const std::string& backend) const;
  /// Whether any result was measured on `backend` (skipped cases do not count).
  bool HasBackend(const std::string& backend) const;
  /// The one rule for "the measured figure" every reader uses (advise, the tour, report):
  /// among the results on `backend` whose id is `id` (or, for an `id` ending in '.', starts
  /// with it: "matmul.") and whose case starts with `case_prefix` (empty: any case), the
  /// verified, finite, positive one with the best value: the highest rate, the lowest latency.
  /// nullptr when there is none.
  const BenchResult* BestVerified(const std::string& id, const std::string& backend,
                                  const std::string& case_prefix = "") const;
};

/// Computes a result's one-line takeaway for the JSON (views own the texts); may be empty.
using TakeawayFunction = std::function<std::string(const BenchResult&)>;

/// The document as JSON (SI units, the unit in each key). `takeaway`, when given, fills each
/// result's "takeaway".
nlohmann::json BenchDocumentToJson(const BenchDocument& document, const TakeawayFunction& takeaway = nullptr);

/// Reads a document written by any v1 gpuprobe. ParseError naming `label` and the field
/// ("run.json: results[3].value must be a number or null") for a wrong schema, a missing
/// required field, a value of the wrong type or an absurd value; never throws.
core::Result<BenchDocument> BenchDocumentFromJson(const nlohmann::json& json, const std::string& label);

/// The CPU facts as JSON, with the figures derived from them (FMA pipes, peaks) for readers.
nlohmann::json CpuSpecToJson(const model::CpuSpec& cpu);

/// "bandwidth" -> kBandwidth, ...; empty for an unknown name.
std::optional<Metric> MetricFromName(const std::string& name);

}  // namespace gpuprobe::bench
