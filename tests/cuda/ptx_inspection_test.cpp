// The GPU kernels as the compiler built them, checked without a GPU: the PTX of every CUDA
// source (compute_90, the real build's flags) and the ptxas report of the real compile (every
// architecture). Each throughput chain must do one arithmetic instruction per step per chain
// in its loop: a compiler that folds steps (as NVVM did with compile-time integer constants)
// makes the kernel do less work than the benchmark reports. No kernel may spill registers.
// Built everywhere; without the CUDA backend there is nothing to inspect and it says so.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bench/compute_chains.h"

namespace gpuprobe::bench {
namespace {

const std::string kInspectDir = GPUPROBE_CUDA_INSPECT_DIR;

#define GPUPROBE_SKIP_WITHOUT_CUDA()                                                               \
  if (kInspectDir.empty()) GTEST_SKIP() << "this build has no CUDA backend (no nvcc): no PTX to inspect"

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One kernel's PTX: its mangled name and its body, line by line.
struct Entry {
  std::string name;
  std::vector<std::string> lines;
};

std::vector<Entry> Entries(const std::string& ptx) {
  std::vector<Entry> entries;
  std::istringstream in(ptx);
  std::string line;
  static const std::regex kEntry(R"(^\s*(\.visible\s+)?\.entry\s+([A-Za-z0-9_$]+)\s*\()");
  bool inside = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kEntry)) {
      entries.push_back({m[2], {}});
      inside = true;
      continue;
    }
    if (inside) entries.back().lines.push_back(line);
  }
  return entries;
}

// The instructions of each loop: from a label to the last branch back to it.
std::vector<std::vector<std::string>> Loops(const Entry& entry) {
  std::vector<std::vector<std::string>> loops;
  static const std::regex kLabel(R"(^(\$L__[A-Za-z0-9_]+):)");
  for (size_t i = 0; i < entry.lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_search(entry.lines[i], m, kLabel)) continue;
    std::regex back("bra(\\.uni)?\\s+\\" + m[1].str() + ";");
    for (size_t j = entry.lines.size(); j-- > i + 1;) {
      if (std::regex_search(entry.lines[j], back)) {
        loops.emplace_back(entry.lines.begin() + static_cast<long>(i) + 1, entry.lines.begin() + static_cast<long>(j) + 1);
        break;
      }
    }
  }
  return loops;
}

// Instructions in `lines` whose opcode is `opcode` (inline-asm braces and predicates aside).
int Count(const std::vector<std::string>& lines, const std::string& opcode) {
  std::regex instruction("^\\s*\\{?\\s*(@!?%p[0-9]+\\s+)?" + std::regex_replace(opcode, std::regex("\\."), "\\.") + "\\s");
  int n = 0;
  for (const auto& line : lines) n += std::regex_search(line, instruction) ? 1 : 0;
  return n;
}

struct ChainExpectation {
  const char* source;     // the .cu file (without extension)
  const char* kernel;     // a piece of the mangled name
  const char* opcode;     // the step's instruction
  int per_iteration;      // steps per loop iteration x chains the thread runs
};

constexpr int kSteps = gpu::kChainUnroll;
constexpr int kChains = gpu::kChainsPerThread;

const ChainExpectation kChainsExpected[] = {
    {"compute_cuda", "ChainKernelINS1_8F32Chain", "fma.rn.f32", kSteps * kChains},
    {"compute_cuda", "ChainKernelINS1_8F64Chain", "fma.rn.f64", kSteps * kChains},
    {"compute_cuda", "ChainKernelINS1_8F16Chain", "fma.rn.f16x2", kSteps * kChains / 2},
    {"compute_cuda", "ChainKernelINS1_9Bf16Chain", "fma.rn.bf16x2", kSteps * kChains / 2},
    {"compute_cuda", "ChainKernelINS1_8I32Chain", "mad.lo.s32", kSteps * kChains},
    {"compute_cuda", "ChainKernelINS1_9Dp4aChain", "dp4a.s32.s32", kSteps * kChains},
    {"intops_cuda", "IntopsKernelIjLNS1_2OpE0", "mad.lo.s32", kSteps * kChains},   // int32 multiply-add
    {"intops_cuda", "IntopsKernelIyLNS1_2OpE1", "mul.lo.s64", kSteps * kChains},   // int64 multiply(-add)
    {"intops_cuda", "IntopsKernelIjLNS1_2OpE2", "div.u32", kSteps * kChains},      // int32 divide
    {"intops_cuda", "IntopsKernelIfLNS1_2OpE3", "fma.rn.f32", kSteps * kChains},
    {"intops_cuda", "IntopsKernelIdLNS1_2OpE4", "fma.rn.f64", kSteps * kChains},
};

