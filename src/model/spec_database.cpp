#include "model/spec_database.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_limits.h"
#include "core/spelling.h"
#include "core/strings.h"

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;
using nlohmann::json;

using core::Lower;

// Words of a name: runs of letters or digits, lower-cased ("A100 SXM4 80GB" -> a100 sxm4 80gb).
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!current.empty()) {
      words.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) words.push_back(current);
  return words;
}

// Every query word must be the start of some word of the name.
bool WordsMatch(const std::vector<std::string>& query, const std::vector<std::string>& name) {
  if (query.empty()) return false;
  for (const auto& q : query) {
    bool found = std::any_of(name.begin(), name.end(),
                             [&](const std::string& w) { return w.rfind(q, 0) == 0; });
    if (!found) return false;
  }
  return true;
}

// "rtx5090" -> "rtx" "5090": a brand of two letters or more run into its model number.
std::vector<std::string> SplitBrandNumbers(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) {
    size_t letters = 0;
    while (letters < w.size() && std::isalpha(static_cast<unsigned char>(w[letters]))) ++letters;
    bool digits_after = letters < w.size() && std::all_of(w.begin() + static_cast<std::ptrdiff_t>(letters), w.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (letters >= 2 && digits_after) {
      out.push_back(w.substr(0, letters));
      out.push_back(w.substr(letters));
    } else {
      out.push_back(w);
    }
  }
  return out;
}

// "24g", "24gb", "80gib": a memory size.
bool IsMemorySize(const std::string& w) {
  size_t digits = 0;
  while (digits < w.size() && std::isdigit(static_cast<unsigned char>(w[digits]))) ++digits;
  std::string unit = w.substr(digits);
  return digits > 0 && (unit == "g" || unit == "gb" || unit == "gib");
}

// Normalises a PCI id query to "0xdddd"; empty when it is not one.
std::string NormalisePciId(std::string_view raw) {
  std::string text = Lower(raw);
  if (text.rfind("10de:", 0) == 0 || text.rfind("1002:", 0) == 0) text = text.substr(5);
  if (text.rfind("0x", 0) == 0) text = text.substr(2);
  // nvidia-smi prints the combined id "233510DE": device in the high 16 bits.
  if (text.size() == 8 && (text.substr(4) == "10de" || text.substr(4) == "1002")) text = text.substr(0, 4);
  if (text.size() != 4) return {};
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
  }
  // A four-digit query is an id only when it has a hex letter or nothing else matches;
  // "4090" must still find the RTX 4090 by name, so the caller tries ids after names.
  return "0x" + text;
}

Status FieldError(const std::string& entry, const std::string& field, const std::string& what) {
  return Status::ParseError(fmt::format("GPU spec table, entry '{}': field '{}' {}", entry, field, what));
}

// The GPU-to-GPU link kinds data/gpu_specs_NOTES.md defines (model/gpu_link.h reads them).
bool KnownInterconnect(const std::string& value) {
  for (const char* known : {"NVLink (SXM)", "NVLink bridge (2 cards)", "NVLink-C2C + NVLink", "Infinity Fabric (xGMI)",
                            "NVLink (board)", "none (PCIe only)"}) {
    if (value == known) return true;
  }
  return false;
}

Result<SpecFigure> ReadFigure(const json& object, const std::string& entry, const char* field) {
  SpecFigure figure;
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return figure;
  if (it->is_number()) {
    figure.value = it->get<double>();
    return figure;
  }
  if (it->is_string() && it->get<std::string>() == "n/a") {
    figure.not_applicable = true;
    return figure;
  }
  return FieldError(entry, field, "must be a number, null or \"n/a\"");
}

Result<std::string> ReadString(const json& object, const std::string& entry, const char* field,
                               bool required) {
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) {
    if (required) return FieldError(entry, field, "is missing");
    return std::string();
  }
  if (!it->is_string()) return FieldError(entry, field, "must be a string");
  return it->get<std::string>();
}

