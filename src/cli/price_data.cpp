#include "cli/price_data.h"

#include "core/embedded_data.h"

namespace gpuprobe::cli {

core::Result<model::PriceBook> LoadPrices(const model::SpecDatabase& db, const std::vector<std::string>& price_flags) {
  auto text = core::EmbeddedFile("prices/gpu_prices.json");
  if (!text.ok()) return text.status();
  auto book = model::PriceBook::Parse(*text, db);
  if (!book.ok()) return book.status();
  for (const auto& flag : price_flags) {
    auto parsed = model::ParsePriceFlag(flag);
    if (!parsed.ok()) return parsed.status();
    GPUPROBE_RETURN_IF_ERROR(book->Override(parsed->first, parsed->second, db));
  }
  return book;
}

nlohmann::json PriceJson(const model::GpuPrice* price) {
  if (price == nullptr) return nullptr;
  return {{"usd_per_gpu_hour", price->usd_per_hour}, {"provider", price->provider}, {"offer", price->offer},
          {"date", price->date}, {"source_url", price->source_url}, {"via", price->via},
          {"user_given", price->user_given}};
}

}  // namespace gpuprobe::cli
