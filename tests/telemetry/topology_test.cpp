// nvidia-smi topo -m: every real capture in tests/fixtures/topology/topo-m read and judged.
// The expectations are read off each file by eye (the pairs, nearest NICs and affinities
// named in tests/fixtures/topology/index.json's observations), not produced by the parser.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "telemetry/text_cells.h"
#include "telemetry/topology_findings.h"
#include "telemetry/topology_matrix.h"

namespace gpuprobe::telemetry {
namespace {

const std::filesystem::path kDir = std::filesystem::path(GPUPROBE_FIXTURES_DIR) / "topology" / "topo-m";

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct PairCheck {
  std::string a, b, code;  ///< code "" = the capture does not hold this pair
};
struct NicCheck {
  std::string gpu;
  std::vector<std::string> nics;  ///< empty = not known
  std::string code;
};
struct AffinityCheck {
  std::string device;
  std::optional<std::string> cpu, numa;
};
struct FindingCheck {
  std::string id;
  std::vector<std::string> devices;  ///< checked when not empty
  std::string variant;
};
struct Golden {
  std::string file;
  size_t gpus = 0, nics = 0;
  std::vector<PairCheck> pairs;
  std::vector<NicCheck> nearest;
  std::vector<AffinityCheck> affinity;
  std::vector<FindingCheck> findings;  ///< exactly these, in rule order
  std::set<std::string> notes;         ///< exactly these note ids
  size_t unknown_pairs = 0;            ///< GPU pairs the capture does not hold
};

std::vector<std::string> Gpus(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back("GPU" + std::to_string(i));
  return out;
}
std::vector<std::string> Nics(const std::string& prefix, int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

const std::vector<Golden>& Goldens() {
  static const std::vector<Golden> g = {
      {"2x-rtx3090-sys-two-numa-nodes-truncated-legend.txt", 2, 0, {{"GPU0", "GPU1", "SYS"}}, {},
       {{"GPU0", "0-7,16-23", "N/A"}, {"GPU1", "8-15,24-31", "1"}}, {{"all_sys", {"GPU0", "GPU1"}, ""}}, {}, 0},
      {"2x-rtx5090-phb-threadripper.txt", 2, 0, {{"GPU0", "GPU1", "PHB"}}, {}, {{"GPU1", "0-63", "0"}}, {}, {}, 0},
      {"4x-h100-nv6-4nic-sparse-cpu-affinity-truncated-legend.txt", 4, 4, {{"GPU0", "GPU3", "NV6"}, {"GPU1", "GPU2", "NV6"}},
       {{"GPU0", {"NIC0"}, "PIX"}, {"GPU3", {"NIC3"}, "PIX"}},
       {{"GPU0", "6,14,22,30", "3"}, {"GPU1", "4,12,20,28", "1"}, {"GPU3", "5,13,21,29", "5"}}, {}, {"legend_incomplete"}, 0},
      {"4x-mixed-rtx4090-a6000-phb-single-socket.txt", 4, 0, {{"GPU0", "GPU3", "PHB"}, {"GPU1", "GPU2", "PHB"}}, {},
       {{"GPU2", "0-15", "0"}}, {}, {}, 0},
      {"8x-h100-nv18-12nic-glued-cells-truncated.txt", 8, 12, {{"GPU0", "GPU7", "NV18"}, {"GPU3", "GPU4", "NV18"}},
       {{"GPU0", {"NIC0"}, "PXB"}, {"GPU1", {"NIC3"}, "PXB"}, {"GPU4", {"NIC6"}, "PXB"}, {"GPU5", {"NIC9"}, "PXB"},
        {"GPU6", {"NIC10"}, "PXB"}, {"GPU7", {"NIC11"}, "PXB"}},
       {{"GPU0", "0-55,112-167", "0"}, {"GPU7", "56-111,168-223", "1"}}, {},
       {"glued_header", "glued_cells", "missing_rows"}, 0},
      {"8x-h100-nv18-9nic-pix-truncated.txt", 8, 9, {{"GPU0", "GPU1", "NV18"}, {"GPU6", "GPU7", "NV18"}},
       {{"GPU0", {"NIC8"}, "PIX"}, {"GPU3", {"NIC5"}, "PIX"}, {"GPU4", {"NIC4"}, "PIX"}, {"GPU7", {"NIC1"}, "PIX"}},
       {{"GPU0", "0-79", "0"}, {"GPU4", "80-159", "1"}}, {}, {"missing_rows"}, 0},
      {"8x-h800-nv8-9nic-0-47-96-143-truncated.txt", 8, 9, {{"GPU0", "GPU7", "NV8"}, {"GPU6", "GPU7", "NV8"}, {"GPU2", "GPU5", "NV8"}},
       {{"GPU0", {"NIC2"}, "PIX"}, {"GPU4", {"NIC1"}, "PIX"}, {"GPU6", {"NIC5"}, "PIX"}, {"GPU7", {}, ""}},
       {{"GPU0", "0-47,96-143", "0"}, {"GPU5", "48-95,144-191", "1"}, {"GPU7", std::nullopt, std::nullopt}}, {}, {"missing_rows"}, 0},
      {"8x-rtx4090-all-sys-2nic.txt", 8, 2, {{"GPU0", "GPU1", "SYS"}, {"GPU3", "GPU4", "SYS"}},
       {{"GPU6", {"NIC0", "NIC1"}, "PHB"}, {"GPU0", {"NIC0", "NIC1"}, "SYS"}}, {{"GPU4", "56-111,168-223", "1"}},
       {{"all_sys", {}, "same_numa"}, {"nic_across_sockets", {"GPU0", "GPU1", "GPU2", "GPU3", "GPU4", "GPU5", "GPU7"}, ""}}, {}, 0},
      {"8x-rtx4090-pix-switch-per-socket-bond-nic.txt", 8, 1, {{"GPU0", "GPU3", "PIX"}, {"GPU4", "GPU7", "PIX"}, {"GPU3", "GPU4", "SYS"}},
       {{"GPU0", {"NIC0"}, "PIX"}, {"GPU5", {"NIC0"}, "SYS"}}, {{"GPU0", "0-35,72-107", "0"}},
       {{"nic_across_sockets", Gpus(4, 7), ""}}, {}, 0},
      {"a100-sxm4-40gb-8x-epyc7742-nic-legend-mlx5.txt", 8, 10, {{"GPU0", "GPU7", "NV12"}, {"GPU4", "GPU5", "NV12"}},
       {{"GPU0", {"NIC0", "NIC1"}, "PXB"}, {"GPU3", {"NIC2", "NIC3"}, "PXB"}, {"GPU7", {"NIC6", "NIC7"}, "PXB"}},
       {{"GPU0", "48-63,176-191", "3"}, {"GPU6", "80-95,208-223", "5"}, {"NIC0", std::nullopt, std::nullopt}}, {}, {}, 0},
      {"alcf-polaris-4x-a100-nv4-nps4-malformed-header.txt", 4, 2, {{"GPU0", "GPU3", "NV4"}},
       {{"GPU3", {"mlx5_0"}, "PHB"}, {"GPU1", {"mlx5_1"}, "PHB"}, {"GPU0", {"mlx5_0", "mlx5_1"}, "SYS"}},
       {{"GPU0", "24-31,56-63", "3"}, {"GPU3", "0-7,32-39", "0"}}, {{"nic_across_sockets", {"GPU0", "GPU2"}, ""}}, {}, 0},
      {"autodl-2x-rtx2080ti-pix.txt", 2, 0, {{"GPU0", "GPU1", "PIX"}}, {}, {{"GPU0", "24-47,72-95", "1"}}, {}, {}, 0},
      {"dgx-a100-40gb-nv12-12nic-spaces-truncated.txt", 8, 12, {{"GPU0", "GPU7", "NV12"}, {"GPU3", "GPU4", "NV12"}, {"GPU4", "GPU5", ""}},
       {{"GPU0", {"NIC0", "NIC1"}, "PXB"}, {"GPU2", {"NIC2", "NIC3"}, "PXB"}, {"GPU5", {}, ""}},
       {{"GPU0", "48-63,176-191", "3"}, {"GPU2", "16-31,144-159", "1"}}, {}, {"missing_rows"}, 6},
      {"dgx1-v100-hybrid-cube-mesh-mlx5-old-legend.txt", 8, 4,
       {{"GPU0", "GPU1", "NV1"}, {"GPU0", "GPU3", "NV2"}, {"GPU0", "GPU5", "SYS"}, {"GPU4", "GPU7", "NV2"}, {"GPU3", "GPU7", "NV1"}},
       {{"GPU0", {"mlx5_0"}, "PIX"}, {"GPU2", {"mlx5_1"}, "PIX"}, {"GPU4", {"mlx5_2"}, "PIX"}, {"GPU7", {"mlx5_3"}, "PIX"}},
       {{"GPU0", "0-19,40-59", std::nullopt}, {"GPU7", "20-39,60-79", std::nullopt}}, {{"mixed_nvlink", {"GPU0", "GPU5", "GPU6", "GPU7", "GPU1", "GPU4", "GPU2", "GPU3"}, ""}}, {}, 0},
      {"dgx2-16x-v100-nv6-nvswitch-10mlx5-old-driver-truncated.txt", 16, 10, {{"GPU0", "GPU15", "NV6"}, {"GPU3", "GPU9", "NV6"}, {"GPU4", "GPU5", ""}},
       {{"GPU0", {"mlx5_0"}, "PIX"}, {"GPU3", {"mlx5_1"}, "PIX"}}, {{"GPU0", "0-23,48-71", std::nullopt}}, {}, {"missing_rows"}, 66},
      {"gb200-4gpu-nv18-truncated-legend.txt", 4, 0, {{"GPU0", "GPU3", "NV18"}}, {}, {{"GPU0", "0-71", "0"}, {"GPU3", "72-143", "1"}},
       {}, {"legend_incomplete"}, 0},
      {"homelab-rtx3090-plus-2x-v100-sxm2-nv6-ansi.txt", 3, 0, {{"GPU1", "GPU2", "NV6"}, {"GPU0", "GPU1", "NODE"}}, {},
       {{"GPU2", "0-63", "0"}}, {{"mixed_nvlink", {"GPU0", "GPU1", "GPU2"}, ""}}, {"ansi"}, 0},
      {"hpe-dl380a-gen11-2x-h100-pcie-nvlink-bridge.txt", 2, 0, {{"GPU0", "GPU1", "NV12"}}, {}, {{"GPU0", "32-63,96-127", "1"}}, {}, {}, 0},
      {"microway-4x-k80-mlx4-soc-legend-very-old.txt", 4, 1, {{"GPU0", "GPU1", "PIX"}, {"GPU2", "GPU3", "PIX"}, {"GPU1", "GPU2", "PHB"}},
       {{"GPU0", {"mlx4_0"}, "PHB"}}, {{"GPU0", "0-11", std::nullopt}}, {}, {}, 0},
      {"ml-engineering-2x-gpu-nv2-old-driver.txt", 2, 0, {{"GPU0", "GPU1", "NV2"}}, {}, {{"GPU0", "0-23", "N/A"}}, {}, {}, 0},
      {"ml-engineering-2x-gpu-phb-old-driver.txt", 2, 0, {{"GPU0", "GPU1", "PHB"}}, {}, {{"GPU1", "0-11", "N/A"}}, {}, {}, 0},
      {"ml-engineering-8x-h100-nv18-no-nic.txt", 8, 0, {{"GPU0", "GPU7", "NV18"}}, {},
       {{"GPU0", "0-51,104-155", "0"}, {"GPU7", "52-103,156-207", "1"}}, {}, {}, 0},
      {"princeton-della-8x-h100-nv18-6nic-empty-cpu-affinity.txt", 8, 6, {{"GPU0", "GPU7", "NV18"}},
       {{"GPU0", {"NIC0", "NIC1"}, "PIX"}, {"GPU3", {"NIC2"}, "PIX"}, {"GPU4", {"NIC3", "NIC4"}, "PIX"}, {"GPU6", {"NIC5"}, "PIX"},
        {"GPU1", Nics("NIC", 0, 5), "NODE"}},
       {{"GPU0", "", "0"}, {"GPU4", "1", "1"}, {"NIC0", std::nullopt, std::nullopt}}, {}, {}, 0},
      {"siboehm-3x-rtx-a6000-nv4-pair-ansi.txt", 3, 0, {{"GPU0", "GPU1", "NV4"}, {"GPU0", "GPU2", "NODE"}}, {},
       {{"GPU1", "0-31,64-95", "0"}}, {{"mixed_nvlink", {"GPU0", "GPU2", "GPU1"}, ""}}, {"ansi"}, 0},
  };
  return g;
}

size_t Index(const TopologyMatrix& m, const std::string& name) {
  for (size_t i = 0; i < m.devices.size(); ++i) {
    if (m.devices[i].name == name) return i;
  }
  ADD_FAILURE() << "no device " << name;
  return 0;
}

class TopoGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(TopoGolden, ReadsWhatTheCaptureSays) {
  const Golden& g = GetParam();
  std::string text = Read(kDir / g.file);
  ASSERT_TRUE(LooksLikeTopologyMatrix(text));
  auto m = ParseTopologyMatrix(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->Gpus().size(), g.gpus);
  EXPECT_EQ(m->Nics().size(), g.nics);
  for (const auto& p : g.pairs) {
    auto link = m->Link(Index(*m, p.a), Index(*m, p.b));
    if (p.code.empty()) {
      EXPECT_FALSE(link.has_value()) << p.a << "-" << p.b;
    } else {
      ASSERT_TRUE(link.has_value()) << p.a << "-" << p.b;
      EXPECT_EQ(link->code, p.code) << p.a << "-" << p.b;
    }
  }
  for (const auto& n : g.nearest) {
    auto nearest = NearestNicsOf(*m, Index(*m, n.gpu));
    std::vector<std::string> names;
    for (size_t i : nearest.nics) names.push_back(m->devices[i].name);
    EXPECT_EQ(names, n.nics) << n.gpu;
    if (!n.nics.empty()) {
      EXPECT_EQ(nearest.link.code, n.code) << n.gpu;
    }
  }
  for (const auto& a : g.affinity) {
    const auto& d = m->devices[Index(*m, a.device)];
    EXPECT_EQ(d.cpu_affinity, a.cpu) << a.device;
    EXPECT_EQ(d.numa_affinity, a.numa) << a.device;
  }
  auto findings = AssessTopology(*m);
  ASSERT_EQ(findings.size(), g.findings.size()) << g.file;
  for (size_t i = 0; i < findings.size(); ++i) {
    EXPECT_EQ(findings[i].id, g.findings[i].id);
    EXPECT_EQ(findings[i].variant, g.findings[i].variant);
    if (!g.findings[i].devices.empty()) {
      EXPECT_EQ(findings[i].devices, g.findings[i].devices) << findings[i].id;
    }
  }
  std::set<std::string> notes;
  for (const auto& n : m->notes) notes.insert(n.id);
  EXPECT_EQ(notes, g.notes);
  size_t unknown = 0;
  auto gpus = m->Gpus();
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) unknown += m->Link(gpus[i], gpus[j]) ? 0 : 1;
  }
  EXPECT_EQ(unknown, g.unknown_pairs);
}

INSTANTIATE_TEST_SUITE_P(TopoM, TopoGolden, ::testing::ValuesIn(Goldens()), [](const ::testing::TestParamInfo<Golden>& param_info) {
  std::string name = param_info.param.file.substr(0, param_info.param.file.find(".txt"));
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
});

// A fixture added without expectations fails here, so every capture is checked.
TEST(TopoGoldenCoverage, EveryFixtureHasExpectations) {
  std::set<std::string> files, expected;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) files.insert(entry.path().filename().string());
  for (const auto& g : Goldens()) expected.insert(g.file);
  EXPECT_EQ(files, expected);
}

