// One id, two implementations: the registry merges them and every call reaches the
// implementation of the case's backend.
#include "bench/multi_backend.h"

#include <gtest/gtest.h>

#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

class FakeContext : public BackendContext {
 public:
  explicit FakeContext(std::string name) : name_(std::move(name)) { device_.backend = name_; }
  std::string BackendName() const override { return name_; }
  const DeviceInfo& Device() const override { return device_; }

 private:
  std::string name_;
  DeviceInfo device_;
};

class FakeBenchmark : public Benchmark {
 public:
  FakeBenchmark(const std::string& backend, double bytes, Metric metric = Metric::kBandwidth) : bytes_(bytes) {
    info_ = MakeBenchmarkInfo("memory", "triad", "Triad", backend + " triad", "claim", metric, {backend});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& c, const model::CpuSpec&, bool, std::uint64_t) const override {
    return {BenchCase(c.BackendName() + " case", 1, 0, 0, "")};
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.bytes_read = bytes_;
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.value = bytes_;
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext&, const BenchCase&) const override {
    return core::Status::Unavailable("fake");
  }

 private:
  double bytes_;
  BenchmarkInfo info_;
};

TEST(MultiBackendTest, RegistryMergesOneIdAcrossBackends) {
  BenchmarkRegistry registry;
  registry.Add(std::make_unique<FakeBenchmark>("cpu", 1));
  registry.Add(std::make_unique<FakeBenchmark>("cuda", 2));
  ASSERT_TRUE(registry.status().ok()) << registry.status().ToString();
  ASSERT_EQ(registry.all().size(), 1u);
  const Benchmark* b = registry.Find("memory.triad");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Info().backends, (std::vector<std::string>{"cpu", "cuda"}));
  EXPECT_NE(b->Info().description.find("cuda: cuda triad"), std::string::npos);

  model::CpuSpec cpu;
  FakeContext gpu_context("cuda"), cpu_context("cpu");
  auto gpu_cases = b->Cases(gpu_context, cpu, false, 0);
  ASSERT_EQ(gpu_cases.size(), 1u);
  EXPECT_EQ(gpu_cases[0].backend, "cuda");
  EXPECT_EQ(gpu_cases[0].label, "cuda case");
  EXPECT_DOUBLE_EQ(b->WorkFor(gpu_cases[0]).bytes_read, 2);
  auto cpu_cases = b->Cases(cpu_context, cpu, false, 0);
  EXPECT_DOUBLE_EQ(b->WorkFor(cpu_cases[0]).bytes_read, 1);
  std::vector<EarlierResult> earlier;
  EXPECT_DOUBLE_EQ(*b->Predict(PredictionContext{cpu, earlier, &gpu_context}, gpu_cases[0]).value, 2);
  EXPECT_TRUE(b->Cases(FakeContext("rocm"), cpu, false, 0).empty());
}

TEST(MultiBackendTest, OneIdMeasuredInTwoMetricsIsRefused) {
  BenchmarkRegistry registry;
  registry.Add(std::make_unique<FakeBenchmark>("cpu", 1, Metric::kBandwidth));
  registry.Add(std::make_unique<FakeBenchmark>("cuda", 2, Metric::kLatency));
  EXPECT_FALSE(registry.status().ok());
  EXPECT_NE(registry.status().message().find("declared differently"), std::string::npos);
  EXPECT_EQ(registry.Find("memory.triad")->Info().backends, (std::vector<std::string>{"cpu"}));
}

TEST(MultiBackendTest, SameBackendTwiceIsRefused) {
  BenchmarkRegistry registry;
  registry.Add(std::make_unique<FakeBenchmark>("cpu", 1));
  ASSERT_TRUE(registry.status().ok());
  registry.Add(std::make_unique<FakeBenchmark>("cpu", 2));
  EXPECT_FALSE(registry.status().ok());
  EXPECT_EQ(registry.all().size(), 1u);

  BenchmarkRegistry merged;
  merged.Add(std::make_unique<FakeBenchmark>("cpu", 1));
  merged.Add(std::make_unique<FakeBenchmark>("cuda", 2));
  ASSERT_TRUE(merged.status().ok());
  merged.Add(std::make_unique<FakeBenchmark>("cuda", 3));
  EXPECT_FALSE(merged.status().ok()) << "refused after a merge too";
}

}  // namespace
}  // namespace gpuprobe::bench
