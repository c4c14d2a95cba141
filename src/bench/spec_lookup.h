// The spec database's entry for a GPU the runtime names ("NVIDIA H200"), so GPU predictions
// can use the figures the runtime does not report (tensor-core peaks). The database is the
// one embedded in the binary (data/gpu_specs.json), parsed once.
//
// Thread safety: safe from any thread (parsed once, immutable after).
#pragma once

#include <string_view>

#include "core/status.h"
#include "model/gpu_spec.h"
#include "model/spec_database.h"

namespace gpuprobe::bench {

/// The entry for `runtime_name` (exact name, alias or an unambiguous partial name, as
/// `gpuprobe gpus show` finds it); nullptr when the GPU is not in the database or the name
/// matches several entries.
const model::GpuSpec* FindGpuSpec(std::string_view runtime_name);

/// The embedded database itself, the one every verb reads (app::EmbeddedSpecDatabase
/// hands out this one); a ParseError here means a broken build (tests load it).
core::Result<const model::SpecDatabase*> EmbeddedSpecDatabase();

}  // namespace gpuprobe::bench
