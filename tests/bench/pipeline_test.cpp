// The whole bench flow (select, probe, open, run, verify, predict, document) driven through a
// fake host: no GPU, no timing. Every verb that measures uses this one pipeline.
#include "bench/pipeline.h"

#include <gtest/gtest.h>

#include "fakes/fake_benchmark.h"

namespace gpuprobe::bench {
namespace {

// Reports the --seconds it was given when the pipeline lets go of it.
class FakeContext : public BackendContext {
 public:
  FakeContext(std::string name, std::string device, std::vector<double>* seconds_seen)
      : name_(std::move(name)), seconds_seen_(seconds_seen) {
    device_.backend = name_;
    device_.name = std::move(device);
  }
  ~FakeContext() override { seconds_seen_->push_back(requested_seconds()); }
  std::string BackendName() const override { return name_; }
  const DeviceInfo& Device() const override { return device_; }

 private:
  std::string name_;
  DeviceInfo device_;
  std::vector<double>* seconds_seen_;
};

// A scripted host: a CPU always, a GPU when `gpu_available`.
class FakeHost : public BenchHost {
 public:
  bool gpu_available = true;
  int cpu_opens = 0;
  std::vector<double> seconds_seen;  ///< one entry per context, when it is closed

  Cpu OpenCpu(int threads, double clock_probe_seconds) override {
    ++cpu_opens;
    model::CpuSpec spec;
    spec.model_name = "Fake CPU";
    spec.physical_cores = threads > 0 ? threads : 2;
    spec.measured_clock_hz = clock_probe_seconds > 0 ? 3e9 : 0;
    return {std::make_unique<FakeContext>("cpu", "Fake CPU", &seconds_seen), spec};
  }
  Availability ProbeGpu() override {
    return gpu_available ? Availability::Yes() : Availability::No("no NVIDIA driver found", "install the driver");
  }
  core::Result<std::unique_ptr<BackendContext>> OpenGpu(int) override {
    if (!gpu_available) return core::Status::Unavailable("no GPU");
    return std::unique_ptr<BackendContext>(std::make_unique<FakeContext>("cuda", "Fake GPU", &seconds_seen));
  }
};

// One case per context; each iteration moves `bytes` and takes 1 ms of fake time.
class FakeCopy : public Benchmark {
 public:
  FakeCopy(std::string name, std::vector<std::string> backends, bool correct = true) : correct_(correct) {
    info_ = MakeBenchmarkInfo("memory", name, name, "fake", "claim", Metric::kBandwidth, std::move(backends));
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& c, const model::CpuSpec&, bool, std::uint64_t size) const override {
    return {BenchCase(c.BackendName() + " case", size > 0 ? size : 1000, 0, 0, "")};
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.bytes_read = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase& c) const override {
    return {static_cast<double>(c.size) / 1e-3 * 2, "twice as fast as it is"};
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext&, const BenchCase&) const override {
    return std::unique_ptr<BenchmarkInstance>(new testing::FakeInstance({1e-3}, correct_));
  }

