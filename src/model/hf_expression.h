// The small expression language of the generated model-structure data
// (data/models/hf_structure/, tools/hf_oracle/FORMAT.md sections 2 and 3): integer expressions
// over a config's keys ("num_attention_heads * head_dim", "ceil_div(hidden_size, 16)") and
// presence conditions ("!tie_word_embeddings", "attention_bias && x != null").
//
// The grammar is the one the generator's reference evaluator (tools/hf_oracle/expr.py)
// implements; the two must agree, which tests/model/hf_expression_test.cpp holds on the
// generator's own examples. Values come from a ConfigValues: a flat map from dotted key
// ("text_config.hidden_size") to the JSON value of a config.json after defaults were filled.
//
// Thread safety: pure functions over immutable inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace gpuprobe::model {

/// The values an expression reads: dotted key -> JSON value (int, bool, string, list, null).
class ConfigValues {
 public:
  /// The value at `key`, or nullptr when absent.
  const nlohmann::json* Find(std::string_view key) const;
  /// True when present and not null.
  bool Has(std::string_view key) const;
  void Set(const std::string& key, nlohmann::json value) { values_[key] = std::move(value); }
  void Erase(const std::string& key) { values_.erase(key); }
  const std::map<std::string, nlohmann::json, std::less<>>& values() const { return values_; }

 private:
  std::map<std::string, nlohmann::json, std::less<>> values_;
};

/// Evaluates an integer expression. InvalidArgument naming the expression and the reason
/// when a key is missing, null, boolean or not a whole number, on division by zero, on a value
/// beyond +-2^62 (no real model comes near), or when the text is not in the grammar.
core::Result<std::int64_t> EvalIntExpression(std::string_view expression, const ConfigValues& values);

/// Evaluates a condition. An empty condition is true. InvalidArgument when the text is not in
/// the grammar; a missing key is null (false), never an error.
core::Result<bool> EvalCondition(std::string_view condition, const ConfigValues& values);

/// A JSON number that is a whole number (an int, or a float with no fraction), as int64.
/// Booleans and everything else give nullopt.
std::optional<std::int64_t> WholeNumber(const nlohmann::json& value);

}  // namespace gpuprobe::model
