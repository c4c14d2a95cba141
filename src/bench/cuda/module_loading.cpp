#include "bench/cuda/module_loading.h"

#include <cstdlib>

namespace gpuprobe::bench {

std::string RequestEagerModuleLoading() {
  const char* chosen = std::getenv("CUDA_MODULE_LOADING");
  if (chosen != nullptr && *chosen != '\0') return chosen;
  // The driver reads it at cuInit, which the first runtime call triggers.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  return "EAGER";
}

}  // namespace gpuprobe::bench
