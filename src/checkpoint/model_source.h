// Where `plan --model X` finds its model: a config.json (or '-'), a checkpoint directory
// (config.json + safetensors headers), a Hub cache snapshot, a .gguf file, a Hub id in the
// local Hub cache, or the checked-in catalogue, in that order; "did you mean" otherwise. The
// reading is here; the parsing is model/'s (hf_config, safetensors_header, gguf).
//
// Thread safety: reads files and the environment; no shared state.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_files.h"

#include "core/status.h"
#include "model/model_catalog.h"
#include "model/hf_template_shape.h"
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
  std::string found_in;    ///< "file", "directory", "hub_cache", "hub", "catalog", "gguf", "stdin"
  std::string catalog_source;  ///< URL of the catalogue entry's config
  std::optional<model::CatalogMatch> catalog_match;  ///< how a name resolved to the catalogue entry
  std::optional<CheckpointSummary> checkpoint;
};

/// One safetensors shard's header, read on demand: from the shard file, or from a header saved
/// when the shard itself was never downloaded.
struct HeaderSource {
  std::string path;  ///< named in messages
  std::function<core::Result<HeaderBytes>()> read;
};

/// How config.json text is read: with transformers' structure and defaults when `hf` is given
/// (model/hf_template_shape.h), else by the recipes alone.
core::Result<model::ModelShape> ShapeFromConfig(const std::string& text, const std::string& label,
                                                const model::HfKnowledge* hf);

/// A model whose config.json and shard headers are at hand (a checkpoint directory, or a Hub
/// snapshot holding saved headers): the shape from the config, the count from the headers.
core::Result<ModelSource> FromConfigAndHeaders(const std::string& config_path, const std::string& label,
                                               const std::string& found_in, const std::vector<HeaderSource>& headers,
                                               const model::HfKnowledge* hf);

/// What is on this machine: '-', a path (config.json, directory, .gguf) or a Hub id whose
/// snapshot huggingface_hub left in the local cache. nullopt when `model` is none of these.
core::Result<std::optional<ModelSource>> ResolveLocalModel(const std::string& model, const model::HfKnowledge* hf);

/// The model of a catalogue match, saying how the name resolved.
core::Result<ModelSource> FromCatalog(const model::CatalogMatch& match, const model::HfKnowledge* hf);

/// InvalidArgument for a name that nothing resolves: the cache roots looked in, the size of the
/// catalogue and up to three close ids. `hub_problem`, when set, says why the Hub was not asked
/// or could not answer.
core::Status ModelNotFound(const std::string& model, const std::vector<model::CatalogEntry>& catalog,
                           const std::string& hub_problem = {});

/// Offline resolution: ResolveLocalModel, then the catalogue (MatchCatalogEntry), else
/// ModelNotFound. The parsers' errors otherwise.
core::Result<ModelSource> ResolveModel(const std::string& model, const std::vector<model::CatalogEntry>& catalog,
                                       const model::HfKnowledge* hf = nullptr);

}  // namespace gpuprobe::checkpoint
