// User-facing texts in English and Chinese, kept in data/texts/<lang>.json (embedded), so
// wording changes and translations need no code change. Keys are stable dotted names.
//
// Thread safety: a Texts object is immutable after Load(); share it freely.
#pragma once

#include <map>
#include <string>

#include <fmt/format.h>

#include "core/status.h"

namespace gpuprobe::report {

enum class Language { kEn, kZh };

/// What Texts::Get returns for a key no catalogue has: "⟦missing text: <key>⟧".
std::string MissingTextMarker(const std::string& key);

/// "en" or "zh".
std::string LanguageCode(Language language);
/// Parses --lang; InvalidArgument for anything but en or zh.
core::Result<Language> ParseLanguage(const std::string& code);
/// zh when LC_ALL, LC_MESSAGES or LANG (first one set) starts with "zh", else en.
Language LanguageFromEnvironment();

class Texts {
 public:
  /// Loads the embedded texts of `language`. There is no fallback to another language: a key
  /// missing from one catalogue is a bug that a test finds (every language has every key).
  static core::Result<Texts> Load(Language language);
  /// Loads from JSON text (tests); `fallback_json` may be empty.
  static core::Result<Texts> FromJson(const std::string& json_text, const std::string& fallback_json,
                                      Language language);

  /// The text for `key`; when the key is missing, MissingTextMarker(key), which the leak test
  /// and the catalogue tests look for (never a silent fallback to another language).
  const std::string& Get(const std::string& key) const;
  bool Has(const std::string& key) const;
  Language language() const { return language_; }
  /// Every key of the primary language.
  std::map<std::string, std::string> All() const { return primary_; }

 private:
  Language language_ = Language::kEn;
  std::map<std::string, std::string> primary_;
  std::map<std::string, std::string> fallback_;
};

/// A value copied from input with no text of ours (a GPU's name, an unknown mode, a field
/// name): as written, inside quotes in Chinese (it is data, not a sentence of ours).
std::string QuotedValue(const std::string& value, const Texts& texts);

/// Chinese spacing of a formatted zh line (docs/glossary-zh.md): no space between two Chinese
/// characters ("1374 亿 次运算" -> "1374 亿次运算", a count's unit and the word after it), one
/// space between a Chinese character and a Latin letter or digit that a value glued to it
/// ("token最便宜" -> "token 最便宜"). Runs of two or more spaces (column gaps) are kept.
std::string ZhSpacing(std::string_view text);

/// Formats text `key` with named fmt arguments; a broken translation falls back to the raw
/// text (a test renders every text with its placeholders, so this is never seen in practice).
/// A zh text's values are spaced as Chinese is (ZhSpacing).
template <typename... Args>
std::string Tr(const Texts& texts, const std::string& key, Args&&... args) {
  const std::string& pattern = texts.Get(key);
  try {
    std::string out = fmt::format(fmt::runtime(pattern), std::forward<Args>(args)...);
    return texts.language() == Language::kZh ? ZhSpacing(out) : out;
  } catch (const fmt::format_error&) {
    return pattern;
  }
}

/// "label: " in English, "label：" in Chinese: a label of ours before its value (text
/// common.label_colon), so a zh line never carries an ASCII colon after Chinese.
inline std::string Labelled(const Texts& texts, const std::string& label) {
  return Tr(texts, "common.label_colon", fmt::arg("label", label));
}

/// A label that ends its line ("Launch command:" / "启动命令："): Labelled without the space
/// English puts after the colon.
inline std::string Heading(const Texts& texts, const std::string& label) {
  std::string out = Labelled(texts, label);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace gpuprobe::report
