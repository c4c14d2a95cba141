#include "history/run_record.h"

#include <fmt/format.h>

namespace gpuprobe::history {

using nlohmann::json;

namespace {

std::string StringField(const json& j, const char* name) {
  return j.contains(name) && j[name].is_string() ? j[name].get<std::string>() : std::string();
}

double NumberField(const json& j, const char* name) {
  return j.contains(name) && j[name].is_number() ? j[name].get<double>() : 0.0;
}

}  // namespace

core::Result<RunRecord> RunFromBenchDocument(const json& doc) {
  if (!doc.is_object() || StringField(doc, "schema") != "gpuprobe.bench.v1" || !doc.contains("results") || !doc["results"].is_array()) {
    return core::Status::ParseError("not a gpuprobe bench document (expected \"schema\": \"gpuprobe.bench.v1\" with results)");
  }
  RunRecord run;
  run.version = StringField(doc, "gpuprobe_version");
  run.mode = StringField(doc, "mode");
  if (doc.contains("machine") && doc["machine"].is_object()) {
    const json& machine = doc["machine"];
    if (machine.contains("cpu") && machine["cpu"].is_object()) run.cpu = StringField(machine["cpu"], "model");
    if (machine.contains("gpus") && machine["gpus"].is_array()) {
      for (const auto& g : machine["gpus"]) {
        if (!g.is_string()) continue;
        if (!run.gpus.empty()) run.gpus += "; ";
        run.gpus += g.get<std::string>();
      }
    }
  }
  for (const auto& r : doc["results"]) {
    if (!r.is_object() || !r.contains("value") || !r["value"].is_number()) continue;
    if (!(r.contains("verified") && r["verified"].is_boolean() && r["verified"].get<bool>())) continue;
    RecordedResult out;
    out.id = StringField(r, "id");
    out.backend = StringField(r, "backend");
    out.case_label = StringField(r, "case");
    out.metric = StringField(r, "metric");
    out.unit = StringField(r, "unit");
    out.value = r["value"].get<double>();
    out.threads = static_cast<int>(NumberField(r, "threads"));
    if (out.id.empty() || out.value <= 0) continue;
    // No device in the key: the same case on two machines is what "compare" is for.
    out.key = fmt::format("{}|{}|{}", out.id, out.backend, out.case_label);
    out.noisy = r.contains("noisy") && r["noisy"].is_boolean() && r["noisy"].get<bool>();
    // The value is computed from the median time; the spread in time maps onto the value:
    // a rate is inversely proportional to time, a latency proportional to it.
    double median = NumberField(r, "median_s"), p10 = NumberField(r, "p10_s"), p90 = NumberField(r, "p90_s");
    if (median > 0 && p10 > 0 && p90 >= p10) {
      if (out.higher_is_better()) {
        out.low = out.value * median / p90;
        out.high = out.value * median / p10;
      } else {
        out.low = out.value * p10 / median;
        out.high = out.value * p90 / median;
      }
    } else {
      out.low = out.high = out.value;
    }
    run.results.push_back(out);
  }
  return run;
}

}  // namespace gpuprobe::history
