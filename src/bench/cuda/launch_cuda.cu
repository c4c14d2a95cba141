// What starting GPU work costs, as three different numbers (METHOD.md 3.6) plus graphs and
// fusion: the launch call on the host, the synchronous round trip a request/response
// service pays, the per-kernel cost in a pipeline of small kernels issued by the host, the
// GPU's own rate for kernels queued ahead of it (the device-side launch rate), the same
// pipeline as a CUDA graph, and one fused kernel doing the pipeline's work.
#include <chrono>

#include <fmt/format.h>

#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "model/advisor.h"

namespace gpuprobe::bench {
namespace {

constexpr int kPipelineKernels = 100;   // kernels per graph / per fused launch
constexpr int kHostBatch = 200;         // launches per host-timed sample
constexpr int kPipelineLaunches = 1000; // host-issued launches per pipeline sample
constexpr int kGatedLaunches = 256;     // launches queued behind the gate (device-side rate)

// The smallest kernel that does observable work: one thread adds one to a counter.
__global__ void TickKernel(unsigned long long* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *counter += 1;
}

// The pipeline's work in one launch.
__global__ void FusedTickKernel(unsigned long long* counter, int ticks) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    for (int i = 0; i < ticks; ++i) *reinterpret_cast<volatile unsigned long long*>(counter) += 1;
  }
}

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

enum class Mode { kCall, kRoundTrip, kPipeline, kDeviceRate, kGraphInstantiate, kGraphFirst, kGraphRepeat, kFused };

struct ModeInfo {
  Mode mode;
  const char* name;
  const char* title;
  const char* description;
  double items;  // per RunOnce
};

const ModeInfo kModes[] = {
    {Mode::kCall, "call", "Launch call", "host time for one cudaLaunchKernel to return (s per launch)", kHostBatch},
    {Mode::kRoundTrip, "round_trip", "Launch round trip", "launch an empty kernel and wait for it (s per call)", kHostBatch},
    {Mode::kPipeline, "pipeline", "Pipeline of small kernels",
     "1000 tiny kernels issued back to back by the host on an idle stream, to completion (s per kernel)", kPipelineLaunches},
    {Mode::kDeviceRate, "device_rate", "Device-side launch rate",
     "256 tiny kernels queued behind a gate, then run back to back: the GPU's own rate, the host's launch cost hidden (s per kernel)",
     kGatedLaunches},
    {Mode::kGraphInstantiate, "graph_instantiate", "Graph instantiate", "instantiate a 100-kernel CUDA graph (s per graph)", 1},
    {Mode::kGraphFirst, "graph_first_launch", "Graph first launch", "first launch of a fresh 100-kernel graph, to completion (s per graph)", 1},
    {Mode::kGraphRepeat, "graph", "Graph, repeat launch", "a 100-kernel CUDA graph launched again (s per kernel node)", kPipelineKernels},
    {Mode::kFused, "fused", "Fused kernel", "one kernel doing the 100 kernels' work (s per fused step)", kPipelineKernels},
};

class LaunchInstance : public BenchmarkInstance {
 public:
  LaunchInstance(CudaContext& ctx, const ModeInfo& info) : ctx_(ctx), info_(info) {}

