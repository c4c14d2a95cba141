#include "app/advise_candidates.h"

namespace gpuprobe::app {

bool IsNotAServerGpu(const model::GpuSpec& gpu) {
  const std::string& f = gpu.form_factor;
  return f.rfind("System-on-module", 0) == 0 || f.rfind("Superchip board", 0) == 0;
}

std::vector<std::string> NotRankedByAdvise(const std::vector<model::GpuSpec>& all) {
  std::vector<std::string> out;
  for (const auto& g : all) {
    if (IsNotAServerGpu(g)) out.push_back(g.name);
  }
  return out;
}

}  // namespace gpuprobe::app
