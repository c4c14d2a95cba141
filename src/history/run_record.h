// A recorded bench run: who ran what where, and every result with its value and the spread
// behind it (from the p10/p90 sample times), taken from a bench document (the one owner of
// the bench JSON is bench/bench_document.h). Pure: no I/O.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "bench/bench_document.h"

namespace gpuprobe::history {

struct RecordedResult {
  std::string key;       ///< "memory.triad|cpu|all threads": id, backend, case
  std::string id, backend, case_label;
  std::string metric;    ///< bandwidth, flops, ops, latency
  std::string unit;      ///< B/s, FLOP/s, op/s, s
  int threads = 0;       ///< worker threads the case ran with (0 = not recorded)
  double value = 0;
  double low = 0, high = 0;  ///< the value at the p90 and p10 sample times (the spread)
  bool noisy = false;
  bool higher_is_better() const { return metric != "latency"; }
};

struct RunRecord {
  long long id = 0;          ///< assigned by the store
  std::string recorded_at;   ///< ISO 8601 UTC
  std::string host, cpu, gpus, mode, version;
  std::vector<RecordedResult> results;
};

/// The record of a bench run. Results that were skipped, failed or not verified are left out
/// (they have no value to compare).
RunRecord RunFromBenchDocument(const bench::BenchDocument& document);

}  // namespace gpuprobe::history
