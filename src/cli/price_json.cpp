#include "cli/price_json.h"

namespace gpuprobe::cli {

nlohmann::json PriceJson(const model::GpuPrice* price) {
  if (price == nullptr) return nullptr;
  return {{"usd_per_gpu_hour", price->usd_per_hour}, {"provider", price->provider}, {"offer", price->offer},
          {"date", price->date}, {"source_url", price->source_url}, {"via", price->via},
          {"user_given", price->user_given}};
}

}  // namespace gpuprobe::cli
