#include "doctor/status_table.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.h"
#include "core/strings.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

using core::Lower;

std::string StringField(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

core::Status StatusTable::ReadRows(std::string_view statuses_json) {
  json doc = json::parse(statuses_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("statuses") || !doc["statuses"].is_array()) {
    return core::Status::ParseError("status table: not a JSON object with a 'statuses' list");
  }
  for (const auto& api : doc.value("apis", json::array())) {
    if (!api.is_object()) return core::Status::ParseError("status table: every 'apis' row is an object");
    apis_.push_back({StringField(api, "id"), StringField(api, "library"), StringField(api, "type"), StringField(api, "header")});
  }
  if (doc.contains("toolkit") && doc["toolkit"].is_object()) {
    for (const auto& [key, value] : doc["toolkit"].items()) {
      toolkit_[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  for (const auto& row : doc["statuses"]) {
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string() || !row.contains("value") ||
        !row["value"].is_number_integer() || !row.contains("api") || !row["api"].is_string()) {
      return core::Status::ParseError("status table: every status needs 'api', 'name' and an integer 'value'");
    }
    StatusCode s;
    s.api = row["api"].get<std::string>();
    s.name = row["name"].get<std::string>();
    s.value = row["value"].get<long long>();
    s.doc = StringField(row, "doc");
    s.message = StringField(row, "message");
    s.runtime_equivalent = StringField(row, "runtime_equivalent");
    s.deprecated = row.value("deprecated", false);
    if (by_name_.count(s.name) != 0) {
      return core::Status::ParseError(fmt::format("status table: '{}' appears twice", s.name));
    }
    by_name_[s.name] = statuses_.size();
    by_lower_name_.emplace(Lower(s.name), statuses_.size());
    statuses_.push_back(std::move(s));
  }
  return core::Status::Ok();
}

core::Status StatusTable::AddStatuses(std::string_view statuses_json) {
  const size_t first = statuses_.size();
  GPUPROBE_RETURN_IF_ERROR(ReadRows(statuses_json));
  for (size_t i = first; i < statuses_.size(); ++i) by_value_.emplace(statuses_[i].value, i);
  return core::Status::Ok();
}

core::Result<StatusTable> StatusTable::Parse(std::string_view statuses_json, std::string_view legacy_json) {
  StatusTable table;
  GPUPROBE_RETURN_IF_ERROR(table.ReadRows(statuses_json));

  json legacy = json::parse(legacy_json, nullptr, false);
  if (legacy.is_discarded() || !legacy.is_object() || !legacy.contains("statuses") || !legacy["statuses"].is_array()) {
    return core::Status::ParseError("legacy status numbers: not a JSON object with a 'statuses' list");
  }
  table.legacy_source_ = StringField(legacy, "source");
  for (const auto& row : legacy["statuses"]) {
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string() || !row.contains("value") ||
        !row["value"].is_number_integer()) {
      return core::Status::ParseError("legacy status numbers: every row needs 'name' and an integer 'value'");
    }
    std::string name = row["name"].get<std::string>();
    const StatusCode* current = table.FindName(name);
    if (current == nullptr || current->api != kApiCudaRuntime) {
      return core::Status::ParseError(fmt::format("legacy status numbers: '{}' is not a current cudaError_t name", name));
    }
    StatusCode s = *current;
    s.api = kApiCudaRuntimeLegacy;
    s.value = row["value"].get<long long>();
    table.statuses_.push_back(std::move(s));
  }
  for (size_t i = 0; i < table.statuses_.size(); ++i) table.by_value_.emplace(table.statuses_[i].value, i);
  return table;
}

core::Status StatusTable::AddMessages(std::string_view messages_json) {
  json doc = json::parse(messages_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("messages") || !doc["messages"].is_object()) {
    return core::Status::ParseError("status messages: not a JSON object with a 'messages' object");
  }
  for (const auto& [name, text] : doc["messages"].items()) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return core::Status::ParseError(fmt::format("status messages: '{}' is not a known status", name));
    if (!text.is_string()) return core::Status::ParseError(fmt::format("status messages: '{}' needs a string", name));
    for (auto& s : statuses_) {
      if (s.name == name && s.message.empty()) s.message = text.get<std::string>();
    }
  }
  return core::Status::Ok();
}

core::Result<const StatusTable*> StatusTable::Embedded() {
  static const core::Result<StatusTable> kTable = []() -> core::Result<StatusTable> {
    auto statuses = core::EmbeddedFile("knowledge/cuda_statuses.json");
    if (!statuses.ok()) return statuses.status();
    auto legacy = core::EmbeddedFile("knowledge/cuda_legacy_numbers.json");
    if (!legacy.ok()) return legacy.status();
    auto table = Parse(*statuses, *legacy);
    if (!table.ok()) return table;
    auto nvml = core::EmbeddedFile("knowledge/nvml_messages.json");
    if (!nvml.ok()) return nvml.status();
    GPUPROBE_RETURN_IF_ERROR(table->AddMessages(*nvml));
    auto dcgm = core::EmbeddedFile("knowledge/dcgm_statuses.json");
    if (!dcgm.ok()) return dcgm.status();
    GPUPROBE_RETURN_IF_ERROR(table->AddStatuses(*dcgm));
    return table;
  }();
  if (!kTable.ok()) return core::DamagedEmbeddedData(kTable.status(), "knowledge/cuda_statuses.json");
  return &kTable.value();
}

const StatusCode* StatusTable::FindName(std::string_view name) const {
  if (auto it = by_name_.find(name); it != by_name_.end()) return &statuses_[it->second];
  std::string lower = Lower(name);
  if (auto it = by_lower_name_.find(lower); it != by_lower_name_.end()) return &statuses_[it->second];
  if (lower.rfind("error_", 0) == 0) {
    if (auto it = by_lower_name_.find("cuda_" + lower); it != by_lower_name_.end()) return &statuses_[it->second];
  }
  return nullptr;
}

std::vector<const StatusCode*> StatusTable::FindValue(long long value) const {
  std::vector<size_t> indices;
  auto [begin, end] = by_value_.equal_range(value);
  for (auto it = begin; it != end; ++it) indices.push_back(it->second);
  std::sort(indices.begin(), indices.end());
  std::vector<const StatusCode*> out;
  for (size_t i : indices) out.push_back(&statuses_[i]);
  return out;
}

const StatusCode& StatusTable::Canonical(const StatusCode& status) const {
  if (status.api == kApiCudaRuntimeLegacy) {
    if (const StatusCode* current = FindName(status.name)) return *current;
  }
  if (!status.runtime_equivalent.empty()) {
    if (const StatusCode* twin = FindName(status.runtime_equivalent)) return *twin;
  }
  return status;
}

const StatusApi* StatusTable::Api(std::string_view id) const {
  for (const auto& api : apis_) {
    if (api.id == id) return &api;
  }
  return nullptr;
}

}  // namespace gpuprobe::doctor