Result<std::vector<std::string>> ReadStrings(const json& object, const std::string& entry,
                                             const char* field) {
  std::vector<std::string> out;
  auto it = object.find(field);
  if (it == object.end() || it->is_null()) return out;
  if (!it->is_array()) return FieldError(entry, field, "must be a list of strings");
  for (const auto& item : *it) {
    if (!item.is_string()) return FieldError(entry, field, "must be a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<GpuSpec> ParseGpu(const json& object) {
  GpuSpec g;
  if (!object.is_object()) return Status::ParseError("GPU spec table: every entry must be an object");
  GPUPROBE_ASSIGN_OR_RETURN(g.name, ReadString(object, "?", "name", true));
  const std::string& n = g.name;
  GPUPROBE_ASSIGN_OR_RETURN(g.aliases, ReadStrings(object, n, "aliases"));
  GPUPROBE_ASSIGN_OR_RETURN(g.vendor, ReadString(object, n, "vendor", true));
  GPUPROBE_ASSIGN_OR_RETURN(g.architecture, ReadString(object, n, "architecture", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.chip, ReadString(object, n, "chip", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.compute_capability, ReadString(object, n, "compute_capability", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.sm_count, ReadFigure(object, n, "sm_count"));
  GPUPROBE_ASSIGN_OR_RETURN(g.fp32_lanes, ReadFigure(object, n, "fp32_lanes"));
  GPUPROBE_ASSIGN_OR_RETURN(g.tensor_cores, ReadFigure(object, n, "tensor_cores"));
  GPUPROBE_ASSIGN_OR_RETURN(g.boost_clock_mhz, ReadFigure(object, n, "boost_clock_mhz"));
  GPUPROBE_ASSIGN_OR_RETURN(g.memory_type, ReadString(object, n, "memory_type", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.memory_size_gb_vendor, ReadFigure(object, n, "memory_size_gb_vendor"));
  GPUPROBE_ASSIGN_OR_RETURN(g.memory_bus_width_bits, ReadFigure(object, n, "memory_bus_width_bits"));
  GPUPROBE_ASSIGN_OR_RETURN(g.memory_data_rate_gbit_per_s_per_pin,
                            ReadFigure(object, n, "memory_data_rate_gbit_per_s_per_pin"));
  GPUPROBE_ASSIGN_OR_RETURN(g.memory_bandwidth_vendor_gb_per_s,
                            ReadFigure(object, n, "memory_bandwidth_vendor_gb_per_s"));
  GPUPROBE_ASSIGN_OR_RETURN(g.memory_bandwidth_computed_reference_gb_per_s,
                            ReadFigure(object, n, "memory_bandwidth_computed_reference_gb_per_s"));
  GPUPROBE_ASSIGN_OR_RETURN(g.l2_cache_mib, ReadFigure(object, n, "l2_cache_mib"));
  GPUPROBE_ASSIGN_OR_RETURN(g.fp64_vector_tflops, ReadFigure(object, n, "fp64_vector_tflops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.fp64_tensor_tflops, ReadFigure(object, n, "fp64_tensor_tflops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.fp32_vector_tflops, ReadFigure(object, n, "fp32_vector_tflops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.tf32_tensor_dense_tflops, ReadFigure(object, n, "tf32_tensor_dense_tflops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.fp16_bf16_tensor_dense_tflops,
                            ReadFigure(object, n, "fp16_bf16_tensor_dense_tflops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.fp8_tensor_dense_tflops, ReadFigure(object, n, "fp8_tensor_dense_tflops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.int8_tensor_dense_tops, ReadFigure(object, n, "int8_tensor_dense_tops"));
  GPUPROBE_ASSIGN_OR_RETURN(g.vendor_figures_with_sparsity,
                            ReadString(object, n, "vendor_figures_with_sparsity", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.tdp_watts, ReadFigure(object, n, "tdp_watts"));
  GPUPROBE_ASSIGN_OR_RETURN(g.host_interface, ReadString(object, n, "host_interface", false));
  SpecFigure gen, lanes;
  GPUPROBE_ASSIGN_OR_RETURN(gen, ReadFigure(object, n, "pcie_generation"));
  GPUPROBE_ASSIGN_OR_RETURN(lanes, ReadFigure(object, n, "pcie_lanes"));
  if (gen.known()) g.pcie_generation = static_cast<int>(*gen.value);
  if (lanes.known()) g.pcie_lanes = static_cast<int>(*lanes.value);
  GPUPROBE_ASSIGN_OR_RETURN(g.nvlink_total_bidirectional_gb_per_s,
                            ReadFigure(object, n, "nvlink_total_bidirectional_gb_per_s"));
  GPUPROBE_ASSIGN_OR_RETURN(g.interconnect, ReadString(object, n, "interconnect", false));
  if (!g.interconnect.empty() && !KnownInterconnect(g.interconnect)) {
    return FieldError(n, "interconnect", "is '" + g.interconnect + "', not one of the kinds data/gpu_specs_NOTES.md lists");
  }
  SpecFigure nvlink_generation;
  GPUPROBE_ASSIGN_OR_RETURN(nvlink_generation, ReadFigure(object, n, "nvlink_generation"));
  if (nvlink_generation.known()) g.nvlink_generation = static_cast<int>(*nvlink_generation.value);
  GPUPROBE_ASSIGN_OR_RETURN(g.form_factor, ReadString(object, n, "form_factor", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.form_factor_zh, ReadString(object, n, "form_factor_zh", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.confidence, ReadString(object, n, "confidence", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.notes, ReadString(object, n, "notes", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.notes_zh, ReadString(object, n, "notes_zh", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.sources, ReadStrings(object, n, "sources"));
  GPUPROBE_ASSIGN_OR_RETURN(g.pci_vendor_id, ReadString(object, n, "pci_vendor_id", false));
  GPUPROBE_ASSIGN_OR_RETURN(g.pci_device_ids, ReadStrings(object, n, "pci_device_ids"));
  for (auto& id : g.pci_device_ids) id = Lower(id);
  GPUPROBE_ASSIGN_OR_RETURN(g.pci_device_ids_source, ReadString(object, n, "pci_device_ids_source", false));
  SpecFigure total, reserved;
  GPUPROBE_ASSIGN_OR_RETURN(total, ReadFigure(object, n, "driver_memory_total_mib"));
  GPUPROBE_ASSIGN_OR_RETURN(reserved, ReadFigure(object, n, "driver_memory_reserved_mib"));
  g.driver_memory_total_mib = total.value;
  g.driver_memory_reserved_mib = reserved.value;
  GPUPROBE_ASSIGN_OR_RETURN(g.driver_memory_source, ReadString(object, n, "driver_memory_source", false));
  return g;
}

}  // namespace

Result<SpecDatabase> SpecDatabase::Parse(std::string_view gpu_specs_json,
                                         std::string_view host_links_json) {
  SpecDatabase db;
  json specs = json::parse(gpu_specs_json, nullptr, /*allow_exceptions=*/false);
  if (specs.is_discarded() || !specs.is_object() || !specs.contains("gpus") || !specs["gpus"].is_array()) {
    return Status::ParseError("GPU spec table is not valid JSON with a 'gpus' list");
  }
  for (const auto& entry : specs["gpus"]) {
    auto gpu = ParseGpu(entry);
    if (!gpu.ok()) return gpu.status();
    for (const auto& existing : db.gpus_) {
      if (Lower(existing.name) == Lower(gpu->name)) {
        return Status::ParseError("GPU spec table lists '" + gpu->name + "' twice");
      }
    }
    db.gpus_.push_back(std::move(gpu.value()));
  }
  json links = json::parse(host_links_json, nullptr, false);
  if (links.is_discarded() || !links.is_object() || !links.contains("links") || !links["links"].is_array()) {
    return Status::ParseError("host link table is not valid JSON with a 'links' list");
  }
  for (const auto& entry : links["links"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      return Status::ParseError("host link table: every entry needs a 'name'");
    }
    HostLink link;
    link.name = entry["name"].get<std::string>();
    link.kind = entry.value("kind", "");
    link.direction = entry.value("direction", "");
    link.notes = entry.value("notes", "");
    if (entry.contains("peak_bandwidth_gb_per_s") && entry["peak_bandwidth_gb_per_s"].is_number()) {
      link.peak_bandwidth_gb_per_s = entry["peak_bandwidth_gb_per_s"].get<double>();
    }
    if (entry.contains("vendor_quoted_gb_per_s") && entry["vendor_quoted_gb_per_s"].is_number()) {
      link.vendor_quoted_gb_per_s = entry["vendor_quoted_gb_per_s"].get<double>();
    }
    db.host_links_.push_back(std::move(link));
  }
  return db;
}

std::vector<const GpuSpec*> SpecDatabase::MatchWords(const std::vector<std::string>& query_words) const {
  std::vector<const GpuSpec*> out;
  for (const auto& g : gpus_) {
    std::vector<std::string> words = Words(g.name);
    for (const auto& alias : g.aliases) {
      auto more = Words(alias);
      words.insert(words.end(), more.begin(), more.end());
    }
    if (WordsMatch(query_words, words)) out.push_back(&g);
  }
  if (out.size() > 1) {
    // A name whose words are exactly the query's (vendor and brand words aside) wins over the
    // ones the query only begins: "rtx 3090" is the RTX 3090, not also the 3090 Ti.
    auto significant = [](std::vector<std::string> words) {
      static const char* kBrand[] = {"nvidia", "geforce", "tesla", "amd", "radeon", "instinct"};
      words.erase(std::remove_if(words.begin(), words.end(),
                                 [](const std::string& w) {
                                   return std::find(std::begin(kBrand), std::end(kBrand), w) != std::end(kBrand);
                                 }),
                  words.end());
      std::sort(words.begin(), words.end());
      return words;
    };
    std::vector<std::string> wanted = significant(query_words);
    std::vector<const GpuSpec*> exact;
    for (const GpuSpec* g : out) {
      bool same = significant(Words(g->name)) == wanted;
      for (const auto& alias : g->aliases) same = same || significant(Words(alias)) == wanted;
      if (same) exact.push_back(g);
    }
    if (exact.size() == 1) return exact;
  }
  return out;
}

std::vector<const GpuSpec*> SpecDatabase::Candidates(std::string_view raw_query) const {
  std::vector<const GpuSpec*> out;
  std::string query = Lower(raw_query);
  while (!query.empty() && std::isspace(static_cast<unsigned char>(query.back()))) query.pop_back();
  while (!query.empty() && std::isspace(static_cast<unsigned char>(query.front()))) query.erase(0, 1);
  if (query.empty()) return out;
  for (const auto& g : gpus_) {
    if (Lower(g.name) == query) return {&g};
  }
  for (const auto& g : gpus_) {
    for (const auto& alias : g.aliases) {
      if (Lower(alias) == query) return {&g};
    }
  }
  std::vector<std::string> query_words = Words(query);
  out = MatchWords(query_words);
  if (out.empty()) {
    // As people type them: "rtx5090" is "rtx 5090", and a memory size the name does not carry
    // ("RTX3090-24G") narrows nothing.
    std::vector<std::string> split = SplitBrandNumbers(query_words);
    out = MatchWords(split);
    if (out.empty()) {
      split.erase(std::remove_if(split.begin(), split.end(), IsMemorySize), split.end());
      if (!split.empty()) out = MatchWords(split);
    }
  }
  if (!out.empty()) return out;
  std::string id = NormalisePciId(query);
  if (!id.empty()) {
    for (const auto& g : gpus_) {
      if (std::find(g.pci_device_ids.begin(), g.pci_device_ids.end(), id) != g.pci_device_ids.end()) {
        out.push_back(&g);
      }
    }
  }
  return out;
}

std::vector<const GpuSpec*> SpecDatabase::OtherVariants(std::string_view raw_query, const GpuSpec& chosen) const {
  std::vector<const GpuSpec*> out;
  std::string query = Lower(raw_query);
  if (query.size() > core::limits::kNameBytes || Lower(chosen.name) == query) return out;
  std::vector<std::string> query_words = Words(query);
  for (const auto& g : gpus_) {
    if (&g == &chosen) continue;
    std::vector<std::string> words = Words(g.name);
    for (const auto& alias : g.aliases) {
      auto more = Words(alias);
      words.insert(words.end(), more.begin(), more.end());
    }
    // whole words only: "a10" is not also the A100 or the A10G, which only begin with it
    bool all = !query_words.empty() && std::all_of(query_words.begin(), query_words.end(), [&](const std::string& q) {
      return std::find(words.begin(), words.end(), q) != words.end();
    });
    if (all) out.push_back(&g);
  }
  return out;
}

Result<const GpuSpec*> SpecDatabase::Find(std::string_view query) const {
  if (query.size() > core::limits::kNameBytes) {
    return core::limits::OverLimit(fmt::format("'{}...'", query.substr(0, 40)), "name", query.size(), core::limits::kNameBytes);
  }
  std::vector<const GpuSpec*> found = Candidates(query);
  if (found.size() == 1) return found.front();
  if (found.size() > 1) {
    std::string names;
    for (const auto* g : found) names += fmt::format("\n  {}", g->name);
    return Status::InvalidArgument(fmt::format("'{}' matches {} GPUs; be more specific:{}", query, found.size(), names),
                                   "use more of the name, e.g. 'a100 80gb' or 'h100 pcie'")
        .WithKeys("error.gpu.ambiguous", {{"name", std::string(query)}, {"count", std::to_string(found.size())}, {"names", names}},
                  "error.gpu.ambiguous.hint");
  }
  std::vector<std::string> names;
  for (const auto& g : gpus_) {
    names.push_back(g.name);
    for (const auto& alias : g.aliases) names.push_back(alias);
  }
  std::vector<std::string> near = core::ClosestMatches(query, names, -1, 3);
  std::string hint = "run 'gpuprobe gpus' for the list";
  if (!near.empty()) {
    std::string joined;
    for (const auto& s : near) joined += (joined.empty() ? "" : ", ") + s;
    return Status::InvalidArgument(fmt::format("no GPU named '{}' in the spec database; did you mean: {}?", query, joined), hint)
        .WithKeys("error.unknown.gpu.near", {{"name", std::string(query)}, {"near", joined}}, "error.unknown.gpu.hint");
  }
  return Status::InvalidArgument(fmt::format("no GPU named '{}' in the spec database", query), hint)
      .WithKeys("error.unknown.gpu", {{"name", std::string(query)}}, "error.unknown.gpu.hint");
}

}  // namespace gpuprobe::model
