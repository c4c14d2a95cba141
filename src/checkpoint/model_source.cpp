#include "checkpoint/model_source.h"

#include <algorithm>

#include <fmt/format.h>

#include "checkpoint/checkpoint_files.h"
#include "core/file_io.h"
#include "core/input_limits.h"
#include "core/strings.h"
#include "model/gguf.h"
#include "model/gguf_shape.h"
#include "model/hf_config.h"

namespace gpuprobe::checkpoint {
namespace {

using core::Result;
using core::Status;

// A config.json is a few KiB; anything this large is not one.
constexpr std::uint64_t kMaxConfigBytes = 16 << 20;
constexpr size_t kMaxShards = 10000;

using core::EndsWith;

// A tensor of a layer past the model's last one: DeepSeek-V3 stores its MTP module as layer 61.
bool IsExtraLayer(const std::string& name, std::int64_t layers) {
  const std::string prefix = "model.layers.";
  if (name.rfind(prefix, 0) != 0) return false;
  std::int64_t index = 0;
  size_t i = prefix.size();
  if (i >= name.size() || name[i] < '0' || name[i] > '9') return false;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && index < (1 << 20); ++i) index = index * 10 + (name[i] - '0');
  return index >= layers;
}

bool QuantizedDtype(const std::string& dtype) {
  return dtype == "I32" || dtype == "U32" || dtype == "I8" || dtype == "U8" || dtype.rfind("F8", 0) == 0 ||
         dtype == "F4" || dtype.rfind("F6", 0) == 0 || dtype.rfind("Q", 0) == 0 || dtype.rfind("IQ", 0) == 0 ||
         dtype.rfind("TQ", 0) == 0 || dtype == "MXFP4";
}

void Compare(CheckpointSummary& c, const model::ModelShape& shape) {
  for (const auto& [dtype, totals] : c.serving.by_dtype) c.quantized = c.quantized || QuantizedDtype(dtype);
  // GGUF tensor infos give logical element counts even for quantised types; safetensors
  // stores packed integers, whose element counts are not parameters.
  if ((c.quantized && c.format != "gguf") || c.serving.tensors == 0) return;
  model::ParamCount p = model::CountParameters(shape);
  c.matches_recipe = static_cast<std::int64_t>(c.serving.elements) == p.total &&
                     (c.mtp_elements == 0 || static_cast<std::int64_t>(c.mtp_elements) == p.mtp);
}

Result<ModelSource> FromConfigText(const std::string& text, const std::string& label, const std::string& found_in) {
  ModelSource source;
  GPUPROBE_ASSIGN_OR_RETURN(source.shape, model::ParseHfConfig(text, label));
  source.label = label;
  source.found_in = found_in;
  return source;
}

Result<ModelSource> FromSafetensors(ModelSource source, const std::vector<std::string>& files) {
  if (files.size() > kMaxShards) {
    return Status::InvalidArgument(fmt::format("{}: {} safetensors files, more than any checkpoint", source.label, files.size()));
  }
  CheckpointSummary c;
  c.format = "safetensors";
  for (const std::string& path : files) {
    HeaderBytes header;
    GPUPROBE_ASSIGN_OR_RETURN(header, ReadSafetensorsHeader(path));
    model::SafetensorsHeader parsed;
    GPUPROBE_ASSIGN_OR_RETURN(parsed, model::ParseSafetensorsHeader(header.bytes, header.data_bytes, path));
    for (const auto& t : parsed.tensors) {
      const double bytes = static_cast<double>(t.end - t.begin);
      c.stored.Add(t.dtype, t.elements, bytes);
      if (model::IsStoredBuffer(t.name)) {
        ++c.buffers;
      } else if (IsExtraLayer(t.name, source.shape.num_layers)) {
        c.mtp_elements += t.elements;
      } else {
        c.serving.Add(t.dtype, t.elements, bytes);
      }
    }
    c.files.push_back(path);
  }
  Compare(c, source.shape);
  source.checkpoint = std::move(c);
  return source;
}

Result<ModelSource> FromGguf(const std::string& path) {
  HeaderBytes prefix;
  std::uint64_t want = 8 << 20;
  model::GgufPrefix parsed;
  for (;;) {
    GPUPROBE_ASSIGN_OR_RETURN(prefix, ReadFilePrefix(path, want));
    GPUPROBE_ASSIGN_OR_RETURN(parsed, model::ParseGgufPrefix(prefix.bytes, prefix.file_size, path));
    if (parsed.file) break;
    // The metadata (a vocabulary can be megabytes) runs past what was read: read more.
    const std::uint64_t needed = parsed.bytes_needed;
    // The budget: no more than gpuprobe reads, and no more than the file holds on disk (a
    // sparse file claiming a gigabyte of metadata in its holes is refused before it is read).
    const std::uint64_t budget = std::min<std::uint64_t>(core::limits::kGgufMetadataBytes, prefix.disk_bytes);
    if (needed > budget) return core::limits::OverLimit(path, "gguf_metadata", needed, budget);
    want = std::min(std::max(want * 4, needed), budget);
  }
  const model::GgufFile& file = *parsed.file;
  ModelSource source;
  GPUPROBE_ASSIGN_OR_RETURN(source.shape, model::ShapeFromGguf(file, path));
  source.label = path;
  source.found_in = "gguf";
  CheckpointSummary c;
  c.format = "gguf";
  c.files.push_back(path);
  for (const auto& t : file.tensors) {
    std::string type = model::GgmlType(t.type).name;
    c.stored.Add(type, t.elements, t.bytes);
    c.serving.Add(type, t.elements, t.bytes);
  }
  Compare(c, source.shape);
  source.checkpoint = std::move(c);
  return source;
}

Result<ModelSource> FromDirectory(const std::string& dir, const std::string& found_in) {
  CheckpointFiles files;
  GPUPROBE_ASSIGN_OR_RETURN(files, ScanDirectory(dir));
  if (files.config_path.empty()) {
    if (!files.gguf.empty()) return FromGguf(files.gguf.front());
    return Status::InvalidArgument(fmt::format("{}: no config.json, *.safetensors or *.gguf in this directory", dir),
                                   "give the checkpoint directory, its config.json, or a .gguf file");
  }
  std::string text;
  GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(files.config_path, kMaxConfigBytes));
  ModelSource source;
  GPUPROBE_ASSIGN_OR_RETURN(source, FromConfigText(text, files.config_path, found_in));
  source.label = dir;
  if (files.safetensors.empty()) return source;
  return FromSafetensors(std::move(source), files.safetensors);
}

}  // namespace

