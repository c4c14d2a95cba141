#include "doctor/capability.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

constexpr size_t kMaxGpusPerGroup = 6;
constexpr size_t kMaxReadBytes = 256 * 1024;

std::optional<ComputeCapability> ParseCc(const std::string& text) {
  int major = 0, minor = 0;
  if (!ParseComputeCapability(text, &major, &minor)) return std::nullopt;
  return ComputeCapability{major, minor};
}

// "90" -> 9.0, "120" -> 12.0, "89" -> 8.9: the two- and three-digit forms of sm_XX and of
// Triton's "capability >= 90".
std::optional<ComputeCapability> FromDigits(const std::string& digits) {
  if (digits.size() < 2 || digits.size() > 3) return std::nullopt;
  int value = std::atoi(digits.c_str());
  return ComputeCapability{value / 10, value % 10};
}

std::optional<ComputeCapability> FromPair(const std::string& major, const std::string& minor) {
  if (major.empty()) return std::nullopt;
  int m = std::atoi(major.c_str());
  if (m < 1 || m > 15) return std::nullopt;
  return ComputeCapability{m, minor.empty() ? 0 : std::atoi(minor.c_str())};
}

RE2::Options Insensitive() {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  return o;
}

// The smallest capability a requirement clause states. The forms, as frameworks print them:
// "compute capability of at least 8.0", ">= 9.0 or 8.9", "> (9, 0)", ">= 90" (Triton),
// "8.9 or higher", "sm_80+", ".target sm_90 or higher", "requires sm_90a".
std::optional<ComputeCapability> StatedMinimum(std::string_view text, size_t* where) {
  static const RE2 kPair(
      R"((?:compute\s+)?capabilit(?:y|ies)\s*(?:of\s+)?(?:at\s+least|>=|≥|greater than or equal to|>)\s*\(?\s*(\d{1,2})\s*[.,]\s*(\d)\b\)?((?:\s*(?:or|,)\s*\(?\d{1,2}\s*[.,]\s*\d\)?)*))",
      Insensitive());
  static const RE2 kDigits(R"((?:compute\s+)?capabilit(?:y|ies)\s*(?:>=|≥|>)\s*(\d{2,3})\b)", Insensitive());
  static const RE2 kOrHigher(
      R"((?:compute\s+)?capabilit(?:y|ies)\s*(?:of\s+)?(\d{1,2})\.(\d)\s*(?:\+|or\s+(?:higher|above|newer|later|greater)|and\s+(?:higher|above|newer|later)))",
      Insensitive());
  static const RE2 kSm(
      R"((?:requires?|needs?|only supported on|target)\s+(?:an?\s+)?(?:\.target\s+)?sm_?(\d{2,3})[af]?\b|\bsm_?(\d{2,3})[af]?\s*(?:\+|or\s+(?:higher|above|newer|later)|and\s+(?:higher|above|newer|later)))",
      Insensitive());
  static const RE2 kAlternative(R"((\d{1,2})\s*[.,]\s*(\d))");
  re2::StringPiece input(text.data(), text.size());
  std::string major, minor, rest, digits, sm1, sm2;
  std::optional<ComputeCapability> best;
  size_t at = std::string_view::npos;
  auto keep = [&](std::optional<ComputeCapability> cc, const re2::StringPiece& match) {
    if (!cc) return;
    if (!best || *cc < *best) best = cc;
    at = std::min(at, static_cast<size_t>(match.data() - text.data()));
  };
  re2::StringPiece found;
  {
    re2::StringPiece scan = input;
    re2::StringPiece whole;
    static const RE2 kPairWhole("(" + kPair.pattern() + ")", Insensitive());
    while (RE2::FindAndConsume(&scan, kPairWhole, &whole, &major, &minor, &rest)) {
      keep(FromPair(major, minor), whole);
      re2::StringPiece alternatives(rest);
      std::string a, b;
      while (RE2::FindAndConsume(&alternatives, kAlternative, &a, &b)) keep(FromPair(a, b), whole);
    }
  }
  {
    re2::StringPiece scan = input;
    static const RE2 kDigitsWhole("(" + kDigits.pattern() + ")", Insensitive());
    re2::StringPiece whole;
    while (RE2::FindAndConsume(&scan, kDigitsWhole, &whole, &digits)) keep(FromDigits(digits), whole);
  }
  {
    re2::StringPiece scan = input;
    static const RE2 kOrHigherWhole("(" + kOrHigher.pattern() + ")", Insensitive());
    re2::StringPiece whole;
    while (RE2::FindAndConsume(&scan, kOrHigherWhole, &whole, &major, &minor)) keep(FromPair(major, minor), whole);
  }
  {
    re2::StringPiece scan = input;
    static const RE2 kSmWhole("(" + kSm.pattern() + ")", Insensitive());
    re2::StringPiece whole;
    while (RE2::FindAndConsume(&scan, kSmWhole, &whole, &sm1, &sm2)) keep(FromDigits(sm1.empty() ? sm2 : sm1), whole);
  }
  if (where != nullptr) *where = at;
  return best;
}

