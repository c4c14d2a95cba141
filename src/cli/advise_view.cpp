#include "cli/advise_view.h"

#include <fmt/format.h>

#include "app/matmul_comparison.h"
#include "cli/command.h"
#include "cli/gpus_view.h"
#include "report/count_text.h"
#include "report/phrase_text.h"
#include "cli/price_json.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

// Speed-ups and caps by the one rounding rule every verb uses (app/matmul_comparison.h), so
// the table, the Amdahl line and the criteria say the same 1.25.
std::string Speedup(double x) { return app::FormatSpeedup(x); }

using nlohmann::json;

// The table's rows: the first `top` by total time, then any GPU the advice names that ranks
// below them (the pick, the cheapest, the fastest with the data on the GPU), so every GPU the
// verdict names is in the table.
std::vector<const model::GpuEstimate*> ShownGpus(const model::Advice& a, int top) {
  std::vector<const model::GpuEstimate*> rows;
  for (size_t i = 0; i < a.gpus.size() && static_cast<int>(i) < top; ++i) rows.push_back(&a.gpus[i]);
  auto add = [&](const model::GpuEstimate* e) {
    if (e == nullptr) return;
    for (const auto* r : rows) {
      if (r->gpu == e->gpu) return;
    }
    rows.push_back(e);
  };
  for (const auto& e : a.gpus) {
    if (a.pick != nullptr && e.gpu == a.pick) add(&e);
  }
  if (a.cheapest >= 0) add(&a.gpus[static_cast<size_t>(a.cheapest)]);
  const model::GpuEstimate* resident = nullptr;  // advisor.cpp's best_resident: named by the "stay" reason
  for (const auto& e : a.gpus) {
    if (!e.model_fits.value_or(true)) continue;
    if (resident == nullptr || e.resident_seconds < resident->resident_seconds) resident = &e;
  }
  if (a.verdict == model::Verdict::kStayOnCpu) add(resident);
  return rows;
}

std::string Dollars(const report::Texts& t, double usd) {
  return FormatArg(t, model::PhraseArg{"", model::ArgKind::kDollars, usd, {}, nullptr});
}

}  // namespace

std::string RenderAdvice(const model::Workload& w, const model::CpuCapability& cpu, const model::Advice& a, int top,
                         const report::Texts& t) {
  std::string out;
  out += Tr(t, "advise.workload", fmt::arg("name", Say(t, w.name))) + "\n";
  out += "  " + Tr(t, "advise.work", fmt::arg("flops", report::FormatCountFor(t.language(), w.flops)),
                   fmt::arg("bytes", core::FormatBytesBinary(w.bytes)),
                   fmt::arg("transfer", core::FormatBytesBinary(w.transfer_bytes))) + "\n";
  out += "  " + Tr(t, "advise.cpu", fmt::arg("time", core::FormatSeconds(a.cpu_seconds)),
                   fmt::arg("bound", a.cpu_bandwidth_bound ? t.Get("advise.bound.bandwidth") : t.Get("advise.bound.compute")),
                   fmt::arg("basis", Say(t, cpu.basis))) + "\n\n";
  const bool llm = w.model_params > 0;
  // With a serial part, the total is that part on the CPU plus the parallel part on the GPU:
  // the columns show both, so total = GPU part + CPU part + transfer + launch, row by row.
  const double p = w.parallel_fraction;
  const bool serial = p < 1;
  std::vector<std::string> headers = {t.Get("advise.col.gpu"), t.Get(serial ? "advise.col.compute_parallel" : "advise.col.compute")};
  if (serial) headers.push_back(t.Get("advise.col.serial"));
  for (const char* key : {"advise.col.transfer", "advise.col.launch", "advise.col.total", "advise.col.resident", "advise.col.vs_cpu",
                          "advise.col.cost"}) {
    headers.push_back(t.Get(key));
  }
  if (llm) headers.push_back(t.Get("advise.col.fits"));
  report::TextTable table(headers);
  const size_t numeric_columns = headers.size() - 1 - (llm ? 1 : 0);  // every column but the GPU and "fits"
  for (size_t c = 1; c <= numeric_columns; ++c) table.SetAlign(c, report::Align::kRight);
  for (const model::GpuEstimate* shown : ShownGpus(a, top)) {
    const model::GpuEstimate& e = *shown;
    std::vector<std::string> row = {GpuNameText(e.gpu->name, t), core::FormatSeconds(p * e.compute_seconds)};
    if (serial) row.push_back(core::FormatSeconds((1 - p) * a.cpu_seconds));
    for (const std::string& cell : {core::FormatSeconds(e.transfer_seconds), core::FormatSeconds(e.launch_seconds),
                                    core::FormatSeconds(e.total_seconds), core::FormatSeconds(e.resident_seconds),
                                    fmt::format("x{} / x{}", Speedup(e.speedup), Speedup(e.resident_speedup)),
                                    e.price != nullptr ? Dollars(t, e.usd_per_million_calls) : std::string("-")}) {
      row.push_back(cell);
    }
    if (llm) {
      row.push_back(Tr(t, *e.model_fits ? "advise.fits.yes" : "advise.fits.no", fmt::arg("total", core::FormatBytesBinary(e.model_bytes)),
                       fmt::arg("usable", core::FormatBytesBinary(e.model_budget_bytes))));
    }
    table.AddRow(row);
  }
  out += table.Render(2);
  out += "  " + t.Get(serial ? "advise.table_note_serial" : "advise.table_note") + "\n";
  if (llm) out += "  " + t.Get("advise.fits_note") + "\n";
  if (w.parallel_fraction < 1) {
    out += "  " + Tr(t, "advise.amdahl", fmt::arg("cap", Speedup(a.amdahl_cap)),
                     fmt::arg("p", fmt::format("{:.0f}", w.parallel_fraction * 100))) + "\n";
  }
  out += "\n" + t.Get("advise.criteria") + "\n";
  for (const auto& c : a.criteria) {
    out += fmt::format("  {:+d}  {}{}\n", c.score, report::Labelled(t, t.Get("advise.criterion." + c.id)), Say(t, c.reason));
  }
  out += "\n" + Tr(t, "advise.verdict." + model::VerdictName(a.verdict), fmt::arg("gpu", a.pick ? GpuNameText(a.pick->name, t) : "")) + "\n";
  out += "  " + Say(t, a.reason) + "\n";
  if (a.cheapest >= 0) {
    const model::GpuEstimate& e = a.gpus[static_cast<size_t>(a.cheapest)];
    out += "  " + Tr(t, "advise.cheapest", fmt::arg("gpu", GpuNameText(e.gpu->name, t)), fmt::arg("usd", Dollars(t, e.price->usd_per_hour)),
                     fmt::arg("cost", Dollars(t, e.usd_per_million_calls)),
                     fmt::arg("source", e.price->user_given ? t.Get("plan.price.given")
                                                            : Tr(t, "plan.price.table", fmt::arg("provider", e.price->provider),
                                                                 fmt::arg("date", e.price->date), fmt::arg("url", e.price->source_url)))) + "\n";
  }
  return out;
}

