// The numbers in an out-of-memory message, read into a diagnosis: PyTorch's (both formats:
// requested, total, free, this process, allocated by PyTorch vs reserved but unallocated),
// TensorFlow's, JAX/XLA's, ONNX Runtime's, TensorRT's, llama.cpp's and NCCL's (the request).
//
// Thread safety: reentrant.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuprobe::doctor {

struct OomDetails {
  double requested_bytes = 0;
  std::optional<double> total_bytes, free_bytes;
  std::optional<double> allocated_bytes;             ///< allocated by PyTorch
  std::optional<double> reserved_unallocated_bytes;  ///< reserved by PyTorch's cache, not in use
  std::optional<double> this_process_bytes;          ///< everything this process holds
  /// What the numbers say, most specific first:
  ///   "absurd_size"      the request is larger than any GPU (an overflowed or garbage size)
  ///   "larger_than_gpu"  one request is larger than the whole GPU
  ///   "someone_else"     this process holds less than half of what is in use
  ///   "fragmentation"    enough memory is free on the GPU or cached unallocated by PyTorch,
  ///                      in pieces too small
  ///   "too_big"          the process itself fills the GPU
  ///   "request_only"     only the request is known
  std::string diagnosis;
};

/// Reads the first out-of-memory message in `text` that carries numbers; empty when there is
/// none. Only the line with the message is examined (a log may be hundreds of megabytes).
std::optional<OomDetails> ParseOutOfMemory(std::string_view text);

}  // namespace gpuprobe::doctor
