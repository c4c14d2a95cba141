#include "checkpoint/model_source.h"

#include <algorithm>
#include <filesystem>

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

Result<ModelSource> FromConfigText(const std::string& text, const std::string& label, const std::string& found_in,
                                   const model::HfKnowledge* hf) {
  ModelSource source;
  GPUPROBE_ASSIGN_OR_RETURN(source.shape, ShapeFromConfig(text, label, hf));
  source.label = label;
  source.found_in = found_in;
  return source;
}

Result<ModelSource> FromSafetensors(ModelSource source, const std::vector<HeaderSource>& files) {
  if (files.size() > kMaxShards) {
    return Status::InvalidArgument(fmt::format("{}: {} safetensors files, more than any checkpoint", source.label, files.size()))
        .WithKeys("error.model.too_many_shards", {{"file", source.label}, {"count", std::to_string(files.size())}});
  }
  CheckpointSummary c;
  c.format = "safetensors";
  for (const HeaderSource& file : files) {
    const std::string& path = file.path;
    HeaderBytes header;
    GPUPROBE_ASSIGN_OR_RETURN(header, file.read());
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

// A config the planner does not understand (an unknown type, a layout it cannot read): the
// headers can still be counted. A file that is not even JSON is reported as it is.
bool ReadableFailure(const Status& status) { return status.code() == core::StatusCode::kInvalidArgument; }

// A checkpoint whose config.json cannot be read is still counted from its headers: the total
// is theirs, the layout (for the KV cache) a reference model's of that size, and the notes say
// both (model/hf_config.h's ShapeFromParameterCount).
Result<ModelSource> FromHeadersOnly(const std::string& label, const std::string& found_in,
                                    const std::vector<HeaderSource>& headers, const Status& config_error) {
  ModelSource probe;
  probe.label = label;
  probe.shape.num_layers = 1 << 20;  // no layer is "past the last" while the layout is unknown
  GPUPROBE_ASSIGN_OR_RETURN(probe, FromSafetensors(std::move(probe), headers));
  const CheckpointSummary& c = *probe.checkpoint;
  if (c.quantized || c.serving.elements <= 0) return config_error;  // packed integers are not parameters
  ModelSource source;
  GPUPROBE_ASSIGN_OR_RETURN(source.shape, model::ShapeFromParameterCount(c.serving.elements, model::ShapeFlags{}));
  source.shape.notes.push_back({"config_unreadable", config_error.message()});
  source.label = label;
  source.found_in = found_in;
  source.checkpoint = std::move(probe.checkpoint);
  source.checkpoint->matches_recipe.reset();
  return source;
}

std::vector<HeaderSource> LocalFiles(const std::vector<std::string>& files) {
  std::vector<HeaderSource> out;
  for (const std::string& path : files) out.push_back({path, [path] { return ReadSafetensorsHeader(path); }});
  return out;
}

Result<ModelSource> FromDirectory(const std::string& dir, const std::string& found_in, const model::HfKnowledge* hf) {
  CheckpointFiles files;
  GPUPROBE_ASSIGN_OR_RETURN(files, ScanDirectory(dir));
  if (files.config_path.empty()) {
    if (!files.gguf.empty()) return FromGguf(files.gguf.front());
    return Status::InvalidArgument(fmt::format("{}: no config.json, *.safetensors or *.gguf in this directory", dir),
                                   "give the checkpoint directory, its config.json, or a .gguf file")
        .WithKeys("error.model.empty_dir", {{"dir", dir}}, "error.model.empty_dir.hint");
  }
  std::string text;
  GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(files.config_path, kMaxConfigBytes));
  auto source = FromConfigText(text, files.config_path, found_in, hf);
  if (!source.ok()) {
    if (files.safetensors.empty() || !ReadableFailure(source.status())) return source.status();
    return FromHeadersOnly(dir, found_in, LocalFiles(files.safetensors), source.status());
  }
  source->label = dir;
  if (files.safetensors.empty()) return source;
  return FromSafetensors(std::move(*source), LocalFiles(files.safetensors));
}

// One .safetensors file named on its own: with a config.json beside it, the checkpoint is that
// directory (every shard, as `plan --model DIR` reads it); without one, the file's own headers
// are counted and the layout assumed, said in a note (FromHeadersOnly).
Result<ModelSource> FromSafetensorsFile(const std::string& path, const model::HfKnowledge* hf) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const std::string config = (std::filesystem::path(dir.empty() ? "." : dir) / "config.json").string();
  if (PathExists(config)) {
    auto source = FromDirectory(dir.empty() ? "." : dir, "directory", hf);
    if (source.ok()) source->label = path + " (" + (dir.empty() ? "." : dir) + ")";
    return source;
  }
  Status no_config = Status::InvalidArgument(fmt::format("{}: no config.json beside it", path))
                         .WithKeys("error.checkpoint.no_config_beside", {{"path", path}});
  return FromHeadersOnly(path, "file", LocalFiles({path}), no_config);
}

}  // namespace

