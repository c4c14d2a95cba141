// What a healthy card of a kind measures, without the card: the spec-sheet peaks of a GPU
// (the spec database) times the share of them that published runs of the same benchmark reach
// (the normal ranges, data/knowledge/normal_ranges.json, sourced in docs/normal-ranges.md),
// or, where no range is published, the model's own expectation, said as such. `gpus show`
// prints them, with when to worry; `bench` judges a measured result against the same ranges
// (bench/normal_ranges.h).
//
// Thread safety: pure functions over the embedded tables.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/gpu_spec.h"

namespace gpuprobe::app {

/// One figure a healthy card reaches.
struct HealthyFigure {
  std::string id;          ///< "memory_bandwidth", "pinned_copy", "dense_gemm_bf16"
  std::string benchmark;   ///< the bench id that measures it on the card ("memory.triad")
  std::string unit;        ///< "B/s" or "FLOP/s"
  double peak = 0;         ///< the spec-sheet peak, in `unit`
  double low_share = 0;    ///< the share of the peak a healthy card reaches, low end
  double high_share = 0;   ///< high end (equal to low_share for a single expected value)
  /// Where the shares come from: a published range's source, or empty when they are the
  /// model's expectation (no published range).
  std::string source;
  /// Why a result below the low end may be low: texts "gpus.healthy.worry.<it>".
  std::string worry;
  std::string summary_en, summary_zh;  ///< the source's finding in each language (may be empty)
  /// This GPU's own best published run as a share of its peak (0: none listed); it caps
  /// high_share.
  double own_best = 0;
  double Low() const { return peak * low_share; }
  double High() const { return peak * high_share; }
  bool published() const { return !source.empty(); }
};

/// The figures for `gpu`: memory stream bandwidth, pinned PCIe copies per direction, dense
/// BF16 GEMM; each only where the spec gives its peak (and, for the ranges, where the table
/// has the range).
std::vector<HealthyFigure> HealthyFigures(const model::GpuSpec& gpu);

}  // namespace gpuprobe::app
