// `inspect --from` on an `nvidia-smi topo -m` capture: how each GPU pair talks, each GPU's CPUs,
// NUMA node and nearest NIC, what could not be read, and the findings, in the user's language
// (texts in data/texts/<lang>/topology.json), as terminal text and as JSON.
//
// JSON (the "topology" kind of gpuprobe.inspect.v1; keys are stable):
//   kind "topology", format "nvidia-smi topo -m", source,
//   topology: {devices: [{name, kind "gpu"|"nic", nic_device, has_row, cpu_affinity,
//              numa_affinity, gpu_numa_id}] (absent cells are null),
//              gpu_pairs: [{a, b, code, kind, nvlinks, meaning}] (code/kind null when unknown),
//              gpu_nics: [{gpu, nearest: [names], code, kind}],
//              legend: [codes]},
//   notes: [{id, device, detail, line, text}],
//   findings: [{id, severity, title, evidence, explanation, next_step, devices, facts}].
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/i18n.h"
#include "telemetry/topology_findings.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::cli {

/// Findings of any interconnect capture (topo -m, nvlink, fabric) as JSON: [{id, severity,
/// title, evidence, explanation, next_step, devices, facts [{field, value}]}].
nlohmann::json TopoFindingsJson(const std::vector<telemetry::TopoFinding>& findings, const report::Texts& texts);

/// The findings block of the terminal view (a blank line, the heading, one entry each).
std::string RenderTopoFindings(const std::vector<telemetry::TopoFinding>& findings, const report::Texts& texts);

/// The whole inspect document for a topology capture read from `source`.
nlohmann::json TopologyJson(const telemetry::TopologyMatrix& m, const std::vector<telemetry::TopoFinding>& findings,
                            const std::string& source, const report::Texts& texts);

/// The terminal view.
std::string RenderTopology(const telemetry::TopologyMatrix& m, const std::vector<telemetry::TopoFinding>& findings,
                           const std::string& source, const report::Texts& texts);

}  // namespace gpuprobe::cli