  core::Status Prepare() {
    cudaError_t e = counter_.Allocate(1);
    if (e == cudaSuccess) e = MemsetSync(counter_.get(), 0, sizeof(unsigned long long), ctx_);
    if (e != cudaSuccess) return CudaFailed("cudaMalloc (counter)", e);
    // One tick outside any timed region: the kernels are loaded before the first gated batch.
    TickKernel<<<1, 32, 0, ctx_.stream()>>>(counter_.get());
    if ((e = cudaGetLastError()) == cudaSuccess) e = cudaStreamSynchronize(ctx_.stream());
    if (e != cudaSuccess) return CudaFailed("the first launch", e);
    expected_ = 1;
    if (info_.mode == Mode::kGraphInstantiate || info_.mode == Mode::kGraphFirst || info_.mode == Mode::kGraphRepeat) {
      cudaStream_t s = ctx_.stream();
      if ((e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)) != cudaSuccess) return CudaFailed("cudaStreamBeginCapture", e);
      for (int i = 0; i < kPipelineKernels; ++i) TickKernel<<<1, 32, 0, s>>>(counter_.get());
      if ((e = cudaStreamEndCapture(s, &graph_)) != cudaSuccess) return CudaFailed("cudaStreamEndCapture", e);
      if ((e = cudaGraphInstantiate(&exec_, graph_, 0)) != cudaSuccess) return CudaFailed("cudaGraphInstantiate", e);
    }
    return core::Status::Ok();
  }

  ~LaunchInstance() override {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }

  core::Result<double> RunOnce() override {
    cudaStream_t s = ctx_.stream();
    cudaError_t e = cudaSuccess;
    switch (info_.mode) {
      case Mode::kCall: {
        double start = Now();
        for (int i = 0; i < kHostBatch; ++i) TickKernel<<<1, 32, 0, s>>>(counter_.get());
        double end = Now();
        expected_ += kHostBatch;
        if ((e = cudaStreamSynchronize(s)) != cudaSuccess) return CudaFailed("launch", e);
        return end - start;
      }
      case Mode::kRoundTrip: {
        double start = Now();
        for (int i = 0; i < kHostBatch && e == cudaSuccess; ++i) {
          TickKernel<<<1, 32, 0, s>>>(counter_.get());
          e = cudaStreamSynchronize(s);
        }
        double end = Now();
        expected_ += kHostBatch;
        if (e != cudaSuccess) return CudaFailed("launch and synchronize", e);
        return end - start;
      }
      case Mode::kPipeline: {
        // From an idle stream, the host issues the kernels one after another and waits for
        // the last: each kernel's launch cost is paid while the GPU runs the ones before it,
        // so the time per kernel is the slower of the host's issue rate and the GPU's, what a
        // pipeline of small kernels really pays (METHOD.md 5.4's ~2.4 us on an H200).
        if ((e = cudaStreamSynchronize(s)) != cudaSuccess) return CudaFailed("cudaStreamSynchronize", e);
        double start = Now();
        for (int i = 0; i < kPipelineLaunches; ++i) TickKernel<<<1, 32, 0, s>>>(counter_.get());
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        double end = Now();
        expected_ += kPipelineLaunches;
        if (e != cudaSuccess) return CudaFailed("launch", e);
        return end - start;
      }
      case Mode::kDeviceRate: {
        // Every launch queued behind the gate before the clock starts: the GPU's front end
        // starting kernels back to back, with no host in the loop (close to a graph's rate).
        auto enqueue = [this](cudaStream_t st) {
          TickKernel<<<1, 32, 0, st>>>(counter_.get());
          return cudaGetLastError();
        };
        auto per = ctx_.TimeQueued(kGatedLaunches, enqueue);
        expected_ += kGatedLaunches;
        if (!per.ok()) return per.status();
        return *per * kGatedLaunches;
      }
      case Mode::kGraphInstantiate: {
        cudaGraphExec_t exec = nullptr;
        double start = Now();
        e = cudaGraphInstantiate(&exec, graph_, 0);
        double end = Now();
        if (e != cudaSuccess) return CudaFailed("cudaGraphInstantiate", e);
        e = cudaGraphLaunch(exec, s);  // run it once, so every instantiated graph is also checked
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        cudaGraphExecDestroy(exec);
        expected_ += kPipelineKernels;
        if (e != cudaSuccess) return CudaFailed("cudaGraphLaunch", e);
        return end - start;
      }
      case Mode::kGraphFirst: {
        cudaGraphExec_t exec = nullptr;
        if ((e = cudaGraphInstantiate(&exec, graph_, 0)) != cudaSuccess) return CudaFailed("cudaGraphInstantiate", e);
        double start = Now();
        e = cudaGraphLaunch(exec, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        double end = Now();
        cudaGraphExecDestroy(exec);
        expected_ += kPipelineKernels;
        if (e != cudaSuccess) return CudaFailed("cudaGraphLaunch", e);
        return end - start;
      }
      case Mode::kGraphRepeat: {
        auto enqueue = [this](cudaStream_t st) { return cudaGraphLaunch(exec_, st); };
        if (reps_ == 0) {
          auto reps = ctx_.CalibrateReps(enqueue);
          if (!reps.ok()) return reps.status();
          reps_ = *reps;
          expected_ += 2 * kPipelineKernels;  // the calibration's two launches
        }
        auto per = ctx_.TimeQueued(reps_, enqueue);
        expected_ += static_cast<std::uint64_t>(reps_) * kPipelineKernels;
        if (!per.ok()) return per.status();
        return *per;
      }
      case Mode::kFused: {
        auto enqueue = [this](cudaStream_t st) {
          FusedTickKernel<<<1, 32, 0, st>>>(counter_.get(), kPipelineKernels);
          return cudaGetLastError();
        };
        if (reps_ == 0) {
          auto reps = ctx_.CalibrateReps(enqueue);
          if (!reps.ok()) return reps.status();
          reps_ = *reps;
          expected_ += 2 * kPipelineKernels;
        }
        auto per = ctx_.TimeQueued(reps_, enqueue);
        expected_ += static_cast<std::uint64_t>(reps_) * kPipelineKernels;
        if (!per.ok()) return per.status();
        return *per;
      }
    }
    return core::Status::Internal("unknown launch mode");
  }

  Verification Verify() override {
    unsigned long long got = 0;
    cudaError_t e = cudaStreamSynchronize(ctx_.stream());
    if (e == cudaSuccess) e = cudaMemcpy(&got, counter_.get(), sizeof got, cudaMemcpyDeviceToHost);
    Verification v;
    v.checksum = static_cast<double>(expected_);
    v.verified = e == cudaSuccess && got == expected_;
    v.detail = v.verified ? fmt::format("all {} kernels ran exactly once", expected_)
                          : fmt::format("the counter says {} kernels ran, {} were launched", got, expected_);
    return v;
  }
  bool CorruptForTest() override {
    expected_ += 1;  // claim one more launch than ran: the count must no longer match
    return true;
  }

 private:
  CudaContext& ctx_;
  const ModeInfo& info_;
  DeviceArray<unsigned long long> counter_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::uint64_t expected_ = 0;
  int reps_ = 0;
};

