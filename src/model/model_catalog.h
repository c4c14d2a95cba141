// The checked-in catalogue of popular open models (data/models/catalog.json): Hub id, the
// source of its config, and the config's fields, so `plan --model ORG/NAME` works offline.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

struct CatalogEntry {
  std::string id;           ///< "Qwen/Qwen3-30B-A3B"
  std::string source;       ///< URL the config was copied from
  std::string config_json;  ///< the config object, as JSON text for ParseHfConfig
};

/// Parses the catalogue text. ParseError / InvalidArgument naming `label` and the entry.
core::Result<std::vector<CatalogEntry>> ParseModelCatalog(std::string_view text, const std::string& label);

/// The entry whose id equals `id` ignoring case, or whose name after the '/' does when `id`
/// has no organisation; nullptr otherwise.
const CatalogEntry* FindCatalogEntry(const std::vector<CatalogEntry>& entries, std::string_view id);

/// Up to three ids closest to `id` ("did you mean").
std::vector<std::string> SuggestCatalogIds(const std::vector<CatalogEntry>& entries, std::string_view id);

}  // namespace gpuprobe::model
