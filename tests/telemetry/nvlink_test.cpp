// nvidia-smi nvlink (-s, -e, -R, -c) and the NVLink fabric's state: every real capture in
// tests/fixtures/topology/nvlink and .../fabric-manager read and judged. Expectations are read
// off each file (and index.json's observations), not produced by the parser.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "telemetry/fabric_state.h"
#include "telemetry/nvlink_findings.h"
#include "telemetry/nvlink_output.h"
#include "telemetry/p2p_matrix.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::telemetry {
namespace {

const std::filesystem::path kTopo = std::filesystem::path(GPUPROBE_FIXTURES_DIR) / "topology";

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Ids(const std::vector<TopoFinding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.id);
  return out;
}

struct GpuCheck {
  int index;
  size_t listed, active;
  double speed;          ///< of every active link; 0 = none
  bool all_inactive, elided;
};
struct NvGolden {
  std::string file;
  std::vector<GpuCheck> gpus;
  bool status, errors, remote, caps;
  std::vector<std::string> findings;
};

const std::vector<NvGolden>& NvGoldens() {
  static const std::vector<NvGolden> g = {
      {"aws-p4de-a100-80gb-nvlink-s-gpu0.txt", {{0, 12, 12, 25, false, false}}, true, false, false, false, {}},
      {"dgx1-v100-nvlink-capabilities-snip.txt", {{0, 2, 0, 0, false, true}}, false, false, false, true, {}},
      {"dgx1-v100-nvlink-status-snip.txt", {{0, 6, 6, 25.781, false, true}, {7, 6, 6, 25.781, false, false}}, true, false, false, false, {}},
      {"gb200-nvlink-s-elided.txt", {{0, 18, 18, 53.125, false, false}, {1, 2, 2, 53.125, false, true}}, true, false, false, false, {}},
      {"hgx-h100-nvlink-R-nvswitch-gpu0.txt", {{0, 18, 0, 0, false, false}}, false, false, true, false, {}},
      {"hgx-h100-nvlink-status-gpu0-gpu1.txt", {{0, 18, 18, 26.562, false, false}, {1, 18, 18, 26.562, false, false}}, true, false, false, false, {}},
      {"hpe-dl380-gen11-2x-a100-pcie-no-nvlink-s.txt", {{0, 0, 0, 0, true, false}, {1, 0, 0, 0, true, false}}, true, false, false, false,
       {"nvlink_none_active"}},
      {"hpe-dl380a-gen11-2x-h100-pcie-nvlink-R.txt", {{0, 12, 0, 0, false, false}, {1, 12, 0, 0, false, false}}, false, false, true, false, {}},
      {"hpe-dl380a-gen11-2x-h100-pcie-nvlink-s.txt", {{0, 18, 12, 26.562, false, false}, {1, 18, 12, 26.562, false, false}}, true, false, false,
       false, {"nvlink_inactive_pattern"}},
      {"ml-engineering-h100-nvlink-e-elided.txt", {{0, 3, 0, 0, false, true}}, false, true, false, false, {}},
      {"ml-engineering-h100-nvlink-status-elided.txt", {{0, 2, 2, 26.562, false, true}}, true, false, false, false, {}},
      {"siboehm-3x-rtx-a6000-nvlink-s-one-inactive.txt",
       {{0, 4, 4, 14.062, false, false}, {1, 4, 4, 14.062, false, false}, {2, 0, 0, 0, true, false}}, true, false, false, false,
       {"nvlink_gpu_without_links"}},
      {"v100-sxm2-nvlink-capabilities-i0-truncated.txt", {{0, 4, 0, 0, false, false}}, false, false, false, true, {}},
  };
  return g;
}

class NvLinkGolden : public ::testing::TestWithParam<NvGolden> {};

TEST_P(NvLinkGolden, ReadsWhatTheCaptureSays) {
  const NvGolden& g = GetParam();
  std::string text = Read(kTopo / "nvlink" / g.file);
  ASSERT_TRUE(LooksLikeNvLinkOutput(text));
  EXPECT_FALSE(LooksLikeTopologyMatrix(text));
  auto out = ParseNvLinkOutput(text);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->gpus.size(), g.gpus.size());
  for (size_t i = 0; i < g.gpus.size(); ++i) {
    const auto& want = g.gpus[i];
    const auto& gpu = out->gpus[i];
    EXPECT_EQ(gpu.index, want.index);
    EXPECT_EQ(gpu.links.size(), want.listed) << "GPU " << gpu.index;
    auto active = ActiveLinks(gpu);
    EXPECT_EQ(active.size(), want.active) << "GPU " << gpu.index;
    for (const auto* l : active) EXPECT_DOUBLE_EQ(*l->speed_gbps, want.speed);
    EXPECT_EQ(gpu.all_inactive, want.all_inactive);
    EXPECT_EQ(gpu.elided, want.elided) << "GPU " << gpu.index;
    EXPECT_FALSE(gpu.name.empty());
  }
  EXPECT_EQ(out->has_status, g.status);
  EXPECT_EQ(out->has_errors, g.errors);
  EXPECT_EQ(out->has_remote, g.remote);
  EXPECT_EQ(out->has_caps, g.caps);
  for (const auto& n : out->notes) EXPECT_EQ(n.id, "elided") << n.detail;  // every line understood
  EXPECT_EQ(Ids(AssessNvLink(*out)), g.findings);
}

