// doctor's results in the reader's language: every title, sentence, fix, marker and verdict
// comes from data/texts/<lang>/doctor.json by key, with the check's raw values as arguments.
// The terminal view and the gpuprobe.doctor.v1 document (`doctor --json`, the tour, report).
//
// Thread safety: pure functions of the report and the texts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "doctor/checks.h"
#include "report/i18n.h"

namespace gpuprobe::app {

/// One sentence: the text of `message.key` with its named arguments; the raw text when a
/// translation's placeholders are broken (a unit test renders every text, so never seen).
std::string RenderMessage(const report::Texts& texts, const doctor::Message& message);

struct RenderedCheck {
  std::string title;     ///< "NVIDIA kernel module"
  std::string marker;    ///< "[ ok ]", "[FAIL]" ...
  std::string evidence;  ///< the sentences joined
  std::string fix;       ///< empty when there is nothing to do
};
RenderedCheck RenderCheck(const report::Texts& texts, const doctor::CheckResult& check);

/// gpuprobe.doctor.v1: gpu_present, driver_version, status, lang, and per check id, title,
/// status, evidence, fix (in the texts' language) and values (raw facts).
nlohmann::json DoctorToJson(const doctor::DoctorReport& report, const report::Texts& texts);

/// The terminal view: a title, one line per check with its fix, and the verdict.
std::string DoctorTextView(const doctor::DoctorReport& report, const report::Texts& texts);

}  // namespace gpuprobe::app
