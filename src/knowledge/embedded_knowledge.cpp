#include "knowledge/embedded_knowledge.h"

#include <map>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/embedded_data.h"
#include "core/json_input.h"

namespace gpuprobe::knowledge {
namespace {

// Each table is parsed on first use and kept, with its error, for the process.
template <typename T>
core::Result<const T*> Kept(const core::Result<T>& parsed) {
  if (!parsed.ok()) return core::DamagedEmbeddedData(parsed.status());
  return &parsed.value();
}

// The per-file JSON of data/models/hf, parsed when first asked for and kept (nullptr for a file
// that is absent or not JSON: the template or defaults are then unknown, which the model
// layer reports as such).
class HfFiles {
 public:
  const nlohmann::json* Load(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(name);
    if (it == cache_.end()) {
      std::unique_ptr<nlohmann::json> parsed;
      auto text = core::EmbeddedFile(name);
      if (text.ok()) {
        auto json = core::ParsePythonJsonInput(*text, name);
        if (json.ok()) parsed = std::make_unique<nlohmann::json>(std::move(*json));
      }
      it = cache_.emplace(name, std::move(parsed)).first;
    }
    return it->second.get();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<nlohmann::json>> cache_;
};

}  // namespace

core::Result<const model::HfKnowledge*> HfModels() {
  static HfFiles files;
  static const core::Result<model::HfKnowledge> kParsed = []() -> core::Result<model::HfKnowledge> {
    const nlohmann::json* index = files.Load("models/hf/index.json");
    if (index == nullptr) return core::Status::Internal("models/hf/index.json is missing or not JSON (a broken build)");
    return model::HfKnowledge::FromIndex(
        *index, [](const std::string& t) { return files.Load("models/hf/structure/" + t + ".json"); },
        [](const std::string& c) { return files.Load("models/hf/defaults/" + c + ".json"); });
  }();
  return Kept(kParsed);
}

core::Result<const model::SpecDatabase*> Specs() {
  static const core::Result<model::SpecDatabase> kParsed = []() -> core::Result<model::SpecDatabase> {
    auto specs = core::EmbeddedFile("gpu_specs.json");
    if (!specs.ok()) return specs.status();
    auto links = core::EmbeddedFile("host_links.json");
    if (!links.ok()) return links.status();
    return model::SpecDatabase::Parse(*specs, *links);
  }();
  return Kept(kParsed);
}

core::Result<const model::PriceBook*> Prices() {
  static const core::Result<model::PriceBook> kParsed = []() -> core::Result<model::PriceBook> {
    auto db = Specs();
    if (!db.ok()) return db.status();
    auto text = core::EmbeddedFile("prices/gpu_prices.json");
    if (!text.ok()) return text.status();
    return model::PriceBook::Parse(*text, **db);
  }();
  return Kept(kParsed);
}

core::Result<model::PriceBook> PricesWithOverrides(const std::vector<std::string>& price_flags) {
  auto db = Specs();
  if (!db.ok()) return db.status();
  auto table = Prices();
  if (!table.ok()) return table.status();
  model::PriceBook book = **table;
  for (const auto& flag : price_flags) {
    auto parsed = model::ParsePriceFlag(flag);
    if (!parsed.ok()) return parsed.status();
    GPUPROBE_RETURN_IF_ERROR(book.Override(parsed->first, parsed->second, **db));
  }
  return book;
}

core::Result<const std::vector<model::CatalogEntry>*> ModelCatalog() {
  static const core::Result<std::vector<model::CatalogEntry>> kParsed = []() -> core::Result<std::vector<model::CatalogEntry>> {
    auto text = core::EmbeddedFile("models/catalog.json");
    if (!text.ok()) return text.status();
    return model::ParseModelCatalog(*text, "models/catalog.json");
  }();
  return Kept(kParsed);
}

core::Result<const std::vector<model::NormalRange>*> NormalRanges() {
  static const core::Result<std::vector<model::NormalRange>> kParsed = []() -> core::Result<std::vector<model::NormalRange>> {
    auto text = core::EmbeddedFile("knowledge/normal_ranges.json");
    if (!text.ok()) return text.status();
    return model::ParseNormalRanges(std::string(*text), "data/knowledge/normal_ranges.json");
  }();
  return Kept(kParsed);
}

core::Result<const model::Glossary*> Glossary() {
  static const core::Result<model::Glossary> kParsed = []() -> core::Result<model::Glossary> {
    auto text = core::EmbeddedFile("knowledge/glossary.json");
    if (!text.ok()) return text.status();
    return model::Glossary::Parse(*text, "data/knowledge/glossary.json");
  }();
  return Kept(kParsed);
}

model::DeviceMatch MatchDevice(std::optional<std::uint32_t> pci_device_id, std::string_view runtime_name) {
  auto db = Specs();
  if (!db.ok()) return {};
  return model::MatchDevice(**db, pci_device_id, runtime_name);
}

const model::GpuSpec* DeviceSpec(std::string_view runtime_name) { return MatchDevice(std::nullopt, runtime_name).spec; }

}  // namespace gpuprobe::knowledge
