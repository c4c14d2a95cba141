// Words a model Phrase in the reader's language: formats each typed argument as that language
// writes it (binary units for memory, SI for rates, counts as report/count_text.h writes them:
// Chinese 亿/万 with the B form beside), then fills the text through the one formatter
// (report/status_text.h's FormatWithArgs).
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "model/phrase.h"
#include "report/i18n.h"

namespace gpuprobe::report {

/// The phrase in words; an empty phrase gives "". A text that does not take the phrase's
/// arguments falls back to the raw text (a test renders every phrase the planner makes).
std::string Say(const Texts& texts, const model::Phrase& phrase);

/// One argument as the reader's language writes it (also used for table cells).
std::string FormatArg(const Texts& texts, const model::PhraseArg& arg);

/// A GPU's name from the spec database as the reader sees it: the product name as written
/// (never translated) and its trailing "(...)" note (what the figures cover: "HGX, per GPU")
/// as data, quoted in Chinese.
std::string GpuNameText(const std::string& name, const Texts& texts);

/// A parameter count: "70.0 B" in English; "700 亿（70B）" in Chinese (FormatCountWithShort).
std::string FormatParams(const Texts& texts, double params);

}  // namespace gpuprobe::report