// "Ampere GPUs or newer", "requires Hopper", "only supports Ampere": the architecture named
// as a minimum.
const Architecture* NamedMinimumArchitecture(std::string_view text, const FeatureTable& table, size_t* where) {
  std::string names;
  for (const auto& a : table.architectures()) {
    names += (names.empty() ? "" : "|") + RE2::QuoteMeta(a.name);
    for (const auto& alias : a.aliases) names += "|" + RE2::QuoteMeta(alias);
  }
  const std::string after = R"(\b()" + names + R"()\b[\w /-]{0,30}?\b(?:or|and)\s+(?:newer|later|above|higher|up)\b)";
  const std::string before = R"((?:only\s+supports?|only\s+supported\s+on|requires?|needs?)\s+(?:an?\s+|the\s+)?(?:NVIDIA\s+)?()" + names + R"()\b)";
  RE2 re_after(after, Insensitive()), re_before(before, Insensitive());
  re2::StringPiece input(text.data(), text.size()), found;
  std::string name;
  const Architecture* best = nullptr;
  for (const RE2* re : {&re_after, &re_before}) {
    re2::StringPiece scan = input;
    RE2 whole("(" + re->pattern() + ")", Insensitive());
    re2::StringPiece match;
    if (RE2::FindAndConsume(&scan, whole, &match, &name)) {
      const Architecture* a = table.FindArchitecture(name);
      if (a != nullptr && (best == nullptr || a->ccs.front() < best->ccs.front())) {
        best = a;
        if (where != nullptr) *where = static_cast<size_t>(match.data() - text.data());
      }
    }
  }
  return best;
}

// The capability the text says the GPU has: "Your Tesla T4 GPU has compute capability 7.5",
// "Your GPU's capability is 8.6", "your GPU has capability (8, 9)", "with CUDA capability
// sm_120", "Highest Compute Capability: (8, 6)".
std::optional<ComputeCapability> StatedGpuCapability(std::string_view text) {
  static const RE2 kHas(
      R"((?:your|this|the)\b[\w' -]{0,40}?\b(?:GPU|device|card)(?:'s)?\b[\w ]{0,12}?\b(?:has|is|with)?\s*(?:a\s+)?(?:compute\s+)?capabilit(?:y|ies)\s*(?:is|of|:|=)?\s*\(?\s*(\d{1,2})\s*[.,]\s*(\d)\b)",
      Insensitive());
  static const RE2 kSm(R"(with (?:CUDA |compute )?capability sm_?(\d{2,3}))", Insensitive());
  static const RE2 kHighest(R"(highest[_ ]compute[_ ]capability\s*[:=]?\s*\(\s*(\d{1,2})\s*,\s*(\d)\s*\))", Insensitive());
  std::string major, minor, digits;
  if (RE2::PartialMatch(text, kHas, &major, &minor)) return FromPair(major, minor);
  if (RE2::PartialMatch(text, kSm, &digits)) return FromDigits(digits);
  if (RE2::PartialMatch(text, kHighest, &major, &minor)) return FromPair(major, minor);
  return std::nullopt;
}

