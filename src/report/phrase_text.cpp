#include "report/phrase_text.h"

#include <algorithm>

#include <cmath>

#include <fmt/format.h>

#include "core/units.h"
#include "report/count_text.h"
#include "report/status_text.h"

namespace gpuprobe::report {
namespace {

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

std::string FormatParams(const Texts& texts, double params) {
  if (texts.language() == Language::kZh) return FormatCountWithShort(Language::kZh, params);
  return core::FormatCount(params);
}

std::string FormatArg(const Texts& texts, const model::PhraseArg& arg) {
  using model::ArgKind;
  switch (arg.kind) {
    case ArgKind::kText: return arg.text;
    case ArgKind::kKey: return texts.Get(arg.text);
    case ArgKind::kInteger:
      if (arg.number < 0) return fmt::format("{:.0f}", arg.number);
      return core::FormatInteger(static_cast<std::uint64_t>(std::llround(arg.number)));
    case ArgKind::kNumber: return DropTrailingZeros(core::FormatSignificant(arg.number));
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

std::string Say(const Texts& texts, const model::Phrase& phrase) {
  if (phrase.empty()) return {};
  core::MessageArgs args;
  for (const auto& arg : phrase.args) args.emplace_back(arg.name, FormatArg(texts, arg));
  return FormatWithArgs(texts, phrase.key, args);
}

std::string GpuNameText(const std::string& name, const Texts& texts) {
  size_t open = name.find(" (");
  if (open == std::string::npos || name.empty() || name.back() != ')') return name;
  const std::string note = name.substr(open + 2, name.size() - open - 3);
  // A note in words has its own text ("HGX, per GPU"); one of figures and model names
  // ("96GB HBM3") reads the same in every language; any other is quoted as English.
  const std::string key = "common.gpu_note." + note;
  if (texts.Has(key)) return Tr(texts, "common.gpu_name_note_text", fmt::arg("name", name.substr(0, open)), fmt::arg("note", texts.Get(key)));
  const bool figures = std::none_of(note.begin(), note.end(), [](char c) { return c == ',' || (c >= 'a' && c <= 'z' && c != 'e'); });
  return Tr(texts, figures ? "common.gpu_name_note_text" : "common.gpu_name_note", fmt::arg("name", name.substr(0, open)),
            fmt::arg("note", note));
}

}  // namespace gpuprobe::report
