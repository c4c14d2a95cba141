// The price table (data/prices/gpu_prices.json, embedded) with the user's --price overrides,
// for plan, gpus and advise.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "model/prices.h"
#include "model/spec_database.h"

namespace gpuprobe::cli {

/// The embedded price table with every `--price GPU=USD/h` value applied (later ones win).
/// InvalidArgument naming --price for a malformed value or an unknown GPU.
core::Result<model::PriceBook> LoadPrices(const model::SpecDatabase& db, const std::vector<std::string>& price_flags);

/// {usd_per_gpu_hour, provider, offer, date, source_url, via, user_given} or null.
nlohmann::json PriceJson(const model::GpuPrice* price);

}  // namespace gpuprobe::cli