Result<ModelSource> ResolveModel(const std::string& model, const std::vector<model::CatalogEntry>& catalog) {
  if (model == "-") {
    std::string text;
    GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile("-", kMaxConfigBytes));
    return FromConfigText(text, "-", "stdin");
  }
  if (PathExists(model)) {
    if (IsDirectory(model)) return FromDirectory(model, "directory");
    if (EndsWith(model, ".gguf")) return FromGguf(model);
    std::string text;
    GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(model, kMaxConfigBytes));
    return FromConfigText(text, model, "file");
  }
  if (auto snapshot = FindHubSnapshot(model)) {
    auto source = FromDirectory(*snapshot, "hub_cache");
    if (source.ok()) source->label = model + " (" + *snapshot + ")";
    return source;
  }
  if (const model::CatalogEntry* entry = model::FindCatalogEntry(catalog, model)) {
    ModelSource source;
    GPUPROBE_ASSIGN_OR_RETURN(source, FromConfigText(entry->config_json, entry->id, "catalog"));
    source.catalog_source = entry->source;
    return source;
  }
  std::string roots;
  for (const auto& root : HubCacheRoots()) roots += (roots.empty() ? "" : ", ") + root;
  auto close = model::SuggestCatalogIds(catalog, model);
  std::string suggestion;
  for (const auto& id : close) suggestion += (suggestion.empty() ? "did you mean '" : "' or '") + id;
  if (!suggestion.empty()) suggestion += "'?";
  return Status::InvalidArgument(
      fmt::format("--model {}: no such file, not in the local Hub cache ({}) and not in the catalogue of {} models{}",
                  model, roots.empty() ? "no cache directory set" : roots, catalog.size(),
                  suggestion.empty() ? "" : "; " + suggestion),
      "give a config.json, a checkpoint directory, a .gguf file or a Hub id such as Qwen/Qwen3-8B");
}

}  // namespace gpuprobe::checkpoint
