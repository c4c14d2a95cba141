// What a GPU-hour costs: a small checked-in table of on-demand list prices
// (data/prices/gpu_prices.json; one row per GPU with its provider, offer, the date it was
// read and the page it was read from), overridden by the user's own --price GPU=USD/h.
// Prices move every month and differ several-fold between providers for the same chip, so
// every figure derived from them names the price and where it came from.
//
// Thread safety: immutable after Parse(); Override() is not thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "model/spec_database.h"

namespace gpuprobe::model {

struct GpuPrice {
  const GpuSpec* gpu = nullptr;
  double usd_per_hour = 0;    ///< one GPU, on demand
  std::string provider;       ///< "RunPod (Secure Cloud)"; "--price" when the user gave it
  std::string offer;          ///< the provider's product ("1x H100 SXM", "p5.48xlarge / 8")
  std::string date;           ///< when the price was read (YYYY-MM-DD)
  std::string source_url;     ///< the provider's page
  std::string via;            ///< the public transcription it was read through, when not the page itself
  bool user_given = false;
};

class PriceBook {
 public:
  /// Parses the price table. ParseError naming the row and field when a field is missing or
  /// has the wrong type, a price is not a positive number, or a GPU is not in `db`.
  static core::Result<PriceBook> Parse(std::string_view json_text, const SpecDatabase& db);

  /// Sets the price of the GPU `query` names (as SpecDatabase::Find resolves it).
  core::Status Override(std::string_view query, double usd_per_hour, const SpecDatabase& db);

  /// The price of `gpu`, or nullptr when neither the table nor the user gives one.
  const GpuPrice* Find(const GpuSpec& gpu) const;

  const std::vector<GpuPrice>& prices() const { return prices_; }

 private:
  std::vector<GpuPrice> prices_;
};

/// Parses one --price value, "GPU=USD/h" ("l4=0.80", "h100 sxm=2.5"): the GPU query and the
/// price, checked as a price (model/quantity.h). InvalidArgument naming --price otherwise.
core::Result<std::pair<std::string, double>> ParsePriceFlag(std::string_view value);

/// Dollars per million output tokens for `gpus` GPUs at `usd_per_gpu_hour` producing
/// `tokens_per_second` in all.
double UsdPerMillionTokens(double usd_per_gpu_hour, double gpus, double tokens_per_second);

}  // namespace gpuprobe::model