const Entry* FindEntry(const std::vector<Entry>& entries, const std::string& piece) {
  for (const auto& e : entries) {
    if (e.name.find(piece) != std::string::npos) return &e;
  }
  return nullptr;
}

TEST(PtxInspectionTest, EveryThroughputChainDoesOneInstructionPerStepPerChain) {
  GPUPROBE_SKIP_WITHOUT_CUDA();
  std::map<std::string, std::vector<Entry>> by_source;
  for (const auto& expected : kChainsExpected) {
    auto& entries = by_source[expected.source];
    if (entries.empty()) entries = Entries(ReadFile(kInspectDir + "/ptx/" + expected.source + ".ptx"));
    ASSERT_FALSE(entries.empty()) << "no PTX for " << expected.source << " in " << kInspectDir;
    const Entry* entry = FindEntry(entries, expected.kernel);
    ASSERT_NE(entry, nullptr) << expected.kernel << " is not in " << expected.source << ".ptx";
    auto loops = Loops(*entry);
    ASSERT_EQ(loops.size(), 1u) << expected.kernel << ": the step loop must be the kernel's only loop";
    EXPECT_EQ(Count(loops[0], expected.opcode), expected.per_iteration)
        << expected.kernel << ": " << expected.opcode << " per loop iteration; fewer means the compiler folded steps "
        << "and the kernel does less work than it reports";
  }
}

TEST(PtxInspectionTest, TheSweepsLoadsBypassL1) {
  GPUPROBE_SKIP_WITHOUT_CUDA();
  auto entries = Entries(ReadFile(kInspectDir + "/ptx/memory_cuda.ptx"));
  const Entry* read = FindEntry(entries, "ReadKernel");
  ASSERT_NE(read, nullptr) << "memory.sweep's ReadKernel is not in memory_cuda.ptx";
  static const std::regex kLoad(R"(^\s*(@!?%p[0-9]+\s+)?ld\.global\.([a-z0-9.]+))");
  int cg = 0, vector_cg = 0;
  for (const auto& line : read->lines) {
    std::smatch m;
    if (!std::regex_search(line, m, kLoad)) continue;
    EXPECT_EQ(m[2].str().rfind("cg.", 0), 0u) << "a sweep load that may hit L1: " << line;
    cg += m[2].str().rfind("cg.", 0) == 0 ? 1 : 0;
    vector_cg += m[2].str().rfind("cg.v4", 0) == 0 ? 1 : 0;
  }
  EXPECT_GT(vector_cg, 0) << "no 16-byte .cg load in the sweep's loop";
  EXPECT_GT(cg, 0);
}

TEST(PtxInspectionTest, TheAccessKernelsIndexWithoutIntegerDivision) {
  // access.strided's index once compiled to div.u64 per load (~68 instructions per element):
  // small strides measured the division, not the sectors. No division or remainder may be
  // left in any access kernel.
  GPUPROBE_SKIP_WITHOUT_CUDA();
  auto entries = Entries(ReadFile(kInspectDir + "/ptx/access_cuda.ptx"));
  int kernels = 0;
  static const std::regex kDivision(R"(^\s*(@!?%p[0-9]+\s+)?(div|rem)\.)");
  for (const auto& entry : entries) {
    if (entry.name.find("AccessKernel") == std::string::npos) continue;
    ++kernels;
    for (const auto& line : entry.lines) EXPECT_FALSE(std::regex_search(line, kDivision)) << entry.name << ": " << line;
  }
  EXPECT_GT(kernels, 0) << "no AccessKernel in access_cuda.ptx";
}

// Instructions of `entry` matching `pattern` (a regex on the opcode, predicates aside).
int CountMatching(const Entry& entry, const std::string& pattern) {
  std::regex instruction("^\\s*\\{?\\s*(@!?%p[0-9]+\\s+)?" + pattern);
  int n = 0;
  for (const auto& line : entry.lines) n += std::regex_search(line, instruction) ? 1 : 0;
  return n;
}

