// A --size held to the machine before anything is allocated: each benchmark's declared
// buffers against a scripted free-memory figure (no real allocation, no /proc read).
#include "bench/memory_budget.h"

#include <gtest/gtest.h>

#include "bench/pipeline.h"
#include "bench/registry.h"
#include "fakes/fake_benchmark.h"

namespace gpuprobe::bench {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

class ScriptedContext : public BackendContext {
 public:
  ScriptedContext(std::string backend, double free_bytes) : backend_(std::move(backend)) {
    device_.backend = backend_;
    device_.name = "scripted " + backend_;
    device_.memory_free_bytes = static_cast<std::uint64_t>(free_bytes);
  }
  std::string BackendName() const override { return backend_; }
  const DeviceInfo& Device() const override { return device_; }
  int Threads() const override { return 2; }

 private:
  std::string backend_;
  DeviceInfo device_;
};

std::vector<const Benchmark*> Select(const BenchmarkRegistry& registry, const std::string& pattern) {
  auto selection = registry.Select({pattern});
  EXPECT_TRUE(selection.ok());
  return selection.ok() ? *selection : std::vector<const Benchmark*>{};
}

TEST(MemoryBudget, MemAvailableIsReadInKiB) {
  // The layout of a real /proc/meminfo (values made up).
  const std::string meminfo = "MemTotal:       16318452 kB\nMemFree:         1039060 kB\nMemAvailable:   12582912 kB\nBuffers: 1 kB\n";
  EXPECT_EQ(MemAvailableBytes(meminfo), 12582912ull * 1024);
  EXPECT_FALSE(MemAvailableBytes("MemTotal: 16318452 kB\n").has_value()) << "kernels before 3.14 have no MemAvailable";
  EXPECT_FALSE(MemAvailableBytes("MemAvailable: kB\n").has_value());
}

TEST(MemoryBudget, TriadCountsItsThreeArraysAndSaysTheLargestSizeThatFits) {
  BenchmarkRegistry registry;
  RegisterCpuBenchmarks(&registry);
  ScriptedContext cpu("cpu", 16 * kGiB);
  std::vector<BackendContext*> contexts{&cpu};
  auto selection = Select(registry, "memory.triad");
  const std::uint64_t size = static_cast<std::uint64_t>(100 * kGiB);
  auto miss = FindMemoryShortfall(selection, contexts, contexts[0], model::CpuSpec{}, false, size);
  ASSERT_TRUE(miss.has_value());
  EXPECT_EQ(miss->id, "memory.triad");
  EXPECT_FALSE(miss->device);
  EXPECT_DOUBLE_EQ(miss->bytes, 300 * kGiB) << "a, b and c: three arrays of --size";
  EXPECT_DOUBLE_EQ(miss->free_bytes, 16 * kGiB);
  // The largest size fits, the next array element does not; it is near 90% of 16 GiB / 3.
  EXPECT_FALSE(FindMemoryShortfall(selection, contexts, contexts[0], model::CpuSpec{}, false, miss->largest_size).has_value());
  EXPECT_TRUE(FindMemoryShortfall(selection, contexts, contexts[0], model::CpuSpec{}, false, miss->largest_size + 8).has_value());
  EXPECT_NEAR(static_cast<double>(miss->largest_size), 0.9 * 16 * kGiB / 3, 8);

  core::Status status = MemoryShortfallStatus(*miss, size);
  EXPECT_EQ(status.code(), core::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("--size 100 GiB"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("would allocate 300 GiB of RAM"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("the largest --size that fits is 4.80 GiB"), std::string::npos) << status.message();
  EXPECT_EQ(status.message().find("NVIDIA"), std::string::npos);
}

TEST(MemoryBudget, MatmulOrderIsHeldToRamAndAnsweredAsAnOrder) {
  BenchmarkRegistry registry;
  RegisterCpuBenchmarks(&registry);
  ScriptedContext cpu("cpu", 4 * kGiB);
  std::vector<BackendContext*> contexts{&cpu};
  auto selection = Select(registry, "matmul");
  auto miss = FindMemoryShortfall(selection, contexts, contexts[0], model::CpuSpec{}, false, 1000000);
  ASSERT_TRUE(miss.has_value());
  EXPECT_EQ(miss->id.rfind("matmul.", 0), 0u) << miss->id;
  // The fp64 rung holds 3 n^2 doubles: n <= sqrt(0.9 * 4 GiB / 24).
  EXPECT_NEAR(static_cast<double>(miss->largest_size), 12691, 2);
  core::Status status = MemoryShortfallStatus(*miss, 1000000);
  EXPECT_NE(status.message().find("--size 1000000:"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("fits is 1269"), std::string::npos) << status.message();
  // With more RAM the answer is the largest order the benchmarks accept (16384), not one they
  // would skip.
  ScriptedContext big("cpu", 64 * kGiB);
  std::vector<BackendContext*> big_contexts{&big};
  auto capped = FindMemoryShortfall(selection, big_contexts, big_contexts[0], model::CpuSpec{}, false, 1000000);
  ASSERT_TRUE(capped.has_value());
  EXPECT_EQ(capped->largest_size, 16384u);
  // Within the budget nothing is refused, and without --size nothing is checked.
  EXPECT_FALSE(FindMemoryShortfall(selection, contexts, contexts[0], model::CpuSpec{}, false, 4096).has_value());
  EXPECT_FALSE(FindMemoryShortfall(selection, contexts, contexts[0], model::CpuSpec{}, false, 0).has_value());
}

TEST(MemoryBudget, UnknownFreeMemoryChecksNothing) {
  BenchmarkRegistry registry;
  RegisterCpuBenchmarks(&registry);
  ScriptedContext cpu("cpu", 0);
  std::vector<BackendContext*> contexts{&cpu};
  EXPECT_FALSE(FindMemoryShortfall(Select(registry, "memory"), contexts, &cpu, model::CpuSpec{}, false, 1ull << 50).has_value());
}

// A GPU benchmark that declares its device buffers (two arrays of --size bytes).
class DeviceBuffers : public Benchmark {
 public:
  DeviceBuffers() { info_ = MakeBenchmarkInfo("memory", "device", "device", "fake", "claim", Metric::kBandwidth, {"cuda"}); }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t size) const override {
    return {BenchCase("one case", size > 0 ? size : 1024, 0, 0, "")};
  }
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    Footprint f;
    f.device_bytes = 2.0 * static_cast<double>(c.size);
    f.host_bytes = static_cast<double>(c.size);  // a pinned staging buffer: not the GPU's memory
    return f;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.bytes_read = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override { return {}; }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext&, const BenchCase&) const override {
    ++prepared;
    return std::unique_ptr<BenchmarkInstance>(new testing::FakeInstance({1e-3}, true));
  }
  mutable int prepared = 0;

 private:
  BenchmarkInfo info_;
};

TEST(MemoryBudget, GpuCasesAreHeldToTheGpusFreeMemory) {
  BenchmarkRegistry registry;
  auto owned = std::make_unique<DeviceBuffers>();
  registry.Add(std::move(owned));
  ScriptedContext gpu("cuda", 80 * kGiB);
  ScriptedContext host("cpu", 256 * kGiB);  // --backend cuda: the CPU context is not run, its RAM still counts
  std::vector<BackendContext*> contexts{&gpu};
  auto selection = Select(registry, "memory.device");
  auto miss = FindMemoryShortfall(selection, contexts, &host, model::CpuSpec{}, false, static_cast<std::uint64_t>(40 * kGiB));
  ASSERT_TRUE(miss.has_value());
  EXPECT_TRUE(miss->device);
  EXPECT_DOUBLE_EQ(miss->bytes, 80 * kGiB);
  EXPECT_NEAR(static_cast<double>(miss->largest_size), 36 * kGiB, 1);
  EXPECT_NE(MemoryShortfallStatus(*miss, static_cast<std::uint64_t>(40 * kGiB)).message().find("of GPU memory"), std::string::npos);
  // Its pinned staging buffer is held to the RAM: 20 GiB on the host of a 16 GiB machine.
  ScriptedContext small_host("cpu", 16 * kGiB);
  auto host_miss = FindMemoryShortfall(selection, contexts, &small_host, model::CpuSpec{}, false, static_cast<std::uint64_t>(20 * kGiB));
  ASSERT_TRUE(host_miss.has_value());
  EXPECT_FALSE(host_miss->device);
  EXPECT_DOUBLE_EQ(host_miss->bytes, 20 * kGiB);
  EXPECT_NE(MemoryShortfallStatus(*host_miss, static_cast<std::uint64_t>(20 * kGiB)).message().find("of RAM"), std::string::npos);
}

// The pipeline refuses before a buffer is prepared.
class ScriptedHost : public BenchHost {
 public:
  double ram_free = 0;
  Cpu OpenCpu(int, double) override {
    model::CpuSpec spec;
    spec.physical_cores = 2;
    return {std::make_unique<ScriptedContext>("cpu", ram_free), spec};
  }
  Availability ProbeGpu() override { return Availability::No("no NVIDIA driver found"); }
  core::Result<std::unique_ptr<BackendContext>> OpenGpu(int) override { return core::Status::Unavailable("no GPU"); }
};

TEST(MemoryBudget, PipelineRefusesBeforeAllocating) {
  BenchmarkRegistry registry;
  RegisterCpuBenchmarks(&registry);
  ScriptedHost host;
  host.ram_free = 4 * kGiB;
  PipelineRequest request;
  request.patterns = {"matmul.openblas_dgemm"};
  request.backend = "cpu";
  request.clock_probe_seconds = 0;
  request.settings.size_override = 1000000;
  auto doc = RunPipeline(registry, host, request);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(doc.status().message_key(), "bench.error.size_exceeds_ram");
  EXPECT_EQ(doc.status().message().find("driver"), std::string::npos) << "a CPU case never blames the GPU driver";
}

}  // namespace
}  // namespace gpuprobe::bench
