// The spec database built from the embedded data files, parsed once per process.
#pragma once

#include "core/status.h"
#include "model/spec_database.h"

namespace gpuprobe::app {

/// The embedded GPU spec database; a ParseError here means a broken build (tests load it).
core::Result<const model::SpecDatabase*> EmbeddedSpecDatabase();

}  // namespace gpuprobe::app
