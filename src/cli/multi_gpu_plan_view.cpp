// The plans of `bench collectives` and `bench p2p`, as --dry-run shows them.
#include <fmt/format.h>

#include "cli/command.h"
#include "cli/multi_gpu_view.h"
#include "core/units.h"
#include "report/json_document.h"
#include "report/status_text.h"
#include "report/table.h"

namespace gpuprobe::cli {
namespace {

// Why the run would stop, in the reader's language.
std::string BlockedReason(const MultiGpuMachine& m, const report::Texts& t) {
  return report::FormatWithArgs(t, m.blocked_reason.key, m.blocked_reason.args);
}

nlohmann::json MachineJson(const MultiGpuMachine& m) {
  nlohmann::json j = {{"gpus", m.gpus}, {"can_run", m.blocked_reason.empty()}};
  j["min_free_bytes"] = m.min_free_bytes > 0 ? nlohmann::json(m.min_free_bytes) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

std::string RenderCollectivesPlan(const bench::CollectivesPlan& plan, const MultiGpuMachine& machine,
                                  const report::Texts& t) {
  std::string out = t.Get("collectives.plan.title") + "\n\n";
  if (plan.gpus > 0) {
    out += Tr(t, "collectives.plan.gpus", fmt::arg("gpus", plan.gpus)) + "\n";
  } else {
    out += Tr(t, "collectives.plan.gpus_unknown", fmt::arg("reason", BlockedReason(machine, t))) + "\n";
  }
  out += Tr(t, "collectives.plan.sizes", fmt::arg("first", core::FormatBytesBinary(static_cast<double>(plan.sizes_bytes.front()))),
            fmt::arg("last", core::FormatBytesBinary(static_cast<double>(plan.sizes_bytes.back()))),
            fmt::arg("count", plan.sizes_bytes.size())) +
         "\n";
  out += Tr(t, "collectives.plan.rounding") + "\n";
  out += Tr(t, "collectives.plan.cap", fmt::arg("share", static_cast<int>(bench::kCollectiveMemoryShare * 100))) + "\n";
  if (plan.memory_limit_bytes > 0) {
    out += Tr(t, "collectives.plan.cap_now", fmt::arg("free", core::FormatBytesBinary(static_cast<double>(machine.min_free_bytes))),
              fmt::arg("limit", core::FormatBytesBinary(static_cast<double>(plan.memory_limit_bytes)))) +
           "\n";
  }
  out += Tr(t, "collectives.plan.iterations", fmt::arg("warmup", plan.warmup_iterations),
            fmt::arg("iterations", plan.iterations)) +
         "\n";
  out += Tr(t, "collectives.plan.dtype", fmt::arg("dtype", plan.dtype), fmt::arg("bytes", plan.dtype_bytes)) + "\n";
  out += Tr(t, "collectives.plan.variants") + "\n";
  out += Tr(t, "collectives.plan.bandwidth") + "\n\n";
  std::string count_header = plan.gpus > 0 ? Tr(t, "collectives.plan.col.value", fmt::arg("gpus", plan.gpus)) : std::string();
  std::vector<std::string> headers = {t.Get("collectives.plan.col.collective"), t.Get("collectives.plan.col.factor")};
  if (plan.gpus > 0) headers.push_back(count_header);
  headers.push_back(t.Get("collectives.plan.col.in_place"));
  headers.push_back(t.Get("collectives.plan.col.expected"));
  report::TextTable table(headers);
  for (const auto& e : plan.collectives) {
    std::vector<std::string> row = {model::CollectiveId(e.collective), e.formula};
    if (plan.gpus > 0) row.push_back(fmt::format("{:.4f}", e.factor));
    row.push_back(t.Get(e.in_place ? "common.yes" : "common.no"));
    row.push_back(t.Get(std::string("collectives.verify.") + model::CollectiveId(e.collective)));
    table.AddRow(row);
  }
  out += table.Render(2) + "\n";
  out += Tr(t, "collectives.plan.verify", fmt::arg("per_block", bench::kVerifyElementsPerBlockEnd)) + "\n";
  if (!machine.blocked_reason.empty()) {
    out += "\n" + Tr(t, "collectives.plan.machine_exit", fmt::arg("reason", BlockedReason(machine, t))) + "\n";
  }
  return out;
}

nlohmann::json CollectivesPlanJson(const bench::CollectivesPlan& plan, const MultiGpuMachine& machine) {
  auto doc = report::MakeDocument("bench_collectives_plan");
  doc["machine"] = MachineJson(machine);
  doc["gpus"] = plan.gpus > 0 ? nlohmann::json(plan.gpus) : nlohmann::json(nullptr);
  doc["sizes_bytes"] = plan.sizes_bytes;
  doc["dtype"] = plan.dtype;
  doc["dtype_bytes"] = plan.dtype_bytes;
  doc["warmup_iterations"] = plan.warmup_iterations;
  doc["iterations"] = plan.iterations;
  doc["memory_share"] = bench::kCollectiveMemoryShare;
  doc["memory_limit_bytes"] = plan.memory_limit_bytes > 0 ? nlohmann::json(plan.memory_limit_bytes) : nlohmann::json(nullptr);
  doc["verify_elements_per_block_end"] = bench::kVerifyElementsPerBlockEnd;
  doc["collectives"] = nlohmann::json::array();
  for (const auto& e : plan.collectives) {
    doc["collectives"].push_back({{"id", model::CollectiveId(e.collective)},
                                  {"busbw_factor_formula", e.formula},
                                  {"busbw_factor", plan.gpus > 0 ? nlohmann::json(e.factor) : nlohmann::json(nullptr)},
                                  {"in_place", e.in_place}});
  }
  return doc;
}

std::string RenderP2pPlan(const bench::P2pPlan& plan, const MultiGpuMachine& machine, const report::Texts& t) {
  std::string out = t.Get("collectives.p2p.plan.title") + "\n\n";
  if (plan.gpus > 0) {
    out += Tr(t, "collectives.p2p.plan.pairs", fmt::arg("gpus", plan.gpus), fmt::arg("pairs", plan.gpus * (plan.gpus - 1))) + "\n";
  } else {
    out += Tr(t, "collectives.p2p.plan.pairs_unknown", fmt::arg("reason", BlockedReason(machine, t))) + "\n";
  }
  out += Tr(t, "collectives.p2p.plan.buffer", fmt::arg("bytes", core::FormatBytesBinary(static_cast<double>(plan.buffer_bytes))),
            fmt::arg("warmup", plan.warmup_iterations), fmt::arg("iterations", plan.iterations)) +
         "\n";
  out += t.Get("collectives.p2p.plan.peer") + "\n";
  out += t.Get("collectives.p2p.plan.tests") + "\n";
  report::TextTable table({t.Get("collectives.p2p.plan.col.test"), t.Get("collectives.p2p.plan.col.meaning")});
  for (const auto& test : plan.tests) table.AddRow({test, t.Get("collectives.p2p.test." + test)});
  out += table.Render(2) + "\n";
  out += t.Get("collectives.p2p.plan.verify") + "\n";
  if (!machine.blocked_reason.empty()) {
    out += "\n" + Tr(t, "collectives.plan.machine_exit", fmt::arg("reason", BlockedReason(machine, t))) + "\n";
  }
  return out;
}

nlohmann::json P2pPlanJson(const bench::P2pPlan& plan, const MultiGpuMachine& machine) {
  auto doc = report::MakeDocument("bench_p2p_plan");
  doc["machine"] = MachineJson(machine);
  doc["gpus"] = plan.gpus > 0 ? nlohmann::json(plan.gpus) : nlohmann::json(nullptr);
  doc["buffer_bytes"] = plan.buffer_bytes;
  doc["warmup_iterations"] = plan.warmup_iterations;
  doc["iterations"] = plan.iterations;
  doc["tests"] = plan.tests;
  return doc;
}

}  // namespace gpuprobe::cli
