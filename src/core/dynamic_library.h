// RAII wrapper around dlopen/dlsym: how gpuprobe reaches NVML, libcuda and cuBLAS without
// linking them, so the binary starts on machines that have none of them (no vendor library is linked).
//
// Thread safety: a DynamicLibrary may be shared for Symbol() lookups once opened.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpuprobe::core {

class DynamicLibrary {
 public:
  /// Opens the first loadable name of `candidates` (tried in order, e.g. "libcuda.so.1").
  /// Unavailable with the loader's message for the last candidate when none loads.
  static Result<std::unique_ptr<DynamicLibrary>> Open(const std::vector<std::string>& candidates);

  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  /// The address of `name`, or nullptr when this library does not export it.
  void* Symbol(const std::string& name) const;
  /// The name that was loaded.
  const std::string& name() const { return name_; }

 private:
  DynamicLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_;
  std::string name_;
};

/// True when `name` can be loaded by the dynamic loader on this machine (it is opened and
/// closed again).
bool CanLoadLibrary(const std::string& name);

}  // namespace gpuprobe::core
