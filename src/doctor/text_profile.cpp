#include "doctor/text_profile.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <re2/re2.h>

#include "core/strings.h"

namespace gpuprobe::doctor {
namespace {

constexpr size_t kMaxReadBytes = 256 * 1024;
constexpr size_t kMaxItems = 8;
constexpr size_t kMaxNearest = 3;

void AddOnce(std::vector<std::string>& list, std::string value) {
  while (!value.empty() && (value.back() == '.' || value.back() == ',' || value.back() == ':')) value.pop_back();
  if (value.empty() || list.size() >= kMaxItems) return;
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

// Every match of `re` (its first group, or the whole match) into `out`.
void Collect(std::string_view text, const RE2& re, std::vector<std::string>& out) {
  re2::StringPiece input(text.data(), text.size());
  std::string found;
  while (out.size() < kMaxItems && RE2::FindAndConsume(&input, re, &found)) AddOnce(out, found);
}

using core::Lower;

// Words of four letters or more, lower case: the unit KnowledgeBase::Closest counts in,
// without digits (a profile's words are compared with entries' phrasing, not codes).
std::set<std::string> Words(std::string_view text) { return ClosenessWords(text, false); }

// The literal words of an entry's patterns: what a text of that kind prints.
std::vector<std::string> PatternWords(const KnowledgeEntry& e) {
  std::vector<std::string> out;
  for (const auto& p : e.patterns) {
    std::string literal;
    // Regex syntax is not a word: keep letters of runs that are not escapes or classes.
    for (size_t i = 0; i < p.regex.size(); ++i) {
      char c = p.regex[i];
      if (c == '\\' && i + 1 < p.regex.size()) {
        ++i;
        literal.push_back(' ');
        continue;
      }
      literal.push_back(std::isalpha(static_cast<unsigned char>(c)) ? c : ' ');
    }
    for (const auto& w : Words(literal)) {
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    }
  }
  return out;
}

}  // namespace

TextProfile ProfileText(std::string_view raw, const std::vector<EmitterHit>& components, const ErrorMatcher& matcher,
                        const model::SpecDatabase& specs) {
  std::string_view text = raw.substr(0, std::min(raw.size(), kMaxReadBytes));
  TextProfile p;
  p.components = components;

  static const RE2 kCodes(
      R"((?i)\b((?:error|err|errno|code|status|rc|retcode|exit(?:\s+(?:status|code))?|return(?:ed)?|result)\s*[:=#(]?\s*-?\d{1,6}\)?|0x[0-9a-f]{2,16}\b|\[errno\s+-?\d+\]))");
  static const RE2 kArchs(R"((?i)\b(sm_\d{2,3}[af]?|compute_\d{2,3}[af]?|compute capability\s*[:=]?\s*\(?\d{1,2}[.,]\s*\d\)?|gfx\d{3,4}\w?))");
  static const RE2 kFiles(
      R"(((?:[\w.+-]*/)*[\w.+-]+\.(?:py|pyx|cc|cpp|cu|cuh|c|h|hpp|go|java|js|so(?:\.\d+)*|dll|ko|log)\b(?::\d+)?))");
  // RE2 has no lookahead: the driver-version form carries its own boundary.
  static const RE2 kVersionsSimple(
      R"((?i)\b((?:cuda|driver|nvidia|torch|pytorch|jax|jaxlib|tensorflow|vllm|sglang|tensorrt|trt|cudnn|nccl|triton|python|transformers|bitsandbytes|flash[-_]attn|xformers|deepspeed)(?:\s+version)?[\s:=v]*\d+(?:\.\d+){1,3}(?:\+cu\d+)?|cu\d{3})\b)");
  Collect(text, kCodes, p.codes);
  Collect(text, kVersionsSimple, p.versions);
  Collect(text, kArchs, p.archs);
  Collect(text, kFiles, p.files);

  // GPUs: names of the spec database found as words.
  static const RE2 kProduct(
      R"(\b((?:(?:NVIDIA|GeForce|Quadro|Tesla|TITAN)\s+)*(?:(?:RTX|GTX)\s*)?[ABHLTVPK][A-Z]?\d{1,4}[A-Za-z]{0,3}|(?:RTX|GTX)\s*\d{3,4}(?:\s*Ti)?)\b)");
  {
    re2::StringPiece input(text.data(), text.size());
    std::string name;
    while (p.gpus.size() < kMaxItems && RE2::FindAndConsume(&input, kProduct, &name)) {
      std::string query = name;
      for (int attempt = 0; attempt < 3 && !query.empty(); ++attempt) {
        auto candidates = specs.Candidates(query);
        if (!candidates.empty()) {
          if (candidates.size() == 1 || std::all_of(candidates.begin(), candidates.end(), [&](const model::GpuSpec* g) {
                return g->architecture == candidates.front()->architecture;
              })) {
            AddOnce(p.gpus, candidates.size() == 1 ? candidates.front()->name : query);
          }
          break;
        }
        size_t space = query.find(' ');
        if (space == std::string::npos) break;
        query = query.substr(space + 1);
      }
    }
  }

  static const RE2 kGpuWords(R"((?i)\b(?:cuda\w*|gpus?|nvidia|nvml|nccl|cudnn|cublas\w*|nvrm|xid|tensor ?rt|ptxas|nvcc|vram)\b)");
  bool gpu_words = RE2::PartialMatch(text, kGpuWords) || !p.gpus.empty() || !p.archs.empty();
  const EmitterHit* first_gpu = nullptr;
  bool outside = false;
  for (const auto& c : components) {
    if (c.emitter->gpu && first_gpu == nullptr) first_gpu = &c;
    if (!c.emitter->gpu) outside = true;
  }
  if (first_gpu != nullptr) {
    p.layer = first_gpu->emitter->layer;
  } else if (outside && !gpu_words) {
    p.layer = "host";
  }
  if (gpu_words || first_gpu != nullptr) {
    p.reading = "gpu";
  } else if (outside) {
    p.reading = "not_gpu";
  } else {
    p.reading = "unknown";
  }

  // The nearest entries: those sharing the most words, with the words of their own phrasings
  // that this text lacks. Entries outside the GPU stack only when the text reads that way.
  std::set<std::string> words = Words(text);
  std::string lower = Lower(text);
  for (const KnowledgeEntry* e : matcher.kb().Closest(text, 12)) {
    if (p.nearest.size() >= kMaxNearest) break;
    if (!e->gpu && p.reading == "gpu") continue;
    NearEntry near;
    near.entry = e;
    std::vector<std::string> own = PatternWords(*e);
    for (const auto& w : own) {
      if (words.count(w) != 0 || lower.find(w) != std::string::npos) {
        if (near.shared.size() < 6) near.shared.push_back(w);
      } else if (near.missing.size() < 6) {
        near.missing.push_back(w);
      }
    }
    // An entry found by its status names rather than phrasings: what it shares is in its title
    // and meaning, what the text lacks is one of those names.
    for (const auto& w : Words(e->title.en + " " + e->meaning.en)) {
      if (near.shared.size() >= 6) break;
      if (words.count(w) != 0 && std::find(near.shared.begin(), near.shared.end(), w) == near.shared.end()) near.shared.push_back(w);
    }
    if (own.empty()) {
      for (const auto& s : e->statuses) {
        if (near.missing.size() < 3) near.missing.push_back(s);
      }
    }
    p.nearest.push_back(std::move(near));
  }
  return p;
}

}  // namespace gpuprobe::doctor
