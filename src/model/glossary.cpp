#include "model/glossary.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_input.h"
#include "core/spelling.h"
#include "core/strings.h"

namespace gpuprobe::model {
namespace {

using nlohmann::json;

core::Status Bad(const std::string& where, const std::string& what) { return core::Status::ParseError(where + ": " + what); }

core::Result<GlossaryText> ReadText(const json& parent, const char* key, const std::string& where) {
  if (!parent.contains(key) || !parent[key].is_object()) return Bad(where, fmt::format("\"{}\" must be an object {{en, zh}}", key));
  const json& t = parent[key];
  const json en = t.value("en", json()), zh = t.value("zh", json());
  if (!en.is_string() || !zh.is_string() || en.get<std::string>().empty() || zh.get<std::string>().empty()) {
    return Bad(where, fmt::format("\"{}\" needs non-empty \"en\" and \"zh\" texts", key));
  }
  return GlossaryText{en.get<std::string>(), zh.get<std::string>()};
}

core::Result<std::vector<std::string>> ReadStrings(const json& parent, const char* key, const std::string& where) {
  if (!parent.contains(key) || !parent[key].is_array()) return Bad(where, fmt::format("\"{}\" must be an array of strings", key));
  std::vector<std::string> out;
  for (const auto& item : parent[key]) {
    if (!item.is_string() || item.get<std::string>().empty()) return Bad(where, fmt::format("\"{}\" holds an empty or non-string item", key));
    out.push_back(item.get<std::string>());
  }
  return out;
}

bool HasLetter(std::string_view name) {
  // Any ASCII letter, or any byte of a multi-byte UTF-8 character (a Chinese name).
  return std::any_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isalpha(u) || u >= 0x80;
  });
}

// The text as typed, without what a question around a term adds: white space, quotes and a
// trailing question mark ("what is "SM"?" is not parsed; `explain "SM?"` is the term).
std::string_view Bare(std::string_view text) {
  auto drop = [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '`' || c == '?'; };
  while (!text.empty() && drop(text.front())) text.remove_prefix(1);
  while (!text.empty() && drop(text.back())) text.remove_suffix(1);
  // A full-width question mark (U+FF1F) as a Chinese reader types it.
  static constexpr std::string_view kWideQuestion = "\xEF\xBC\x9F";
  while (core::EndsWith(text, kWideQuestion)) text.remove_suffix(kWideQuestion.size());
  return text;
}

size_t Words(std::string_view text) {
  size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

}  // namespace

std::string GlossaryKey(std::string_view text) {
  std::string key;
  key.reserve(text.size());
  // Full-width punctuation (zh writes （）：，；) folds to its ASCII form: a name typed either way
  // is the same name.
  static constexpr std::string_view kFullWidth[] = {"\xEF\xBC\x88", "\xEF\xBC\x89", "\xEF\xBC\x9A", "\xEF\xBC\x8C", "\xEF\xBC\x9B"};
  static constexpr char kAscii[] = {'(', ')', ':', ',', ';'};
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    for (size_t f = 0; f < std::size(kFullWidth); ++f) {
      if (text.substr(i, kFullWidth[f].size()) == kFullWidth[f]) {
        c = kAscii[f];
        i += kFullWidth[f].size() - 1;
        break;
      }
    }
    auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) || c == '-' || c == '_') continue;
    key.push_back(static_cast<char>(std::tolower(u)));
  }
  return key;
}

