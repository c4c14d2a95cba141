// The budget of every quantity an input file or command line decides: how much gpuprobe will
// read, keep and compare. Each is far above the largest real case (the largest NVLink
// domains hold 72-576 GPUs, nvidia-smi's longest product names are ~40 characters, the
// largest checkpoints ~100,000 tensors) and low enough that the worst input within it costs
// seconds and megabytes, not minutes and gigabytes (tools/hostile_bench.sh measures it).
// Beyond a budget the input is refused with exit status 2, naming the budget (OverLimit).
//
// Thread safety: constants and a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"

namespace gpuprobe::core::limits {

inline constexpr std::size_t kGpusPerCapture = 1024;      ///< GPU records in one capture (XML, CSV, -q, JSON)
inline constexpr std::size_t kNameBytes = 256;            ///< a GPU or model name typed or read
inline constexpr std::size_t kTensorsPerCheckpoint = 1000000;
inline constexpr std::size_t kLinksPerGpu = 256;          ///< NVLink 5 has 18 links per GPU, an NVSwitch chip 64 ports
inline constexpr std::uint64_t kGgufMetadataBytes = 256ull << 20;  ///< a 256k-token vocabulary is ~10 MiB

/// InvalidArgument "<where>: <count> <what> is more than gpuprobe reads (<limit>)", keyed
/// "error.limit.<what_key>" with its hint in both languages.
Status OverLimit(const std::string& where, const std::string& what_key, std::uint64_t count, std::uint64_t limit);

}  // namespace gpuprobe::core::limits
