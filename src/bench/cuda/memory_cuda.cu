// The GPU's memory suites: STREAM's copy/scale/add/triad/dot on device memory with 16-byte
// (float4) accesses, and a read sweep from L2-sized to HBM-sized working sets. Registered
// under the CPU suites' ids, so `bench memory.triad` shows CPU and GPU side by side.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "bench/cuda/cuda_context.h"
#include "bench/memory_sweep.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

using gpu::StreamOp;

__device__ __forceinline__ float Apply(StreamOp op, float a, float b) {
  switch (op) {
    case StreamOp::kCopy: return a;
    case StreamOp::kScale: return gpu::kStreamScalar * a;
    case StreamOp::kAdd: return a + b;
    default: return a + gpu::kStreamScalar * b;  // triad
  }
}

template <StreamOp kOp>
__global__ void StreamKernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             unsigned long long n) {
  const unsigned long long total = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long vectors = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* c4 = reinterpret_cast<float4*>(c);
#pragma unroll 4
  for (unsigned long long v = t; v < vectors; v += total) {
    float4 x = a4[v];
    float4 y = kOp == StreamOp::kCopy || kOp == StreamOp::kScale ? x : b4[v];
    c4[v] = make_float4(Apply(kOp, x.x, y.x), Apply(kOp, x.y, y.y), Apply(kOp, x.z, y.z), Apply(kOp, x.w, y.w));
  }
  for (unsigned long long i = vectors * 4 + t; i < n; i += total) c[i] = Apply(kOp, a[i], kOp == StreamOp::kCopy || kOp == StreamOp::kScale ? a[i] : b[i]);
}

__device__ __forceinline__ double WarpSum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// sum of a[i]*b[i]: each product rounded to fp32 (as STREAM does), summed in fp64.
__global__ void DotKernel(const float* __restrict__ a, const float* __restrict__ b, unsigned long long n, double* result) {
  const unsigned long long total = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long vectors = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  double sum = 0;
#pragma unroll 4
  for (unsigned long long v = t; v < vectors; v += total) {
    float4 x = a4[v], y = b4[v];
    sum += static_cast<double>(__fmul_rn(x.x, y.x)) + static_cast<double>(__fmul_rn(x.y, y.y)) +
           static_cast<double>(__fmul_rn(x.z, y.z)) + static_cast<double>(__fmul_rn(x.w, y.w));
  }
  for (unsigned long long i = vectors * 4 + t; i < n; i += total) sum += static_cast<double>(__fmul_rn(a[i], b[i]));
  sum = WarpSum(sum);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, sum);
}

// Reads `n` floats `passes` times; each thread folds what it read into a 32-bit sum of the
// bit patterns (integer adds: never the bottleneck, and exact to check). Every pass reads the
// same addresses from the same threads, so the loads bypass L1 (ld.global.cg): otherwise a
// working set of up to ~16 MiB (each SM's share within its L1) would measure L1, not L2.
__global__ void ReadKernel(const float* __restrict__ a, unsigned long long n, int passes, unsigned int* result) {
  const unsigned long long total = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long vectors = n / 4;
  const uint4* a4 = reinterpret_cast<const uint4*>(a);
  unsigned int acc = 0;
  for (int p = 0; p < passes; ++p) {
#pragma unroll 4
    for (unsigned long long v = t; v < vectors; v += total) {
      uint4 x = __ldcg(a4 + v);
      acc += x.x + x.y + x.z + x.w;
    }
    for (unsigned long long i = vectors * 4 + t; i < n; i += total) acc += __float_as_uint(__ldcg(a + i));
  }
  atomicAdd(result, acc);
}

std::uint64_t DefaultArrayBytes(const GpuFacts& ctx, int arrays) {
  // >= 1 GiB per array where memory allows (METHOD.md: far beyond L2), else what fits in
  // 80% of free memory.
  std::uint64_t free_bytes = ctx.FreeBytes();
  std::uint64_t fit = free_bytes / 10 * 8 / static_cast<std::uint64_t>(arrays);
  std::uint64_t bytes = std::min<std::uint64_t>(1ull << 30, fit);
  return bytes / (1 << 20) * (1 << 20);
}

Prediction HbmPrediction(const PredictionContext& pc) {
  Prediction p;
  const auto* ctx = GpuFactsOf(pc.context);
  if (ctx == nullptr) return p;
  if (auto bw = model::TheoreticalBandwidth(ctx->Figures())) {
    p.value = *bw;
    p.basis = fmt::format("2 x memory clock {:.0f} MHz x {}-bit bus / 8 = {}", ctx->Figures().memory_clock_hz / 1e6,
                          ctx->Figures().memory_bus_width_bits, core::FormatBytesPerSecond(*bw));
  }
  return p;
}

