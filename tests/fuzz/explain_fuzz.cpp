// libFuzzer target for explain's matcher: any bytes, as a paste and as a log, through the
// whole analysis (records, prefixes, Xid grammar, status evidence, lookups) and the OOM and
// version readers. Built with -DGPUPROBE_FUZZ=ON (clang); scripts/fuzz runs it from
// tests/fuzz/corpus/explain/, or by hand:
//   build-fuzz/tests/fuzz/explain_fuzz -max_len=65536 tests/fixtures/error_corpus/texts
// A crash, a hang (-timeout) or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "doctor/cuda_compat.h"
#include "doctor/error_analysis.h"
#include "doctor/oom_details.h"
#include "doctor/version_story.h"

namespace doctor = gpuprobe::doctor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const doctor::ErrorMatcher* matcher = [] {
    auto m = doctor::ErrorMatcher::Embedded();
    return m.ok() ? *m : nullptr;
  }();
  static const doctor::CudaCompat* compat = [] {
    auto c = doctor::CudaCompat::Embedded();
    return c.ok() ? *c : nullptr;
  }();
  if (matcher == nullptr || compat == nullptr) __builtin_trap();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  doctor::Analysis paste = doctor::Analyze(*matcher, text, doctor::AnalysisMode::kPaste);
  doctor::Analysis log = doctor::Analyze(*matcher, text, doctor::AnalysisMode::kLog);
  // Every finding has a key and was counted.
  for (const auto& hit : paste.hits) {
    if (hit.finding.key.empty() || hit.occurrences < 1) __builtin_trap();
  }
  (void)log;
  (void)doctor::ParseOutOfMemory(text);
  (void)doctor::ReadVersionStories(text, *compat);
  return 0;
}
