#include "doctor/oom_details.h"

#include <algorithm>
#include <cstdlib>

#include <re2/re2.h>

namespace gpuprobe::doctor {
namespace {

// No GPU has a petabyte: a request above it is an overflowed or uninitialised size.
constexpr double kAbsurdBytes = 1125899906842624.0;  // 2^50

double ToBytes(std::string number, const std::string& unit) {
  // A decimal comma ("1900,00 MiB") is a locale, not a thousands separator, when it is the
  // only separator.
  if (number.find('.') == std::string::npos) std::replace(number.begin(), number.end(), ',', '.');
  number.erase(std::remove(number.begin(), number.end(), ','), number.end());
  double value = std::strtod(number.c_str(), nullptr);
  char u = unit.empty() ? 'B' : unit[0];
  switch (u) {
    case 'K': case 'k': return value * 1024.0;
    case 'M': return value * 1024.0 * 1024.0;
    case 'G': return value * 1024.0 * 1024.0 * 1024.0;
    case 'T': return value * 1024.0 * 1024.0 * 1024.0 * 1024.0;
    default: return value;
  }
}

// The line of `text` that contains offset `at`, at most 64 KiB of it.
std::string_view LineAt(std::string_view text, size_t at) {
  size_t begin = text.rfind('\n', at);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  std::string_view line = text.substr(begin, 64 * 1024);
  return line.substr(0, line.find('\n'));
}

#define GPUPROBE_SIZE R"(([\d.,]+)\s*(B|bytes|[KMGT]i?B|[KMGT])?)"

bool PyTorch(std::string_view line, OomDetails& d) {
  static const RE2 kModern("Tried to allocate " GPUPROBE_SIZE R"(\. GPU \d+ has a total capac\w* of )" GPUPROBE_SIZE
                           " of which " GPUPROBE_SIZE " is free");
  static const RE2 kProcess(R"((?:Process \d+|this process) has )" GPUPROBE_SIZE " memory in use");
  static const RE2 kSplit("Of the allocated memory " GPUPROBE_SIZE " is allocated by PyTorch, and " GPUPROBE_SIZE
                          " is reserved by PyTorch but unallocated");
  static const RE2 kLegacy("Tried to allocate " GPUPROBE_SIZE R"( \(GPU \d+; )" GPUPROBE_SIZE " total capacity; " GPUPROBE_SIZE
                           " already allocated; " GPUPROBE_SIZE " free; " GPUPROBE_SIZE " (?:reserved in total by PyTorch|cached)");
  std::string n[5], u[5];
  auto bytes = [&](int i) { return ToBytes(n[i], u[i]); };
  if (RE2::PartialMatch(line, kModern, &n[0], &u[0], &n[1], &u[1], &n[2], &u[2])) {
    d.requested_bytes = bytes(0);
    d.total_bytes = bytes(1);
    d.free_bytes = bytes(2);
    if (RE2::PartialMatch(line, kProcess, &n[3], &u[3])) d.this_process_bytes = bytes(3);
    if (RE2::PartialMatch(line, kSplit, &n[3], &u[3], &n[4], &u[4])) {
      d.allocated_bytes = bytes(3);
      d.reserved_unallocated_bytes = bytes(4);
    }
    return true;
  }
  if (RE2::PartialMatch(line, kLegacy, &n[0], &u[0], &n[1], &u[1], &n[2], &u[2], &n[3], &u[3], &n[4], &u[4])) {
    d.requested_bytes = bytes(0);
    d.total_bytes = bytes(1);
    d.allocated_bytes = bytes(2);
    d.free_bytes = bytes(3);
    double reserved = bytes(4);
    d.reserved_unallocated_bytes = std::max(0.0, reserved - *d.allocated_bytes);
    d.this_process_bytes = reserved;
    return true;
  }
  return false;
}

// Messages that give only the request, as each framework prints it.
bool RequestOnly(std::string_view line, OomDetails& d) {
  static const RE2 kBytes[] = {
      RE2(R"(failed to allocate [\d.]+[KMGT]? \((\d+) bytes\) from device)"),                // TensorFlow
      RE2(R"(Out of memory (?:while trying to allocate|allocating) (\d+) bytes)"),            // JAX/XLA
      RE2(R"(Failed to allocate request for [^(]*\((\d+)B\))"),                              // XLA BFC allocator
      RE2(R"(Failed to allocate memory for requested buffer of size (\d+))"),                // ONNX Runtime
      RE2(R"(Requested amount of (?:GPU )?memory \((\d+) bytes\))"),                          // TensorRT
      RE2(R"(failed to allocate CUDA\d* buffer of size (\d+))"),                              // llama.cpp
      RE2(R"(Failed to CUDA calloc (\d+) bytes)"),                                           // NCCL
  };
  static const RE2 kMib(R"(allocating ([\d.,]+) MiB on device \d+: cudaMalloc failed)");  // llama.cpp
  std::string n;
  for (const RE2& re : kBytes) {
    if (RE2::PartialMatch(line, re, &n)) {
      d.requested_bytes = std::strtod(n.c_str(), nullptr);
      return true;
    }
  }
  if (RE2::PartialMatch(line, kMib, &n)) {
    d.requested_bytes = ToBytes(n, "MiB");
    return true;
  }
  return false;
}

void Diagnose(OomDetails& d) {
  if (d.requested_bytes >= kAbsurdBytes) {
    d.diagnosis = "absurd_size";
  } else if (d.total_bytes && d.requested_bytes > *d.total_bytes) {
    d.diagnosis = "larger_than_gpu";
  } else if (!d.total_bytes || !d.free_bytes) {
    d.diagnosis = "request_only";
  } else {
    std::optional<double> mine = d.this_process_bytes;
    if (!mine && d.allocated_bytes) mine = *d.allocated_bytes + d.reserved_unallocated_bytes.value_or(0);
    double used = *d.total_bytes - *d.free_bytes;
    // Someone else holding most of the card outranks fragmentation: freeing our cache would
    // not help. Then: enough memory exists but not in one piece (free on the device, or cached
    // unallocated by PyTorch).
    if (mine && *mine < 0.5 * used) {
      d.diagnosis = "someone_else";
    } else if (*d.free_bytes >= d.requested_bytes ||
               (d.reserved_unallocated_bytes && *d.reserved_unallocated_bytes >= d.requested_bytes)) {
      d.diagnosis = "fragmentation";
    } else {
      d.diagnosis = "too_big";
    }
  }
}

}  // namespace

std::optional<OomDetails> ParseOutOfMemory(std::string_view text) {
  static constexpr std::string_view kAnchors[] = {
      "Tried to allocate", "failed to allocate", "Out of memory", "Failed to allocate", "Requested amount of",
      "cudaMalloc failed", "Failed to CUDA calloc"};
  // A message with the whole picture (PyTorch's) is read before one with only the request;
  // a bounded number of tries per phrasing keeps a log full of near-misses linear.
  constexpr int kMaxTries = 1000;
  for (std::string_view anchor : kAnchors) {
    size_t at = 0;
    for (int tries = 0; tries < kMaxTries && (at = text.find(anchor, at)) != std::string_view::npos; ++tries) {
      std::string_view line = LineAt(text, at);
      OomDetails d;
      if (PyTorch(line, d) || RequestOnly(line, d)) {
        Diagnose(d);
        return d;
      }
      at += anchor.size();
    }
  }
  return std::nullopt;
}

#undef GPUPROBE_SIZE

}  // namespace gpuprobe::doctor
