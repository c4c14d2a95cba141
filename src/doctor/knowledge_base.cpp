#include "doctor/knowledge_base.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

core::Result<LocalText> Text(const json& j, const std::string& entry, const char* field) {
  if (!j.is_object() || !j.contains("en") || !j["en"].is_string() || !j.contains("zh") || !j["zh"].is_string()) {
    return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' needs an 'en' and a 'zh' text", entry, field));
  }
  return LocalText{j["en"].get<std::string>(), j["zh"].get<std::string>()};
}

core::Result<std::vector<std::string>> Strings(const json& e, const std::string& entry, const char* field) {
  std::vector<std::string> out;
  if (!e.contains(field)) return out;
  if (!e[field].is_array()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' must be a list", entry, field));
  for (const auto& s : e[field]) {
    if (!s.is_string()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' holds strings", entry, field));
    out.push_back(s.get<std::string>());
  }
  return out;
}

core::Status CheckRegex(const std::string& entry, const std::string& pattern) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  RE2 re(pattern, options);
  if (!re.ok()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': bad pattern '{}': {}", entry, pattern, re.error()));
  return core::Status::Ok();
}

core::Result<KnowledgeEntry> ParseEntry(const json& e) {
  if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) {
    return core::Status::ParseError("knowledge base: every entry needs an 'id'");
  }
  KnowledgeEntry entry;
  entry.id = e["id"].get<std::string>();
  entry.severity = e.value("severity", "warn");
  if (entry.severity != "info" && entry.severity != "warn" && entry.severity != "fail") {
    return core::Status::ParseError(fmt::format("knowledge base entry '{}': severity is info, warn or fail", entry.id));
  }
  GPUPROBE_ASSIGN_OR_RETURN(entry.title, Text(e.value("title", json()), entry.id, "title"));
  GPUPROBE_ASSIGN_OR_RETURN(entry.meaning, Text(e.value("meaning", json()), entry.id, "meaning"));
  for (const char* list : {"causes", "fixes"}) {
    if (!e.contains(list) || !e[list].is_array() || e[list].empty()) {
      return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' must be a non-empty list", entry.id, list));
    }
    for (const auto& item : e[list]) {
      LocalText t;
      GPUPROBE_ASSIGN_OR_RETURN(t, Text(item, entry.id, list));
      (std::string(list) == "causes" ? entry.causes : entry.fixes).push_back(t);
    }
  }
  // A command alone is shown as written; a command with a note for the reader has the note
  // in both languages ({"en": "dmesg | grep Xid (expect Xid 31)", "zh": ...}).
  if (e.contains("confirm")) {
    if (!e["confirm"].is_array()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': 'confirm' must be a list", entry.id));
    for (const auto& c : e["confirm"]) {
      if (c.is_string()) {
        entry.confirm.push_back({c.get<std::string>(), ""});
        continue;
      }
      LocalText text;
      GPUPROBE_ASSIGN_OR_RETURN(text, Text(c, entry.id, "confirm"));
      entry.confirm.push_back(text);
    }
  }
  GPUPROBE_ASSIGN_OR_RETURN(entry.statuses, Strings(e, entry.id, "statuses"));
  GPUPROBE_ASSIGN_OR_RETURN(entry.status_prefixes, Strings(e, entry.id, "status_prefixes"));
  GPUPROBE_ASSIGN_OR_RETURN(entry.yields_to, Strings(e, entry.id, "yields_to"));
  entry.secondary = e.value("secondary", false);
  GPUPROBE_ASSIGN_OR_RETURN(entry.refines, Strings(e, entry.id, "refines"));
  GPUPROBE_ASSIGN_OR_RETURN(entry.when_emitters, Strings(e, entry.id, "when_emitters"));
  if (entry.refines.empty() != entry.when_emitters.empty()) {
    return core::Status::ParseError(fmt::format("knowledge base entry '{}': 'refines' and 'when_emitters' go together", entry.id));
  }
  entry.unless_gpu_words = e.value("unless_gpu_words", false);
  if (e.contains("gpu")) {
    if (!e["gpu"].is_boolean()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': 'gpu' is true or false", entry.id));
    entry.gpu = e["gpu"].get<bool>();
  }
  if (e.contains("layer")) {
    if (!e["layer"].is_string()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': 'layer' is a string", entry.id));
    entry.layer = e["layer"].get<std::string>();
    if (std::find(std::begin(kLayers), std::end(kLayers), entry.layer) == std::end(kLayers)) {
      return core::Status::ParseError(fmt::format("knowledge base entry '{}': unknown layer '{}'", entry.id, entry.layer));
    }
  }
  if (e.contains("patterns")) {
    if (!e["patterns"].is_array()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': 'patterns' must be a list", entry.id));
    for (const auto& p : e["patterns"]) {
      EntryPattern pattern;
      if (p.is_string()) {
        pattern.regex = p.get<std::string>();
      } else if (p.is_object() && p.contains("re") && p["re"].is_string()) {
        pattern.regex = p["re"].get<std::string>();
        pattern.status = p.value("status", "");
      } else {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': a pattern is a string or {{\"re\", \"status\"}}", entry.id));
      }
      GPUPROBE_RETURN_IF_ERROR(CheckRegex(entry.id, pattern.regex));
      entry.patterns.push_back(std::move(pattern));
    }
  }
  if (e.contains("status_notes")) {
    if (!e["status_notes"].is_object()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': 'status_notes' is an object", entry.id));
    for (const auto& [name, note] : e["status_notes"].items()) {
      LocalText t;
      GPUPROBE_ASSIGN_OR_RETURN(t, Text(note, entry.id, "status_notes"));
      entry.status_notes[name] = t;
    }
  }
  for (const char* key : {"xid", "sxid"}) {
    if (!e.contains(key)) continue;
    if (!e[key].is_number_integer()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' is a number", entry.id, key));
    entry.xid = e[key].get<int>();
    entry.nvswitch = std::string(key) == "sxid";
  }
  if (entry.patterns.empty() && entry.statuses.empty() && entry.status_prefixes.empty() && !entry.xid && entry.refines.empty()) {
    return core::Status::ParseError(fmt::format("knowledge base entry '{}': needs patterns, statuses or an Xid to be found by", entry.id));
  }
  return entry;
}

std::set<std::string> Words(std::string_view text) { return ClosenessWords(text, true); }

}  // namespace

std::set<std::string> ClosenessWords(std::string_view text, bool with_digits) {
  std::set<std::string> words;
  std::string current;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (with_digits ? std::isalnum(u) : std::isalpha(u)) {
      current.push_back(static_cast<char>(std::tolower(u)));
    } else {
      if (current.size() >= 4) words.insert(current);
      current.clear();
    }
  }
  if (current.size() >= 4) words.insert(current);
  return words;
}

core::Result<KnowledgeBase> KnowledgeBase::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) {
    return core::Status::ParseError("knowledge base: not a JSON object with an 'entries' list");
  }
  KnowledgeBase kb;
  for (const auto& e : doc["entries"]) {
    KnowledgeEntry entry;
    GPUPROBE_ASSIGN_OR_RETURN(entry, ParseEntry(e));
    if (kb.Find(entry.id) != nullptr) return core::Status::ParseError("knowledge base: duplicate id " + entry.id);
    if (entry.xid && !kb.by_xid_.emplace(std::make_pair(entry.nvswitch, *entry.xid), kb.entries_.size()).second) {
      return core::Status::ParseError(fmt::format("knowledge base entry '{}': another entry already explains Xid {}", entry.id, *entry.xid));
    }
    for (const auto& name : entry.statuses) {
      for (const auto& other : kb.entries_) {
        if (std::find(other.statuses.begin(), other.statuses.end(), name) != other.statuses.end()) {
          return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' is already answered by '{}'", entry.id, name, other.id));
        }
      }
    }
    kb.entries_.push_back(std::move(entry));
  }
  for (const auto& e : kb.entries_) {
    for (const auto& id : e.yields_to) {
      if (id != kAnyXid && kb.Find(id) == nullptr) return core::Status::ParseError(fmt::format("knowledge base entry '{}': yields to unknown entry '{}'", e.id, id));
    }
    // A refined key names an entry, possibly with a status ("nvml_error:NVML_ERROR_IN_USE"), or
    // a status or Xid without an entry ("status:cudaErrorInvalidValue", "xid:38").
    for (const auto& key : e.refines) {
      std::string head = key.substr(0, key.find(':'));
      if (head != "status" && head != "xid" && kb.Find(head) == nullptr) {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': refines unknown entry '{}'", e.id, key));
      }
    }
  }
  return kb;
}

core::Result<const KnowledgeBase*> KnowledgeBase::Embedded() {
  static const core::Result<KnowledgeBase> kBase = []() -> core::Result<KnowledgeBase> {
    auto text = core::EmbeddedFile("knowledge/errors.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kBase.ok()) return core::DamagedEmbeddedData(kBase.status(), "knowledge/errors.json");
  return &kBase.value();
}

const KnowledgeEntry* KnowledgeBase::Find(std::string_view id) const {
  for (const auto& e : entries_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

const KnowledgeEntry* KnowledgeBase::ForStatus(std::string_view name, bool* by_family) const {
  if (by_family != nullptr) *by_family = false;
  for (const auto& e : entries_) {
    if (std::find(e.statuses.begin(), e.statuses.end(), name) != e.statuses.end()) return &e;
  }
  for (const auto& e : entries_) {
    for (const auto& prefix : e.status_prefixes) {
      if (name.substr(0, prefix.size()) == prefix) {
        if (by_family != nullptr) *by_family = true;
        return &e;
      }
    }
  }
  return nullptr;
}

const KnowledgeEntry* KnowledgeBase::ForXid(int number, bool nvswitch) const {
  auto it = by_xid_.find(std::make_pair(nvswitch, number));
  return it == by_xid_.end() ? nullptr : &entries_[it->second];
}

std::vector<const KnowledgeEntry*> KnowledgeBase::Closest(std::string_view text, size_t limit) const {
  std::set<std::string> words = Words(text);
  std::vector<std::pair<int, const KnowledgeEntry*>> scored;
  for (const auto& e : entries_) {
    std::set<std::string> entry_words = Words(e.title.en + " " + e.meaning.en + " " + e.id);
    for (const auto& p : e.patterns) {
      auto more = Words(p.regex);
      entry_words.insert(more.begin(), more.end());
    }
    int common = 0;
    for (const auto& w : words) common += entry_words.count(w) ? 1 : 0;
    if (common > 0) scored.emplace_back(common, &e);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const KnowledgeEntry*> out;
  for (const auto& [score, e] : scored) {
    if (out.size() >= limit) break;
    out.push_back(e);
  }
  return out;
}

}  // namespace gpuprobe::doctor
