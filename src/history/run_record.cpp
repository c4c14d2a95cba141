#include "history/run_record.h"

#include <fmt/format.h>

namespace gpuprobe::history {

RunRecord RunFromBenchDocument(const bench::BenchDocument& doc) {
  RunRecord run;
  run.version = doc.gpuprobe_version;
  run.mode = doc.full ? "full" : "quick";
  run.cpu = doc.cpu.model_name;
  for (const auto& g : doc.gpus) {
    if (!run.gpus.empty()) run.gpus += "; ";
    run.gpus += g;
  }
  for (const auto& r : doc.results) {
    if (!r.ok() || !r.verified || r.id.empty() || r.value <= 0) continue;
    RecordedResult out;
    out.id = r.id;
    out.backend = r.backend;
    out.case_label = r.case_label;
    out.metric = bench::MetricName(r.metric);
    out.unit = bench::MetricUnit(r.metric);
    out.value = r.value;
    out.threads = r.threads;
    // No device in the key: the same case on two machines is what "compare" is for.
    out.key = fmt::format("{}|{}|{}", out.id, out.backend, out.case_label);
    out.noisy = r.stats.noisy;
    // The value is computed from the median time; the spread in time maps onto the value:
    // a rate is inversely proportional to time, a latency proportional to it.
    double median = r.stats.median, p10 = r.stats.p10, p90 = r.stats.p90;
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
