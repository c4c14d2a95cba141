#include "hub/hub_index.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/json_input.h"
#include "hub/hub_errors.h"
#include "hub/hub_names.h"

namespace gpuprobe::hub {

bool IsShardFileName(std::string_view name) {
  constexpr std::string_view kSuffix = ".safetensors";
  return IsSafePathComponent(name) && name.size() > kSuffix.size() &&
         name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

core::Status CheckConfigJson(std::string_view text, const std::string& label) {
  auto parsed = core::ParsePythonJsonInput(text, label);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return Malformed(fmt::format("{}: config.json is not a JSON object", label), "error.hub.config_not_object",
                     {{"url", label}});
  }
  return core::Status::Ok();
}

core::Result<std::vector<std::string>> ShardsFromIndex(std::string_view text, const std::string& label,
                                                       std::size_t max_shards) {
  auto parsed = core::ParsePythonJsonInput(text, label);
  if (!parsed.ok()) return parsed.status();
  const auto map = parsed->is_object() ? parsed->find("weight_map") : parsed->end();
  if (!parsed->is_object() || map == parsed->end() || !map->is_object()) {
    return Malformed(fmt::format("{}: the index has no \"weight_map\" object", label), "error.hub.index_no_weight_map",
                     {{"url", label}});
  }
  std::set<std::string> files;
  for (const auto& item : map->items()) {
    if (!item.value().is_string()) {
      const std::string tensor = item.key().substr(0, 200);
      return Malformed(fmt::format("{}: the index maps tensor '{}' to something that is not a file name", label, tensor),
                       "error.hub.index_bad_entry", {{"url", label}, {"tensor", tensor}});
    }
    const std::string file = item.value().get<std::string>();
    if (!IsShardFileName(file)) {
      const std::string shown = file.substr(0, 200);
      return Malformed(
          fmt::format("{}: the index names the shard '{}', which is not a plain .safetensors file name", label, shown),
          "error.hub.index_bad_shard", {{"url", label}, {"name", shown}});
    }
    files.insert(file);
    if (files.size() > max_shards) {
      return Malformed(fmt::format("{}: the index names more than {} shard files", label, max_shards),
                       "error.hub.index_too_many", {{"url", label}, {"limit", std::to_string(max_shards)}});
    }
  }
  if (files.empty()) {
    return Malformed(fmt::format("{}: the index's \"weight_map\" is empty", label), "error.hub.index_empty",
                     {{"url", label}});
  }
  return std::vector<std::string>(files.begin(), files.end());
}

}  // namespace gpuprobe::hub
