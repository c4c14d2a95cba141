#include "model/model_catalog.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/spelling.h"
#include "core/strings.h"

namespace gpuprobe::model {

using core::Result;
using core::Status;

namespace {

// Longer requests cannot be a Hub id (the Hub allows 96 characters for a name); they are
// answered without looking at the catalogue.
constexpr size_t kMaxRequestLength = 512;

using core::Lower;

std::string_view OrgOf(std::string_view id) {
  auto slash = id.find('/');
  return slash == std::string_view::npos ? std::string_view() : id.substr(0, slash);
}

std::string_view NameOf(std::string_view id) {
  auto slash = id.find('/');
  return slash == std::string_view::npos ? id : id.substr(slash + 1);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// What a name token says about the checkpoint, when it does not change the architecture.
enum class TokenKind {
  kCore,     // part of the architecture's identity: family, version, size, context variant...
  kTuning,   // Instruct, Chat, it, Base, hf, pt, Thinking, SFT, DPO
  kQuant,    // quantisation or packaging: FP8, AWQ, GPTQ, Int4, GGUF, MLX, bnb-4bit, BF16...
  kDate,     // a release date: 2507 (YYMM), 0528 (MMDD)
  kNaming,   // a naming prefix that some uploads add: Meta-Llama-3.1 for Llama-3.1
};

// 4 digits read as YYMM (years 2022-2029) or MMDD.
bool IsDate(std::string_view t) {
  if (t.size() != 4 || !AllDigits(t)) return false;
  int hi = (t[0] - '0') * 10 + (t[1] - '0');
  int lo = (t[2] - '0') * 10 + (t[3] - '0');
  bool yymm = hi >= 22 && hi <= 29 && lo >= 1 && lo <= 12;
  bool mmdd = hi >= 1 && hi <= 12 && lo >= 1 && lo <= 31;
  return yymm || mmdd;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// `t` is lower case.
bool IsQuantToken(std::string_view t) {
  static const std::set<std::string_view> kWords = {
      "fp8",  "fp4",  "nvfp4", "mxfp4", "int4", "int8", "int3", "awq",    "gptq",      "gguf",       "mlx",
      "exl2", "exl3", "nf4",   "bnb",   "hqq",  "eetq", "onnx", "dynamic", "static",   "pertensor",  "perchannel",
      "block", "bf16", "fp16", "fp32",  "f16",  "f32",  "unsloth", "quantized", "quant", "marlin",  "fp8dynamic"};
  if (kWords.count(t) != 0) return true;
  if (StartsWith(t, "quantized")) return true;  // RedHatAI's "quantized.w4a16"
  // NbitS: 4bit, 8bit, 3bit...; WxAy: w4a16, w8a8; GGUF levels: q4_k_m, q8_0, iq4_xs.
  if (t.size() >= 4 && t.substr(t.size() - 3) == "bit" && AllDigits(t.substr(0, t.size() - 3))) return true;
  if (t.size() >= 4 && t[0] == 'w') {
    auto a = t.find('a');
    if (a != std::string_view::npos && a > 1 && AllDigits(t.substr(1, a - 1)) && AllDigits(t.substr(a + 1))) return true;
  }
  if ((t.size() >= 2 && t[0] == 'q' && std::isdigit(static_cast<unsigned char>(t[1])) &&
       (t.size() == 2 || t[2] == '_')) ||
      (t.size() >= 3 && t[0] == 'i' && t[1] == 'q' && std::isdigit(static_cast<unsigned char>(t[2])))) {
    return true;
  }
  return false;
}

// A parameter count: 8b, 0.5b, 270m, 8x7b, a3b (active), e4b (effective).
bool IsSize(std::string_view t) {
  if (t.size() < 2 || (t.back() != 'b' && t.back() != 'm')) return false;
  std::string_view body = t.substr(0, t.size() - 1);
  if (!body.empty() && (body[0] == 'a' || body[0] == 'e')) body = body.substr(1);
  auto x = body.find('x');
  if (x != std::string_view::npos) body = body.substr(x + 1);
  auto dot = body.find('.');
  if (dot != std::string_view::npos) return AllDigits(body.substr(0, dot)) && AllDigits(body.substr(dot + 1));
  return AllDigits(body);
}

TokenKind Classify(std::string_view t, bool first, std::string_view next, bool has_size) {
  static const std::set<std::string_view> kTuning = {"instruct", "chat", "it", "hf", "pt", "thinking", "sft", "dpo"};
  if (kTuning.count(t) != 0) return TokenKind::kTuning;
  // "Base" is a tuning beside a parameter count (Qwen3-8B-Base) and a size on its own
  // (bert-base-uncased, whisper-base, ModernBERT-base).
  if (t == "base" && has_size) return TokenKind::kTuning;
  if (IsQuantToken(t)) return TokenKind::kQuant;
  if (IsDate(t)) return TokenKind::kDate;
  if (first && t == "meta" && StartsWith(next, "llama")) return TokenKind::kNaming;
  return TokenKind::kCore;
}

struct Token {
  std::string lower;
  std::string original;
  TokenKind kind;
};

// A model name split on '-' (and spaces), each token classified.
struct ParsedName {
  std::string key;  // the core tokens, lower case, joined by '-'
  std::vector<Token> tokens;

  std::vector<std::string> Of(TokenKind kind, bool original = false) const {
    std::vector<std::string> out;
    for (const auto& t : tokens) {
      if (t.kind == kind) out.push_back(original ? t.original : t.lower);
    }
    return out;
  }
};

ParsedName ParseName(std::string_view name) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : name) {
    if (c == '-' || c == ' ') {
      if (!current.empty()) parts.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) parts.push_back(current);
  ParsedName out;
  bool has_size = false;
  for (const auto& part : parts) has_size = has_size || IsSize(Lower(part));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string lower = Lower(parts[i]);
    std::string next = i + 1 < parts.size() ? Lower(parts[i + 1]) : std::string();
    Token token{lower, parts[i], Classify(lower, i == 0, next, has_size)};
    if (token.kind == TokenKind::kCore) out.key += (out.key.empty() ? "" : "-") + lower;
    out.tokens.push_back(std::move(token));
  }
  return out;
}

// Organisations that re-upload other organisations' models (quantised, converted or mirrored)
// under the original name, lower case.
bool IsReuploader(std::string_view org) {
  static const std::set<std::string_view> kOrgs = {
      "unsloth",        "thebloke",          "redhatai",      "neuralmagic",  "nm-testing",
      "bartowski",      "lmstudio-community", "mlx-community", "maziyarpanahi", "quantfactory",
      "hugging-quants", "casperhansen",      "second-state",  "nousresearch", "modelcloud",
      "intel",          "nvidia",            "amd",           "mistral-community", "cortecs",
      "ggml-org",       "llava-hf",          "huggingfaceh4", "solidrust",    "trl-lib"};
  return kOrgs.count(org) != 0;
}

// Organisations that renamed themselves: the same models under both names.
std::string CanonicalOrg(std::string org) {
  if (org == "thudm") return "zai-org";
  if (org == "cohereforai") return "coherelabs";
  return org;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

size_t Shared(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  for (const auto& x : a) n += std::count(b.begin(), b.end(), x) > 0 ? 1 : 0;
  return n;
}

std::set<std::string> AsSet(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

}  // namespace

namespace {

// A forward-only reader over the catalogue text that finds each entry's fields and keeps its
// config as the text it is (no tree is built for the ~300 configs: the one planned is parsed by
// ParseHfConfig, which validates it). Strings are decoded with nlohmann; other values are only
// skipped, bracket by bracket, so Python's NaN and Infinity inside a config pass through.
class CatalogScanner {
 public:
  explicit CatalogScanner(std::string_view text) : text_(text) {}

  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  /// A JSON string at the cursor, decoded; nullopt when there is none or it is malformed.
  std::optional<std::string> String() {
    SkipSpace();
    size_t begin = pos_;
    if (!SkipString()) return std::nullopt;
    auto decoded = nlohmann::json::parse(text_.substr(begin, pos_ - begin), nullptr, false);
    if (!decoded.is_string()) return std::nullopt;
    return decoded.get<std::string>();
  }
  /// Skips one value of any kind and returns its text; nullopt when malformed.
  std::optional<std::string_view> Value() {
    SkipSpace();
    size_t begin = pos_;
    if (pos_ >= text_.size()) return std::nullopt;
    char c = text_[pos_];
    if (c == '"') {
      if (!SkipString()) return std::nullopt;
    } else if (c == '{' || c == '[') {
      int depth = 0;
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        if (d == '"') {
          if (!SkipString()) return std::nullopt;
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') {
          if (--depth == 0) {
            ++pos_;
            break;
          }
        }
        ++pos_;
      }
      if (depth != 0) return std::nullopt;
    } else {
      while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']' &&
             std::isspace(static_cast<unsigned char>(text_[pos_])) == 0) {
        ++pos_;
      }
      if (pos_ == begin) return std::nullopt;
    }
    return text_.substr(begin, pos_ - begin);
  }
  size_t Offset() const { return pos_; }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }
  bool SkipString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') return false;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '\\') {
        ++pos_;
      } else if (text_[pos_] == '"') {
        ++pos_;
        return true;
      }
    }
    return false;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::vector<CatalogEntry>> ParseModelCatalog(std::string_view text, const std::string& label) {
  CatalogScanner in(text);
  auto malformed = [&](const std::string& what) {
    return Status::ParseError(fmt::format("{}: {} (at byte {})", label, what, in.Offset()));
  };
  if (!in.Consume('{')) return malformed("expected an object with a 'models' list");
  std::vector<CatalogEntry> out;
  bool saw_models = false;
  while (!in.Consume('}')) {
    auto key = in.String();
    if (!key || !in.Consume(':')) return malformed("expected an object with a 'models' list");
    if (*key != "models") {
      if (!in.Value()) return malformed(fmt::format("malformed value of '{}'", *key));
    } else {
      saw_models = true;
      if (!in.Consume('[')) return malformed("expected an object with a 'models' list");
      while (!in.Consume(']')) {
        if (!out.empty() && !in.Consume(',')) return malformed(fmt::format("expected ',' after entry {}", out.size() - 1));
        if (!in.Consume('{')) {
          return Status::ParseError(
              fmt::format("{}: entry {} needs a string id, a source and a config object", label, out.size()));
        }
        CatalogEntry entry;
        bool have_id = false, have_source = false, have_config = false, first = true;
        while (!in.Consume('}')) {
          if (!first && !in.Consume(',')) return malformed(fmt::format("expected ',' in entry {}", out.size()));
          first = false;
          auto field = in.String();
          if (!field || !in.Consume(':')) return malformed(fmt::format("malformed entry {}", out.size()));
          if (*field == "config") {
            if (in.Peek() != '{') break;
            auto config = in.Value();
            if (!config) return malformed(fmt::format("malformed config in entry {}", out.size()));
            entry.config_json = std::string(*config);
            have_config = true;
            continue;
          }
          std::string* target = *field == "id"         ? &entry.id
                                : *field == "source"   ? &entry.source
                                : *field == "licence"  ? &entry.licence
                                : *field == "released" ? &entry.released
                                                       : nullptr;
          if (target == nullptr) {
            if (!in.Value()) return malformed(fmt::format("malformed '{}' in entry {}", *field, out.size()));
            continue;
          }
          if (in.Peek() != '"') {
            if (*field == "licence" || *field == "released") {
              return Status::ParseError(fmt::format("{}: entry '{}': '{}' must be a string", label,
                                                    entry.id.empty() ? std::to_string(out.size()) : entry.id, *field));
            }
            break;
          }
          auto value = in.String();
          if (!value) return malformed(fmt::format("malformed '{}' in entry {}", *field, out.size()));
          *target = *value;
          have_id = have_id || *field == "id";
          have_source = have_source || *field == "source";
        }
        if (!have_id || !have_source || !have_config) {
          return Status::ParseError(
              fmt::format("{}: entry {} needs a string id, a source and a config object", label, out.size()));
        }
        out.push_back(std::move(entry));
      }
    }
    if (in.Peek() == ',') in.Consume(',');
  }
  if (!saw_models) return malformed("expected an object with a 'models' list");
  if (!in.AtEnd()) return malformed("unexpected text after the catalogue");
  return out;
}

