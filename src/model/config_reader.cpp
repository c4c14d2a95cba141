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

Status ConfigReader::Problem(const std::string& field, const char* problem, const std::string& what,
                             core::MessageArgs args) const {
  // The shapes of a bad field are few: each is a text key, so a zh reader gets the sentence in
  // zh with the file, the field and the value as they are.
  args.emplace_back("file", label_);
  args.emplace_back("field", prefix_ + field);
  return Error(field, what).WithKeys(std::string("error.config.") + problem, std::move(args));
}

Status ConfigReader::Missing(std::initializer_list<const char*> fields, const std::string& why,
                             const std::string& why_key) const {
  std::string names;
  for (const char* field : fields) names += (names.empty() ? "'" : " or '") + prefix_ + field + "'";
  Status status = Status::InvalidArgument(
      fmt::format("{}: required field {} is missing{}", label_, names, why.empty() ? "" : " (" + why + ")"));
  // The caller's reason is English for the log; its key gives it in the reader's language.
  if (why.empty()) return status.WithKeys("error.config.missing", {{"file", label_}, {"fields", names}});
  return status.WithKeys("error.config.missing_why", {{"file", label_}, {"fields", names}, {"why_key", why_key}});
}

bool ConfigReader::Has(const char* field) const {
  auto it = object_.find(field);
  return it != object_.end() && !it->is_null();
}

Result<std::optional<std::int64_t>> ConfigReader::OptionalInt(const char* field, std::int64_t max,
                                                              std::int64_t min) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::int64_t>();
  if (it->is_boolean() || !it->is_number()) return Problem(field, "not_number", fmt::format("must be a number, got {}", Show(*it)), {{"value", Show(*it)}});
  double value = it->get<double>();
  if (!std::isfinite(value) || value != std::floor(value)) {
    return Problem(field, "not_whole", fmt::format("must be a whole number, got {}", Show(*it)), {{"value", Show(*it)}});
  }
  if (value < static_cast<double>(min)) {
    return min > 0 ? Problem(field, "not_positive", fmt::format("must be positive, got {}", Show(*it)), {{"value", Show(*it)}})
                   : Problem(field, "below_min", fmt::format("must be {} or more, got {}", min, Show(*it)),
                             {{"value", Show(*it)}, {"min", std::to_string(min)}});
  }
  if (value > static_cast<double>(max)) {
    return Problem(field, "beyond_limit", fmt::format("is {}, beyond any real model (limit {})", Show(*it), max), {{"value", Show(*it)}, {"limit", std::to_string(max)}});
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
  if (!it->is_boolean()) return Problem(field, "not_bool", fmt::format("must be true or false, got {}", Show(*it)), {{"value", Show(*it)}});
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
  if (it->is_boolean() || !it->is_number()) return Problem(field, "not_number", fmt::format("must be a number, got {}", Show(*it)), {{"value", Show(*it)}});
  double value = it->get<double>();
  if (!std::isfinite(value)) return Problem(field, "not_finite", fmt::format("must be finite, got {}", Show(*it)), {{"value", Show(*it)}});
  return std::optional<double>(value);
}

Result<std::optional<std::string>> ConfigReader::OptionalString(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Problem(field, "not_string", fmt::format("must be a string, got {}", Show(*it)), {{"value", Show(*it)}});
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
  if (!it->is_array()) return Problem(field, "not_list", fmt::format("must be a list, got {}", Show(*it)), {{"value", Show(*it)}});
  if (it->size() > max_items) return Problem(field, "too_many", fmt::format("has {} entries, more than {}", it->size(), max_items), {{"count", std::to_string(it->size())}, {"limit", std::to_string(max_items)}});
  std::vector<std::string> out;
  out.reserve(it->size());
  for (const json& item : *it) {
    if (!item.is_string()) return Problem(field, "not_strings", fmt::format("must hold strings, got {}", Show(item)), {{"value", Show(item)}});
    out.push_back(item.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::optional<std::vector<std::int64_t>>> ConfigReader::IntList(const char* field, size_t max_items,
                                                                       std::int64_t max, std::int64_t min) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return std::optional<std::vector<std::int64_t>>();
  if (!it->is_array()) return Problem(field, "not_list", fmt::format("must be a list, got {}", Show(*it)), {{"value", Show(*it)}});
  if (it->size() > max_items) return Problem(field, "too_many", fmt::format("has {} entries, more than {}", it->size(), max_items), {{"count", std::to_string(it->size())}, {"limit", std::to_string(max_items)}});
  std::vector<std::int64_t> out;
  for (const json& item : *it) {
    if (item.is_boolean() || !item.is_number()) return Problem(field, "not_numbers", fmt::format("must hold numbers, got {}", Show(item)), {{"value", Show(item)}});
    double value = item.get<double>();
    if (!std::isfinite(value) || value != std::floor(value) || value < static_cast<double>(min) ||
        value > static_cast<double>(max)) {
      return Problem(field, "item_range", fmt::format("holds {}, not a whole number in [{}, {}]", Show(item), min, max), {{"value", Show(item)}, {"min", std::to_string(min)}, {"limit", std::to_string(max)}});
    }
    out.push_back(static_cast<std::int64_t>(value));
  }
  return std::optional<std::vector<std::int64_t>>(std::move(out));
}

Result<const json*> ConfigReader::Object(const char* field) const {
  auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return static_cast<const json*>(nullptr);
  if (!it->is_object()) return Problem(field, "not_object", fmt::format("must be an object, got {}", Show(*it)), {{"value", Show(*it)}});
  return &*it;
}

}  // namespace gpuprobe::model
