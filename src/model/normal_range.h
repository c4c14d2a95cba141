// One entry of the table of what real systems reach (data/knowledge/normal_ranges.json): the
// efficiency range published runs of a kind of benchmark land in, and its parser. The table
// is embedded and parsed once by knowledge/embedded_knowledge.h; bench/normal_ranges.h judges
// a result against it.
//
// Thread safety: plain values and a pure function.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

struct NormalRange {
  std::vector<std::string> ids;  ///< the benchmarks it applies to
  std::string backend;           ///< "cpu" or "cuda"
  std::string case_label;        ///< only this case ("all threads"); empty = every case
  double low = 0, high = 0;      ///< efficiency (measured / predicted) real systems reach
  std::string source;            ///< where the figures come from
  std::string low_reason;        ///< "memory" or "matmul": texts bench.normal.low_reason.<it>
  /// What the source shows, in each language (the source itself is quoted as written).
  std::string summary_en, summary_zh;
  /// A GPU's own best published run, where the source lists one: the GPU names that contain
  /// `match` ("H100 SXM") reach at most `best` of the peak (it caps that GPU's high end).
  struct GpuBest {
    std::string match;
    double best = 0;
  };
  std::vector<GpuBest> best_by_gpu;
};

/// Parses the table (the embedded file's text); ParseError naming the entry and field.
core::Result<std::vector<NormalRange>> ParseNormalRanges(const std::string& json_text, const std::string& label);

}  // namespace gpuprobe::model
