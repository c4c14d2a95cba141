// The NVLink fabric's state as a saved capture shows it: the "Fabric" block of `nvidia-smi -q`
// (State, Status, CliqueId, ClusterUUID, Health Summary and Bandwidth) and the Fabric Manager
// service's journal lines (nv-fabricmanager, nvidia-fabricmanager-start.sh, systemd). On an
// NVSwitch system GPUs cannot use NVLink until Fabric Manager has trained the fabric and
// registered each GPU; on bridge and PCIe systems there is nothing for it to do.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpuprobe::telemetry {

/// One "Fabric" block of nvidia-smi -q (absent fields were not in the capture).
struct FabricBlock {
  std::optional<std::string> state, status, clique_id, cluster_uuid, health_summary, bandwidth;
};

/// What the Fabric Manager journal says happened, one flag per kind of line.
struct FabricManagerLog {
  bool seen = false;
  bool nothing_to_do = false;      ///< NV_WARN_NOTHING_TO_DO: no NVSwitch to manage
  bool configured = false;         ///< "Successfully configured all the available NVSwitches"
  bool started = false;            ///< 'Started "Nvidia Fabric Manager"' / systemd Started
  bool stopped = false;            ///< a stop of the service
  bool failed = false;             ///< "failed!" / status=N/FAILURE
  bool pre_nvl5 = false;           ///< "Detected Pre-NVL5 system"
  std::vector<std::string> errors; ///< lines with "error" other than nothing-to-do, as printed
};

struct FabricState {
  std::vector<FabricBlock> blocks;
  FabricManagerLog manager;
};

/// True when `text` has a Fabric block (a "Fabric" line followed by "State :") or Fabric
/// Manager journal lines.
bool LooksLikeFabricState(std::string_view text);

/// ParseError when neither is found.
core::Result<FabricState> ParseFabricState(std::string_view text);

}  // namespace gpuprobe::telemetry
