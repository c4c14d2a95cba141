// Views of bench results: a terminal table grouped by claim with CPU and GPU rows side by
// side in the same units, JSON (schema gpuprobe.bench.v1) and CSV for sweeps.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_document.h"
#include "bench/result.h"
#include "model/cpu_spec.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// The one-line takeaway of a result in the user's words (texts "takeaway.<id>").
std::string Takeaway(const bench::BenchResult& result, const std::vector<bench::BenchResult>& all,
                     const report::Texts& texts, double clock_hz = 0);

/// "4.80 TB/s", "989 TFLOP/s", "1.2 Gop/s", "92.1 ns".
std::string FormatMetricValue(bench::Metric metric, double value);

/// The document's JSON (bench/bench_document.h) with each result's takeaway in `texts`.
nlohmann::json BenchToJson(const bench::BenchDocument& document, const report::Texts& texts);
std::string BenchToCsv(const bench::BenchDocument& document);
std::string RenderBench(const bench::BenchDocument& document, const report::Texts& texts);
std::string RenderCpuFacts(const model::CpuSpec& cpu, const report::Texts& texts);

}  // namespace gpuprobe::cli