TEST(TopoMatrix, GluedCellsLandInTheirColumns) {
  auto m = ParseTopologyMatrix(Read(kDir / "8x-h100-nv18-12nic-glued-cells-truncated.txt"));
  ASSERT_TRUE(m.ok());
  // "NODEPXB" in GPU5's row is NIC8 NODE then NIC9 PXB.
  EXPECT_EQ(m->Link(Index(*m, "GPU5"), Index(*m, "NIC8"))->code, "NODE");
  EXPECT_EQ(m->Link(Index(*m, "GPU5"), Index(*m, "NIC10"))->code, "NODE");
  EXPECT_EQ(m->Link(Index(*m, "GPU4"), Index(*m, "NIC11"))->code, "NODE");
}

TEST(TopoMatrix, NicLegendNamesTheNics) {
  auto m = ParseTopologyMatrix(Read(kDir / "8x-rtx4090-pix-switch-per-socket-bond-nic.txt"));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->devices[Index(*m, "NIC0")].nic_device, "mlx5_bond_0");
  EXPECT_TRUE(m->legend_seen);
  EXPECT_NE(std::find(m->legend_codes.begin(), m->legend_codes.end(), "NV#"), m->legend_codes.end());
}

TEST(TopoMatrix, OldSocCodeIsTheSocketInterconnect) {
  EXPECT_EQ(ParseLinkCode("SOC").kind, LinkKind::kSys);
  EXPECT_EQ(ParseLinkCode("NV18").nvlinks, 18);
  EXPECT_EQ(ParseLinkCode(" X ").kind, LinkKind::kSelf);
  EXPECT_EQ(ParseLinkCode("NV").kind, LinkKind::kUnknown);
  EXPECT_EQ(ParseLinkCode("NV99999999999").kind, LinkKind::kUnknown);
}

