#include "bench/spec_lookup.h"

#include "core/embedded_data.h"
#include "model/spec_database.h"

namespace gpuprobe::bench {

core::Result<const model::SpecDatabase*> EmbeddedSpecDatabase() {
  static const core::Result<model::SpecDatabase> kDatabase = []() -> core::Result<model::SpecDatabase> {
    auto specs = core::EmbeddedFile("gpu_specs.json");
    if (!specs.ok()) return specs.status();
    auto links = core::EmbeddedFile("host_links.json");
    if (!links.ok()) return links.status();
    return model::SpecDatabase::Parse(*specs, *links);
  }();
  if (!kDatabase.ok()) return kDatabase.status();
  return &kDatabase.value();
}

const model::GpuSpec* FindGpuSpec(std::string_view runtime_name) {
  auto db = EmbeddedSpecDatabase();
  if (!db.ok()) return nullptr;
  auto found = (*db)->Find(runtime_name);
  return found.ok() ? *found : nullptr;
}

}  // namespace gpuprobe::bench
