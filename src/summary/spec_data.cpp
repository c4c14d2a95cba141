#include "summary/spec_data.h"

#include "core/embedded_data.h"

namespace gpuprobe::summary {

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

}  // namespace gpuprobe::summary