core::Result<Glossary> Glossary::Parse(std::string_view json_text, const std::string& label) {
  auto parsed = core::ParseJsonInput(json_text, label);
  if (!parsed.ok()) return parsed.status();
  const json& doc = *parsed;
  if (!doc.is_object() || doc.value("schema", json()) != "gpuprobe.glossary.v1") {
    return Bad(label, "expected an object with \"schema\": \"gpuprobe.glossary.v1\"");
  }
  if (!doc.contains("groups") || !doc["groups"].is_array() || !doc.contains("terms") || !doc["terms"].is_array()) {
    return Bad(label, "needs a \"groups\" and a \"terms\" array");
  }
  Glossary g;
  std::set<std::string> group_ids;
  for (size_t i = 0; i < doc["groups"].size(); ++i) {
    const json& e = doc["groups"][i];
    const std::string where = fmt::format("{}: groups[{}]", label, i);
    if (!e.is_object() || !e.value("id", json()).is_string()) return Bad(where, "needs an \"id\"");
    const json& en = e.value("en", json()), zh = e.value("zh", json());
    if (!en.is_string() || !zh.is_string()) return Bad(where, "needs \"en\" and \"zh\" titles");
    GlossaryGroup group{e["id"].get<std::string>(), {en.get<std::string>(), zh.get<std::string>()}};
    if (!group_ids.insert(group.id).second) return Bad(where, "repeats the group id '" + group.id + "'");
    g.groups_.push_back(std::move(group));
  }
  std::map<std::string, std::string> owner;  // key -> term id
  std::set<std::string> ids;
  for (size_t i = 0; i < doc["terms"].size(); ++i) {
    const json& e = doc["terms"][i];
    std::string where = fmt::format("{}: terms[{}]", label, i);
    if (!e.is_object() || !e.value("id", json()).is_string() || !e.value("group", json()).is_string() ||
        !e.value("command", json()).is_string()) {
      return Bad(where, "needs \"id\", \"group\" and \"command\" strings");
    }
    GlossaryTerm term;
    term.id = e["id"].get<std::string>();
    where += " (" + term.id + ")";
    if (!ids.insert(term.id).second) return Bad(where, "repeats the id");
    term.group = e["group"].get<std::string>();
    if (!group_ids.count(term.group)) return Bad(where, "names the unknown group '" + term.group + "'");
    term.command = e["command"].get<std::string>();
    // "gpuprobe ..." or a pipe into it ("nvidia-smi -q | gpuprobe inspect --from -").
    if (term.command.find("gpuprobe ") == std::string::npos) return Bad(where, "\"command\" must run gpuprobe");
    auto names = ReadStrings(e, "names", where);
    if (!names.ok()) return names.status();
    if (names->empty()) return Bad(where, "has no names");
    term.names = std::move(*names);
    for (const auto& name : term.names) {
      if (!HasLetter(name)) return Bad(where, "has the name '" + name + "' with no letter (a number is a status or an Xid)");
      auto [it, inserted] = owner.emplace(GlossaryKey(name), term.id);
      if (!inserted && it->second != term.id) return Bad(where, "claims the name '" + name + "' of '" + it->second + "'");
    }
    for (auto [field, key] : {std::pair<GlossaryText*, const char*>{&term.title, "title"}, {&term.meaning, "meaning"}, {&term.analogy, "analogy"}}) {
      auto text = ReadText(e, key, where);
      if (!text.ok()) return text.status();
      *field = std::move(*text);
    }
    if (!e.contains("normal")) return Bad(where, "needs \"normal\" (null where no range exists)");
    if (!e["normal"].is_null()) {
      auto text = ReadText(e, "normal", where);
      if (!text.ok()) return text.status();
      const json source = e["normal"].value("source", json());
      if (!source.is_string() || source.get<std::string>().empty()) return Bad(where, "\"normal\" needs its \"source\"");
      term.normal = GlossaryNormal{std::move(*text), source.get<std::string>()};
    }
    auto see_also = ReadStrings(e, "see_also", where);
    if (!see_also.ok()) return see_also.status();
    term.see_also = std::move(*see_also);
    auto sources = ReadStrings(e, "sources", where);
    if (!sources.ok()) return sources.status();
    term.sources = std::move(*sources);
    g.terms_.push_back(std::move(term));
  }
  for (const auto& term : g.terms_) {
    for (const auto& other : term.see_also) {
      if (!ids.count(other)) return Bad(label + ": terms (" + term.id + ")", "see_also names the unknown term '" + other + "'");
    }
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < g.terms_.size(); ++i) index[g.terms_[i].id] = i;
  for (const auto& [key, id] : owner) g.keys_.emplace_back(key, index[id]);
  return g;
}

const GlossaryTerm* Glossary::Find(std::string_view text) const {
  std::string_view bare = Bare(text);
  if (bare.empty() || Words(bare) > kMaxTermWords) return nullptr;
  std::string key = GlossaryKey(bare);
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key, [](const auto& entry, const std::string& k) { return entry.first < k; });
  if (it == keys_.end() || it->first != key) return nullptr;
  return &terms_[it->second];
}

const GlossaryTerm* Glossary::ById(std::string_view id) const {
  for (const auto& term : terms_) {
    if (term.id == id) return &term;
  }
  return nullptr;
}

