// Pinned host buffers on the GPU's own NUMA node (METHOD.md: nvbandwidth allocates near the
// GPU): the node comes from sysfs for the GPU's PCI address, and hwloc binds the calling
// thread's allocations there while a buffer is allocated. No CUDA here.
//
// Thread safety: ScopedMemoryNode affects only the calling thread.
#pragma once

#include <string>

namespace gpuprobe::bench {

/// The NUMA node of PCI device `pci_bus_id` ("0000:1B:00.0") read below `sysfs_root`
/// (/sys/bus/pci/devices/<id>/numa_node); -1 when unknown or when the machine has one node.
int PciNumaNode(const std::string& pci_bus_id, const std::string& sysfs_root = "/sys/bus/pci/devices");

/// While alive, memory the calling thread allocates comes from `node` (a no-op for -1 or
/// when binding is not allowed); the previous policy is restored on destruction.
class ScopedMemoryNode {
 public:
  explicit ScopedMemoryNode(int node);
  ~ScopedMemoryNode();
  ScopedMemoryNode(const ScopedMemoryNode&) = delete;
  ScopedMemoryNode& operator=(const ScopedMemoryNode&) = delete;
  bool bound() const { return bound_; }

 private:
  void* topology_ = nullptr;  // hwloc_topology_t
  bool bound_ = false;
};

}  // namespace gpuprobe::bench