INSTANTIATE_TEST_SUITE_P(NvLink, NvLinkGolden, ::testing::ValuesIn(NvGoldens()), [](const ::testing::TestParamInfo<NvGolden>& param_info) {
  std::string name = param_info.param.file.substr(0, param_info.param.file.find(".txt"));
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
});

// Every nvlink fixture is either expected above or a topo -p2p matrix (tested below).
TEST(NvLinkGoldenCoverage, EveryFixtureHasExpectations) {
  std::set<std::string> files, expected = {"2x-rtx5090-topo-p2p-rw-gns.txt", "autodl-2x-rtx2080ti-topo-p2p-p.txt"};
  for (const auto& entry : std::filesystem::directory_iterator(kTopo / "nvlink")) files.insert(entry.path().filename().string());
  for (const auto& g : NvGoldens()) expected.insert(g.file);
  EXPECT_EQ(files, expected);
}

TEST(NvLinkOutput, ReadsRemoteEndsAndCounters) {
  auto r = ParseNvLinkOutput(Read(kTopo / "nvlink" / "hgx-h100-nvlink-R-nvswitch-gpu0.txt"));
  ASSERT_TRUE(r.ok());
  std::set<std::string> remotes;
  for (const auto& l : r->gpus[0].links) remotes.insert(*l.remote_device);
  EXPECT_EQ(remotes, (std::set<std::string>{"00000000:05:00.0", "00000000:06:00.0", "00000000:07:00.0", "00000000:08:00.0"}));
  EXPECT_EQ(r->gpus[0].links[0].remote_link, 46);

  auto e = ParseNvLinkOutput(Read(kTopo / "nvlink" / "ml-engineering-h100-nvlink-e-elided.txt"));
  ASSERT_TRUE(e.ok());
  const auto& link17 = e->gpus[0].links.back();
  EXPECT_EQ(link17.index, 17);
  EXPECT_EQ(link17.crc_errors, 0u);
  EXPECT_EQ(link17.replay_errors, 0u);
  EXPECT_EQ(link17.recovery_errors, 0u);
}

// Synthetic (written here in the -s / -e layout, not a capture): the cases no public sample
// has (index.json "Known gaps"): an inactive link among active ones on one GPU only, a link
// trained slower, and non-zero error counters.
TEST(NvLinkFindings, FaultsNoSampleHas) {
  std::string text =
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n"
      "\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n\t Link 2: 26.562 GB/s\n\t Link 3: 13.281 GB/s\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n"
      "\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n\t Link 2: 26.562 GB/s\n\t Link 3: 26.562 GB/s\n"
      "\t Link 2: Replay Errors: 0\n\t Link 2: Recovery Errors: 3\n\t Link 2: CRC Errors: 118\n";
  auto out = ParseNvLinkOutput(text);
  ASSERT_TRUE(out.ok());
  auto f = AssessNvLink(*out);
  EXPECT_EQ(Ids(f), (std::vector<std::string>{"nvlink_inactive_link", "nvlink_slow_link", "nvlink_errors"}));
  EXPECT_EQ(f[0].devices, (std::vector<std::string>{"GPU 0"}));
  EXPECT_EQ(f[2].devices, (std::vector<std::string>{"GPU 1"}));
  EXPECT_EQ(f[2].args[0].second, "GPU1 link2: 0/3/118");
}

TEST(NvLinkOutput, NeverCrashes) {
  for (const auto& entry : std::filesystem::directory_iterator(kTopo / "nvlink")) {
    std::string text = Read(entry.path());
    for (size_t cut = 0; cut < text.size(); cut += 13) {
      auto out = ParseNvLinkOutput(std::string_view(text).substr(0, cut));
      if (out.ok()) (void)AssessNvLink(*out);
    }
  }
  EXPECT_FALSE(ParseNvLinkOutput("Link 0: 25 GB/s\n").ok());
  EXPECT_FALSE(LooksLikeNvLinkOutput("GPU 0: NVIDIA H100 (UUID: GPU-x)\nGPU 1: NVIDIA H100 (UUID: GPU-y)\n"));  // nvidia-smi -L
}

