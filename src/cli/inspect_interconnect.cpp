#include "cli/inspect_interconnect.h"

#include <algorithm>

#include "cli/inspect_nvlink.h"
#include "cli/inspect_topology.h"
#include "report/json_document.h"
#include "telemetry/capture_reader.h"
#include "telemetry/fabric_state.h"
#include "telemetry/nvlink_findings.h"
#include "telemetry/nvlink_output.h"
#include "telemetry/nvml_library.h"
#include "telemetry/nvml_topology.h"
#include "telemetry/p2p_matrix.h"
#include "telemetry/topology_findings.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::cli {
namespace {

core::ExitCode ExitFor(const std::vector<telemetry::TopoFinding>& findings) {
  bool worse = std::any_of(findings.begin(), findings.end(), [](const auto& f) { return f.severity != telemetry::Severity::kInfo; });
  return worse ? core::ExitCode::kProblemsFound : core::ExitCode::kOk;
}

}  // namespace

std::optional<core::Result<core::ExitCode>> RunInterconnectInspect(VerbContext& ctx, const std::string& label, const std::string& text) {
  if (telemetry::LooksLikeTopologyMatrix(text)) {
    auto m = telemetry::ParseTopologyMatrix(text);
    if (!m.ok()) return core::Result<core::ExitCode>(m.status().WithContext(label));
    auto findings = telemetry::AssessTopology(*m);
    std::string source = label + " (nvidia-smi topo -m)";
    ctx.out << (ctx.options.json ? report::RenderJson(TopologyJson(*m, findings, source, ctx.texts)) : RenderTopology(*m, findings, source, ctx.texts));
    return core::Result<core::ExitCode>(ExitFor(findings));
  }
  if (telemetry::LooksLikeNvLinkOutput(text)) {
    auto out = telemetry::ParseNvLinkOutput(text);
    if (!out.ok()) return core::Result<core::ExitCode>(out.status().WithContext(label));
    auto findings = telemetry::AssessNvLink(*out);
    std::string source = label + " (nvidia-smi nvlink)";
    ctx.out << (ctx.options.json ? report::RenderJson(NvLinkJson(*out, findings, source, ctx.texts)) : RenderNvLink(*out, findings, source, ctx.texts));
    return core::Result<core::ExitCode>(ExitFor(findings));
  }
  if (telemetry::LooksLikeP2pMatrix(text)) {
    auto m = telemetry::ParseP2pMatrix(text);
    if (!m.ok()) return core::Result<core::ExitCode>(m.status().WithContext(label));
    auto findings = telemetry::AssessP2p(*m);
    std::string source = label + " (nvidia-smi topo -p2p)";
    ctx.out << (ctx.options.json ? report::RenderJson(P2pJson(*m, findings, source, ctx.texts)) : RenderP2p(*m, findings, source, ctx.texts));
    return core::Result<core::ExitCode>(ExitFor(findings));
  }
  // A whole nvidia-smi -q has a Fabric block too: that is GPU state, read by the GPU view.
  if (telemetry::DetectCaptureFormat(text) == telemetry::CaptureFormat::kUnknown && telemetry::LooksLikeFabricState(text)) {
    auto state = telemetry::ParseFabricState(text);
    if (!state.ok()) return core::Result<core::ExitCode>(state.status().WithContext(label));
    auto findings = telemetry::AssessFabric(*state);
    std::string source = label + " (Fabric)";
    ctx.out << (ctx.options.json ? report::RenderJson(FabricJson(*state, findings, source, ctx.texts)) : RenderFabric(*state, findings, source, ctx.texts));
    return core::Result<core::ExitCode>(ExitFor(findings));
  }
  return std::nullopt;
}

core::Result<core::ExitCode> RunLiveTopology(VerbContext& ctx) {
  auto nvml = telemetry::NvmlLibrary::Open();
  if (!nvml.ok()) return nvml.status();
  auto m = telemetry::ReadNvmlTopology(**nvml);
  if (!m.ok()) return m.status();
  auto findings = telemetry::AssessTopology(*m);
  std::string source = "NVML (" + (*nvml)->loaded_from() + ")";
  ctx.out << (ctx.options.json ? report::RenderJson(TopologyJson(*m, findings, source, ctx.texts)) : RenderTopology(*m, findings, source, ctx.texts));
  return ExitFor(findings);
}

}  // namespace gpuprobe::cli
