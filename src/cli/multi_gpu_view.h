// What `bench collectives` and `bench p2p` print: the plan (--dry-run), the nccl-tests-style
// tables of a collectives run, the nvbandwidth-style copy matrices; each as text in the
// reader's language and as a --json document.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/multi_gpu.h"
#include "bench/multi_gpu_plan.h"
#include "bench/multi_gpu_run.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

using bench::MultiGpuMachine;

std::string RenderCollectivesPlan(const bench::CollectivesPlan& plan, const MultiGpuMachine& machine,
                                  const report::Texts& t);
nlohmann::json CollectivesPlanJson(const bench::CollectivesPlan& plan, const MultiGpuMachine& machine);

std::string RenderP2pPlan(const bench::P2pPlan& plan, const MultiGpuMachine& machine, const report::Texts& t);
nlohmann::json P2pPlanJson(const bench::P2pPlan& plan, const MultiGpuMachine& machine);

/// The link the planner's communication term assumes for `gpus` GPUs of this kind
/// (model::LinkForGroup over the spec database's entry), to set the measured figures beside.
struct PlannerLink {
  std::string spec_name;          ///< the database's name, "H200 SXM 141GB"
  std::string link_id;            ///< model::LinkKindId
  std::string link_name;          ///< in the reader's language
  double bytes_per_second = 0;    ///< per GPU, per direction
  bool fell_back_to_pcie = false;
};

/// The planner's link for `gpus` GPUs named `runtime_name`; empty when the GPU is not in the
/// spec database or the spec gives no bandwidth for its link.
std::optional<PlannerLink> PlannerLinkFor(const std::string& runtime_name, int gpus, const report::Texts& t);

std::string RenderCollectivesReport(const bench::CollectivesReport& report, const std::optional<PlannerLink>& link,
                                    const report::Texts& t);
nlohmann::json CollectivesReportJson(const bench::CollectivesReport& report, const std::optional<PlannerLink>& link);

std::string RenderP2pReport(const bench::P2pReport& report, const std::optional<PlannerLink>& link, const report::Texts& t);
nlohmann::json P2pReportJson(const bench::P2pReport& report, const std::optional<PlannerLink>& link);

}  // namespace gpuprobe::cli
