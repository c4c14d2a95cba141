// Where `plan --model X` finds its model: a config.json (or '-'), a checkpoint directory
// (config.json + safetensors headers), a Hub cache snapshot, a .gguf file, a Hub id in the
// local Hub cache, or the checked-in catalogue, in that order; "did you mean" otherwise. The
// reading is here; the parsing is model/'s (hf_config, safetensors_header, gguf).
//
// Thread safety: reads files and the environment; no shared state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/model_catalog.h"
#include "model/model_shape.h"
#include "model/safetensors_header.h"

namespace gpuprobe::checkpoint {

/// What the checkpoint's own headers say, beside the recipe's count.
struct CheckpointSummary {
  std::string format;                 ///< "safetensors" or "gguf"
  std::vector<std::string> files;
  model::TensorTotals stored;         ///< every tensor as stored
  model::TensorTotals serving;        ///< without stored buffers and MTP layers: what serving loads
  std::int64_t buffers = 0;           ///< buffer tensors (rotary inv_freq, causal masks) left out
  double mtp_elements = 0;            ///< elements of layers past num_hidden_layers (DeepSeek MTP)
  bool quantized = false;             ///< packed or 8-bit tensors (safetensors: elements are not parameters)
  std::optional<bool> matches_recipe; ///< stored parameters == the recipe's count (unset when not comparable)
};

struct ModelSource {
  model::ModelShape shape;
  std::string label;       ///< shown as the model's source
  std::string found_in;    ///< "file", "directory", "hub_cache", "catalog", "gguf", "stdin"
  std::string catalog_source;  ///< URL of the catalogue entry's config
  std::optional<CheckpointSummary> checkpoint;
};

/// Resolves `model` (see above), looking ids up in `catalog` last. InvalidArgument naming the
/// path or the id (with suggestions from the catalogue) when nothing matches; the parsers'
/// errors otherwise.
core::Result<ModelSource> ResolveModel(const std::string& model, const std::vector<model::CatalogEntry>& catalog);

}  // namespace gpuprobe::checkpoint
