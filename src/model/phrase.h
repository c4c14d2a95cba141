// Phrase: a sentence the model wants to say, as a text-catalogue key plus typed arguments.
// model/ is pure and knows no language, so it never words a sentence itself: it names the
// text (data/texts/<lang>/<area>.json) and hands over its figures with their kind (bytes,
// a parameter count, seconds, ...). The view (report/phrase_text.h) formats each figure the way
// the reader's language writes it (70B beside "700 亿" in Chinese) and fills the text in.
//
// Thread safety: plain values.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gpuprobe::model {

/// How an argument is written by the view.
enum class ArgKind {
  kText,            ///< as is: identifiers, product names, dtype names, formulas
  kKey,             ///< another text-catalogue key, looked up in the reader's language
  kInteger,         ///< a whole number, digits grouped ("4,096")
  kNumber,          ///< three significant digits
  kBytes,           ///< binary units: KiB, MiB, GiB (memory sizes)
  kBytesPerSecond,  ///< SI: GB/s, TB/s (rates)
  kFlops,           ///< SI: TFLOP/s
  kFlop,            ///< an amount of work: GFLOP, TFLOP
  kParams,          ///< a parameter count: "70.0 B"; Chinese adds "700 亿"
  kSeconds,         ///< us, ms, s, min, h
  kPercent,         ///< a fraction written as a percentage ("42%")
  kTokensPerSecond, ///< a rate of tokens
  kDollars,         ///< US dollars
  kPhrase,          ///< a nested phrase
  kGpuName,         ///< a spec-database GPU name: its "(...)" note is data, quoted in Chinese
};

struct Phrase;

struct PhraseArg {
  std::string name;
  ArgKind kind = ArgKind::kText;
  double number = 0;
  std::string text;
  std::shared_ptr<const Phrase> phrase;
};

struct Phrase {
  std::string key;              ///< text-catalogue key; empty = nothing to say
  std::vector<PhraseArg> args;  ///< named arguments, filled into the text's {name} slots

  bool empty() const { return key.empty(); }

  Phrase& Text(const std::string& name, const std::string& value) {
    args.push_back({name, ArgKind::kText, 0, value, nullptr});
    return *this;
  }
  Phrase& GpuName(const std::string& name, const std::string& value) {
    args.push_back({name, ArgKind::kGpuName, 0, value, nullptr});
    return *this;
  }
  Phrase& Key(const std::string& name, const std::string& text_key) {
    args.push_back({name, ArgKind::kKey, 0, text_key, nullptr});
    return *this;
  }
  Phrase& Arg(const std::string& name, ArgKind kind, double value) {
    args.push_back({name, kind, value, {}, nullptr});
    return *this;
  }
  Phrase& Int(const std::string& name, double value) { return Arg(name, ArgKind::kInteger, value); }
  Phrase& Num(const std::string& name, double value) { return Arg(name, ArgKind::kNumber, value); }
  Phrase& Bytes(const std::string& name, double value) { return Arg(name, ArgKind::kBytes, value); }
  Phrase& Rate(const std::string& name, double value) { return Arg(name, ArgKind::kBytesPerSecond, value); }
  Phrase& Flops(const std::string& name, double value) { return Arg(name, ArgKind::kFlops, value); }
  Phrase& Flop(const std::string& name, double value) { return Arg(name, ArgKind::kFlop, value); }
  Phrase& Params(const std::string& name, double value) { return Arg(name, ArgKind::kParams, value); }
  Phrase& Seconds(const std::string& name, double value) { return Arg(name, ArgKind::kSeconds, value); }
  Phrase& Percent(const std::string& name, double fraction) { return Arg(name, ArgKind::kPercent, fraction); }
  Phrase& Tokens(const std::string& name, double per_second) { return Arg(name, ArgKind::kTokensPerSecond, per_second); }
  Phrase& Dollars(const std::string& name, double usd) { return Arg(name, ArgKind::kDollars, usd); }
  Phrase& Sub(const std::string& name, Phrase phrase) {
    args.push_back({name, ArgKind::kPhrase, 0, {}, std::make_shared<const Phrase>(std::move(phrase))});
    return *this;
  }
};

/// A phrase for `key` with no arguments yet.
inline Phrase Say(std::string key) {
  Phrase p;
  p.key = std::move(key);
  return p;
}

/// Every text key a phrase uses (its own, nested phrases', kKey arguments'), for tests.
inline void CollectKeys(const Phrase& phrase, std::vector<std::string>* keys) {
  if (!phrase.key.empty()) keys->push_back(phrase.key);
  for (const auto& arg : phrase.args) {
    if (arg.kind == ArgKind::kKey) keys->push_back(arg.text);
    if (arg.kind == ArgKind::kPhrase && arg.phrase) CollectKeys(*arg.phrase, keys);
  }
}

}  // namespace gpuprobe::model
