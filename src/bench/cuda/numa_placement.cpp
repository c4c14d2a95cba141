#include "bench/cuda/numa_placement.h"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace gpuprobe::bench {

int PciNumaNode(const std::string& pci_bus_id, const std::string& sysfs_root) {
  if (pci_bus_id.empty()) return -1;
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // The runtime prints a 4-digit domain ("0000:1b:00.0"); NVML 8 digits: sysfs uses 4.
  if (id.size() > 12) id = id.substr(id.size() - 12);
  std::ifstream file(sysfs_root + "/" + id + "/numa_node");
  int node = -1;
  if (!(file >> node)) return -1;
  return node;
}

ScopedMemoryNode::ScopedMemoryNode(int node) {
  if (node < 0) return;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return;
  topology_ = topology;
  if (hwloc_topology_load(topology) != 0) return;
  hwloc_obj_t numa = hwloc_get_numanode_obj_by_os_index(topology, static_cast<unsigned>(node));
  if (numa == nullptr) return;
  bound_ = hwloc_set_membind(topology, numa->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) == 0;
}

ScopedMemoryNode::~ScopedMemoryNode() {
  auto topology = static_cast<hwloc_topology_t>(topology_);
  if (topology == nullptr) return;
  if (bound_) {
    hwloc_obj_t root = hwloc_get_root_obj(topology);
    hwloc_set_membind(topology, root->nodeset, HWLOC_MEMBIND_DEFAULT, HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET);
  }
  hwloc_topology_destroy(topology);
}

}  // namespace gpuprobe::bench
