// The two JSON files a header-only fetch keeps whole: config.json (checked to be a JSON
// object, as Python writes it: NaN and Infinity allowed) and model.safetensors.index.json
// (its "weight_map" gives the shard files). Shard names come from a server and become file
// names in the caches, so each must be a plain "*.safetensors" name.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::hub {

/// Ok when `text` is a JSON object; ParseError naming `label` (the URL or path) otherwise:
/// the JSON errors of core/json_input.h (line and column), or "error.hub.config_not_object".
core::Status CheckConfigJson(std::string_view text, const std::string& label);

/// The shard files of an index, sorted and unique. ParseError naming `label` when the text is
/// not JSON, has no "weight_map" object, maps a tensor to something other than a string, names
/// a file that is not a plain "*.safetensors" name, or names more than `max_shards` files.
core::Result<std::vector<std::string>> ShardsFromIndex(std::string_view text, const std::string& label,
                                                       std::size_t max_shards);

/// True for a plain shard file name: IsSafePathComponent and ending in ".safetensors".
bool IsShardFileName(std::string_view name);

}  // namespace gpuprobe::hub
