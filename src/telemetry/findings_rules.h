// Internal to the findings: the helper every rule uses to raise a finding with its evidence
// or record that it could not judge, and the rule groups (one file each). Not a public API.
//
// Thread safety: a Judge belongs to one evaluation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "telemetry/findings.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry::rules {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
/// GPU-Util at or above this is "under load" for the link and throttle rules; at or below
/// kIdlePercent the GPU is idle. GPU-Util is the share of time a kernel ran over the last
/// sample period (1 s to 1/6 s, nvidia-smi --help-query-gpu), so one capture is one sample.
inline constexpr double kBusyPercent = 30;
inline constexpr double kIdlePercent = 5;

class Judge {
 public:
  Judge(const Snapshot& snapshot, int gpu, Assessment* out) : s(snapshot), gpu_(gpu), out_(out) {}

  const Snapshot& s;

  /// Adds a finding; the reference stays valid until the next Raise.
  Finding& Raise(const char* id, Severity severity);
  /// Records `field` (nvidia-smi name) with its value as evidence; when the snapshot lacks
  /// it, the field is listed as missing instead (the finding's confidence drops).
  void Use(Finding* finding, const char* field) const;
  /// Records `field` as evidence when present; nothing when absent (context, not an input).
  void Show(Finding* finding, const char* field) const;
  /// The rule `id` could not decide: `missing` are the fields it lacked.
  void NotJudged(const char* id, std::vector<std::string> missing, std::string reason = {});
  /// Whether the snapshot has a value for `field`.
  bool Has(const char* field) const;

 private:
  int gpu_;
  Assessment* out_;
};

// Formatting of evidence values: language-neutral numbers, units as nvidia-smi prints them.
std::string Whole(double value);
std::string OneDecimal(double value);
std::string GiB(double bytes);
void Arg(Finding* finding, const char* name, std::string value);

/// The GPU's utilisation class from GPU-Util; empty when not reported.
std::optional<bool> IsBusy(const Snapshot& s);
std::optional<bool> IsIdle(const Snapshot& s);

/// Usable memory: total less the driver's reservation where reported (older drivers count
/// the reservation as used, so total is then the right denominator).
std::optional<double> UsableBytes(const Snapshot& s);

// The rule groups, applied in this order.
void CheckMemoryHealth(Judge& judge);
void CheckClocksAndHeat(Judge& judge);
void CheckPcie(Judge& judge);
void CheckWorkload(Judge& judge);
void CheckConfiguration(Judge& judge);

}  // namespace gpuprobe::telemetry::rules
