#include "model/model_catalog.h"

#include <cctype>

#include <fmt/format.h>

#include "core/spelling.h"
#include "core/strings.h"
#include "model/config_reader.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;

namespace {

using core::Lower;

std::string NameOf(const std::string& id) {
  auto slash = id.find('/');
  return slash == std::string::npos ? id : id.substr(slash + 1);
}

}  // namespace

Result<std::vector<CatalogEntry>> ParseModelCatalog(std::string_view text, const std::string& label) {
  auto parsed = ParseConfigJson(text, label);
  if (!parsed.ok()) return parsed.status();
  auto models = parsed->find("models");
  if (!parsed->is_object() || models == parsed->end() || !models->is_array()) {
    return Status::ParseError(fmt::format("{}: expected an object with a 'models' list", label));
  }
  std::vector<CatalogEntry> out;
  for (const auto& m : *models) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string() || !m.contains("config") || !m["config"].is_object() ||
        !m.contains("source") || !m["source"].is_string()) {
      return Status::ParseError(fmt::format("{}: entry {} needs a string id, a source and a config object", label, out.size()));
    }
    out.push_back({m["id"].get<std::string>(), m["source"].get<std::string>(), m["config"].dump()});
  }
  return out;
}

const CatalogEntry* FindCatalogEntry(const std::vector<CatalogEntry>& entries, std::string_view id) {
  const std::string wanted = Lower(id);
  const bool has_org = wanted.find('/') != std::string::npos;
  const CatalogEntry* by_name = nullptr;
  for (const auto& entry : entries) {
    if (Lower(entry.id) == wanted) return &entry;
    if (!has_org && Lower(NameOf(entry.id)) == wanted && by_name == nullptr) by_name = &entry;
  }
  return by_name;
}

std::vector<std::string> SuggestCatalogIds(const std::vector<CatalogEntry>& entries, std::string_view id) {
  std::vector<std::string> ids, names;
  for (const auto& entry : entries) {
    ids.push_back(entry.id);
    names.push_back(NameOf(entry.id));
  }
  const bool has_org = std::string_view(id).find('/') != std::string_view::npos;
  auto close = core::ClosestMatches(id, has_org ? ids : names, -1, 3);
  if (!has_org) {
    // Map the matched names back to full ids.
    std::vector<std::string> full;
    for (const auto& name : close) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
          full.push_back(ids[i]);
          break;
        }
      }
    }
    return full;
  }
  return close;
}

}  // namespace gpuprobe::model
