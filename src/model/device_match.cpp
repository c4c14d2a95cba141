#include "model/device_match.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpuprobe::model {

std::string NormalizedGpuName(std::string_view name) {
  std::string out;
  for (char c : name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == '-' || l == '_') l = ' ';
    if (l == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += l;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  for (const char* prefix : {"nvidia ", "amd "}) {
    if (out.rfind(prefix, 0) == 0) out = out.substr(std::string(prefix).size());
  }
  return out;
}

DeviceMatch MatchDevice(const SpecDatabase& db, std::optional<std::uint32_t> pci_device_id, std::string_view name) {
  DeviceMatch m;
  if (pci_device_id) {
    // nvidia-smi prints the device id with the vendor in the low half (0x233510DE); some
    // drivers print the device alone (0x1E81).
    std::uint32_t raw = *pci_device_id;
    bool combined = raw > 0xFFFF;
    std::uint32_t device = combined ? raw >> 16 : raw;
    m.pci_device_id = fmt::format("0x{:04x}", device);
    if (!combined || (raw & 0xFFFF) == 0x10DE) {
      for (const auto& g : db.gpus()) {
        if (std::find(g.pci_device_ids.begin(), g.pci_device_ids.end(), m.pci_device_id) != g.pci_device_ids.end()) {
          m.spec = &g;
          m.by = "pci_device_id";
          return m;
        }
      }
    }
  }
  if (name.empty() || name.find("...") != std::string_view::npos) return m;  // a cut name matches nothing reliably
  // By name, only a whole-name match (after case, "NVIDIA ", dashes and spaces): a partial
  // match would name a Quadro P400 as a Quadro P4000.
  std::string wanted = NormalizedGpuName(name);
  for (const auto& g : db.gpus()) {
    bool same = NormalizedGpuName(g.name) == wanted;
    for (const auto& alias : g.aliases) same = same || NormalizedGpuName(alias) == wanted;
    if (same) {
      m.spec = &g;
      m.by = "name";
      return m;
    }
  }
  return m;
}

}  // namespace gpuprobe::model