// Synthetic (written here, not a capture): one pair of an NVSwitch box at NV17 while the rest
// are NV18 is a link down; DGX-1's even split of NV1 and NV2 is not.
TEST(TopoFindings, FewerLinksOnlyWhenAMinority) {
  std::string text =
      "\tGPU0\tGPU1\tGPU2\tCPU Affinity\n"
      "GPU0\t X \tNV18\tNV17\t0-7\n"
      "GPU1\tNV18\t X \tNV18\t0-7\n"
      "GPU2\tNV17\tNV18\t X \t0-7\n";
  auto m = ParseTopologyMatrix(text);
  ASSERT_TRUE(m.ok());
  auto f = AssessTopology(*m);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nvlink_fewer_links");
  EXPECT_EQ(f[0].devices, (std::vector<std::string>{"GPU0", "GPU2"}));

  auto dgx1 = ParseTopologyMatrix(Read(kDir / "dgx1-v100-hybrid-cube-mesh-mlx5-old-legend.txt"));
  ASSERT_TRUE(dgx1.ok());
  for (const auto& finding : AssessTopology(*dgx1)) EXPECT_NE(finding.id, "nvlink_fewer_links");
}

// Synthetic: a row whose cells shifted (X off the diagonal) is not used, and says so.
TEST(TopoMatrix, MisalignedRowIsNotUsed) {
  std::string text =
      "\tGPU0\tGPU1\n"
      "GPU0\t X \tPHB\n"
      "GPU1\t X \tPHB\n";
  auto m = ParseTopologyMatrix(text);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->devices[1].has_row);
  EXPECT_EQ(m->Link(0, 1)->code, "PHB");
  bool noted = std::any_of(m->notes.begin(), m->notes.end(), [](const TopoNote& n) { return n.id == "diagonal" && n.device == "GPU1"; });
  EXPECT_TRUE(noted);
}

