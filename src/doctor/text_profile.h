// What a text is made of, for the text explain does not recognise: never "no match" alone.
// The components that printed it (emitter.h), the codes in it (status-like numbers, errno,
// exit codes, hex codes), the versions (CUDA, driver, framework), the GPUs and architectures
// it names, the files (sources, libraries, logs), the likely layer of the fault, whether it
// reads as a GPU problem at all, and the knowledge entries nearest to it with what they share
// and what they would need that the text does not have. All of it is a reading of the text's
// structure, at a lower confidence than a recognised answer.
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/emitter.h"
#include "doctor/error_matcher.h"
#include "model/spec_database.h"

namespace gpuprobe::doctor {

struct NearEntry {
  const KnowledgeEntry* entry = nullptr;
  std::vector<std::string> shared;   ///< words the text shares with the entry
  std::vector<std::string> missing;  ///< the entry's own words the text lacks (how they differ)
};

struct TextProfile {
  std::vector<EmitterHit> components;  ///< most specific first
  std::vector<std::string> codes;      ///< "error 7", "exit status 137", "errno 28", "0x1f"
  std::vector<std::string> versions;   ///< "CUDA 12.4", "driver 550.54.14", "torch 2.3.1"
  std::vector<std::string> gpus;       ///< spec-database names of the GPUs it names
  std::vector<std::string> archs;      ///< "sm_120", "compute capability 8.6"
  std::vector<std::string> files;      ///< "ggml-cuda.cu", "libcudnn_cnn_infer.so.8"
  /// The likely layer: the most specific GPU component's, else "host" when only components
  /// outside the GPU stack printed it; empty when nothing says.
  std::string layer;
  /// "gpu" (GPU words or a GPU component: a GPU problem explain does not know), "not_gpu"
  /// (only components outside the GPU stack, no GPU word) or "unknown".
  std::string reading;
  std::vector<NearEntry> nearest;      ///< at most 3, nearest first
};

/// The profile of `text`; `components` are the emitters Analyze found.
TextProfile ProfileText(std::string_view text, const std::vector<EmitterHit>& components, const ErrorMatcher& matcher,
                        const model::SpecDatabase& specs);

}  // namespace gpuprobe::doctor