class StreamInstance : public BenchmarkInstance {
 public:
  StreamInstance(CudaContext& ctx, StreamOp op, std::uint64_t n) : ctx_(ctx), op_(op), n_(n) {}

  core::Status Prepare() {
    cudaError_t e;
    if ((e = a_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = b_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if (op_ != StreamOp::kDot && (e = c_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if (op_ == StreamOp::kDot && (e = dot_.Allocate(1)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = FillDevice(a_.get(), n_, gpu::kSeedA, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
    if ((e = FillDevice(b_.get(), n_, gpu::kSeedB, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
    if (op_ != StreamOp::kDot && (e = FillDevice(c_.get(), n_, gpu::kSeedC, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
    return core::Status::Ok();
  }

  cudaError_t Enqueue(cudaStream_t s) {
    gpu::LaunchGeometry g = Geometry(ctx_, n_, 4);
    switch (op_) {
      case StreamOp::kCopy: StreamKernel<StreamOp::kCopy><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kScale: StreamKernel<StreamOp::kScale><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kAdd: StreamKernel<StreamOp::kAdd><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kTriad: StreamKernel<StreamOp::kTriad><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kDot: {
        cudaError_t e = cudaMemsetAsync(dot_.get(), 0, sizeof(double), s);
        if (e != cudaSuccess) return e;
        DotKernel<<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), n_, dot_.get());
        break;
      }
    }
    return cudaGetLastError();
  }

  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }

  Verification Verify() override {
    Verification v;
    if (op_ == StreamOp::kDot) {
      double got = 0;
      cudaError_t e = cudaMemcpy(&got, dot_.get(), sizeof got, cudaMemcpyDeviceToHost);
      double expected = gpu::DotExpected(n_);
      double scale = 0;
      for (std::uint64_t i = 0; i < n_; i += 4096) scale += std::fabs(static_cast<double>(gpu::StreamElement(StreamOp::kDot, i)));
      scale = scale * 4096 + 1;
      v.checksum = expected;
      v.verified = e == cudaSuccess && std::fabs(got - expected) <= 1e-9 * scale;
      v.detail = v.verified ? "the sum matched the host's to 1e-9" : fmt::format("sum {} instead of {}", got, expected);
      return v;
    }
    auto bad = CountStreamMismatches(c_.get(), n_, op_, ctx_);
    v.verified = bad.ok() && *bad == 0;
    v.checksum = static_cast<double>(n_);
    v.detail = !bad.ok() ? bad.status().message()
               : v.verified ? fmt::format("every one of {} elements matched", core::FormatInteger(n_))
                            : fmt::format("{} elements wrong", *bad);
    return v;
  }

  bool CorruptForTest() override {
    if (op_ == StreamOp::kDot) return MemsetSync(dot_.get(), 0x7f, sizeof(double), ctx_) == cudaSuccess;
    float wrong = 12345.0f;
    return cudaMemcpy(c_.get() + n_ / 2, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  std::string Note() const override {
    std::string note = fmt::format("float4 accesses, {} reps per timed batch", reps_);
    if (n_ * 4 < (1ull << 30)) note += ", arrays below 1 GiB to fit the free memory (or --size)";
    return note;
  }

 private:
  CudaContext& ctx_;
  StreamOp op_;
  std::uint64_t n_;
  DeviceArray<float> a_, b_, c_;
  DeviceArray<double> dot_;
  int reps_ = 0;
};

class GpuStreamBenchmark : public Benchmark {
 public:
  GpuStreamBenchmark(StreamOp op, const char* formula) : op_(op) {
    info_ = MakeBenchmarkInfo("memory", gpu::StreamOpName(op), fmt::format("STREAM {}", gpu::StreamOpName(op)),
                              fmt::format("{} over device memory, float4 accesses (bytes/s)", formula),
                              "streaming kernels are bound by memory bandwidth, not arithmetic", Metric::kBandwidth, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool, std::uint64_t size_override) const override {
    const auto& ctx = FactsOf(context);
    int arrays = op_ == StreamOp::kDot ? 2 : 3;
    std::uint64_t bytes = size_override > 0 ? size_override : DefaultArrayBytes(ctx, arrays);
    std::uint64_t n = bytes / 4;
    return {{core::FormatBytesBinary(static_cast<double>(n * 4)) + " per array", n, 0, static_cast<double>(n * 4), ""}};
  }
  Availability Check(const BackendContext& context, const BenchCase& c) const override {
    const auto& ctx = FactsOf(context);
    int arrays = op_ == StreamOp::kDot ? 2 : 3;
    if (c.size == 0) return Availability::No("no free GPU memory for the arrays");
    if (c.size * 4 * static_cast<std::uint64_t>(arrays) > ctx.FreeBytes()) {
      return Availability::No(fmt::format("{} arrays of {} do not fit in the GPU's free memory", arrays,
                                          core::FormatBytesBinary(static_cast<double>(c.size * 4))), "give a smaller --size");
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase& c) const override { return gpu::StreamWork(op_, c.size); }
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan = Benchmark::Plan(pc, c);
    if (op_ == StreamOp::kDot) plan.host_elements = 2.0 * static_cast<double>(c.size);  // the host's dot product
    return plan;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase&) const override { return HbmPrediction(pc); }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<StreamInstance>(static_cast<CudaContext&>(context), op_, c.size);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  StreamOp op_;
  BenchmarkInfo info_;
};

class SweepInstance : public BenchmarkInstance {
 public:
  SweepInstance(CudaContext& ctx, std::uint64_t n, int passes) : ctx_(ctx), n_(n), passes_(passes) {}
  core::Status Prepare() {
    cudaError_t e;
    if ((e = a_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = sum_.Allocate(1)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = FillDevice(a_.get(), n_, gpu::kSeedA, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
    return core::Status::Ok();
  }
  cudaError_t Enqueue(cudaStream_t s) {
    cudaError_t e = cudaMemsetAsync(sum_.get(), 0, sizeof(unsigned int), s);
    if (e != cudaSuccess) return e;
    gpu::LaunchGeometry g = Geometry(ctx_, n_, 4);
    ReadKernel<<<g.blocks, g.threads, 0, s>>>(a_.get(), n_, passes_, sum_.get());
    return cudaGetLastError();
  }
  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }
  Verification Verify() override {
    unsigned int got = 0;
    cudaError_t e = cudaMemcpy(&got, sum_.get(), sizeof got, cudaMemcpyDeviceToHost);
    std::uint32_t expected = gpu::FillBitSum(0, n_, gpu::kSeedA) * static_cast<std::uint32_t>(passes_);
    Verification v;
    v.checksum = expected;
    v.verified = e == cudaSuccess && got == expected;
    v.detail = v.verified ? fmt::format("{} passes, checksum matched", passes_) : "the read checksum differs from the host's";
    return v;
  }
  bool CorruptForTest() override {
    unsigned int wrong = 1;
    return cudaMemcpy(sum_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  std::string Note() const override { return fmt::format("{} passes per launch, loads bypass L1 (ld.global.cg)", passes_); }

 private:
  CudaContext& ctx_;
  std::uint64_t n_;
  int passes_;
  DeviceArray<float> a_;
  DeviceArray<unsigned int> sum_;
  int reps_ = 0;
};

class GpuSweepBenchmark : public Benchmark {
 public:
  GpuSweepBenchmark() {
    info_ = MakeBenchmarkInfo("memory", "sweep", "Working-set sweep", "read a buffer from L2-sized to HBM-sized, L1 bypassed (bytes/s)",
                              "bandwidth falls as the working set outgrows each cache", Metric::kBandwidth, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool full, std::uint64_t size_override) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t top = size_override > 0 ? size_override
                                          : std::min<std::uint64_t>(std::max<std::uint64_t>(8 * ctx.Figures().l2_bytes, 256ull << 20),
                                                                    ctx.FreeBytes() / 2);
    std::vector<BenchCase> cases;
    for (std::uint64_t b : gpu::SweepSizes(top, full)) {
      std::string level = gpu::SweepLevel(b, ctx.Figures().l2_bytes);
      cases.push_back(BenchCase(gpu::SweepLabel(b, ctx.Figures().l2_bytes), b / 4, 0, static_cast<double>(b), level));
    }
    return cases;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.bytes_read = gpu::SweepBytesRead(c.size * 4);
    return w;
  }
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan = Benchmark::Plan(pc, c);
    plan.host_elements = static_cast<double>(c.size);  // the host's checksum of the buffer
    return plan;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx != nullptr && gpu::SweepLevel(c.size * 4, ctx->Figures().l2_bytes) != "HBM") {
      Prediction p;
      p.basis = "(partly) in L2, read with L1 bypassed: faster than HBM; the spec sheet gives no L2 bandwidth";
      return p;
    }
    return HbmPrediction(pc);
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<SweepInstance>(static_cast<CudaContext&>(context), c.size, gpu::SweepPasses(c.size * 4));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaMemoryBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<GpuStreamBenchmark>(StreamOp::kCopy, "c = a"));
  registry->Add(std::make_unique<GpuStreamBenchmark>(StreamOp::kScale, "c = s*a"));
  registry->Add(std::make_unique<GpuStreamBenchmark>(StreamOp::kAdd, "c = a + b"));
  registry->Add(std::make_unique<GpuStreamBenchmark>(StreamOp::kTriad, "c = a + s*b"));
  registry->Add(std::make_unique<GpuStreamBenchmark>(StreamOp::kDot, "sum of a*b"));
  registry->Add(std::make_unique<GpuSweepBenchmark>());
}

}  // namespace gpuprobe::bench
