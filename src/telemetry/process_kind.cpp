#include "telemetry/process_kind.h"

namespace gpuprobe::telemetry {

ProcessKind ClassifyProcess(std::string_view type) {
  bool compute = false, graphics = false, other = false, any = false;
  size_t pos = 0;
  while (pos <= type.size()) {
    size_t end = type.find('+', pos);
    if (end == std::string_view::npos) end = type.size();
    std::string_view token = type.substr(pos, end - pos);
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
    if (token == "C" || token == "M") {
      compute = true;
    } else if (token == "G") {
      graphics = true;
    } else if (!token.empty()) {
      other = true;
    }
    any |= !token.empty();
    pos = end + 1;
  }
  if (!any || other) return ProcessKind::kUnknown;
  if (compute && graphics) return ProcessKind::kComputeGraphics;
  return compute ? ProcessKind::kCompute : ProcessKind::kGraphics;
}

std::vector<const ProcessInfo*> ComputeJobs(const Snapshot& gpu) {
  std::vector<const ProcessInfo*> jobs;
  for (const auto& p : gpu.processes) {
    if (ClassifyProcess(p.type) == ProcessKind::kCompute) jobs.push_back(&p);
  }
  return jobs;
}

}  // namespace gpuprobe::telemetry