// A GPU the text names, as the spec database knows it ("Tesla T4", "NVIDIA GeForce RTX 5090",
// "H100 NVL"): the first product-shaped name whose candidates in the database share one
// capability.
const model::GpuSpec* NamedGpu(std::string_view text, const model::SpecDatabase& specs) {
  static const RE2 kProduct(
      R"(\b((?:(?:NVIDIA|GeForce|Quadro|Tesla|TITAN|Jetson)\s+)*(?:(?:RTX|GTX)\s*(?:PRO\s+)?)?[ABHLTVPKG][A-Z]?\d{1,4}[A-Za-z]{0,3}(?:\s+(?:Ti|SUPER|NVL|SXM\d?|PCIe))?|(?:RTX|GTX)\s*\d{3,4}(?:\s*Ti|\s*SUPER)?)\b)");
  re2::StringPiece input(text.data(), std::min(text.size(), kMaxReadBytes));
  std::string name;
  while (RE2::FindAndConsume(&input, kProduct, &name)) {
    // Drop leading brand words the database's names may not carry ("NVIDIA GeForce RTX 5090").
    std::string query = name;
    for (int attempt = 0; attempt < 3 && !query.empty(); ++attempt) {
      auto candidates = specs.Candidates(query);
      if (!candidates.empty()) {
        const std::string& cc = candidates.front()->compute_capability;
        bool one = std::all_of(candidates.begin(), candidates.end(), [&](const model::GpuSpec* g) { return g->compute_capability == cc; });
        if (one && candidates.front()->vendor == "NVIDIA") return candidates.front();
        break;
      }
      size_t space = query.find(' ');
      if (space == std::string::npos) break;
      query = query.substr(space + 1);
    }
  }
  return nullptr;
}

// "supports CUDA capabilities sm_50 sm_60 ... sm_90" (PyTorch), "compiled for sm_80, sm_86",
// "arch list: ['sm_80', ...]".
std::vector<CompiledArch> BuildArchs(std::string_view text) {
  static const RE2 kList(
      R"((?:supports\s+CUDA\s+capabilities|compiled\s+(?:only\s+)?for|arch(?:itecture)?s?(?:\s+list)?\s*[:=])\s*\[?((?:['"]?(?:sm|compute)_\d{2,3}[af]?['"]?[\s,]*)+))",
      Insensitive());
  std::string list;
  if (!RE2::PartialMatch(text, kList, &list)) return {};
  return ParseArchList(list);
}

core::Result<ComputeCapability> CcField(const json& j, const std::string& what) {
  if (!j.is_string()) return core::Status::ParseError(what + ": a capability is a string like \"8.0\"");
  auto cc = ParseCc(j.get<std::string>());
  if (!cc) return core::Status::ParseError(what + ": not a capability: " + j.get<std::string>());
  return *cc;
}

}  // namespace

std::string ComputeCapability::Text() const { return fmt::format("{}.{}", major, minor); }

std::optional<ComputeCapability> CapabilityOfSpec(const model::GpuSpec& gpu) {
  if (gpu.compute_capability.rfind("sm_", 0) != 0) return std::nullopt;
  return FromDigits(gpu.compute_capability.substr(3));
}

