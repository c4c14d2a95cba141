#include "core/dynamic_library.h"

#include <dlfcn.h>

namespace gpuprobe::core {

Result<std::unique_ptr<DynamicLibrary>> DynamicLibrary::Open(const std::vector<std::string>& candidates) {
  std::string last_error = "no library name given";
  for (const auto& name : candidates) {
    // RTLD_LOCAL keeps vendor symbols out of the global namespace (a fake NVML in tests
    // must not clash with anything else loaded).
    void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(handle, name));
    }
    const char* error = ::dlerror();
    last_error = error != nullptr ? error : ("cannot load " + name);
  }
  return Status::Unavailable(last_error);
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* DynamicLibrary::Symbol(const std::string& name) const {
  return ::dlsym(handle_, name.c_str());
}

bool CanLoadLibrary(const std::string& name) {
  return DynamicLibrary::Open({name}).ok();
}

}  // namespace gpuprobe::core
