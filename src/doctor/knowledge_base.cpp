#include "doctor/knowledge_base.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "core/embedded_data.h"

namespace gpuprobe::doctor {
namespace {

using nlohmann::json;

core::Result<LocalText> Text(const json& j, const std::string& entry, const char* field) {
  if (!j.is_object() || !j.contains("en") || !j["en"].is_string()) {
    return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' needs an 'en' text", entry, field));
  }
  LocalText t;
  t.en = j["en"].get<std::string>();
  if (j.contains("zh") && j["zh"].is_string()) t.zh = j["zh"].get<std::string>();
  return t;
}

std::set<std::string> Words(std::string_view text) {
  std::set<std::string> words;
  std::string current;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      if (current.size() >= 4) words.insert(current);
      current.clear();
    }
  }
  if (current.size() >= 4) words.insert(current);
  return words;
}

double ToBytes(double value, const std::string& unit) {
  if (unit == "KiB") return value * 1024.0;
  if (unit == "MiB") return value * 1024.0 * 1024.0;
  if (unit == "GiB") return value * 1024.0 * 1024.0 * 1024.0;
  if (unit == "TiB") return value * 1024.0 * 1024.0 * 1024.0 * 1024.0;
  return value;
}

}  // namespace

core::Result<KnowledgeBase> KnowledgeBase::Parse(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) {
    return core::Status::ParseError("knowledge base: not a JSON object with an 'entries' list");
  }
  KnowledgeBase kb;
  for (const auto& e : doc["entries"]) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) {
      return core::Status::ParseError("knowledge base: every entry needs an 'id'");
    }
    KnowledgeEntry entry;
    entry.id = e["id"].get<std::string>();
    entry.severity = e.value("severity", "warn");
    GPUPROBE_ASSIGN_OR_RETURN(entry.title, Text(e["title"], entry.id, "title"));
    GPUPROBE_ASSIGN_OR_RETURN(entry.meaning, Text(e["meaning"], entry.id, "meaning"));
    for (const char* list : {"causes", "fixes"}) {
      if (!e.contains(list) || !e[list].is_array()) {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': '{}' must be a list", entry.id, list));
      }
      for (const auto& item : e[list]) {
        LocalText t;
        GPUPROBE_ASSIGN_OR_RETURN(t, Text(item, entry.id, list));
        (std::string(list) == "causes" ? entry.causes : entry.fixes).push_back(t);
      }
    }
    for (const auto& c : e.value("confirm", json::array())) {
      if (c.is_string()) entry.confirm.push_back(c.get<std::string>());
    }
    if (!e.contains("patterns") || !e["patterns"].is_array() || e["patterns"].empty()) {
      return core::Status::ParseError(fmt::format("knowledge base entry '{}': needs at least one pattern", entry.id));
    }
    for (const auto& p : e["patterns"]) {
      if (!p.is_string()) return core::Status::ParseError(fmt::format("knowledge base entry '{}': patterns are strings", entry.id));
      RE2::Options options;
      options.set_case_sensitive(false);
      options.set_log_errors(false);
      auto re = std::make_shared<const RE2>(p.get<std::string>(), options);
      if (!re->ok()) {
        return core::Status::ParseError(fmt::format("knowledge base entry '{}': bad pattern '{}': {}", entry.id, p.get<std::string>(), re->error()));
      }
      entry.patterns.push_back(std::move(re));
      entry.pattern_texts.push_back(p.get<std::string>());
    }
    if (kb.Find(entry.id) != nullptr) return core::Status::ParseError("knowledge base: duplicate id " + entry.id);
    kb.entries_.push_back(std::move(entry));
  }
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  kb.all_patterns_ = std::make_shared<RE2::Set>(options, RE2::UNANCHORED);
  for (size_t i = 0; i < kb.entries_.size(); ++i) {
    for (const auto& text : kb.entries_[i].pattern_texts) {
      if (kb.all_patterns_->Add(text, nullptr) < 0) return core::Status::ParseError("knowledge base: cannot combine pattern " + text);
      kb.pattern_owner_.push_back(i);
    }
  }
  if (!kb.all_patterns_->Compile()) return core::Status::ParseError("knowledge base: the patterns are too large to compile together");
  return kb;
}

core::Result<const KnowledgeBase*> KnowledgeBase::Embedded() {
  static const core::Result<KnowledgeBase> kBase = []() -> core::Result<KnowledgeBase> {
    auto text = core::EmbeddedFile("knowledge/errors.json");
    if (!text.ok()) return text.status();
    return Parse(*text);
  }();
  if (!kBase.ok()) return kBase.status();
  return &kBase.value();
}

