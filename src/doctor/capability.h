// What a GPU error says about compute capability, answered from the spec database rather than
// from strings: a text that names a minimum capability ("compute capability of at least 8.0",
// ">= 90", "> (9, 0)", ".target sm_90 or higher"), an architecture "or newer" ("Ampere GPUs or
// newer"), or a feature with a known minimum (bf16, FP8, FlashAttention, wgmma, tcgen05: the
// feature table, data/knowledge/gpu_features.json) becomes the list of architectures and GPUs
// that have it, and what the user's GPU lacks. The user's GPU is the one given (`--gpu`), else
// the capability or the GPU the text names ("Your Tesla T4 GPU has compute capability 7.5").
// A build's architecture list ("supports CUDA capabilities sm_50 ... sm_90") against the GPU's
// capability says whether any of its code can run (arch_compat.h).
//
// Thread safety: the table is immutable after Parse(); the functions are reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "doctor/arch_compat.h"
#include "doctor/knowledge_base.h"
#include "model/spec_database.h"

namespace gpuprobe::doctor {

struct ComputeCapability {
  int major = 0, minor = 0;
  int Value() const { return major * 10 + minor; }
  std::string Text() const;  ///< "8.0"
  bool operator<(const ComputeCapability& o) const { return Value() < o.Value(); }
  bool operator==(const ComputeCapability& o) const { return Value() == o.Value(); }
};

struct GpuFeature {
  std::string id;   ///< "bf16"
  LocalText name;   ///< "bfloat16 (bf16) arithmetic"
  ComputeCapability min_cc;
  std::optional<ComputeCapability> only_cc;  ///< only this capability has it (sm_90a features)
  std::string words;                         ///< RE2 naming it
};

struct Architecture {
  std::string name;                      ///< "Ampere"
  std::vector<ComputeCapability> ccs;    ///< ascending
  std::vector<std::string> aliases;      ///< "Ada Lovelace"
};

class FeatureTable {
 public:
  /// ParseError naming the feature for a bad capability, regex or language text.
  static core::Result<FeatureTable> Parse(std::string_view json_text);
  static core::Result<const FeatureTable*> Embedded();

  const std::vector<GpuFeature>& features() const { return features_; }
  const std::vector<Architecture>& architectures() const { return architectures_; }
  /// The architecture of capability `cc`; nullptr when the table has none.
  const Architecture* ArchitectureOf(const ComputeCapability& cc) const;
  const Architecture* FindArchitecture(std::string_view name) const;

 private:
  std::vector<GpuFeature> features_;
  std::vector<Architecture> architectures_;
};

/// The GPUs of one architecture that have what is required.
struct ArchitectureGroup {
  std::string architecture;
  std::vector<std::string> ccs;    ///< "8.0", "8.6"
  std::vector<std::string> gpus;   ///< names from the spec database (at most 6)
};

struct CapabilityAnswer {
  const GpuFeature* feature = nullptr;       ///< the feature named beside the requirement, or null
  std::optional<ComputeCapability> required; ///< the minimum capability
  std::optional<ComputeCapability> only;     ///< required exactly (an arch-specific feature)
  /// Where the minimum came from: "text" (stated), "architecture" ("Ampere or newer"), "feature".
  std::string required_from;
  std::string architecture_named;            ///< "Ampere" when the text names one
  std::vector<ArchitectureGroup> have;       ///< the architectures (and GPUs) that have it
  std::optional<ComputeCapability> gpu_cc;   ///< the user's GPU's capability
  std::string gpu_name;                      ///< its name, when known
  std::string gpu_from;                      ///< "option" (--gpu) or "text"
  std::optional<bool> gpu_has_it;            ///< set when both the requirement and gpu_cc are known
  /// A build's architecture list read from the text, and what the GPU would run from it.
  std::vector<CompiledArch> build_archs;
  std::optional<ArchVerdict> build_verdict;
};

/// The capability story of `text`; nullopt when the text states no requirement, names no
/// feature with one, and carries no build list to hold against a GPU. `user_gpu` (may be null)
/// is the GPU the user named with --gpu; it wins over a GPU the text names.
std::optional<CapabilityAnswer> AnswerCapability(std::string_view text, const FeatureTable& features,
                                                 const model::SpecDatabase& specs, const model::GpuSpec* user_gpu);

/// "sm_86" -> 8.6, "sm_120" -> 12.0, "gfx942" -> nullopt.
std::optional<ComputeCapability> CapabilityOfSpec(const model::GpuSpec& gpu);

}  // namespace gpuprobe::doctor