json AdviceToJson(const model::Workload& w, const model::CpuCapability& cpu, const model::Advice& a, const report::Texts& t) {
  auto doc = report::MakeDocument("advise");
  doc["workload"] = {{"name", Say(t, w.name)}, {"dtype", w.dtype}, {"flops", w.flops}, {"bytes", w.bytes},
                     {"transfer_bytes", w.transfer_bytes}, {"parallel_fraction", w.parallel_fraction},
                     {"branchy", w.branchy}, {"calls_per_second", w.calls_per_second},
                     {"model_params", w.model_params > 0 ? json(w.model_params) : json(nullptr)},
                     {"arithmetic_intensity_flops_per_byte", w.bytes > 0 ? json(w.flops / w.bytes) : json(nullptr)}};
  doc["cpu"] = {{"flops", cpu.flops}, {"bandwidth_bytes_per_s", cpu.bandwidth}, {"basis", Say(t, cpu.basis)},
                {"seconds", a.cpu_seconds}, {"bandwidth_bound", a.cpu_bandwidth_bound}};
  doc["amdahl_cap"] = a.amdahl_cap;
  doc["gpus"] = json::array();
  for (const auto& e : a.gpus) {
    doc["gpus"].push_back({{"gpu", e.gpu->name}, {"compute_seconds", e.compute_seconds}, {"transfer_seconds", e.transfer_seconds},
                           {"launch_seconds", e.launch_seconds}, {"total_seconds", e.total_seconds},
                           {"resident_seconds", e.resident_seconds}, {"speedup", e.speedup},
                           {"resident_speedup", e.resident_speedup}, {"bandwidth_bound", e.bandwidth_bound},
                           {"link", Say(t, e.link)}, {"peak_flops", e.peak_flops},
                           {"bandwidth_bytes_per_s", e.bandwidth_bytes_per_s}, {"usable_bytes", e.usable_bytes},
                           {"model_fits", e.model_fits ? json(*e.model_fits) : json(nullptr)},
                           {"model_bytes", e.model_fits ? json(e.model_bytes) : json(nullptr)},
                           {"model_budget_bytes", e.model_fits ? json(e.model_budget_bytes) : json(nullptr)},
                           {"price", PriceJson(e.price)},
                           {"usd_per_million_calls", e.price != nullptr ? json(e.usd_per_million_calls) : json(nullptr)},
                           {"figures", GpuFiguresJson(*e.gpu, t)}});
  }
  doc["criteria"] = json::array();
  for (const auto& c : a.criteria) doc["criteria"].push_back({{"id", c.id}, {"score", c.score}, {"reason", Say(t, c.reason)}});
  doc["verdict"] = {{"id", model::VerdictName(a.verdict)}, {"gpu", a.pick ? json(a.pick->name) : json(nullptr)},
                    {"reason", Say(t, a.reason)},
                    {"cheapest_gpu", a.cheapest >= 0 ? json(a.gpus[static_cast<size_t>(a.cheapest)].gpu->name) : json(nullptr)}};
  return doc;
}

}  // namespace gpuprobe::cli
