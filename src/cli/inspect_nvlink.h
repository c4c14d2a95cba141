// `inspect --from` on `nvidia-smi nvlink` output (-s, -e, -R, -c) and on the NVLink fabric's
// state (nvidia-smi -q Fabric blocks, Fabric Manager journal lines): per GPU its links, their
// speed and state, error counters and far ends; the fabric's state; and the findings. Texts in
// data/texts/<lang>/topology.json.
//
// JSON (kinds of gpuprobe.inspect.v1; keys are stable):
//   nvlink: kind "nvlink", format, source, gpus: [{index, name, uuid, all_inactive, elided,
//           active_links, listed_links, per_direction_gbps (sum of active link speeds, null
//           when none is known), links: [{index, state "active"|"inactive"|null, speed_gbps,
//           replay_errors, recovery_errors, crc_errors, remote_device, remote_link,
//           p2p_supported}]}], notes: [{id, device, detail, line, text}], findings.
//   fabric: kind "fabric", format, source, fabric: [{state, status, clique_id, cluster_uuid,
//           health_summary, bandwidth}], fabric_manager: {seen, nothing_to_do, configured,
//           started, stopped, failed, pre_nvl5, errors}, findings.
//   p2p:    kind "p2p", format, source, gpus [names], pairs: [{a, b, code, meaning}],
//           unread [rows not used], findings.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/i18n.h"
#include "telemetry/fabric_state.h"
#include "telemetry/nvlink_output.h"
#include "telemetry/p2p_matrix.h"
#include "telemetry/topology_findings.h"

namespace gpuprobe::cli {

nlohmann::json NvLinkJson(const telemetry::NvLinkOutput& out, const std::vector<telemetry::TopoFinding>& findings,
                          const std::string& source, const report::Texts& texts);
std::string RenderNvLink(const telemetry::NvLinkOutput& out, const std::vector<telemetry::TopoFinding>& findings,
                         const std::string& source, const report::Texts& texts);

nlohmann::json FabricJson(const telemetry::FabricState& state, const std::vector<telemetry::TopoFinding>& findings,
                          const std::string& source, const report::Texts& texts);
std::string RenderFabric(const telemetry::FabricState& state, const std::vector<telemetry::TopoFinding>& findings,
                         const std::string& source, const report::Texts& texts);

nlohmann::json P2pJson(const telemetry::P2pMatrix& m, const std::vector<telemetry::TopoFinding>& findings,
                       const std::string& source, const report::Texts& texts);
std::string RenderP2p(const telemetry::P2pMatrix& m, const std::vector<telemetry::TopoFinding>& findings,
                      const std::string& source, const report::Texts& texts);

}  // namespace gpuprobe::cli
