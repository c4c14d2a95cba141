#include "telemetry/findings.h"

#include <algorithm>

#include <fmt/format.h>

#include "telemetry/findings_rules.h"
#include "telemetry/snapshot_fields.h"

namespace gpuprobe::telemetry {

namespace rules {

Finding& Judge::Raise(const char* id, Severity severity) {
  Finding f;
  f.id = id;
  f.severity = severity;
  f.gpu = gpu_;
  out_->findings.push_back(std::move(f));
  return out_->findings.back();
}

void Judge::Use(Finding* finding, const char* field) const {
  for (const auto& fact : finding->facts) {
    if (fact.field == field) return;
  }
  if (auto value = SnapshotFieldText(s, field)) {
    finding->facts.push_back({field, *value});
  } else if (std::find(finding->missing.begin(), finding->missing.end(), field) == finding->missing.end()) {
    finding->missing.push_back(field);
  }
}

void Judge::Show(Finding* finding, const char* field) const {
  if (Has(field)) Use(finding, field);
}

void Judge::NotJudged(const char* id, std::vector<std::string> missing, std::string reason) {
  // Only the fields that are really absent: a rule names every field it could have used.
  missing.erase(std::remove_if(missing.begin(), missing.end(), [&](const std::string& f) { return Has(f.c_str()); }), missing.end());
  out_->not_judged.push_back({id, gpu_, std::move(missing), std::move(reason)});
}

bool Judge::Has(const char* field) const { return SnapshotFieldText(s, field).has_value(); }

std::string Whole(double value) { return fmt::format("{:.0f}", value); }
std::string OneDecimal(double value) { return fmt::format("{:.1f}", value); }
std::string GiB(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }
void Arg(Finding* finding, const char* name, std::string value) { finding->args.push_back({name, std::move(value)}); }

std::optional<bool> IsBusy(const Snapshot& s) {
  if (!s.utilization_gpu_percent) return std::nullopt;
  return *s.utilization_gpu_percent >= kBusyPercent;
}

std::optional<bool> IsIdle(const Snapshot& s) {
  if (!s.utilization_gpu_percent) return std::nullopt;
  return *s.utilization_gpu_percent <= kIdlePercent;
}

std::optional<double> UsableBytes(const Snapshot& s) {
  if (!s.memory_total_bytes) return std::nullopt;
  return *s.memory_total_bytes - s.memory_reserved_bytes.value_or(0);
}

}  // namespace rules

std::string SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarn: return "warn";
    case Severity::kFail: return "fail";
  }
  return "?";
}

std::string ConfidenceName(Confidence confidence) { return confidence == Confidence::kFull ? "full" : "reduced"; }

std::string Finding::EvidenceKey() const {
  return variant.empty() ? "finding." + id + ".evidence" : "finding." + id + ".evidence." + variant;
}

const std::vector<std::string>& FindingIds() {
  static const std::vector<std::string> kIds = {
      // memory health
      "ecc_uncorrectable", "ecc_uncorrectable_history", "ecc_corrected", "ecc_sram_threshold_exceeded", "row_remap_failure",
      "memory_repair_pending", "retired_pages", "rows_remapped",
      // clocks and heat
      "thermal_or_power_throttling", "power_capped", "thermal_slowdown_reached", "near_thermal_slowdown", "fan_reading_error",
      // PCIe
      "pcie_link_narrow", "pcie_link_degraded", "pcie_replays",
      // workload
      "memory_nearly_full", "memory_held_without_process", "memory_unaccounted", "busy_without_process", "memory_reserved_idle",
      "gpu_starved_by_host", "video_engine_busy",
      "busy_not_bandwidth_bound", "bandwidth_bound", "power_without_utilization", "memory_busy_without_kernels",
      // configuration
      "persistence_off", "mig_hides_utilization"};
  return kIds;
}

Assessment Assess(const std::vector<Snapshot>& gpus) {
  Assessment out;
  for (size_t i = 0; i < gpus.size(); ++i) {
    rules::Judge judge(gpus[i], gpus[i].index.value_or(static_cast<int>(i)), &out);
    rules::CheckMemoryHealth(judge);
    rules::CheckClocksAndHeat(judge);
    rules::CheckPcie(judge);
    rules::CheckWorkload(judge);
    rules::CheckConfiguration(judge);
  }
  return out;
}

std::vector<Finding> EvaluateFindings(const std::vector<Snapshot>& gpus) { return Assess(gpus).findings; }

Severity WorstSeverity(const std::vector<Finding>& findings) {
  Severity worst = Severity::kInfo;
  for (const auto& f : findings) worst = std::max(worst, f.severity);
  return worst;
}

HealthVerdict JudgeHealth(const std::vector<Finding>& findings, int gpus) {
  HealthVerdict v;
  v.gpus = gpus;
  v.worst = WorstSeverity(findings);
  for (const auto& f : findings) {
    if (f.severity == Severity::kInfo) {
      ++v.notes;
    } else {
      v.causes.push_back(&f);
    }
  }
  std::stable_sort(v.causes.begin(), v.causes.end(), [](const Finding* a, const Finding* b) { return a->severity > b->severity; });
  return v;
}

}  // namespace gpuprobe::telemetry