class LaunchBenchmark : public Benchmark {
 public:
  explicit LaunchBenchmark(const ModeInfo& mode) : mode_(mode) {
    info_ = MakeBenchmarkInfo("launch", mode.name, mode.title, mode.description,
                              "a kernel launch is an RPC with a floor of microseconds: batch, fuse or use graphs",
                              Metric::kLatency, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool, std::uint64_t) const override {
    std::string label = mode_.mode == Mode::kCall || mode_.mode == Mode::kRoundTrip ? fmt::format("{} calls", kHostBatch)
                        : mode_.mode == Mode::kPipeline                             ? fmt::format("{} kernels", kPipelineLaunches)
                        : mode_.mode == Mode::kDeviceRate                           ? fmt::format("{} kernels", kGatedLaunches)
                                                                                    : fmt::format("{} kernels", kPipelineKernels);
    return {{label, static_cast<std::uint64_t>(mode_.items), 0, 0, ""}};
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.items = static_cast<double>(c.size);
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    if (mode_.mode == Mode::kRoundTrip) {
      p.value = model::kLaunchRoundTripSeconds;  // the same figure the advisor and the tour use
      p.basis = "a synchronous launch round trip is 5-10 us on current drivers (METHOD.md 5.4)";
    } else {
      p.basis = "set by the driver and the GPU's front end, not by a spec figure";
    }
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase&) const override {
    auto instance = std::make_unique<LaunchInstance>(static_cast<CudaContext&>(context), mode_);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  const ModeInfo& mode_;
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaLaunchBenchmarks(BenchmarkRegistry* registry) {
  for (const auto& mode : kModes) registry->Add(std::make_unique<LaunchBenchmark>(mode));
}

}  // namespace gpuprobe::bench