core::Result<FeatureTable> FeatureTable::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("features") || !doc["features"].is_array() ||
      !doc.contains("architectures") || !doc["architectures"].is_array()) {
    return core::Status::ParseError("gpu features: not a JSON object with 'features' and 'architectures' lists");
  }
  FeatureTable table;
  for (const auto& a : doc["architectures"]) {
    Architecture arch;
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !a.contains("ccs") || !a["ccs"].is_array()) {
      return core::Status::ParseError("gpu features: an architecture needs a 'name' and 'ccs'");
    }
    arch.name = a["name"].get<std::string>();
    for (const auto& c : a["ccs"]) {
      ComputeCapability cc;
      GPUPROBE_ASSIGN_OR_RETURN(cc, CcField(c, "architecture " + arch.name));
      arch.ccs.push_back(cc);
    }
    if (arch.ccs.empty()) return core::Status::ParseError("gpu features: architecture " + arch.name + " has no capability");
    std::sort(arch.ccs.begin(), arch.ccs.end());
    if (a.contains("aliases")) {
      for (const auto& alias : a["aliases"]) {
        if (alias.is_string()) arch.aliases.push_back(alias.get<std::string>());
      }
    }
    table.architectures_.push_back(std::move(arch));
  }
  for (const auto& f : doc["features"]) {
    GpuFeature feature;
    if (!f.is_object() || !f.contains("id") || !f["id"].is_string() || !f.contains("words") || !f["words"].is_string() ||
        !f.contains("name") || !f["name"].is_object() || !f.contains("min_cc")) {
      return core::Status::ParseError("gpu features: a feature needs 'id', 'name' {en, zh}, 'min_cc' and 'words'");
    }
    feature.id = f["id"].get<std::string>();
    const json& name = f["name"];
    if (!name.contains("en") || !name["en"].is_string() || !name.contains("zh") || !name["zh"].is_string()) {
      return core::Status::ParseError("gpu feature '" + feature.id + "': 'name' needs 'en' and 'zh'");
    }
    feature.name = {name["en"].get<std::string>(), name["zh"].get<std::string>()};
    GPUPROBE_ASSIGN_OR_RETURN(feature.min_cc, CcField(f["min_cc"], "gpu feature " + feature.id));
    if (f.contains("only_cc")) {
      ComputeCapability only;
      GPUPROBE_ASSIGN_OR_RETURN(only, CcField(f["only_cc"], "gpu feature " + feature.id));
      feature.only_cc = only;
    }
    feature.words = f["words"].get<std::string>();
    RE2 check(feature.words, RE2::Quiet);
    if (!check.ok()) return core::Status::ParseError("gpu feature '" + feature.id + "': bad 'words': " + check.error());
    table.features_.push_back(std::move(feature));
  }
  return table;
}

