#include "model/config_reader.h"

#include <cmath>

#include <fmt/format.h>

#include "core/json_input.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;
using nlohmann::json;

namespace {

// A short rendering of a value for messages: long strings and arrays are cut.
std::string Show(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

}  // namespace

Result<json> ParseConfigJson(std::string_view text, const std::string& label) {
  // Depth limit, syntax errors and numbers beyond a double (1e999) all come back as errors.
  return core::ParsePythonJsonInput(text, label);
}

ConfigReader::ConfigReader(const json& object, std::string label, std::string prefix)
    : object_(object), label_(std::move(label)), prefix_(std::move(prefix)) {}

Status ConfigReader::Error(const std::string& field, const std::string& what) const {
  return Status::InvalidArgument(fmt::format("{}: field '{}{}' {}", label_, prefix_, field, what));
}

Status ConfigReader::Missing(std::initializer_list<const char*> fields, const std::string& why) const {
  std::string names;
  for (const char* field : fields) names += (names.empty() ? "'" : " or '") + prefix_ + field + "'";
  return Status::InvalidArgument(
      fmt::format("{}: required field {} is missing{}", label_, names, why.empty() ? "" : " (" + why + ")"));
}

bool ConfigReader::Has(const char* field) const {
  auto it = object_.find(field);
  return it != object_.end() && !it->is_null();
}

Result<std::optional<std::int64_t>> ConfigReader::OptionalInt(const char* field, std::int64_t max,
                                                              std::int64_t min) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::int64_t>();
  if (it->is_boolean() || !it->is_number()) return Error(field, fmt::format("must be a number, got {}", Show(*it)));
  double value = it->get<double>();
  if (!std::isfinite(value) || value != std::floor(value)) {
    return Error(field, fmt::format("must be a whole number, got {}", Show(*it)));
  }
  if (value < static_cast<double>(min)) {
    return Error(field, min > 0 ? fmt::format("must be positive, got {}", Show(*it))
                                : fmt::format("must be {} or more, got {}", min, Show(*it)));
  }
  if (value > static_cast<double>(max)) {
    return Error(field, fmt::format("is {}, beyond any real model (limit {})", Show(*it), max));
  }
  return std::optional<std::int64_t>(static_cast<std::int64_t>(value));
}

Result<std::int64_t> ConfigReader::RequiredInt(std::initializer_list<const char*> fields, std::int64_t max,
                                               std::int64_t min) const {
  for (const char* field : fields) {
    auto value = OptionalInt(field, max, min);
    if (!value.ok()) return value.status();
    if (value->has_value()) return **value;
  }
  return Missing(fields);
}

Result<std::int64_t> ConfigReader::IntOr(std::initializer_list<const char*> fields, std::int64_t max,
                                         std::int64_t fallback, std::int64_t min) const {
  for (const char* field : fields) {
    auto value = OptionalInt(field, max, min);
    if (!value.ok()) return value.status();
    if (value->has_value()) return **value;
  }
  return fallback;
}

Result<std::optional<bool>> ConfigReader::OptionalBool(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<bool>();
  if (!it->is_boolean()) return Error(field, fmt::format("must be true or false, got {}", Show(*it)));
  return std::optional<bool>(it->get<bool>());
}

Result<bool> ConfigReader::BoolOr(const char* field, bool fallback) const {
  auto value = OptionalBool(field);
  if (!value.ok()) return value.status();
  return value->value_or(fallback);
}

Result<std::optional<double>> ConfigReader::OptionalNumber(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<double>();
  if (it->is_boolean() || !it->is_number()) return Error(field, fmt::format("must be a number, got {}", Show(*it)));
  double value = it->get<double>();
  if (!std::isfinite(value)) return Error(field, fmt::format("must be finite, got {}", Show(*it)));
  return std::optional<double>(value);
}

Result<std::optional<std::string>> ConfigReader::OptionalString(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Error(field, fmt::format("must be a string, got {}", Show(*it)));
  return std::optional<std::string>(it->get<std::string>());
}

std::string ConfigReader::String(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

Result<std::optional<std::vector<std::string>>> ConfigReader::StringList(const char* field, size_t max_items) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::vector<std::string>>();
  if (!it->is_array()) return Error(field, fmt::format("must be a list, got {}", Show(*it)));
  if (it->size() > max_items) return Error(field, fmt::format("has {} entries, more than {}", it->size(), max_items));
  std::vector<std::string> out;
  out.reserve(it->size());
  for (const json& item : *it) {
    if (!item.is_string()) return Error(field, fmt::format("must hold strings, got {}", Show(item)));
    out.push_back(item.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::optional<std::vector<std::int64_t>>> ConfigReader::IntList(const char* field, size_t max_items,
                                                                       std::int64_t max, std::int64_t min) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::vector<std::int64_t>>();
  if (!it->is_array()) return Error(field, fmt::format("must be a list, got {}", Show(*it)));
  if (it->size() > max_items) return Error(field, fmt::format("has {} entries, more than {}", it->size(), max_items));
  std::vector<std::int64_t> out;
  for (const json& item : *it) {
    if (item.is_boolean() || !item.is_number()) return Error(field, fmt::format("must hold numbers, got {}", Show(item)));
    double value = item.get<double>();
    if (!std::isfinite(value) || value != std::floor(value) || value < static_cast<double>(min) ||
        value > static_cast<double>(max)) {
      return Error(field, fmt::format("holds {}, not a whole number in [{}, {}]", Show(item), min, max));
    }
    out.push_back(static_cast<std::int64_t>(value));
  }
  return std::optional<std::vector<std::int64_t>>(std::move(out));
}

Result<const json*> ConfigReader::Object(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return static_cast<const json*>(nullptr);
  if (!it->is_object()) return Error(field, fmt::format("must be an object, got {}", Show(*it)));
  return &*it;
}

}  // namespace gpuprobe::model
