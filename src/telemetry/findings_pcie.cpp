// The PCIe link. An idle link drops to Gen1 on purpose (power saving) and is not a fault; a
// link below its maximum generation while the GPU is busy is. A link narrower than the card
// can use is a fault at any load: lanes do not come back when work arrives (a riser, an x1 or
// x8 slot, a badly seated card). Its cost is stated as what host <-> GPU copies can reach.
// Replays are link-level retransmissions after errors; DCGM judges their rate per minute,
// which one capture cannot give, so only a count far past normal link training is raised.
#include <fmt/format.h>

#include "model/spec_derivation.h"
#include "telemetry/findings_rules.h"

namespace gpuprobe::telemetry::rules {
namespace {

constexpr double kReplaysWarn = 1000;

std::string GbPerSecond(std::optional<double> bytes_per_s) {
  return bytes_per_s ? fmt::format("{:.1f} GB/s", *bytes_per_s / 1e9) : "?";
}

void CheckWidth(Judge& j) {
  const Snapshot& s = j.s;
  if (!s.pcie_width_current || !s.pcie_width_max) {
    j.NotJudged("pcie_link_narrow", {"pcie.link.width.current", "pcie.link.width.max"});
    return;
  }
  if (*s.pcie_width_current >= *s.pcie_width_max) return;
  // On a board with several GPUs (K80, M10) each GPU links to an on-board switch, and the
  // board's design sets that width: worth knowing for transfers, not a fault to fix.
  bool board = s.multi_gpu_board.value_or(false);
  Finding& f = j.Raise("pcie_link_narrow", board ? Severity::kInfo : Severity::kWarn);
  if (board) f.variant = "board";
  // The cost at the link's full speed: the generation an idle link has dropped to is not
  // what it will run at under load.
  std::optional<int> gen = s.pcie_generation_max ? s.pcie_generation_max : s.pcie_generation_current;
  Arg(&f, "width", std::to_string(*s.pcie_width_current));
  Arg(&f, "max_width", std::to_string(*s.pcie_width_max));
  Arg(&f, "gen", gen ? std::to_string(*gen) : "?");
  Arg(&f, "bandwidth", gen ? GbPerSecond(model::PcieBytesPerSecondPerDirection(*gen, *s.pcie_width_current)) : "?");
  Arg(&f, "max_bandwidth", gen ? GbPerSecond(model::PcieBytesPerSecondPerDirection(*gen, *s.pcie_width_max)) : "?");
  Arg(&f, "fraction", fmt::format("1/{}", *s.pcie_width_max / std::max(1, *s.pcie_width_current)));
  j.Use(&f, "pcie.link.width.current");
  j.Use(&f, "pcie.link.width.max");
  j.Use(&f, "pcie.link.gen.max");
  j.Show(&f, "pcie.link.gen.current");
  j.Show(&f, "utilization.gpu");
  j.Show(&f, "multigpu_board");
  if (*s.pcie_width_current == 1) f.notes.push_back("pcie_x1");
  // In a VM the host's slot sets the width: nothing to reseat, but the cost is the same.
  if (s.virtualization_mode == "Pass-Through" || s.virtualization_mode == "VGPU") {
    j.Show(&f, "virtualization_mode");
    f.notes.push_back("pcie_in_vm");
  }
}

void CheckGeneration(Judge& j) {
  const Snapshot& s = j.s;
  auto busy = IsBusy(s);
  if (busy && !*busy) return;  // idle: a lower generation is power saving
  if (!s.pcie_generation_current || !s.pcie_generation_max || !busy) {
    std::vector<std::string> missing;
    if (!s.pcie_generation_current) missing.push_back("pcie.link.gen.current");
    if (!s.pcie_generation_max) missing.push_back("pcie.link.gen.max");
    if (!busy) missing.push_back("utilization.gpu");
    j.NotJudged("pcie_link_degraded", missing);
    return;
  }
  if (*s.pcie_generation_current >= *s.pcie_generation_max) return;
  Finding& f = j.Raise("pcie_link_degraded", Severity::kWarn);
  Arg(&f, "gen", std::to_string(*s.pcie_generation_current));
  Arg(&f, "max_gen", std::to_string(*s.pcie_generation_max));
  Arg(&f, "util", Whole(*s.utilization_gpu_percent));
  j.Use(&f, "pcie.link.gen.current");
  j.Use(&f, "pcie.link.gen.max");
  j.Use(&f, "utilization.gpu");
  j.Show(&f, "pcie.link.width.current");
}

void CheckReplays(Judge& j) {
  const Snapshot& s = j.s;
  if (!s.pcie_replay_count) {
    j.NotJudged("pcie_replays", {"pcie.replay_counter"});
    return;
  }
  if (*s.pcie_replay_count < kReplaysWarn) return;
  Finding& f = j.Raise("pcie_replays", Severity::kWarn);
  Arg(&f, "count", Whole(*s.pcie_replay_count));
  j.Use(&f, "pcie.replay_counter");
  j.Show(&f, "pcie.link.width.current");
  j.Show(&f, "pcie.link.width.max");
}

}  // namespace

void CheckPcie(Judge& judge) {
  CheckWidth(judge);
  CheckGeneration(judge);
  CheckReplays(judge);
}

}  // namespace gpuprobe::telemetry::rules
