#include "telemetry/interconnect_facts.h"

#include <algorithm>
#include <cctype>

#include "telemetry/nvlink_findings.h"

namespace gpuprobe::telemetry {

std::vector<GpuPair> GpuPairs(const TopologyMatrix& m) {
  std::vector<GpuPair> out;
  auto gpus = m.Gpus();
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      auto link = m.Link(gpus[i], gpus[j]);
      if (link && link->kind == LinkKind::kUnknown && link->code.empty()) link.reset();
      out.push_back({gpus[i], gpus[j], link});
    }
  }
  return out;
}

std::optional<double> PerDirectionGbps(const NvLinkGpu& g) {
  auto active = ActiveLinks(g);
  if (active.empty()) return std::nullopt;
  double sum = 0;
  for (const auto* l : active) sum += *l->speed_gbps;
  return sum;
}

std::string P2pCodeId(const std::string& code) {
  std::string lower = code;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::vector<std::string> kKnown = {"ok", "cns", "gns", "tns", "ns", "dr", "u"};
  return std::find(kKnown.begin(), kKnown.end(), lower) == kKnown.end() ? "u" : lower;
}

}  // namespace gpuprobe::telemetry
