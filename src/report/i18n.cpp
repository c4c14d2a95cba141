#include "report/i18n.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/embedded_data.h"

namespace gpuprobe::report {
namespace {

core::Result<std::map<std::string, std::string>> ParseTexts(const std::string& text) {
  std::map<std::string, std::string> out;
  if (text.empty()) return out;
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return core::Status::ParseError("texts file is not a JSON object");
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!it.value().is_string()) return core::Status::ParseError("texts: value of '" + it.key() + "' is not a string");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

}  // namespace

std::string MissingTextMarker(const std::string& key) { return "\u27e6missing text: " + key + "\u27e7"; }

std::string LanguageCode(Language language) { return language == Language::kZh ? "zh" : "en"; }

core::Result<Language> ParseLanguage(const std::string& code) {
  if (code == "en") return Language::kEn;
  if (code == "zh") return Language::kZh;
  // Keyed, though the texts are not loaded yet: the message is rendered in the language the
  // environment names (en when that is the unknown one too).
  return core::Status::InvalidArgument("unknown language '" + code + "' (use en or zh)").WithKeys("error.lang.unknown", {{"value", code}});
}

Language LanguageFromEnvironment() {
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    return std::string(value).rfind("zh", 0) == 0 ? Language::kZh : Language::kEn;
  }
  return Language::kEn;
}

core::Result<Texts> Texts::FromJson(const std::string& json_text, const std::string& fallback_json,
                                    Language language) {
  Texts texts;
  texts.language_ = language;
  auto primary = ParseTexts(json_text);
  if (!primary.ok()) return primary.status();
  auto fallback = ParseTexts(fallback_json);
  if (!fallback.ok()) return fallback.status();
  texts.primary_ = std::move(primary.value());
  texts.fallback_ = std::move(fallback.value());
  return texts;
}

namespace {

// Every embedded file under texts/<lang>/ (one per area: plan.json, bench.json, ...), merged;
// a key defined in two files is a build problem, reported rather than silently shadowed.
core::Result<std::string> MergedCatalogue(Language language) {
  const std::string prefix = "texts/" + LanguageCode(language) + "/";
  nlohmann::json merged = nlohmann::json::object();
  int files = 0;
  for (const core::EmbeddedFileEntry& entry : core::EmbeddedFiles()) {
    std::string_view name(entry.name);
    if (name.substr(0, prefix.size()) != prefix) continue;
    auto part = nlohmann::json::parse(std::string_view(entry.data, entry.size_bytes), nullptr, false);
    if (part.is_discarded() || !part.is_object()) {
      return core::Status::ParseError(std::string(name) + " is not a JSON object");
    }
    for (auto it = part.begin(); it != part.end(); ++it) {
      if (merged.contains(it.key())) {
        return core::Status::ParseError(std::string(name) + " defines '" + it.key() + "' again");
      }
      merged[it.key()] = it.value();
    }
    ++files;
  }
  if (files == 0) return core::Status::NotFound("no embedded texts under " + prefix);
  return merged.dump();
}

}  // namespace

core::Result<Texts> Texts::Load(Language language) {
  auto en = MergedCatalogue(Language::kEn);
  if (!en.ok()) return en.status();
  if (language == Language::kEn) return FromJson(*en, "", language);
  auto zh = MergedCatalogue(Language::kZh);
  if (!zh.ok()) return zh.status();
  return FromJson(*zh, "", language);
}

const std::string& Texts::Get(const std::string& key) const {
  auto it = primary_.find(key);
  if (it != primary_.end()) return it->second;
  it = fallback_.find(key);
  if (it != fallback_.end()) return it->second;
  static thread_local std::string missing;
  missing = MissingTextMarker(key);
  return missing;
}

bool Texts::Has(const std::string& key) const { return primary_.count(key) > 0 || fallback_.count(key) > 0; }

namespace {

// The code point starting at `i` (UTF-8) and its length; a stray byte reads as itself.
std::pair<char32_t, size_t> CodePointAt(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) return {b, 1};
  size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  if (i + n > s.size()) return {b, 1};
  char32_t cp = n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : n == 4 ? (b & 0x07) : b;
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return {cp, n};
}

bool Ideograph(char32_t c) { return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF); }
bool LatinOrDigit(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string ZhSpacing(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  char32_t previous = 0;  // the last code point written
  for (size_t i = 0; i < text.size();) {
    auto [c, n] = CodePointAt(text, i);
    if (c == ' ' && Ideograph(previous) && i + 1 < text.size() && text[i + 1] != ' ') {
      auto next = CodePointAt(text, i + 1).first;
      if (Ideograph(next)) {  // "亿 次" -> "亿次"
        i += 1;
        continue;
      }
    }
    if ((Ideograph(previous) && LatinOrDigit(c)) || (LatinOrDigit(previous) && Ideograph(c))) out.push_back(' ');
    out.append(text.substr(i, n));
    previous = c;
    i += n;
  }
  return out;
}

std::string QuotedValue(const std::string& value, const Texts& texts) {
  return Tr(texts, "inspect.quoted", fmt::arg("value", value));
}

}  // namespace gpuprobe::report
