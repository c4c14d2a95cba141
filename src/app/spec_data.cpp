#include "app/spec_data.h"

#include "bench/spec_lookup.h"

namespace gpuprobe::app {

// One parse per process, shared with the bench engine's predictions (bench/spec_lookup.cpp).
core::Result<const model::SpecDatabase*> EmbeddedSpecDatabase() { return bench::EmbeddedSpecDatabase(); }

}  // namespace gpuprobe::app