Result<model::ModelShape> ShapeFromConfig(const std::string& text, const std::string& label, const model::HfKnowledge* hf) {
  return hf != nullptr ? model::ParseHfConfig(text, label, *hf) : model::ParseHfConfig(text, label);
}

Result<ModelSource> FromConfigAndHeaders(const std::string& config_path, const std::string& label,
                                         const std::string& found_in, const std::vector<HeaderSource>& headers,
                                         const model::HfKnowledge* hf) {
  std::string text;
  GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(config_path, kMaxConfigBytes));
  auto source = FromConfigText(text, config_path, found_in, hf);
  if (!source.ok()) {
    if (headers.empty() || !ReadableFailure(source.status())) return source.status();
    return FromHeadersOnly(label, found_in, headers, source.status());
  }
  source->label = label;
  if (headers.empty()) return source;
  return FromSafetensors(std::move(*source), headers);
}

Result<std::optional<ModelSource>> ResolveLocalModel(const std::string& model, const model::HfKnowledge* hf) {
  using Found = std::optional<ModelSource>;
  auto found = [](Result<ModelSource> source) -> Result<Found> {
    if (!source.ok()) return source.status();
    return Found(std::move(*source));
  };
  if (model == "-") {
    std::string text;
    GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile("-", kMaxConfigBytes));
    return found(FromConfigText(text, "-", "stdin", hf));
  }
  if (PathExists(model)) {
    if (IsDirectory(model)) return found(FromDirectory(model, "directory", hf));
    if (EndsWith(model, ".gguf")) return found(FromGguf(model));
    if (EndsWith(model, ".safetensors")) return found(FromSafetensorsFile(model, hf));
    std::string text;
    GPUPROBE_ASSIGN_OR_RETURN(text, core::ReadTextFile(model, kMaxConfigBytes));
    return found(FromConfigText(text, model, "file", hf));
  }
  if (auto snapshot = FindHubSnapshot(model)) {
    auto source = FromDirectory(*snapshot, "hub_cache", hf);
    if (source.ok()) source->label = model + " (" + *snapshot + ")";
    return found(std::move(source));
  }
  return Found();
}

Result<ModelSource> FromCatalog(const model::CatalogMatch& match, const model::HfKnowledge* hf) {
  ModelSource source;
  GPUPROBE_ASSIGN_OR_RETURN(source, FromConfigText(match.entry->config_json, match.entry->id, "catalog", hf));
  source.catalog_source = match.entry->source;
  source.catalog_match = match;
  return source;
}

namespace {

// "'a', 'b'": catalogue ids, quoted; the same in every language.
std::string NearList(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "'" : "', '") + id;
  return out.empty() ? out : out + "'";
}

}  // namespace

core::Status ModelNotFound(const std::string& model, const std::vector<model::CatalogEntry>& catalog,
                           const std::string& hub_problem) {
  std::string roots;
  for (const auto& root : HubCacheRoots()) roots += (roots.empty() ? "" : ", ") + root;
  auto close = model::SuggestCatalogIds(catalog, model);
  std::string suggestion;
  for (const auto& id : close) suggestion += (suggestion.empty() ? "did you mean '" : "' or '") + id;
  if (!suggestion.empty()) suggestion += "'?";
  // Keyed: the Hub's problem is its own (keyed where it is made, English here) and the
  // suggestion names catalogue ids, which read the same in every language.
  return Status::InvalidArgument(
             fmt::format("--model {}: no such file, not in the local Hub cache ({}){} and not in the catalogue of {} models{}",
                         model, roots.empty() ? "no cache directory set" : roots, hub_problem.empty() ? "" : ", " + hub_problem,
                         catalog.size(), suggestion.empty() ? "" : "; " + suggestion),
             "give a config.json, a checkpoint directory, a .gguf file or a Hub id such as Qwen/Qwen3-8B")
      .WithKeys("error.model.not_found",
                {{"model", model},
                 {"roots_key", roots.empty() ? "model.not_found.no_roots" : "model.not_found.roots"},
                 {"roots_list", roots},
                 {"hub_key", hub_problem.empty() ? "model.not_found.hub.none" : "model.not_found.hub"},
                 {"hub_problem", hub_problem},
                 {"count", std::to_string(catalog.size())},
                 {"near_key", close.empty() ? "model.not_found.near.none" : "model.not_found.near"},
                 {"near_list", NearList(close)}},
                "error.model.not_found.hint");
}

Result<ModelSource> ResolveModel(const std::string& model, const std::vector<model::CatalogEntry>& catalog,
                                 const model::HfKnowledge* hf) {
  std::optional<ModelSource> local;
  GPUPROBE_ASSIGN_OR_RETURN(local, ResolveLocalModel(model, hf));
  if (local) return std::move(*local);
  if (auto match = model::MatchCatalogEntry(catalog, model)) return FromCatalog(*match, hf);
  return ModelNotFound(model, catalog);
}

}  // namespace gpuprobe::checkpoint
