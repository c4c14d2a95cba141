// A price as JSON, the same object in plan, gpus and advise (the table itself and the --price
// overrides come from knowledge/embedded_knowledge.h).
#pragma once

#include <nlohmann/json.hpp>

#include "model/prices.h"

namespace gpuprobe::cli {

/// {usd_per_gpu_hour, provider, offer, date, source_url, via, user_given} or null.
nlohmann::json PriceJson(const model::GpuPrice* price);

}  // namespace gpuprobe::cli
