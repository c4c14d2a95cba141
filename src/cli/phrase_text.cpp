#include "cli/phrase_text.h"

#include <cmath>

#include <fmt/args.h>
#include <fmt/format.h>

#include "core/units.h"

namespace gpuprobe::cli {
namespace {

// "2.00" -> "2", "0.50" -> "0.5": a factor in a formula reads better without padding.
std::string Trimmed(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Chinese counts large numbers in 万 (1e4), 亿 (1e8) and 万亿 (1e12): 7B is 70 亿.
std::string ChineseCount(double value) {
  double magnitude = std::fabs(value);
  if (magnitude >= 1e12) return Trimmed(core::FormatSignificant(value / 1e12)) + " 万亿";
  if (magnitude >= 1e8) return Trimmed(core::FormatSignificant(value / 1e8)) + " 亿";
  if (magnitude >= 1e4) return Trimmed(core::FormatSignificant(value / 1e4)) + " 万";
  return fmt::format("{:.0f}", value);
}

std::string TokensPerSecond(double per_second) {
  if (per_second >= 1e4) return fmt::format("{:.0f}", per_second);
  return core::FormatSignificant(per_second);
}

std::string Dollars(double usd) {
  if (usd >= 100) return fmt::format("${:.0f}", usd);
  if (usd >= 0.01) return fmt::format("${:.2f}", usd);
  return fmt::format("${}", core::FormatSignificant(usd));
}

std::string Flop(double flop) {
  std::string text = core::FormatFlops(flop);  // "1.23 TFLOP/s"
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.resize(text.size() - 2);
  return text;
}

}  // namespace

std::string FormatParams(const report::Texts& texts, double params) {
  std::string en = core::FormatCount(params);
  if (texts.language() == report::Language::kZh && std::fabs(params) >= 1e4) {
    return ChineseCount(params) + " (" + en + ")";
  }
  return en;
}

std::string FormatArg(const report::Texts& texts, const model::PhraseArg& arg) {
  using model::ArgKind;
  switch (arg.kind) {
    case ArgKind::kText: return arg.text;
    case ArgKind::kKey: return texts.Get(arg.text);
    case ArgKind::kInteger:
      if (arg.number < 0) return fmt::format("{:.0f}", arg.number);
      return core::FormatInteger(static_cast<std::uint64_t>(std::llround(arg.number)));
    case ArgKind::kNumber: return Trimmed(core::FormatSignificant(arg.number));
    case ArgKind::kBytes: return core::FormatBytesBinary(arg.number);
    case ArgKind::kBytesPerSecond: return core::FormatBytesPerSecond(arg.number);
    case ArgKind::kFlops: return core::FormatFlops(arg.number);
    case ArgKind::kFlop: return Flop(arg.number);
    case ArgKind::kParams: return FormatParams(texts, arg.number);
    case ArgKind::kSeconds: return core::FormatSeconds(arg.number);
    case ArgKind::kPercent: {
      double percent = arg.number * 100;
      return std::fabs(percent) < 10 && percent != 0 ? fmt::format("{:.1f}%", percent) : fmt::format("{:.0f}%", percent);
    }
    case ArgKind::kTokensPerSecond: return TokensPerSecond(arg.number);
    case ArgKind::kDollars: return Dollars(arg.number);
    case ArgKind::kPhrase: return arg.phrase ? Say(texts, *arg.phrase) : std::string();
    case ArgKind::kGpuName: return GpuNameText(arg.text, texts);
  }
  return arg.text;
}

std::string Say(const report::Texts& texts, const model::Phrase& phrase) {
  if (phrase.empty()) return {};
  const std::string& pattern = texts.Get(phrase.key);
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const auto& arg : phrase.args) store.push_back(fmt::arg(arg.name.c_str(), FormatArg(texts, arg)));
  try {
    return fmt::vformat(pattern, store);
  } catch (const fmt::format_error&) {
    return pattern;
  }
}

std::string GpuNameText(const std::string& name, const report::Texts& texts) {
  size_t open = name.find(" (");
  if (open == std::string::npos || name.empty() || name.back() != ')') return name;
  return report::Tr(texts, "common.gpu_name_note", fmt::arg("name", name.substr(0, open)),
            fmt::arg("note", name.substr(open + 2, name.size() - open - 3)));
}

}  // namespace gpuprobe::cli
