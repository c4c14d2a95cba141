// How findings read: the evidence sentence of each finding in the user's language (its
// texts in data/texts/<lang>/finding.json, filled with the finding's values), its confidence,
// the fields it used, and the rules that could not judge, as terminal text and as JSON.
// Shared by `inspect` (terminal, --json, --watch), the tour and report (through
// app/inspect_state.h) and the corpus tests.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/i18n.h"
#include "telemetry/findings.h"

namespace gpuprobe::report {

/// The evidence of `finding`: its sentence and its notes, formatted with its values.
std::string FindingEvidence(const telemetry::Finding& finding, const Texts& texts, bool with_capture_age = true);
/// The finding's short name in the reader's language ("memory repair waiting for a reset"); its
/// id where no title is written.
std::string FindingTitle(const std::string& id, const Texts& texts);

/// One finding as JSON: id, severity, gpu, evidence (sentence), facts [{field, value}],
/// confidence ("full"/"reduced"), missing [fields], explanation, next_step.
nlohmann::json FindingJson(const telemetry::Finding& finding, const Texts& texts);

/// Every finding of `findings` as a JSON list.
nlohmann::json FindingsJson(const std::vector<telemetry::Finding>& findings, const Texts& texts);

/// [{id, gpu, missing}] for the rules that could not judge.
nlohmann::json NotJudgedJson(const std::vector<telemetry::NotJudged>& not_judged);

/// "verdict: needs attention: GPU 0: memory repair waiting for a reset": the health verdict
/// in one line (`at_capture`: the state is a capture's, not now's).
std::string RenderHealthVerdict(const telemetry::HealthVerdict& verdict, const Texts& texts, bool at_capture);

/// {health: healthy|needs_attention|unhealthy, gpus, notes, causes: [{gpu, id, severity}], text}.
nlohmann::json HealthVerdictJson(const telemetry::HealthVerdict& verdict, const Texts& texts, bool at_capture);

/// The findings block of the terminal view, then one line per GPU naming what could not be
/// judged and the fields that were missing.
std::string RenderAssessment(const telemetry::Assessment& assessment, const Texts& texts);

}  // namespace gpuprobe::report