// topo -p2p: GeForce RTX 5090 pair refused by the GPU (GNS), RTX 2080 Ti pair "NS" although
// they share a PCIe switch (topo-m/autodl-2x-rtx2080ti-pix.txt).
TEST(P2pMatrix, ReadsBothCaptures) {
  for (const auto& [file, code] : {std::pair<std::string, std::string>{"2x-rtx5090-topo-p2p-rw-gns.txt", "GNS"},
                                   std::pair<std::string, std::string>{"autodl-2x-rtx2080ti-topo-p2p-p.txt", "NS"}}) {
    std::string text = Read(kTopo / "nvlink" / file);
    ASSERT_TRUE(LooksLikeP2pMatrix(text)) << file;
    EXPECT_FALSE(LooksLikeNvLinkOutput(text));
    EXPECT_FALSE(LooksLikeTopologyMatrix(text));
    auto m = ParseP2pMatrix(text);
    ASSERT_TRUE(m.ok()) << file;
    EXPECT_EQ(m->gpus, (std::vector<std::string>{"GPU0", "GPU1"}));
    ASSERT_EQ(m->pairs.size(), 1u);
    EXPECT_EQ(m->pairs[0].code, code);
    EXPECT_TRUE(m->unread.empty());
    EXPECT_EQ(Ids(AssessP2p(*m)), (std::vector<std::string>{"p2p_unavailable"}));
  }
  // Synthetic: every pair allowed raises nothing; a row with X off its diagonal is not used.
  auto ok = ParseP2pMatrix("\tGPU0\tGPU1\tGPU2\n GPU0\tX\tOK\tOK\n GPU1\tOK\tX\tOK\n GPU2\tOK\tX\tOK\n");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(AssessP2p(*ok).empty());
  EXPECT_EQ(ok->unread, (std::vector<std::string>{"GPU2"}));
  EXPECT_EQ(ok->pairs.size(), 3u);  // GPU0-GPU2 and GPU1-GPU2 from the other rows
}

struct FabricGolden {
  std::string file;
  size_t blocks;
  bool manager;
  std::vector<std::string> findings;
};

class FabricGoldenTest : public ::testing::TestWithParam<FabricGolden> {};

TEST_P(FabricGoldenTest, ReadsWhatTheCaptureSays) {
  const auto& g = GetParam();
  std::string text = Read(kTopo / "fabric-manager" / g.file);
  ASSERT_TRUE(LooksLikeFabricState(text));
  auto state = ParseFabricState(text);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->blocks.size(), g.blocks);
  EXPECT_EQ(state->manager.seen, g.manager);
  EXPECT_EQ(Ids(AssessFabric(*state)), g.findings);
}

INSTANTIATE_TEST_SUITE_P(Fabric, FabricGoldenTest,
                         ::testing::Values(FabricGolden{"2x-rtx4090-fm-pre-nvl5-nothing-to-do.txt", 0, true, {"fm_nothing_to_do"}},
                                           FabricGolden{"a40-nvlink-bridge-fm-nothing-to-do.txt", 0, true, {"fm_nothing_to_do"}},
                                           FabricGolden{"h20-8gpu-fm-journal-start-stop.txt", 0, true, {}},
                                           FabricGolden{"smi-q-fabric-completed-unhealthy.txt", 1, false, {"fabric_unhealthy"}},
                                           FabricGolden{"smi-q-fabric-insufficient-resources.txt", 1, false, {"fabric_status_error"}}));

TEST(FabricState, ReadsTheBlock) {
  auto s = ParseFabricState(Read(kTopo / "fabric-manager" / "smi-q-fabric-completed-unhealthy.txt"));
  ASSERT_TRUE(s.ok());
  const auto& b = s->blocks.at(0);
  EXPECT_EQ(b.state, "Completed");
  EXPECT_EQ(b.status, "Success");
  EXPECT_EQ(b.clique_id, "2");
  EXPECT_EQ(b.cluster_uuid, "dc6e40c4-d722-4357-9ba6-5291dd461278");
  EXPECT_EQ(b.health_summary, "Unhealthy");
  EXPECT_EQ(b.bandwidth, "Full");
  auto h20 = ParseFabricState(Read(kTopo / "fabric-manager" / "h20-8gpu-fm-journal-start-stop.txt"));
  ASSERT_TRUE(h20.ok());
  EXPECT_TRUE(h20->manager.configured);
  EXPECT_TRUE(h20->manager.pre_nvl5);
  EXPECT_TRUE(h20->manager.stopped);
  EXPECT_FALSE(h20->manager.failed);
}

// Synthetic: a fabric still training, and a non-NVSwitch GPU (N/A) that has nothing to judge.
TEST(FabricFindings, StateNotCompleted) {
  auto s = ParseFabricState("    Fabric\n        State                             : In Progress\n        Status                            : N/A\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Ids(AssessFabric(*s)), (std::vector<std::string>{"fabric_not_ready"}));
  auto na = ParseFabricState("    Fabric\n        State                             : N/A\n        Status                            : N/A\n");
  ASSERT_TRUE(na.ok());
  EXPECT_TRUE(AssessFabric(*na).empty());
}

}  // namespace
}  // namespace gpuprobe::telemetry
