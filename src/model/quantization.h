// Reads the quantisation a checkpoint was saved with from its config.json:
// quantization_config with quant_method fp8 (block-wise scales), gptq, awq, bitsandbytes
// (4-bit NF4/FP4 with or without double quantisation, 8-bit), compressed-tensors
// (pack-quantized / float-quantized groups), and MLX's quantization {group_size, bits}.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/model_shape.h"

namespace gpuprobe::model {

/// The scheme described by `root` (the top-level config object); nullopt when it has none.
/// InvalidArgument naming the field for a malformed value (bits of 0 or 64, a negative group);
/// an unknown quant_method is returned with bits = 16 and method "unknown:<name>", so the plan
/// says it was not understood rather than guessing.
core::Result<std::optional<WeightQuant>> ParseQuantizationConfig(const nlohmann::json& root, const std::string& label);

/// Parameters a quantised checkpoint stores at `q`'s width and those it keeps in 16 bits.
/// Starts from count.linear / count.kept_16bit (the linear layers quantised; embeddings, head,
/// norms and routers kept; MLX quantises the embeddings too) and moves what q.kept names, layer
/// by layer, from the first to the second.
struct QuantSplit {
  double quantized = 0;
  double kept = 0;
};
QuantSplit SplitForQuant(const ModelShape& shape, const ParamCount& count, const WeightQuant& q);

}  // namespace gpuprobe::model
