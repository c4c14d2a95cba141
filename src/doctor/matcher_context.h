// Internal to the matcher (error_matcher.cpp, error_matcher_evidence.cpp): the words that
// place a status in an API, the message normalisation, and the positions where a number holds
// a status. Not for use outside src/doctor.
//
// Thread safety: the functions are reentrant; the tables are constants.
#pragma once

#include <string>
#include <string_view>

#include <re2/re2.h>

#include "core/strings.h"

namespace gpuprobe::doctor::internal {

/// The memory each RE2 (and the combined set) may use for its automata.
inline constexpr size_t kMaxRe2Memory = 256u << 20;

/// Messages of at least this many words ("too many resources requested for launch") are a
/// CUDA runtime's own sentence wherever they appear; shorter ones ("misaligned address", "out
/// of memory") count only next to the API's name.
inline constexpr int kSelfEvidentWords = 4;

RE2::Options CaseInsensitive();
using core::Lower;  // core/strings.h
/// Whether `text` names `api` ("nccl", "cublas", ..., "xid", "cuda_driver", "cuda_runtime";
/// the legacy numbering counts as the runtime).
bool HasContext(std::string_view text, std::string_view api);
bool IsCudaApi(std::string_view api);
/// A message as printed, without the hint some libraries append ("(run with ...)", "- please ...").
std::string NormalizeMessage(std::string message);
int WordCount(std::string_view text);

struct PositionSpec {
  const char* re;    ///< RE2 with one capture: the number
  const char* api;   ///< "cuda" (runtime, driver or old numbering), "cuda_driver", "cublas", "nccl"
  bool old_era;      ///< a format only printed before CUDA 10.1 renumbered the runtime
};

/// Numbers in a position that holds a status, as frameworks and tools print them.
extern const PositionSpec kPositions[];
extern const size_t kPositionCount;

}  // namespace gpuprobe::doctor::internal