 private:
  BenchmarkInfo info_;
  bool correct_;
};

BenchmarkRegistry Registry() {
  BenchmarkRegistry registry;
  registry.Add(std::make_unique<FakeCopy>("copy", std::vector<std::string>{"cpu"}));
  registry.Add(std::make_unique<FakeCopy>("copy", std::vector<std::string>{"cuda"}));
  registry.Add(std::make_unique<FakeCopy>("wrong", std::vector<std::string>{"cpu"}, false));
  return registry;
}

PipelineRequest Request(std::vector<std::string> patterns) {
  PipelineRequest r;
  r.patterns = std::move(patterns);
  r.settings.runner.now = [] { return 0.0; };  // the wall-clock cap never triggers
  return r;
}

TEST(PipelineTest, RunsCpuAndGpuSideBySideIntoOneDocument) {
  BenchmarkRegistry registry = Registry();
  FakeHost host;
  PipelineRequest request = Request({"memory.copy"});
  request.requested_seconds = 7;
  int progress_calls = 0;
  auto doc = RunPipeline(registry, host, request, [&](const CaseProgress&) { ++progress_calls; });
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->cpu.model_name, "Fake CPU");
  EXPECT_EQ(doc->cpu.measured_clock_hz, 3e9);
  EXPECT_EQ(doc->gpus, std::vector<std::string>{"GPU 0: Fake GPU"});
  EXPECT_TRUE(doc->gpu_absent_reason.empty());
  ASSERT_EQ(doc->results.size(), 2u);
  EXPECT_EQ(doc->results[0].backend, "cpu") << "CPU results first, so GPU predictions can build on them";
  EXPECT_EQ(doc->results[1].backend, "cuda");
  for (const auto& r : doc->results) {
    EXPECT_TRUE(r.verified);
    EXPECT_DOUBLE_EQ(r.value, 1000 / 1e-3);  // work / median time
    ASSERT_TRUE(r.efficiency.has_value());
    EXPECT_DOUBLE_EQ(*r.efficiency, 0.5);
  }
  EXPECT_EQ(progress_calls, 2);
  EXPECT_EQ(host.seconds_seen, (std::vector<double>{7, 7})) << "both contexts got --seconds";
}

TEST(PipelineTest, WithoutAGpuTheCpuRunsAloneAndTheReasonIsKept) {
  BenchmarkRegistry registry = Registry();
  FakeHost host;
  host.gpu_available = false;
  auto doc = RunPipeline(registry, host, Request({"memory"}));
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE(doc->gpus.empty());
  EXPECT_EQ(doc->gpu_absent_reason, "no NVIDIA driver found");
  for (const auto& r : doc->results) EXPECT_EQ(r.backend, "cpu");
  // The wrong benchmark's result is kept and marked, never dropped.
  ASSERT_EQ(doc->ResultsOf("memory.wrong", "cpu").size(), 1u);
  EXPECT_FALSE(doc->ResultsOf("memory.wrong", "cpu")[0]->verified);
}

TEST(PipelineTest, GpuAloneWithoutAGpuIsExit3BeforeAnyCpuWork) {
  BenchmarkRegistry registry = Registry();
  FakeHost host;
  host.gpu_available = false;
  PipelineRequest request = Request({"memory.copy"});
  request.backend = "cuda";
  auto doc = RunPipeline(registry, host, request);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), core::StatusCode::kUnavailable);
  EXPECT_EQ(host.cpu_opens, 0);
}

TEST(PipelineTest, BadSelectionsAreRefusedBeforeMeasuring) {
  BenchmarkRegistry registry = Registry();
  FakeHost host;
  auto typo = RunPipeline(registry, host, Request({"memory.cpoy"}));
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("did you mean 'memory.copy'"), std::string::npos) << typo.status().message();
  PipelineRequest backend = Request({});
  backend.backend = "rocm";
  EXPECT_FALSE(RunPipeline(registry, host, backend).ok());
  EXPECT_EQ(host.cpu_opens, 0);
}

TEST(PipelineTest, AFixedListSkipsIdsThisBuildLacks) {
  BenchmarkRegistry registry = Registry();
  FakeHost host;
  PipelineRequest request = Request({"memory.copy", "matmul.cublas_bf16"});
  request.skip_unknown_ids = true;
  auto doc = RunPipeline(registry, host, request);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->results.size(), 2u);
}

TEST(PipelineTest, ARegistryWithAnErrorIsRefused) {
  BenchmarkRegistry registry = Registry();
  registry.Add(std::make_unique<FakeCopy>("copy", std::vector<std::string>{"cpu"}));  // twice on the CPU
  FakeHost host;
  auto doc = RunPipeline(registry, host, Request({}));
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), core::StatusCode::kInternal);
}

}  // namespace
}  // namespace gpuprobe::bench
