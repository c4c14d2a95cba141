#include "model/normal_range.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuprobe::model {

using nlohmann::json;

core::Result<std::vector<NormalRange>> ParseNormalRanges(const std::string& json_text, const std::string& label) {
  json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("ranges") || !doc["ranges"].is_array()) {
    return core::Status::ParseError(label + ": expected an object with a \"ranges\" array");
  }
  std::vector<NormalRange> ranges;
  for (size_t i = 0; i < doc["ranges"].size(); ++i) {
    const json& e = doc["ranges"][i];
    const std::string where = fmt::format("{}: ranges[{}]", label, i);
    if (!e.is_object() || !e.contains("ids") || !e["ids"].is_array() || e["ids"].empty()) {
      return core::Status::ParseError(where + ": \"ids\" must be a non-empty array of benchmark ids");
    }
    NormalRange r;
    for (const auto& id : e["ids"]) {
      if (!id.is_string()) return core::Status::ParseError(where + ": \"ids\" holds a non-string");
      r.ids.push_back(id.get<std::string>());
    }
    const json backend = e.value("backend", json()), low = e.value("low", json()), high = e.value("high", json()),
               source = e.value("source", json()), low_reason = e.value("low_reason", json()), case_label = e.value("case", json(""));
    if (!backend.is_string() || !low.is_number() || !high.is_number() || !source.is_string() || !low_reason.is_string() ||
        !case_label.is_string()) {
      return core::Status::ParseError(where + ": needs backend, low, high, source and low_reason (case: a string)");
    }
    r.backend = backend.get<std::string>();
    r.case_label = case_label.get<std::string>();
    r.low = low.get<double>();
    r.high = high.get<double>();
    r.source = source.get<std::string>();
    r.low_reason = low_reason.get<std::string>();
    // A range is a fraction of a spec-sheet peak: inside (0, 1], low below high.
    if (!(r.low > 0 && r.low < r.high && r.high <= 1.0)) {
      return core::Status::ParseError(where + ": needs 0 < low < high <= 1");
    }
    if (const auto summary = e.find("summary"); summary != e.end()) {
      if (!summary->is_object() || !summary->value("en", json()).is_string() || !summary->value("zh", json()).is_string()) {
        return core::Status::ParseError(where + ": \"summary\" needs an \"en\" and a \"zh\" text");
      }
      r.summary_en = (*summary)["en"].get<std::string>();
      r.summary_zh = (*summary)["zh"].get<std::string>();
    }
    for (const json& b : e.value("best_by_gpu", json::array())) {
      if (!b.is_object() || !b.value("match", json()).is_string() || !b.value("best", json()).is_number()) {
        return core::Status::ParseError(where + ": a \"best_by_gpu\" row needs \"match\" and \"best\"");
      }
      NormalRange::GpuBest best{b["match"].get<std::string>(), b["best"].get<double>()};
      if (!(best.best > 0 && best.best <= 1.0)) return core::Status::ParseError(where + ": a best run is a share in (0, 1]");
      r.best_by_gpu.push_back(std::move(best));
    }
    ranges.push_back(std::move(r));
  }
  return ranges;
}

}  // namespace gpuprobe::model
