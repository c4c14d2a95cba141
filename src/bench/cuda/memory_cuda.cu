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

__device__ __forceinline__ unsigned long long WarpSum(unsigned long long v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ unsigned long long Term(float a, float b) { return static_cast<unsigned long long>(gpu::DotFixedTerm(a, b)); }

// sum of a[i]*b[i]: each product rounded to fp32 (as STREAM does), summed exactly as 64-bit
// integers in units of 2^-20 (gpu::DotFixedTerm), added to *result: each launch adds the same
// exact sum, so no reset (and no memset in the timed region) is needed.
__global__ void DotKernel(const float* __restrict__ a, const float* __restrict__ b, unsigned long long n, unsigned long long* result) {
  const unsigned long long total = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long vectors = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  unsigned long long sum = 0;
#pragma unroll 4
  for (unsigned long long v = t; v < vectors; v += total) {
    float4 x = a4[v], y = b4[v];
    sum += Term(x.x, y.x) + Term(x.y, y.y) + Term(x.z, y.z) + Term(x.w, y.w);
  }
  for (unsigned long long i = vectors * 4 + t; i < n; i += total) sum += Term(a[i], b[i]);
  sum = WarpSum(sum);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, sum);
}

// Reads `n` floats `passes` times; each thread folds what it read into a 32-bit sum of the
// bit patterns (integer adds: never the bottleneck, and exact to check), added to *result
// (never reset: the host counts the launches). Every pass reads the
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
    // dot accumulates over every launch: zeroed once, here, outside any timed region.
    if (op_ == StreamOp::kDot && (e = MemsetSync(dot_.get(), 0, sizeof(unsigned long long), ctx_)) != cudaSuccess) {
      return CudaFailed("cudaMemset", e);
    }
    switch (op_) {
      case StreamOp::kCopy: geometry_ = KernelGeometry(ctx_, StreamKernel<StreamOp::kCopy>, n_, 4); break;
      case StreamOp::kScale: geometry_ = KernelGeometry(ctx_, StreamKernel<StreamOp::kScale>, n_, 4); break;
      case StreamOp::kAdd: geometry_ = KernelGeometry(ctx_, StreamKernel<StreamOp::kAdd>, n_, 4); break;
      case StreamOp::kTriad: geometry_ = KernelGeometry(ctx_, StreamKernel<StreamOp::kTriad>, n_, 4); break;
      case StreamOp::kDot: geometry_ = KernelGeometry(ctx_, DotKernel, n_, 4); break;
    }
    return core::Status::Ok();
  }

  cudaError_t Enqueue(cudaStream_t s) {
    const gpu::LaunchGeometry& g = geometry_;
    switch (op_) {
      case StreamOp::kCopy: StreamKernel<StreamOp::kCopy><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kScale: StreamKernel<StreamOp::kScale><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kAdd: StreamKernel<StreamOp::kAdd><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kTriad: StreamKernel<StreamOp::kTriad><<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case StreamOp::kDot: DotKernel<<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), n_, dot_.get()); break;
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) ++launches_;
    return e;
  }

  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }

  Verification Verify() override {
    Verification v;
    if (op_ == StreamOp::kDot) {
      // Every launch added the same exact sum: launches x the host's sum, modulo 2^64.
      unsigned long long got = 0;
      cudaError_t e = cudaStreamSynchronize(ctx_.stream());
      if (e == cudaSuccess) e = cudaMemcpy(&got, dot_.get(), sizeof got, cudaMemcpyDeviceToHost);
      const std::uint64_t one = gpu::DotFixedExpected(n_);
      const std::uint64_t expected = one * launches_;
      v.checksum = static_cast<double>(static_cast<std::int64_t>(one)) * gpu::kDotFixedUnit;
      v.verified = e == cudaSuccess && got == expected && launches_ > 0;
      v.detail = v.verified ? fmt::format("{} launches, each sum exact (64-bit fixed point, units of 2^-20)", launches_)
                            : fmt::format("the sum of {} launches is {} units of 2^-20 instead of {} (modulo 2^64)", launches_,
                                          static_cast<std::int64_t>(got), static_cast<std::int64_t>(expected));
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
    if (op_ == StreamOp::kDot) return MemsetSync(dot_.get(), 0x7f, sizeof(unsigned long long), ctx_) == cudaSuccess;
    float wrong = 12345.0f;
    return cudaMemcpy(c_.get() + n_ / 2, &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  std::string Note() const override {
    std::string note = fmt::format("float4 accesses, {} reps per timed batch, {} blocks of {} threads (one wave)", reps_,
                                   geometry_.blocks, geometry_.threads);
    if (n_ * 4 < (1ull << 30)) note += ", arrays below 1 GiB to fit the free memory (or --size)";
    return note;
  }

 private:
  CudaContext& ctx_;
  StreamOp op_;
  std::uint64_t n_;
  DeviceArray<float> a_, b_, c_;
  DeviceArray<unsigned long long> dot_;
  gpu::LaunchGeometry geometry_;
  std::uint64_t launches_ = 0;  // dot's result holds the sum of every launch
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
  // The arrays StreamInstance allocates (dot: two), c.size floats each (bench/memory_budget.h).
  std::optional<Footprint> FootprintFor(const BackendContext&, const BenchCase& c) const override {
    Footprint f;
    f.device_bytes = (op_ == StreamOp::kDot ? 2.0 : 3.0) * 4.0 * static_cast<double>(c.size);
    return f;
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
    // The checksum accumulates over every launch: zeroed once, outside any timed region.
    if ((e = MemsetSync(sum_.get(), 0, sizeof(unsigned int), ctx_)) != cudaSuccess) return CudaFailed("cudaMemset", e);
    geometry_ = KernelGeometry(ctx_, ReadKernel, n_, 4);
    return core::Status::Ok();
  }
  cudaError_t Enqueue(cudaStream_t s) {
    ReadKernel<<<geometry_.blocks, geometry_.threads, 0, s>>>(a_.get(), n_, passes_, sum_.get());
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) ++launches_;
    return e;
  }
  core::Result<double> RunOnce() override {
    return ctx_.TimeCalibrated(&reps_, [this](cudaStream_t s) { return Enqueue(s); });
  }
  Verification Verify() override {
    unsigned int got = 0;
    cudaError_t e = cudaStreamSynchronize(ctx_.stream());
    if (e == cudaSuccess) e = cudaMemcpy(&got, sum_.get(), sizeof got, cudaMemcpyDeviceToHost);
    const std::uint32_t one = gpu::FillBitSum(0, n_, gpu::kSeedA) * static_cast<std::uint32_t>(passes_);
    const std::uint32_t expected = one * static_cast<std::uint32_t>(launches_);  // modulo 2^32, as the device adds
    Verification v;
    v.checksum = one;
    v.verified = e == cudaSuccess && got == expected && launches_ > 0;
    v.detail = v.verified ? fmt::format("{} passes per launch, {} launches, checksum matched", passes_, launches_)
                          : "the read checksum differs from the host's";
    return v;
  }
  bool CorruptForTest() override {
    unsigned int wrong = 1;
    return cudaMemcpy(sum_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  std::string Note() const override {
    return fmt::format("{} passes per launch, loads bypass L1 (ld.global.cg), {} blocks of {} threads (one wave)", passes_,
                       geometry_.blocks, geometry_.threads);
  }

 private:
  CudaContext& ctx_;
  std::uint64_t n_;
  int passes_;
  DeviceArray<float> a_;
  DeviceArray<unsigned int> sum_;
  gpu::LaunchGeometry geometry_;
  std::uint64_t launches_ = 0;  // the checksum holds the sum of every launch
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