std::vector<std::string> Glossary::Closest(std::string_view text, size_t limit) const {
  std::string_view bare = Bare(text);
  if (bare.empty() || Words(bare) > kMaxTermWords) return {};
  std::string key = GlossaryKey(bare);
  std::vector<std::string> keys;
  for (const auto& entry : keys_) keys.push_back(entry.first);
  std::vector<std::string> out;
  for (const auto& near : core::ClosestMatches(key, keys, -1, keys.size())) {
    auto it = std::lower_bound(keys_.begin(), keys_.end(), near, [](const auto& entry, const std::string& k) { return entry.first < k; });
    const std::string& id = terms_[it->second].id;
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    if (out.size() == limit) break;
  }
  return out;
}

namespace {

// The content words of an English text: runs of ASCII letters, lower case, three letters or
// more, a plural ("s", "ies") made singular, without the words every question has.
std::set<std::string> ContentWords(std::string_view text) {
  static const std::set<std::string> kCommon = {
      "the", "and", "are", "why", "what", "how", "does", "did", "can", "for", "with", "this", "that", "from", "when", "which",
      "not", "its", "into", "than", "then", "have", "has", "was", "were", "will", "would", "should", "could", "there", "their",
      "your", "you", "all", "any", "one", "per", "more", "less", "mean", "means", "much", "many", "very", "also", "only",
      "each", "other", "same", "gpu", "gpus", "nvidia", "about", "like", "just", "get", "use", "used", "using"};
  std::set<std::string> out;
  std::string word;
  auto flush = [&] {
    if (word.size() >= 5 && word.compare(word.size() - 3, 3, "ies") == 0) {
      word.replace(word.size() - 3, 3, "y");  // copies -> copy
    } else if (word.size() >= 4 && word.back() == 's' && word[word.size() - 2] != 's') {
      word.pop_back();
    }
    if (word.size() >= 3 && kCommon.count(word) == 0) out.insert(word);
    word.clear();
  };
  for (char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      word.push_back(static_cast<char>(c | 0x20));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

// `name` inside `text` as a whole word (or, for a Chinese name, anywhere), any case.
// Lower case with '-' and '_' as spaces: "GPU-Util" is found in "100% gpu util".
std::string Folded(std::string_view text) {
  std::string out = core::Lower(text);
  for (char& c : out) {
    if (c == '-' || c == '_') c = ' ';
  }
  return out;
}

bool ContainsName(const std::string& lower_text, const std::string& name) {
  std::string lower = Folded(name);
  if (lower.size() < 2) return false;
  for (size_t at = lower_text.find(lower); at != std::string::npos; at = lower_text.find(lower, at + 1)) {
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    bool before = at == 0 || !letter(lower_text[at - 1]);
    bool after = at + lower.size() >= lower_text.size() || !letter(lower_text[at + lower.size()]);
    if (before && after) return true;
  }
  return false;
}

}  // namespace

const GlossaryTerm* Glossary::NamedIn(std::string_view text) const {
  if (text.size() > kMaxPhraseBytes) return nullptr;
  size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  if (words > kMaxPhraseWords) return nullptr;
  const std::string folded = Folded(text);
  const GlossaryTerm* best = nullptr;
  size_t longest = 0;
  for (const GlossaryTerm& term : terms_) {
    for (const auto& name : term.names) {
      if (name.size() > longest && ContainsName(folded, name)) {
        best = &term;
        longest = name.size();
      }
    }
  }
  return best;
}

std::vector<std::string> Glossary::About(std::string_view text, size_t limit) const {
  // A question is short; a pasted log of megabytes is not one (and would cost a search per name).
  if (text.size() > kMaxQuestionBytes) return {};
  const std::string lower = Folded(text);
  const std::set<std::string> words = ContentWords(text);
  std::vector<std::pair<std::pair<int, size_t>, size_t>> scored;  // ((score, longest name), term)
  for (size_t i = 0; i < terms_.size(); ++i) {
    const GlossaryTerm& term = terms_[i];
    int names = 0;
    size_t longest = 0;  // a longer name found is the more specific ("KV 缓存" before "显存")
    for (const auto& name : term.names) {
      if (!ContainsName(lower, name)) continue;
      ++names;
      longest = std::max(longest, name.size());
    }
    int shared = 0;
    std::set<std::string> title = ContentWords(term.title.en);
    std::set<std::string> meaning = ContentWords(term.meaning.en);
    for (const auto& w : words) {
      if (title.count(w)) shared += 2;
      else if (meaning.count(w)) shared += 1;
    }
    if (names == 0 && shared < 3) continue;
    scored.push_back({{names * 4 + shared, longest}, i});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (const auto& [score, i] : scored) {
    if (out.size() == limit) break;
    out.push_back(terms_[i].id);
  }
  return out;
}

}  // namespace gpuprobe::model
