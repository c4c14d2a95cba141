// Which entry of the spec database a real device is: the one strict rule for devices (the CUDA
// context, the tour, the many-GPU runs and inspect all use it). A device is matched by its PCI
// device id first, then by its whole normalised name or alias; never by a partial name, which
// would name a Quadro P400 as a Quadro P4000. What users type goes through SpecDatabase::Find
// instead (partial names, "did you mean").
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/spec_database.h"

namespace gpuprobe::model {

struct DeviceMatch {
  const GpuSpec* spec = nullptr;  ///< null when no entry matched
  std::string by;                 ///< "pci_device_id" or "name"; empty when none
  std::string pci_device_id;      ///< "0x2330" as looked up; empty when not reported
};

/// The entry of the device with PCI id `pci_device_id` (as nvidia-smi prints it, the device in
/// the high half and NVIDIA's vendor id 0x10DE in the low half, 0x233510DE; or the device id
/// alone, 0x1E81; nullopt when not reported) and runtime name `name` ("NVIDIA H200"). The id
/// wins; a name cut short ("...") matches nothing; no match returns an empty `spec`.
DeviceMatch MatchDevice(const SpecDatabase& db, std::optional<std::uint32_t> pci_device_id, std::string_view name);

/// Lower case, dashes, underscores and repeated spaces as one space, without a leading
/// "NVIDIA "/"AMD ": "NVIDIA Tesla P100-PCIE-16GB" -> "tesla p100 pcie 16gb".
std::string NormalizedGpuName(std::string_view name);

}  // namespace gpuprobe::model