TEST(TopoMatrix, NotAMatrix) {
  // topo -p2p has the same shape but P2P status codes, not links.
  for (const char* p2p : {"2x-rtx5090-topo-p2p-rw-gns.txt", "autodl-2x-rtx2080ti-topo-p2p-p.txt"}) {
    EXPECT_FALSE(LooksLikeTopologyMatrix(Read(kDir.parent_path() / "nvlink" / p2p))) << p2p;
  }
  EXPECT_TRUE(LooksLikeTopologyMatrix("\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-7\t0\n"));  // synthetic: one GPU
  EXPECT_FALSE(LooksLikeTopologyMatrix("GPU 0: NVIDIA H100 (UUID: GPU-x)\n\t Link 0: 26.562 GB/s\n"));
  EXPECT_FALSE(LooksLikeTopologyMatrix(""));
  EXPECT_FALSE(ParseTopologyMatrix("hello\n").ok());
  EXPECT_FALSE(ParseTopologyMatrix("\tGPU0\tGPU1\n").ok());
}

// Every prefix of every capture (a capture cut anywhere) and every capture with one byte
// changed parses or fails cleanly.
TEST(TopoMatrix, CutAnywhereNeverCrashes) {
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    std::string text = Read(entry.path());
    for (size_t cut = 0; cut < text.size(); cut += 29) {
      auto m = ParseTopologyMatrix(std::string_view(text).substr(0, cut));
      if (m.ok()) (void)AssessTopology(*m);
      std::string changed = text;
      changed[cut] = "\t \nX9"[cut % 5];
      auto c = ParseTopologyMatrix(changed);
      if (c.ok()) (void)AssessTopology(*c);
    }
  }
}

TEST(TextCells, KeepsEmptyTabCellsAndDropsEscapes) {
  EXPECT_EQ(cells::SplitTabs("GPU0\t X \t\t0\t"), (std::vector<std::string>{"GPU0", "X", "", "0", ""}));
  EXPECT_EQ(cells::SplitWhitespace("  NV18   PIX\t0-7 "), (std::vector<std::string>{"NV18", "PIX", "0-7"}));
  bool stripped = false;
  EXPECT_EQ(cells::StripAnsi("\x1b[4mGPU0\tGPU1\x1b[0m", &stripped), "GPU0\tGPU1");
  EXPECT_TRUE(stripped);
  EXPECT_EQ(cells::Lines("a\r\nb\n"), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace gpuprobe::telemetry
