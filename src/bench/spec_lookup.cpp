#include "bench/spec_lookup.h"

#include "core/embedded_data.h"
#include "model/spec_database.h"

namespace gpuprobe::bench {
namespace {

const model::SpecDatabase* Database() {
  static const core::Result<model::SpecDatabase> kDatabase = []() -> core::Result<model::SpecDatabase> {
    auto specs = core::EmbeddedFile("gpu_specs.json");
    if (!specs.ok()) return specs.status();
    auto links = core::EmbeddedFile("host_links.json");
    if (!links.ok()) return links.status();
    return model::SpecDatabase::Parse(*specs, *links);
  }();
  return kDatabase.ok() ? &kDatabase.value() : nullptr;
}

}  // namespace

const model::GpuSpec* FindGpuSpec(std::string_view runtime_name) {
  const model::SpecDatabase* db = Database();
  if (db == nullptr) return nullptr;
  auto found = db->Find(runtime_name);
  return found.ok() ? *found : nullptr;
}

}  // namespace gpuprobe::bench
