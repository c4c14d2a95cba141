// The context explain puts beside an answer, in the user's language, as text lines and as
// JSON: the components that printed the text (and the layer the fault lives in), the
// compute-capability story (who has the feature, what the user's GPU lacks, what a build's
// architecture list runs), and, for a text nothing matched, what the text is made of and the
// nearest entries with how they differ.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/capability.h"
#include "doctor/emitter.h"
#include "doctor/text_profile.h"
#include "report/i18n.h"

namespace gpuprobe::cli {

/// A layer's name ("driver") in the reader's language.
std::string LayerText(const std::string& layer, const report::Texts& texts);

/// "Printed by: vLLM (site-packages/vllm/), PyTorch (...)": the GPU-stack components first;
/// empty when there are none.
std::string ComponentsLine(const std::vector<doctor::EmitterHit>& components, const report::Texts& texts);
nlohmann::json ComponentsJson(const std::vector<doctor::EmitterHit>& components);

/// The capability story, one sentence per line.
std::vector<std::string> CapabilityLines(const doctor::CapabilityAnswer& answer, const report::Texts& texts);
nlohmann::json CapabilityJson(const doctor::CapabilityAnswer& answer, const report::Texts& texts);

/// The profile of an unrecognised text: a heading, then one line per part.
std::vector<std::string> ProfileLines(const doctor::TextProfile& profile, const report::Texts& texts);
nlohmann::json ProfileJson(const doctor::TextProfile& profile, const report::Texts& texts);

}  // namespace gpuprobe::cli
