// Every --json document gpuprobe writes starts the same way: a versioned "schema" naming
// the document type (e.g. "gpuprobe.gpus.v1") and the gpuprobe version, so scripts can
// check what they read. Numbers are in SI base units with the unit in the key.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpuprobe::report {

/// Schema version of every document type; bump when a key changes meaning or goes away.
inline constexpr int kSchemaVersion = 1;

/// {"schema": "gpuprobe.<kind>.v1", "gpuprobe_version": "..."}.
nlohmann::json MakeDocument(const std::string& kind);

/// Pretty-printed with two-space indentation and a trailing newline; non-finite numbers
/// become null.
std::string RenderJson(const nlohmann::json& document);

/// A number, or null when not finite.
nlohmann::json NumberOrNull(double value);

}  // namespace gpuprobe::report
