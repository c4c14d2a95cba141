// The checked-in catalogue of widely deployed open models (data/models/catalog.json): Hub id,
// the pinned source of its config, the licence, and the config itself, so `plan --model
// ORG/NAME` works offline. A name that is not in the catalogue but only differs from an entry
// by tokens that leave the architecture alone (-Instruct, -FP8, -GGUF, a release date, a
// re-uploader's organisation...) resolves to that entry, and the match says how.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::model {

struct CatalogEntry {
  std::string id;           ///< "Qwen/Qwen3-30B-A3B"
  std::string source;       ///< URL the config was copied from, pinned to a commit
  std::string licence;      ///< the model's licence (and the source repository's)
  std::string released;     ///< "YYYY-MM" where known, else empty
  std::string config_json;  ///< the config object, as JSON text for ParseHfConfig
};

/// Parses the catalogue text. ParseError / InvalidArgument naming `label` and the entry.
core::Result<std::vector<CatalogEntry>> ParseModelCatalog(std::string_view text, const std::string& label);

enum class CatalogMatchKind {
  kExactId,  ///< the id itself, ignoring case
  kName,     ///< the name after the '/', when no organisation was given
  kVariant,  ///< a variant of an entry's name (see CatalogMatch::Explain)
};

/// One way a variant's name differs from its entry's, as data for a translated view: the
/// tokens on each side ("FP8" / "", "Instruct" / "Base"...; empty when that side has none).
struct CatalogDifference {
  enum class Kind { kQuant, kTuning, kDate, kReupload, kRenamedOrg, kNaming } kind = Kind::kQuant;
  std::string here;   ///< the requested name's tokens (kReupload, kRenamedOrg: its organisation)
  std::string entry;  ///< the entry's tokens (kRenamedOrg: the entry's organisation)
};

/// How a requested name was resolved to a catalogue entry.
struct CatalogMatch {
  const CatalogEntry* entry = nullptr;
  CatalogMatchKind kind = CatalogMatchKind::kExactId;
  std::string requested;                ///< the name as given
  std::vector<std::string> differences; ///< what the variant differs in, e.g. "quantisation (FP8)"
  std::vector<CatalogDifference> details;  ///< the same, as data
  bool quantised = false;               ///< the variant's weights are stored differently
  bool dated_or_reupload = false;       ///< a dated release, or a copy under another organisation
  std::vector<std::string> warnings;    ///< caveats the caller should print with the plan

  /// One line: "Qwen/Qwen3-8B-FP8 -> Qwen/Qwen3-8B: same architecture, weights quantised
  /// differently". For exact matches, the entry's id.
  std::string Explain() const;
};

/// Resolves `id` against the catalogue (ignoring case): the exact id; else, without an
/// organisation, the name after the '/'; else the entry of the same architecture once tokens
/// that do not change it are set aside: tuning (-Instruct, -Chat, -it, -Base, -hf, -pt,
/// -Thinking...), quantisation and packaging (-FP8, -FP8-Dynamic, -AWQ, -GPTQ-Int4, -GGUF,
/// -bnb-4bit, -MLX, -NVFP4, -W4A16...), release dates (-2507, -0528, -2412) and a re-uploader's
/// organisation (unsloth/, TheBloke/, RedHatAI/, bartowski/...). Sizes (8B, 30B-A3B, 8x7B),
/// versions (v0.1, 3.1) and every other token must be equal, so an 8B never resolves to a 70B.
/// nullopt when nothing matches; ids longer than 512 characters never match.
std::optional<CatalogMatch> MatchCatalogEntry(const std::vector<CatalogEntry>& entries, std::string_view id);

/// MatchCatalogEntry's entry, or nullptr.
const CatalogEntry* FindCatalogEntry(const std::vector<CatalogEntry>& entries, std::string_view id);

/// Up to three ids closest to `id` ("did you mean"), in time bounded by the catalogue's size
/// whatever the length of `id`.
std::vector<std::string> SuggestCatalogIds(const std::vector<CatalogEntry>& entries, std::string_view id);

}  // namespace gpuprobe::model
