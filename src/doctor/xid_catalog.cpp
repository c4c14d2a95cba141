#include "doctor/xid_catalog.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

bool InList(const json& enums, const char* list, const std::string& value) {
  if (!enums.contains(list) || !enums[list].is_array()) return false;
  for (const auto& v : enums[list]) {
    if (v.is_string() && v.get<std::string>() == value) return true;
  }
  return false;
}

core::Result<XidInfo> ParseRow(const json& row, bool nvswitch, const json& enums,
                               const std::map<std::string, std::string>& sources) {
  const char* number_key = nvswitch ? "sxid" : "xid";
  if (!row.is_object() || !row.contains(number_key) || !row[number_key].is_number_integer()) {
    return core::Status::ParseError(fmt::format("Xid catalogue: every row needs an integer '{}'", number_key));
  }
  XidInfo x;
  x.number = row[number_key].get<int>();
  x.nvswitch = nvswitch;
  std::string label = fmt::format("{} {}", nvswitch ? "SXid" : "Xid", x.number);
  for (const char* field : {"name", "category", "action", "description"}) {
    if (!row.contains(field) || !row[field].is_string()) {
      return core::Status::ParseError(fmt::format("Xid catalogue: {} needs a text '{}'", label, field));
    }
  }
  x.name = row["name"].get<std::string>();
  x.category = row["category"].get<std::string>();
  x.action = row["action"].get<std::string>();
  x.description = row["description"].get<std::string>();
  x.action_text = row.value("action_text", "");
  x.status = row.value("status", "");
  x.sxid_severity = row.value("severity", "");
  if (!InList(enums, "category", x.category)) {
    return core::Status::ParseError(fmt::format("Xid catalogue: {} has an unknown category '{}'", label, x.category));
  }
  if (!InList(enums, "action", x.action)) {
    return core::Status::ParseError(fmt::format("Xid catalogue: {} has an unknown action '{}'", label, x.action));
  }
  if (row.contains("data_may_be_wrong") && row["data_may_be_wrong"].is_boolean()) {
    x.data_may_be_wrong = row["data_may_be_wrong"].get<bool>();
  }
  for (const auto& key : row.value("sources", json::array())) {
    if (!key.is_string()) continue;
    auto it = sources.find(key.get<std::string>());
    if (it == sources.end()) {
      return core::Status::ParseError(fmt::format("Xid catalogue: {} cites unknown source '{}'", label, key.get<std::string>()));
    }
    x.source_urls.push_back(it->second);
  }
  return x;
}

}  // namespace

core::Result<XidCatalog> XidCatalog::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("xids") || !doc["xids"].is_array() ||
      !doc.contains("sxids") || !doc["sxids"].is_array()) {
    return core::Status::ParseError("Xid catalogue: not a JSON object with 'xids' and 'sxids' lists");
  }
  std::map<std::string, std::string> sources;
  const json source_list = doc.value("sources", json::object());
  for (const auto& [key, url] : source_list.items()) {
    if (url.is_string()) sources[key] = url.get<std::string>();
  }
  json enums = doc.value("enums", json::object());
  XidCatalog catalog;
  catalog.xid_catalog_url_ = sources.count("N-XID-CATALOG") ? sources["N-XID-CATALOG"] : "";
  catalog.fm_guide_url_ = sources.count("N-FM") ? sources["N-FM"] : "";
  if (catalog.xid_catalog_url_.empty() || catalog.fm_guide_url_.empty()) {
    return core::Status::ParseError("Xid catalogue: the sources N-XID-CATALOG and N-FM are required");
  }
  for (bool nvswitch : {false, true}) {
    for (const auto& row : doc[nvswitch ? "sxids" : "xids"]) {
      XidInfo x;
      GPUPROBE_ASSIGN_OR_RETURN(x, ParseRow(row, nvswitch, enums, sources));
      if (!catalog.index_.emplace(std::make_pair(nvswitch, x.number), catalog.entries_.size()).second) {
        return core::Status::ParseError(fmt::format("Xid catalogue: {} {} appears twice", nvswitch ? "SXid" : "Xid", x.number));
      }
      if (!nvswitch) catalog.max_xid_ = std::max(catalog.max_xid_, x.number);
      catalog.entries_.push_back(std::move(x));
    }
  }
  return catalog;
}

core::Result<const XidCatalog*> XidCatalog::Embedded() {
  static const core::Result<XidCatalog> kCatalog = []() -> core::Result<XidCatalog> {
    auto text = core::EmbeddedFile("knowledge/xid_catalog.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kCatalog.ok()) return core::DamagedEmbeddedData(kCatalog.status(), "knowledge/xid_catalog.json");
  return &kCatalog.value();
}

const XidInfo* XidCatalog::Find(int number, bool nvswitch) const {
  auto it = index_.find(std::make_pair(nvswitch, number));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

}  // namespace gpuprobe::doctor
