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

std::string LanguageCode(Language language) { return language == Language::kZh ? "zh" : "en"; }

core::Result<Language> ParseLanguage(const std::string& code) {
  if (code == "en") return Language::kEn;
  if (code == "zh") return Language::kZh;
  return core::Status::InvalidArgument("unknown language '" + code + "' (use en or zh)");
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

core::Result<Texts> Texts::Load(Language language) {
  auto en = core::EmbeddedFile("texts/en.json");
  if (!en.ok()) return en.status();
  if (language == Language::kEn) return FromJson(std::string(*en), "", language);
  auto zh = core::EmbeddedFile("texts/zh.json");
  if (!zh.ok()) return zh.status();
  return FromJson(std::string(*zh), std::string(*en), language);
}

const std::string& Texts::Get(const std::string& key) const {
  auto it = primary_.find(key);
  if (it != primary_.end()) return it->second;
  it = fallback_.find(key);
  if (it != fallback_.end()) return it->second;
  static thread_local std::string missing;
  missing = key;
  return missing;
}

bool Texts::Has(const std::string& key) const { return primary_.count(key) > 0 || fallback_.count(key) > 0; }

}  // namespace gpuprobe::report