std::string CatalogMatch::Explain() const {
  if (entry == nullptr) return requested;
  if (kind != CatalogMatchKind::kVariant) return entry->id;
  std::string out = fmt::format("{} -> {}: same architecture", requested, entry->id);
  for (const auto& d : differences) out += ", " + d;
  return out;
}

std::optional<CatalogMatch> MatchCatalogEntry(const std::vector<CatalogEntry>& entries, std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestLength) return std::nullopt;
  const std::string wanted = Lower(id);
  const bool has_org = wanted.find('/') != std::string::npos;
  CatalogMatch match;
  match.requested = std::string(id);
  const CatalogEntry* by_name = nullptr;
  for (const auto& entry : entries) {
    const std::string lower = Lower(entry.id);
    if (lower == wanted) {
      match.entry = &entry;
      match.kind = CatalogMatchKind::kExactId;
      return match;
    }
    if (!has_org && by_name == nullptr && Lower(NameOf(entry.id)) == wanted) by_name = &entry;
  }
  if (by_name != nullptr) {
    match.entry = by_name;
    match.kind = CatalogMatchKind::kName;
    return match;
  }

  // Variants: the same core tokens once tuning, quantisation, dates and naming are set aside.
  const std::string org = CanonicalOrg(std::string(OrgOf(wanted)));
  const ParsedName request = ParseName(NameOf(id));
  if (request.key.empty()) return std::nullopt;
  const bool any_org = !has_org || IsReuploader(org);
  const auto req_tuning = request.Of(TokenKind::kTuning);
  const auto req_quant = request.Of(TokenKind::kQuant);
  const auto req_dates = request.Of(TokenKind::kDate);

  const CatalogEntry* best = nullptr;
  ParsedName best_name;
  int best_score = 0;
  // First the requested organisation's own entries; when it has none, a re-uploader's copy of
  // the same model (nvidia/Qwen3.6-27B-NVFP4 for Qwen/Qwen3.6-27B) carries its architecture,
  // with the quantisation difference said below.
  for (int pass = 0; pass < 2 && best == nullptr; ++pass) {
    if (pass == 1 && any_org) break;
    for (const auto& entry : entries) {
      const std::string entry_org = CanonicalOrg(Lower(OrgOf(entry.id)));
      const bool same_org = has_org && entry_org == org;
      if (!any_org && !same_org && !(pass == 1 && IsReuploader(entry_org))) continue;
      ParsedName name = ParseName(NameOf(entry.id));
      if (name.key != request.key) continue;
      const auto quant = name.Of(TokenKind::kQuant);
      int score = 100;
      if (same_org) score += 8;
      score += 2 * static_cast<int>(Shared(req_tuning, name.Of(TokenKind::kTuning)));
      score += 2 * static_cast<int>(Shared(req_dates, name.Of(TokenKind::kDate)));
      if (AsSet(quant) == AsSet(req_quant)) score += 6;
      if (!quant.empty() && AsSet(quant) != AsSet(req_quant)) score -= 6;  // prefer unquantised
      // Ties: the shorter id (the plainer checkpoint), then the first in the catalogue.
      if (best == nullptr || score > best_score || (score == best_score && entry.id.size() < best->id.size())) {
        best = &entry;
        best_name = std::move(name);
        best_score = score;
      }
    }
  }
  if (best == nullptr) return std::nullopt;

  match.entry = best;
  match.kind = CatalogMatchKind::kVariant;
  const std::string entry_org = CanonicalOrg(Lower(OrgOf(best->id)));
  const auto entry_quant = best_name.Of(TokenKind::kQuant);
  const auto req_quant_shown = Join(request.Of(TokenKind::kQuant, true), "-");
  const auto entry_quant_shown = Join(best_name.Of(TokenKind::kQuant, true), "-");

  using Diff = CatalogDifference::Kind;
  if (AsSet(req_quant) != AsSet(entry_quant)) {
    match.quantised = true;
    match.details.push_back({Diff::kQuant, req_quant_shown, entry_quant_shown});
    if (entry_quant.empty()) {
      match.differences.push_back(fmt::format("weights quantised differently ({})", req_quant_shown));
      match.warnings.push_back(fmt::format(
          "the weight bytes differ: {} is stored as {}, and the catalogue entry {} has no quantization_config for it; "
          "give the variant's own config.json (or its checkpoint) for its exact size",
          match.requested, req_quant_shown, best->id));
    } else if (req_quant.empty()) {
      match.differences.push_back(fmt::format("weights quantised differently (the entry is {})", entry_quant_shown));
      match.warnings.push_back(fmt::format(
          "the weight bytes differ: the catalogue entry {} is a {} checkpoint and {} is not; give the variant's own "
          "config.json (or its checkpoint) for its exact size",
          best->id, entry_quant_shown, match.requested));
    } else {
      match.differences.push_back(
          fmt::format("weights quantised differently ({} here, {} in the entry)", req_quant_shown, entry_quant_shown));
      match.warnings.push_back(fmt::format(
          "the weight bytes differ: {} is stored as {} and the catalogue entry {} as {}; give the variant's own "
          "config.json (or its checkpoint) for its exact size",
          match.requested, req_quant_shown, best->id, entry_quant_shown));
    }
  }
  if (AsSet(req_tuning) != AsSet(best_name.Of(TokenKind::kTuning))) {
    auto shown = request.Of(TokenKind::kTuning, true);
    auto theirs = best_name.Of(TokenKind::kTuning, true);
    match.details.push_back({Diff::kTuning, Join(shown, "-"), Join(theirs, "-")});
    match.differences.push_back(fmt::format("another tuning of it ({} vs {})", shown.empty() ? "base" : Join(shown, "-"),
                                            theirs.empty() ? "base" : Join(theirs, "-")));
  }
  if (AsSet(req_dates) != AsSet(best_name.Of(TokenKind::kDate))) {
    match.dated_or_reupload = true;
    auto shown = request.Of(TokenKind::kDate, true);
    auto theirs = best_name.Of(TokenKind::kDate, true);
    match.details.push_back({Diff::kDate, Join(shown, "-"), Join(theirs, "-")});
    match.differences.push_back(fmt::format("another dated release ({} vs {})", shown.empty() ? "undated" : Join(shown, "-"),
                                            theirs.empty() ? "undated" : Join(theirs, "-")));
    match.warnings.push_back(fmt::format(
        "{} is taken to share {}'s architecture; dated releases usually do, but a context length or a vision tower "
        "can change between them: give the variant's config.json to be sure",
        match.requested, best->id));
  }
  if (has_org && entry_org != org) {
    match.dated_or_reupload = true;
    match.differences.push_back(fmt::format("re-uploaded by {}", OrgOf(id)));
    match.details.push_back({Diff::kReupload, std::string(OrgOf(id)), std::string(OrgOf(best->id))});
  } else if (has_org && Lower(OrgOf(best->id)) != Lower(OrgOf(id))) {
    match.differences.push_back(fmt::format("the organisation was renamed ({} is now {})", OrgOf(id), OrgOf(best->id)));
    match.details.push_back({Diff::kRenamedOrg, std::string(OrgOf(id)), std::string(OrgOf(best->id))});
  }
  if (!request.Of(TokenKind::kNaming).empty() || !best_name.Of(TokenKind::kNaming).empty()) {
    if (request.Of(TokenKind::kNaming) != best_name.Of(TokenKind::kNaming)) {
      match.differences.push_back("named with or without the Meta- prefix");
      match.details.push_back({Diff::kNaming, Join(request.Of(TokenKind::kNaming, true), "-"),
                               Join(best_name.Of(TokenKind::kNaming, true), "-")});
    }
  }
  return match;
}

