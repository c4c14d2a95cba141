// ConfigReader: typed, checked access to the fields of one JSON object of a model config
// (a Hugging Face config.json or its text_config), for the family recipes. Every error names
// the file and the field; numbers must be finite whole numbers within stated limits, so a
// corrupted or hostile config is refused instead of computed.
//
// Thread safety: a reader is a view over a json value that must outlive it; reads are const.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace gpuprobe::model {

// Limits far beyond any real model, so a typo or a corrupted file is caught, not computed.
inline constexpr std::int64_t kMaxHidden = 1 << 20;
inline constexpr std::int64_t kMaxLayers = 100000;
inline constexpr std::int64_t kMaxHeads = 1 << 16;
inline constexpr std::int64_t kMaxVocab = 100000000;
inline constexpr std::int64_t kMaxIntermediate = 10000000;
inline constexpr std::int64_t kMaxExperts = 100000;
inline constexpr std::int64_t kMaxPositions = 100000000;
inline constexpr double kMaxParams = 1e15;

/// core::ParseJsonInput (depth limit, line and column) that also turns the library's other
/// exceptions (a number too large for a double: "1e999") into a ParseError naming `label`.
core::Result<nlohmann::json> ParseConfigJson(std::string_view text, const std::string& label);

class ConfigReader {
 public:
  /// `prefix` is prepended to field names in messages ("text_config.").
  ConfigReader(const nlohmann::json& object, std::string label, std::string prefix = {});

  const std::string& label() const { return label_; }
  const nlohmann::json& object() const { return object_; }

  /// InvalidArgument "<label>: field '<prefix><field>' <what>".
  core::Status Error(const std::string& field, const std::string& what) const;
  /// Error() for one of the reader's own problem shapes, keyed error.config.<problem> with
  /// `args` plus {file} and {field}.
  core::Status Problem(const std::string& field, const char* problem, const std::string& what, core::MessageArgs args) const;
  /// InvalidArgument "<label>: required field 'a' or 'b' is missing".
  core::Status Missing(std::initializer_list<const char*> fields, const std::string& why = {},
                       const std::string& why_key = {}) const;

  /// Present and not null.
  bool Has(const char* field) const;

  /// A whole number in [min, max]; absent or null gives nullopt. Booleans, strings, NaN,
  /// fractions and out-of-range values are errors naming the field.
  core::Result<std::optional<std::int64_t>> OptionalInt(const char* field, std::int64_t max,
                                                        std::int64_t min = 1) const;
  /// The first present of `fields`; Missing naming them all when none is.
  core::Result<std::int64_t> RequiredInt(std::initializer_list<const char*> fields, std::int64_t max,
                                         std::int64_t min = 1) const;
  /// The first present of `fields`, else `fallback`.
  core::Result<std::int64_t> IntOr(std::initializer_list<const char*> fields, std::int64_t max,
                                   std::int64_t fallback, std::int64_t min = 1) const;

  core::Result<std::optional<bool>> OptionalBool(const char* field) const;
  core::Result<bool> BoolOr(const char* field, bool fallback) const;
  /// A finite number (not a bool); absent or null gives nullopt.
  core::Result<std::optional<double>> OptionalNumber(const char* field) const;
  /// A string; absent or null gives nullopt; any other type is an error.
  core::Result<std::optional<std::string>> OptionalString(const char* field) const;
  /// The string value, or empty when absent or not a string (for descriptive fields).
  std::string String(const char* field) const;
  /// A list of strings of at most `max_items`; absent or null gives nullopt.
  core::Result<std::optional<std::vector<std::string>>> StringList(const char* field, size_t max_items) const;
  /// A list of whole numbers in [min, max], at most `max_items`; absent or null gives nullopt.
  core::Result<std::optional<std::vector<std::int64_t>>> IntList(const char* field, size_t max_items,
                                                                 std::int64_t max, std::int64_t min = 0) const;
  /// A nested object; nullptr when absent or null; an error when present with another type.
  core::Result<const nlohmann::json*> Object(const char* field) const;

 private:
  const nlohmann::json& object_;
  std::string label_;
  std::string prefix_;
};

}  // namespace gpuprobe::model
