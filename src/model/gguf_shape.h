// A ModelShape from a GGUF file's metadata (llama.cpp's "<arch>.block_count",
// "<arch>.embedding_length", ... keys): the metadata is rewritten as the equivalent
// config.json fields and planned by the same family recipes.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/gguf.h"
#include "model/model_shape.h"

namespace gpuprobe::model {

/// The config.json equivalent of `file`'s metadata (exposed for tests). InvalidArgument naming
/// `label` when general.architecture or a dimension key is missing.
core::Result<nlohmann::json> GgufToConfig(const GgufFile& file, const std::string& label);

/// GgufToConfig + ParseHfConfig.
core::Result<ModelShape> ShapeFromGguf(const GgufFile& file, const std::string& label);

}  // namespace gpuprobe::model