TEST(PtxInspectionTest, TheTimedReadKernelsOnlyAddToTheirResult) {
  // No memset sits in a timed batch any more (it cost the L2 sweep 2-5%): the sweep, the
  // access patterns and dot add their checksum to the result with an atomic and never store
  // it, so it is zeroed once, the host counts the launches, and every launch is checked.
  GPUPROBE_SKIP_WITHOUT_CUDA();
  struct Expected {
    const char* source;
    const char* kernel;
  };
  for (const Expected& x : {Expected{"memory_cuda", "ReadKernel"}, Expected{"memory_cuda", "DotKernel"},
                            Expected{"access_cuda", "AccessKernel"}}) {
    auto entries = Entries(ReadFile(kInspectDir + "/ptx/" + x.source + ".ptx"));
    const Entry* entry = FindEntry(entries, x.kernel);
    ASSERT_NE(entry, nullptr) << x.kernel << " is not in " << x.source << ".ptx";
    EXPECT_GT(CountMatching(*entry, "(red|atom)\\.global\\.add\\."), 0) << x.kernel << ": no atomic add of the result";
    EXPECT_EQ(CountMatching(*entry, "st\\.global\\."), 0) << x.kernel << " stores to global memory: the result would need a reset";
  }
}

TEST(PtxInspectionTest, DotSumsInIntegersNotDoubles) {
  // memory.dot's products are multiples of 2^-20: summed as 64-bit integers they are exact,
  // and the check is equality. A double anywhere in the sum would bring back the tolerance.
  GPUPROBE_SKIP_WITHOUT_CUDA();
  auto entries = Entries(ReadFile(kInspectDir + "/ptx/memory_cuda.ptx"));
  const Entry* dot = FindEntry(entries, "DotKernel");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(CountMatching(*dot, "[a-z.]*\\.f64"), 0) << "fp64 arithmetic in the dot kernel";
  EXPECT_GE(CountMatching(*dot, "cvt\\.rzi\\.s64\\.f32"), 4) << "each product converted to fixed point (four per float4)";
  EXPECT_GE(CountMatching(*dot, "mul\\.rn\\.f32"), 4) << "each product rounded once to fp32, as STREAM's a*b";
  EXPECT_GT(CountMatching(*dot, "(red|atom)\\.global\\.add\\.u64"), 0);
}

TEST(PtxInspectionTest, CollectivesAndCopiesAreComparedOnTheDevice) {
  // Every element of every output is compared on its GPU: an error counter and the lowest
  // wrong index, both atomics, and no output element copied anywhere.
  GPUPROBE_SKIP_WITHOUT_CUDA();
  auto entries = Entries(ReadFile(kInspectDir + "/ptx/collective_data_cuda.ptx"));
  const Entry* compare = FindEntry(entries, "ComparePatternKernel");
  ASSERT_NE(compare, nullptr) << "no compare kernel in collective_data_cuda.ptx";
  EXPECT_GT(CountMatching(*compare, "(red|atom)\\.global\\.add\\.u64"), 0);
  EXPECT_GT(CountMatching(*compare, "(red|atom)\\.global\\.min\\.u64"), 0);
  EXPECT_EQ(CountMatching(*compare, "st\\.global\\."), 0);
}

TEST(PtxInspectionTest, NoKernelSpillsRegistersOnAnyArchitecture) {
  GPUPROBE_SKIP_WITHOUT_CUDA();
  static const std::regex kSpills(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kCompiling(R"(Compiling entry function '([^']+)' for 'sm_(\d+)')");
  std::vector<std::string> archs;
  for (const auto& a : Split(GPUPROBE_CUDA_ARCHS, ',')) archs.push_back(a.substr(0, a.find('-')));
  std::map<std::string, int> kernels_per_arch;  // over every source (transfer_cuda.cu has none)
  for (const auto& source : Split(GPUPROBE_CUDA_INSPECT_SOURCES, ',')) {
    std::string report = ReadFile(kInspectDir + "/ptxas/" + source + ".ptxas.txt");
    ASSERT_FALSE(report.empty()) << "no ptxas report for " << source << ".cu: the build did not capture -Xptxas -v";
    std::istringstream in(report);
    std::string line, kernel, arch;
    while (std::getline(in, line)) {
      std::smatch m;
      if (std::regex_search(line, m, kCompiling)) {
        kernel = m[1];
        arch = m[2];
        ++kernels_per_arch[arch];
      } else if (std::regex_search(line, m, kSpills)) {
        EXPECT_EQ(m[1], "0") << source << ": " << kernel << " spills registers (stores) on sm_" << arch;
        EXPECT_EQ(m[2], "0") << source << ": " << kernel << " spills registers (loads) on sm_" << arch;
      }
    }
  }
  for (const auto& a : archs) {
    EXPECT_GT(kernels_per_arch[a], 0) << "no kernel compiled for sm_" << a << " in the reports: they are not the real build's";
  }
}

}  // namespace
}  // namespace gpuprobe::bench