const CatalogEntry* FindCatalogEntry(const std::vector<CatalogEntry>& entries, std::string_view id) {
  auto match = MatchCatalogEntry(entries, id);
  return match ? match->entry : nullptr;
}

std::vector<std::string> SuggestCatalogIds(const std::vector<CatalogEntry>& entries, std::string_view id) {
  // A suggestion is at most kMaxSuggestionDistance edits away, so a request longer than every
  // id by more than that has none; this also keeps the work bounded for absurd inputs.
  size_t longest = 0;
  for (const auto& entry : entries) longest = std::max(longest, entry.id.size());
  if (id.size() > longest + static_cast<size_t>(core::kMaxSuggestionDistance)) return {};
  std::vector<std::string> ids, names;
  ids.reserve(entries.size());
  names.reserve(entries.size());
  for (const auto& entry : entries) {
    ids.push_back(entry.id);
    names.emplace_back(NameOf(entry.id));
  }
  const bool has_org = id.find('/') != std::string_view::npos;
  auto close = core::ClosestMatches(id, has_org ? ids : names, -1, 3);
  if (!has_org) {
    // Map the matched names back to full ids.
    std::vector<std::string> full;
    for (const auto& name : close) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
          full.push_back(ids[i]);
          break;
        }
      }
    }
    return full;
  }
  return close;
}

}  // namespace gpuprobe::model
