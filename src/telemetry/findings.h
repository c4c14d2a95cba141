// Findings: rules over Snapshots that turn numbers into problems a backend engineer can act
// on. Each finding has a stable id, a severity, the evidence (the fields it used and their
// values, in nvidia-smi's --query-gpu names, so the same state gives the same evidence
// whatever format it was read from), the keys of its texts (data/texts/<lang>/finding.json)
// and its confidence: reduced, naming the fields, when an input it would have used was not
// reported. A rule whose outcome depends on a field the source lacks is "not judged" (with
// the fields), never silently passed: an XML capture, a -q text, a table and a CSV of the same
// state give the same findings, or say which ones they could not judge.
//
// Rules are load-aware (the idle clock bit is normal, idle links slow down, GPU-Util is "time
// with a kernel", not SM load) and judge compute work only: graphics processes (G, and the
// C+G processes of a Windows desktop) are not jobs that hold or starve a GPU.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "telemetry/snapshot.h"

namespace gpuprobe::telemetry {

enum class Severity { kInfo, kWarn, kFail };
std::string SeverityName(Severity severity);

enum class Confidence { kFull, kReduced };
std::string ConfidenceName(Confidence confidence);

/// One field a rule used and its value as nvidia-smi prints it ("utilization.gpu" = "0 %").
struct Fact {
  std::string field;
  std::string value;
};

/// A named value for the evidence sentence ("temp" = "87").
struct Finding {
  std::string id;           ///< memory_nearly_full, thermal_slowdown_reached, ...
  Severity severity = Severity::kInfo;
  int gpu = 0;              ///< the snapshot's index
  /// The evidence sentence is text "finding.<id>.evidence" or, with a variant,
  /// "finding.<id>.evidence.<variant>", formatted with `args`.
  std::string variant;
  core::MessageArgs args;
  /// Further sentences (text keys "finding.note.<name>"), formatted with the same args.
  std::vector<std::string> notes;
  std::vector<Fact> facts;             ///< every field the rule used, with its value
  std::vector<std::string> missing;    ///< fields it would have used but were not reported
  Confidence confidence() const { return missing.empty() ? Confidence::kFull : Confidence::kReduced; }
  std::string EvidenceKey() const;
  // Texts: "finding.<id>.explain" and "finding.<id>.next" in data/texts.
};

/// A rule that could not decide for one GPU because fields it needs were not reported.
struct NotJudged {
  std::string id;
  int gpu = 0;
  std::vector<std::string> missing;
  /// Why the fields are absent, when the snapshot says: "ecc_off" (ECC disabled or absent on
  /// the card, so it counts no memory errors); empty when not known.
  std::string reason;
};

struct Assessment {
  std::vector<Finding> findings;
  std::vector<NotJudged> not_judged;
};

/// Every rule id, in the order they are checked (for docs and tests).
const std::vector<std::string>& FindingIds();

/// Applies every rule to every snapshot.
Assessment Assess(const std::vector<Snapshot>& gpus);

/// The findings of Assess (for callers that only alert on what was raised).
std::vector<Finding> EvaluateFindings(const std::vector<Snapshot>& gpus);

/// The worst severity among `findings` (kInfo when empty).
Severity WorstSeverity(const std::vector<Finding>& findings);

/// The one-line answer to "is this GPU (node) healthy?": the worst severity, and which
/// findings made it so (the warnings and failures, worst first, one per GPU and rule), so
/// that inspect's first screen and its JSON say the same thing. Notes (info) never make a
/// node unhealthy; they are counted.
struct HealthVerdict {
  Severity worst = Severity::kInfo;  ///< kInfo: healthy; kWarn: needs attention; kFail: unhealthy
  int gpus = 0;                      ///< GPUs judged
  int notes = 0;                     ///< info findings
  std::vector<const Finding*> causes;  ///< the findings at warn or fail, fails first
};
HealthVerdict JudgeHealth(const std::vector<Finding>& findings, int gpus);

}  // namespace gpuprobe::telemetry
