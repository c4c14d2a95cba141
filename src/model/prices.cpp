#include "model/prices.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "model/quantity.h"

namespace gpuprobe::model {
namespace {

using nlohmann::json;

core::Status RowError(size_t row, const std::string& field, const std::string& what) {
  return core::Status::ParseError(fmt::format("GPU price table, row {}: field '{}' {}", row + 1, field, what));
}

using core::Trim;

}  // namespace

core::Result<PriceBook> PriceBook::Parse(std::string_view json_text, const SpecDatabase& db) {
  PriceBook book;
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("prices") || !doc["prices"].is_array()) {
    return core::Status::ParseError("GPU price table is not valid JSON with a 'prices' list");
  }
  const json& rows = doc["prices"];
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    if (!row.is_object()) return RowError(i, "(row)", "must be an object");
    GpuPrice price;
    for (const char* field : {"gpu", "provider", "offer", "date", "source_url"}) {
      if (!row.contains(field) || !row[field].is_string() || row[field].get<std::string>().empty()) {
        return RowError(i, field, "must be a non-empty string");
      }
    }
    if (!row.contains("usd_per_gpu_hour") || !row["usd_per_gpu_hour"].is_number()) {
      return RowError(i, "usd_per_gpu_hour", "must be a number");
    }
    price.usd_per_hour = row["usd_per_gpu_hour"].get<double>();
    if (!CheckQuantity(Quantity::kPrice, price.usd_per_hour, "usd_per_gpu_hour").ok()) {
      return RowError(i, "usd_per_gpu_hour", "must be a positive price below 10,000");
    }
    auto gpu = db.Find(row["gpu"].get<std::string>());
    if (!gpu.ok()) return RowError(i, "gpu", "names no single GPU of the spec database: " + gpu.status().message());
    price.gpu = *gpu;
    price.provider = row["provider"].get<std::string>();
    price.offer = row["offer"].get<std::string>();
    price.date = row["date"].get<std::string>();
    price.source_url = row["source_url"].get<std::string>();
    if (row.contains("via") && row["via"].is_string()) price.via = row["via"].get<std::string>();
    for (const auto& existing : book.prices_) {
      if (existing.gpu == price.gpu) return RowError(i, "gpu", "prices " + price.gpu->name + " twice");
    }
    book.prices_.push_back(std::move(price));
  }
  return book;
}

core::Status PriceBook::Override(std::string_view query, double usd_per_hour, const SpecDatabase& db) {
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kPrice, usd_per_hour, "--price"));
  auto gpu = db.Find(query);
  if (!gpu.ok()) return gpu.status().WithContext("--price");
  GpuPrice price;
  price.gpu = *gpu;
  price.usd_per_hour = usd_per_hour;
  price.provider = "--price";
  price.user_given = true;
  for (auto& existing : prices_) {
    if (existing.gpu == *gpu) {
      existing = price;
      return core::Status::Ok();
    }
  }
  prices_.push_back(price);
  return core::Status::Ok();
}

const GpuPrice* PriceBook::Find(const GpuSpec& gpu) const {
  for (const auto& p : prices_) {
    if (p.gpu == &gpu) return &p;
  }
  return nullptr;
}

core::Result<std::pair<std::string, double>> ParsePriceFlag(std::string_view value) {
  auto eq = value.rfind('=');
  if (eq == std::string_view::npos) {
    return core::Status::InvalidArgument(fmt::format("--price '{}' must be GPU=USD/h, e.g. --price l4=0.80", value))
        .WithKeys("error.price.format", {{"value", std::string(value)}});
  }
  std::string gpu = Trim(value.substr(0, eq));
  std::string amount = Trim(value.substr(eq + 1));
  GPUPROBE_RETURN_IF_ERROR(CheckGpuName(gpu, "--price"));
  if (amount.size() > 2 && amount.compare(amount.size() - 2, 2, "/h") == 0) amount.resize(amount.size() - 2);
  if (!amount.empty() && amount.front() == '$') amount.erase(0, 1);
  size_t used = 0;
  std::optional<double> parsed = core::ParseDouble(amount, &used);
  const double usd = parsed.value_or(0);
  if (!parsed || used == 0 || used != amount.size()) {
    return core::Status::InvalidArgument(fmt::format("--price '{}': '{}' is not a price in US dollars per hour", value, amount))
        .WithKeys("error.price.amount", {{"value", std::string(value)}, {"amount", amount}});
  }
  GPUPROBE_RETURN_IF_ERROR(CheckQuantity(Quantity::kPrice, usd, "--price"));
  return std::make_pair(gpu, usd);
}

double UsdPerMillionTokens(double usd_per_gpu_hour, double gpus, double tokens_per_second) {
  if (tokens_per_second <= 0) return 0;
  return usd_per_gpu_hour * gpus / (tokens_per_second * 3600.0) * 1e6;
}

}  // namespace gpuprobe::model
