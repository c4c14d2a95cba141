#include "telemetry/nvml_topology.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/strings.h"

namespace gpuprobe::telemetry {
namespace {

// The topo -m code for an NVML ancestor level. INTERNAL (two GPUs on one board) is printed
// PIX by nvidia-smi: the K80 capture shows PIX between the two GPUs of each board.
std::optional<std::string> LevelCode(int level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
    case NVML_TOPOLOGY_SINGLE: return "PIX";
    case NVML_TOPOLOGY_MULTIPLE: return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
    case NVML_TOPOLOGY_NODE: return "NODE";
    case NVML_TOPOLOGY_SYSTEM: return "SYS";
    default: return std::nullopt;
  }
}

using core::Lower;

// Bus ids are compared without case and without the domain's width ("00000000:05:00.0" and
// "0000:05:00.0" are one device).
std::string BusKey(const char* bus_id) {
  std::string s = Lower(bus_id);
  size_t colon = s.find(':');
  if (colon == std::string::npos) return s;
  std::string domain = s.substr(0, colon);
  domain.erase(0, std::min(domain.find_first_not_of('0'), domain.size()));
  return domain + s.substr(colon);
}

}  // namespace

core::Result<TopologyMatrix> ReadNvmlTopology(const NvmlLibrary& nvml) {
  const NvmlFunctions& f = nvml.fn();
  if (f.topology_common_ancestor == nullptr) {
    return core::Status::Unavailable("this NVML has no nvmlDeviceGetTopologyCommonAncestor", "read a saved 'nvidia-smi topo -m' with --from")
        .WithKeys("error.nvml.no_topology", {}, "error.nvml.no_topology.hint");
  }
  unsigned int count = 0;
  nvmlReturn_t rc = f.device_count(&count);
  if (rc != NVML_SUCCESS) return StatusFromNvml("nvmlDeviceGetCount", rc, nvml.ErrorString(rc));
  TopologyMatrix m;
  std::vector<nvmlDevice_t> handles;
  std::map<std::string, size_t> by_bus;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t d = nullptr;
    rc = f.handle_by_index(i, &d);
    if (rc != NVML_SUCCESS) return StatusFromNvml("nvmlDeviceGetHandleByIndex", rc, nvml.ErrorString(rc));
    handles.push_back(d);
    TopoDevice device;
    device.name = "GPU" + std::to_string(i);
    device.kind = DeviceKind::kGpu;
    device.has_row = true;
    m.devices.push_back(device);
    nvmlPciInfo_t pci{};
    if (f.pci_info != nullptr && f.pci_info(d, &pci) == NVML_SUCCESS) by_bus[BusKey(pci.busId)] = i;
  }
  size_t n = handles.size();
  m.cells.assign(n, std::vector<std::optional<TopoLink>>(n));
  for (size_t i = 0; i < n; ++i) m.cells[i][i] = ParseLinkCode("X");

  // NVLink: per GPU, active links to each peer GPU and to anything else (switches).
  std::vector<std::map<size_t, int>> to_gpu(n);
  std::vector<int> to_switch(n, 0);
  if (f.nvlink_state != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      for (unsigned int link = 0; link < GPUPROBE_NVML_NVLINK_MAX_LINKS; ++link) {
        int active = 0;
        if (f.nvlink_state(handles[i], link, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED) continue;
        nvmlPciInfo_t remote{};
        if (f.nvlink_remote_pci == nullptr || f.nvlink_remote_pci(handles[i], link, &remote) != NVML_SUCCESS) continue;
        auto peer = by_bus.find(BusKey(remote.busId));
        if (peer != by_bus.end() && peer->second != i) {
          ++to_gpu[i][peer->second];
        } else if (peer == by_bus.end()) {
          ++to_switch[i];
        }
      }
    }
  }
  std::vector<std::string> unanswered;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      int links = std::max(to_gpu[i].count(j) ? to_gpu[i][j] : 0, to_gpu[j].count(i) ? to_gpu[j][i] : 0);
      if (to_switch[i] > 0 && to_switch[j] > 0) links += std::min(to_switch[i], to_switch[j]);
      std::optional<TopoLink> link;
      if (links > 0) {
        link = ParseLinkCode("NV" + std::to_string(links));
      } else {
        int level = -1;
        if (f.topology_common_ancestor(handles[i], handles[j], &level) == NVML_SUCCESS) {
          auto code = LevelCode(level);
          if (code) link = ParseLinkCode(*code);
        }
      }
      if (!link) {
        unanswered.push_back(m.devices[i].name + "-" + m.devices[j].name);
        continue;
      }
      m.cells[i][j] = link;
      m.cells[j][i] = link;
    }
  }
  if (!unanswered.empty()) {
    std::string list;
    for (const auto& u : unanswered) list += (list.empty() ? "" : ", ") + u;
    m.notes.push_back({"nvml_unanswered", "", list, 0});
  }
  return m;
}

}  // namespace gpuprobe::telemetry