const KnowledgeEntry* KnowledgeBase::Find(const std::string& id) const {
  for (const auto& e : entries_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

std::vector<Hit> KnowledgeBase::Match(std::string_view text) const {
  std::vector<Hit> hits;
  std::vector<int> matched;
  int number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    // Matching cost stays bounded per line, however long the line.
    std::string_view line = text.substr(start, std::min<size_t>(end - start, 64 * 1024));
    start = end + 1;
    ++number;
    matched.clear();
    if (!all_patterns_->Match(line, &matched)) continue;
    std::vector<size_t> owners;
    for (int index : matched) owners.push_back(pattern_owner_[static_cast<size_t>(index)]);
    std::sort(owners.begin(), owners.end());
    owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
    for (size_t owner : owners) {
      const KnowledgeEntry& entry = entries_[owner];
      auto it = std::find_if(hits.begin(), hits.end(), [&](const Hit& h) { return h.entry == &entry; });
      if (it != hits.end()) {
        ++it->occurrences;
        continue;
      }
      Hit hit;
      hit.entry = &entry;
      hit.first_line = number;
      hit.occurrences = 1;
      std::string trimmed(line);
      trimmed.erase(0, trimmed.find_first_not_of(" \t"));
      if (trimmed.size() > 300) trimmed = trimmed.substr(0, 300) + "...";
      hit.excerpt = trimmed;
      hits.push_back(hit);
    }
  }
  return hits;
}

std::vector<const KnowledgeEntry*> KnowledgeBase::Closest(std::string_view text, size_t limit) const {
  std::set<std::string> words = Words(text);
  std::vector<std::pair<int, const KnowledgeEntry*>> scored;
  for (const auto& e : entries_) {
    std::set<std::string> entry_words = Words(e.title.en + " " + e.meaning.en + " " + e.id);
    for (const auto& p : e.pattern_texts) {
      auto more = Words(p);
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

std::optional<OomDetails> ParseOutOfMemory(std::string_view raw) {
  const std::string size = R"(([\d.]+) (B|KiB|MiB|GiB|TiB))";
  // PyTorch >= 2.1: "Tried to allocate 1.22 GiB. GPU 0 has a total capacity of 15.77 GiB of which
  // 959.44 MiB is free. Process 12447 has 14.83 GiB memory in use. Of the allocated memory 14.01
  // GiB is allocated by PyTorch, and 472.05 MiB is reserved by PyTorch but unallocated."
  static const RE2 modern("Tried to allocate " + size + R"(\. GPU \d+ has a total capacity of )" + size + " of which " + size + " is free");
  static const RE2 process(R"(Process \d+ has )" + size + " memory in use");
  static const RE2 split("Of the allocated memory " + size + " is allocated by PyTorch, and " + size + " is reserved by PyTorch but unallocated");
  // Older: "Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB already
  // allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch)"
  static const RE2 legacy("Tried to allocate " + size + R"( \(GPU \d+; )" + size + " total capacity; " + size + " already allocated; " + size +
                          " free; " + size + " reserved in total by PyTorch");
  // Only the line that carries the message is examined: a log may be hundreds of megabytes.
  size_t at = raw.find("Tried to allocate");
  if (at == std::string_view::npos) return std::nullopt;
  size_t begin = raw.rfind('\n', at);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  std::string_view text = raw.substr(begin, 64 * 1024);
  text = text.substr(0, text.find('\n'));

  std::string n[5], u[5];
  auto bytes = [&](int i) { return ToBytes(std::strtod(n[i].c_str(), nullptr), u[i]); };
  OomDetails d;
  if (RE2::PartialMatch(text, modern, &n[0], &u[0], &n[1], &u[1], &n[2], &u[2])) {
    d.requested_bytes = bytes(0);
    d.total_bytes = bytes(1);
    d.free_bytes = bytes(2);
    if (RE2::PartialMatch(text, process, &n[3], &u[3])) d.this_process_bytes = bytes(3);
    if (RE2::PartialMatch(text, split, &n[3], &u[3], &n[4], &u[4])) {
      d.allocated_bytes = bytes(3);
      d.reserved_unallocated_bytes = bytes(4);
    }
  } else if (RE2::PartialMatch(text, legacy, &n[0], &u[0], &n[1], &u[1], &n[2], &u[2], &n[3], &u[3], &n[4], &u[4])) {
    d.requested_bytes = bytes(0);
    d.total_bytes = bytes(1);
    d.allocated_bytes = bytes(2);
    d.free_bytes = bytes(3);
    double reserved = bytes(4);
    d.reserved_unallocated_bytes = std::max(0.0, reserved - *d.allocated_bytes);
    d.this_process_bytes = reserved;
  } else {
    return std::nullopt;
  }
  // Decide which of the three stories the numbers tell.
  double mine = d.this_process_bytes.value_or(d.allocated_bytes.value_or(0) + d.reserved_unallocated_bytes.value_or(0));
  // Someone else holding most of the card outranks fragmentation: freeing our cache would not help.
  if (d.total_bytes > 0 && mine < 0.5 * (d.total_bytes - d.free_bytes)) {
    d.diagnosis = "someone_else";
  } else if (d.reserved_unallocated_bytes && *d.reserved_unallocated_bytes >= d.requested_bytes) {
    d.diagnosis = "fragmentation";
  } else {
    d.diagnosis = "too_big";
  }
  return d;
}

}  // namespace gpuprobe::doctor
