#include "doctor/emitter.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/embedded_data.h"
#include "doctor/knowledge_base.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

constexpr size_t kMaxDetectedBytes = 1u << 20;
constexpr size_t kMaxEvidenceBytes = 80;

// A Python package is named by its traceback frames' paths and by its exception classes'
// modules: "site-packages/vllm/", "dist-packages\bitsandbytes\", "pynvml.NVMLError_NoPermission".
std::string PackagePattern(const std::string& package) {
  std::string path = package;
  std::replace(path.begin(), path.end(), '.', '/');
  std::string quoted_path;
  for (char c : path) quoted_path += c == '/' ? std::string(R"([\\/])") : RE2::QuoteMeta(std::string(1, c));
  std::string out = R"((?:site|dist)-packages[\\/])" + quoted_path + R"((?:[\\/]|\.py\b|\.\w+\.(?:so|pyd)\b))";
  std::string dotted = package;
  std::replace(dotted.begin(), dotted.end(), '/', '.');
  // "vllm.engine.async_llm_engine.AsyncEngineDeadError", "pynvml.NVMLError_NoPermission".
  out += "|\\b" + RE2::QuoteMeta(dotted) + R"((?:\.\w+)*\.\w*(?:Error|Exception|Warning)\w*)";
  return out;
}

core::Result<std::vector<std::string>> Strings(const json& e, const std::string& id, const char* field) {
  std::vector<std::string> out;
  if (!e.contains(field)) return out;
  if (!e[field].is_array()) return core::Status::ParseError(fmt::format("emitter '{}': '{}' must be a list", id, field));
  for (const auto& s : e[field]) {
    if (!s.is_string()) return core::Status::ParseError(fmt::format("emitter '{}': '{}' holds strings", id, field));
    out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace

EmitterTable::EmitterTable() = default;
EmitterTable::EmitterTable(EmitterTable&&) noexcept = default;
EmitterTable& EmitterTable::operator=(EmitterTable&&) noexcept = default;
EmitterTable::~EmitterTable() = default;

core::Result<EmitterTable> EmitterTable::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("emitters") || !doc["emitters"].is_array()) {
    return core::Status::ParseError("emitters: not a JSON object with an 'emitters' list");
  }
  EmitterTable table;
  for (const auto& e : doc["emitters"]) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string() || !e.contains("name") || !e["name"].is_object() ||
        !e["name"].contains("en") || !e["name"]["en"].is_string() || !e["name"].contains("zh") || !e["name"]["zh"].is_string() ||
        !e.contains("layer") || !e["layer"].is_string()) {
      return core::Status::ParseError("emitters: every emitter needs an 'id', a 'name' {en, zh} and a 'layer'");
    }
    Emitter emitter;
    emitter.id = e["id"].get<std::string>();
    emitter.name = {e["name"]["en"].get<std::string>(), e["name"]["zh"].get<std::string>()};
    emitter.layer = e["layer"].get<std::string>();
    emitter.gpu = e.value("gpu", true);
    if (std::find(std::begin(kLayers), std::end(kLayers), emitter.layer) == std::end(kLayers)) {
      return core::Status::ParseError(fmt::format("emitter '{}': unknown layer '{}'", emitter.id, emitter.layer));
    }
    if (table.Find(emitter.id) != nullptr) return core::Status::ParseError("emitters: duplicate id " + emitter.id);
    std::vector<std::string> alternatives;
    std::vector<std::string> packages, files, patterns;
    GPUPROBE_ASSIGN_OR_RETURN(packages, Strings(e, emitter.id, "python_packages"));
    GPUPROBE_ASSIGN_OR_RETURN(files, Strings(e, emitter.id, "files"));
    GPUPROBE_ASSIGN_OR_RETURN(patterns, Strings(e, emitter.id, "patterns"));
    for (const auto& p : packages) alternatives.push_back(PackagePattern(p));
    for (const auto& f : files) alternatives.push_back(R"((?:^|[\s/\\\[("'])()" + RE2::QuoteMeta(f) + R"()\b)");
    for (const auto& p : patterns) {
      RE2 check(p, RE2::Quiet);
      if (!check.ok()) return core::Status::ParseError(fmt::format("emitter '{}': bad pattern '{}': {}", emitter.id, p, check.error()));
      alternatives.push_back(p);
    }
    if (alternatives.empty()) return core::Status::ParseError(fmt::format("emitter '{}': no evidence to find it by", emitter.id));
    std::string combined;
    for (const auto& a : alternatives) combined += (combined.empty() ? "(" : "|(") + std::string("?:") + a + ")";
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_unique<RE2>("(" + combined + ")", options);
    if (!re->ok()) return core::Status::ParseError(fmt::format("emitter '{}': {}", emitter.id, re->error()));
    table.emitters_.push_back(std::move(emitter));
    table.patterns_.push_back(std::move(re));
  }
  return table;
}

core::Result<const EmitterTable*> EmitterTable::Embedded() {
  static const core::Result<EmitterTable> kTable = []() -> core::Result<EmitterTable> {
    auto text = core::EmbeddedFile("knowledge/emitters.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kTable.ok()) return core::DamagedEmbeddedData(kTable.status(), "knowledge/emitters.json");
  return &kTable.value();
}

std::vector<EmitterHit> EmitterTable::Detect(std::string_view text) const {
  if (text.size() > kMaxDetectedBytes) text = text.substr(0, kMaxDetectedBytes);
  std::vector<EmitterHit> out;
  for (size_t i = 0; i < emitters_.size(); ++i) {
    re2::StringPiece found;
    re2::StringPiece input(text.data(), text.size());
    // The bare match runs on RE2's DFA; the evidence is extracted only when there is some.
    if (!RE2::PartialMatch(input, *patterns_[i])) continue;
    if (!RE2::PartialMatch(input, *patterns_[i], &found)) continue;
    EmitterHit hit;
    hit.emitter = &emitters_[i];
    hit.position = static_cast<size_t>(found.data() - text.data());
    std::string_view evidence(found.data(), std::min(found.size(), kMaxEvidenceBytes));
    // Trim the separators a file pattern keeps in front of the name.
    while (!evidence.empty() && (evidence.front() == ' ' || evidence.front() == '\t' || evidence.front() == '\n' ||
                                 evidence.front() == '[' || evidence.front() == '(' || evidence.front() == '"' ||
                                 evidence.front() == '\'')) {
      evidence.remove_prefix(1);
    }
    hit.evidence = std::string(evidence);
    out.push_back(std::move(hit));
  }
  return out;
}

const Emitter* EmitterTable::Find(std::string_view id) const {
  for (const auto& e : emitters_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

bool HasEmitter(const std::vector<EmitterHit>& hits, std::string_view id) {
  return std::any_of(hits.begin(), hits.end(), [&](const EmitterHit& h) { return h.emitter->id == id; });
}

}  // namespace gpuprobe::doctor