core::Result<const FeatureTable*> FeatureTable::Embedded() {
  static const core::Result<FeatureTable> kTable = []() -> core::Result<FeatureTable> {
    auto text = core::EmbeddedFile("knowledge/gpu_features.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kTable.ok()) return core::DamagedEmbeddedData(kTable.status(), "knowledge/gpu_features.json");
  return &kTable.value();
}

const Architecture* FeatureTable::ArchitectureOf(const ComputeCapability& cc) const {
  for (const auto& a : architectures_) {
    if (std::find(a.ccs.begin(), a.ccs.end(), cc) != a.ccs.end()) return &a;
  }
  return nullptr;
}

const Architecture* FeatureTable::FindArchitecture(std::string_view name) const {
  auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const auto& a : architectures_) {
    if (same(a.name, name)) return &a;
    for (const auto& alias : a.aliases) {
      if (same(alias, name)) return &a;
    }
  }
  return nullptr;
}

std::optional<CapabilityAnswer> AnswerCapability(std::string_view text, const FeatureTable& table,
                                                 const model::SpecDatabase& specs, const model::GpuSpec* user_gpu) {
  if (text.size() > kMaxReadBytes) text = text.substr(0, kMaxReadBytes);
  CapabilityAnswer answer;
  size_t stated_at = std::string_view::npos, arch_at = std::string_view::npos;
  std::optional<ComputeCapability> stated = StatedMinimum(text, &stated_at);
  const Architecture* arch = NamedMinimumArchitecture(text, table, &arch_at);
  if (stated) {
    answer.required = stated;
    answer.required_from = "text";
  } else if (arch != nullptr) {
    answer.required = arch->ccs.front();
    answer.required_from = "architecture";
  }
  if (arch != nullptr) answer.architecture_named = arch->name;
  // The feature named on the requirement's line, else anywhere in the text (the first in the
  // table's order: the narrower FlashAttention-3 before FlashAttention-2).
  size_t at = std::min(stated_at, arch_at);
  std::string_view line;
  if (at != std::string_view::npos) {
    size_t begin = text.rfind('\n', at);
    begin = begin == std::string_view::npos ? 0 : begin + 1;
    size_t end = text.find('\n', at);
    line = text.substr(begin, (end == std::string_view::npos ? text.size() : end) - begin);
  }
  static const RE2 kRequirementWords(
      R"((?i)\b(?:only\s+supported|only\s+supports?|requires?|required|needs?|not\s+supported|unsupported|is\s+not\s+available|too\s+old)\b)");
  for (std::string_view scope : {line, text}) {
    if (scope.empty() || answer.feature != nullptr) continue;
    for (const auto& f : table.features()) {
      if (RE2::PartialMatch(scope, RE2(f.words, RE2::Quiet))) {
        answer.feature = &f;
        break;
      }
    }
  }
  // A feature refused in words, without a number: its own minimum.
  if (!answer.required && answer.feature != nullptr && RE2::PartialMatch(text, kRequirementWords) &&
      StatedGpuCapability(text).has_value()) {
    answer.required = answer.feature->min_cc;
    answer.required_from = "feature";
  }
  if (answer.feature != nullptr && answer.feature->only_cc && answer.required && *answer.required == *answer.feature->only_cc) {
    answer.only = answer.feature->only_cc;
  }
  // The user's GPU: --gpu, else the capability the text states, else a GPU it names.
  if (user_gpu != nullptr) {
    answer.gpu_cc = CapabilityOfSpec(*user_gpu);
    answer.gpu_name = user_gpu->name;
    answer.gpu_from = "option";
  } else {
    answer.gpu_cc = StatedGpuCapability(text);
    const model::GpuSpec* named = NamedGpu(text, specs);
    if (named != nullptr) {
      auto cc = CapabilityOfSpec(*named);
      if (!answer.gpu_cc || (cc && *cc == *answer.gpu_cc)) {
        answer.gpu_name = named->name;
        if (!answer.gpu_cc) answer.gpu_cc = cc;
      }
    }
    if (answer.gpu_cc) answer.gpu_from = "text";
  }
  answer.build_archs = BuildArchs(text);
  if (!answer.build_archs.empty() && answer.gpu_cc) {
    answer.build_verdict = MatchArch(answer.build_archs, answer.gpu_cc->major, answer.gpu_cc->minor);
  }
  if (!answer.required && !answer.build_verdict) return std::nullopt;
  if (answer.required) {
    if (answer.gpu_cc) {
      answer.gpu_has_it = answer.only ? *answer.gpu_cc == *answer.only : !(*answer.gpu_cc < *answer.required);
    }
    for (const auto& a : table.architectures()) {
      ArchitectureGroup group;
      group.architecture = a.name;
      for (const auto& cc : a.ccs) {
        bool fits = answer.only ? cc == *answer.only : !(cc < *answer.required);
        if (!fits) continue;
        group.ccs.push_back(cc.Text());
        for (const auto& gpu : specs.gpus()) {
          auto gcc = CapabilityOfSpec(gpu);
          if (gpu.vendor != "NVIDIA" || !gcc || !(*gcc == cc) || group.gpus.size() >= kMaxGpusPerGroup) continue;
          group.gpus.push_back(gpu.name);
        }
      }
      if (!group.ccs.empty()) answer.have.push_back(std::move(group));
    }
  }
  return answer;
}

}  // namespace gpuprobe::doctor
