// Label "gpu": every GPU benchmark on a real device, small sizes: it prepares, runs, verifies,
// and a damaged result fails verification (scripts/gpu-check runs this).
#include <gtest/gtest.h>

#include "bench/cpu/cpu_context.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

std::vector<std::string> GpuIds() {
  BenchmarkRegistry registry;
  RegisterAllBenchmarks(&registry);
  std::vector<std::string> ids;
  for (const auto& b : registry.all()) {
    for (const auto& backend : b->Info().backends) {
      if (backend == "cuda") ids.push_back(b->Info().id);
    }
  }
  return ids;
}

class EveryGpuBenchmark : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryGpuBenchmark, RunsVerifiesAndCatchesADamagedResult) {
  BenchmarkRegistry registry;
  RegisterAllBenchmarks(&registry);
  BackendRegistry backends;
  RegisterCudaBackend(&backends);
  auto context = backends.Find("cuda")->Open(0);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  (*context)->set_requested_seconds(2);  // burn: a short load is enough to check it
  const Benchmark* b = registry.Find(GetParam());
  ASSERT_NE(b, nullptr);
  model::CpuSpec cpu;
  std::uint64_t size = b->Info().group == "memory" || b->Info().group == "transfer" ? (16ull << 20) : 0;
  auto cases = b->Cases(**context, cpu, false, size);
  ASSERT_FALSE(cases.empty());
  for (auto& c : cases) c.backend = "cuda";
  const BenchCase& c = cases.front();
  ASSERT_TRUE(b->Check(**context, c).available) << b->Check(**context, c).reason;
  auto instance = b->Prepare(**context, c);
  ASSERT_TRUE(instance.ok()) << instance.status().ToString();
  for (int i = 0; i < 2; ++i) {
    auto seconds = (*instance)->RunOnce();
    ASSERT_TRUE(seconds.ok()) << seconds.status().ToString();
    EXPECT_GT(*seconds, 0);
  }
  Verification ok = (*instance)->Verify();
  EXPECT_TRUE(ok.verified) << ok.detail;
  ASSERT_TRUE((*instance)->CorruptForTest());
  EXPECT_FALSE((*instance)->Verify().verified) << GetParam() << ": a damaged result passed verification";
}

INSTANTIATE_TEST_SUITE_P(Cuda, EveryGpuBenchmark, ::testing::ValuesIn(GpuIds()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace gpuprobe::bench

namespace gpuprobe::bench {
namespace {

// The same inputs on the CPU and on the GPU give the same checksum: the shared-id suites
// whose verification value means the same on both sides.
Verification RunOn(BackendContext& context, const Benchmark& b, std::uint64_t size) {
  model::CpuSpec cpu;
  auto cases = b.Cases(context, cpu, false, 0);
  for (auto& c : cases) {
    if (size != 0 && c.size != size) continue;
    auto instance = b.Prepare(context, c);
    if (!instance.ok()) return {};
    if (!(*instance)->RunOnce().ok()) return {};
    return (*instance)->Verify();
  }
  return {};
}

TEST(CpuAndGpu, SameInputsSameChecksums) {
  BenchmarkRegistry registry;
  RegisterAllBenchmarks(&registry);
  BackendRegistry backends;
  RegisterCpuBackend(&backends);
  RegisterCudaBackend(&backends);
  auto gpu = backends.Find("cuda")->Open(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  auto cpu = backends.Find("cpu")->Open(0);
  ASSERT_TRUE(cpu.ok());
  for (const char* id : {"divergence.serial_thread", "crossover.vector", "crossover.matmul"}) {
    const Benchmark* b = registry.Find(id);
    ASSERT_NE(b, nullptr) << id;
    std::uint64_t size = std::string(id) == "crossover.vector" ? (64ull << 10) : std::string(id) == "crossover.matmul" ? 256 : 0;
    Verification on_cpu = RunOn(**cpu, *b, size);
    Verification on_gpu = RunOn(**gpu, *b, size);
    EXPECT_TRUE(on_cpu.verified) << id << ": " << on_cpu.detail;
    EXPECT_TRUE(on_gpu.verified) << id << ": " << on_gpu.detail;
    EXPECT_EQ(on_cpu.checksum, on_gpu.checksum) << id;
  }
}

}  // namespace
}  // namespace gpuprobe::bench
