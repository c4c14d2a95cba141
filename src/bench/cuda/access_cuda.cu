// How the order of accesses decides GPU bandwidth: a warp's 32 loads are served by 32-byte
// sectors, so consecutive floats (coalesced) cost one sector per 8 loads, a stride of 8 or
// more or a random gather costs a sector per load, and a 4-byte misalignment adds one
// sector per warp. Every pattern reads each float exactly once ("useful bytes/s").
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "bench/access_patterns.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"
#include "core/units.h"

namespace gpuprobe::bench {
namespace {

using Pattern = gpu::AccessPattern;

// Every pattern through the same loop: kAccessLoadsInFlight independent loads per thread per
// iteration, items t, t + T, ... (T threads), each item's element from gpu::AccessIndex. The
// checksum is added to *checksum, never reset: the host counts the launches.
__global__ void AccessKernel(const float* __restrict__ data, gpu::AccessGeometry geometry, Pattern p,
                             const unsigned int* __restrict__ perm, unsigned int* checksum) {
  const unsigned long long n = geometry.n;
  const unsigned long long total = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  unsigned int acc = 0;
  for (unsigned long long base = t; base < n; base += total * gpu::kAccessLoadsInFlight) {
    unsigned int v[gpu::kAccessLoadsInFlight];
#pragma unroll
    for (int j = 0; j < gpu::kAccessLoadsInFlight; ++j) {
      unsigned long long i = base + static_cast<unsigned long long>(j) * total;
      v[j] = i < n ? __float_as_uint(data[gpu::AccessIndex(p, i, geometry, perm)]) : 0u;
    }
#pragma unroll
    for (int j = 0; j < gpu::kAccessLoadsInFlight; ++j) acc += v[j];
  }
  atomicAdd(checksum, acc);
}

struct PatternInfo {
  Pattern pattern;
  const char* name;
  const char* description;
};

const PatternInfo kPatterns[] = {
    {Pattern::kSequential, "sequential", "each warp reads 32 consecutive floats: coalesced (useful bytes/s)"},
    {Pattern::kStrided, "strided", "consecutive threads read floats a stride apart (useful bytes/s)"},
    {Pattern::kRandom, "random", "each thread gathers from a random index (useful bytes/s)"},
    {Pattern::kMisaligned, "misaligned", "coalesced, but starting 4 bytes past a 128-byte boundary (useful bytes/s)"},
};

class AccessInstance : public BenchmarkInstance {
 public:
  AccessInstance(CudaContext& ctx, Pattern p, std::uint64_t n, unsigned int stride) : ctx_(ctx), p_(p), n_(n), stride_(stride) {}
  core::Status Prepare() {
    cudaError_t e;
    if ((e = data_.Allocate(n_ + 32)) != cudaSuccess || (e = sum_.Allocate(1)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
    if ((e = FillDevice(data_.get(), n_ + 32, gpu::kSeedA, ctx_)) != cudaSuccess) return CudaFailed("fill", e);
    if (p_ == Pattern::kRandom) {
      std::vector<unsigned int> perm(n_);
      std::iota(perm.begin(), perm.end(), 0u);
      std::shuffle(perm.begin(), perm.end(), std::mt19937_64(42));
      if ((e = perm_.Allocate(n_)) != cudaSuccess) return CudaFailed("cudaMalloc", e);
      if ((e = cudaMemcpy(perm_.get(), perm.data(), n_ * sizeof(unsigned int), cudaMemcpyHostToDevice)) != cudaSuccess) {
        return CudaFailed("cudaMemcpy", e);
      }
    }
    // The checksum accumulates over every launch: zeroed once, outside any timed region.
    if ((e = MemsetSync(sum_.get(), 0, sizeof(unsigned int), ctx_)) != cudaSuccess) return CudaFailed("cudaMemset", e);
    launch_ = KernelGeometry(ctx_, AccessKernel, n_, 1);
    index_ = gpu::MakeAccessGeometry(n_, stride_);
    return core::Status::Ok();
  }
  cudaError_t Enqueue(cudaStream_t s) {
    const float* base = data_.get() + (p_ == Pattern::kMisaligned ? 1 : 0);
    AccessKernel<<<launch_.blocks, launch_.threads, 0, s>>>(base, index_, p_, perm_.get(), sum_.get());
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
    const std::uint32_t one = gpu::FillBitSum(p_ == Pattern::kMisaligned ? 1 : 0, n_, gpu::kSeedA);
    const std::uint32_t expected = one * static_cast<std::uint32_t>(launches_);  // modulo 2^32, as the device adds
    Verification v;
    v.checksum = one;
    v.verified = e == cudaSuccess && got == expected && launches_ > 0;
    v.detail = v.verified ? "every element read exactly once (checksum matched)" : "the checksum differs: elements missed or read twice";
    return v;
  }
  bool CorruptForTest() override {
    unsigned int wrong = 7;
    return cudaMemcpy(sum_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }
  std::string Note() const override {
    return fmt::format("4-byte loads, {} in flight per thread (as much as two of memory.triad's 16-byte loads); {} reps per timed batch; "
                       "{} blocks of {} threads (one wave)",
                       gpu::kAccessLoadsInFlight, reps_, launch_.blocks, launch_.threads);
  }

 private:
  CudaContext& ctx_;
  Pattern p_;
  std::uint64_t n_;
  unsigned int stride_;
  DeviceArray<float> data_;
  DeviceArray<unsigned int> perm_, sum_;
  gpu::LaunchGeometry launch_;
  gpu::AccessGeometry index_;
  std::uint64_t launches_ = 0;  // the checksum holds the sum of every launch
  int reps_ = 0;
};

class GpuAccessBenchmark : public Benchmark {
 public:
  explicit GpuAccessBenchmark(const PatternInfo& info) : info_pattern_(info) {
    info_ = MakeBenchmarkInfo("access", info.name, info.name, info.description,
                              "a warp's loads are served in 32-byte sectors: scattered loads waste most of each",
                              Metric::kBandwidth, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext& context, const model::CpuSpec&, bool full, std::uint64_t size_override) const override {
    const auto& ctx = FactsOf(context);
    std::uint64_t bytes = size_override > 0 ? size_override : std::min<std::uint64_t>(256ull << 20, ctx.FreeBytes() / 4);
    std::uint64_t n = bytes / 4 / 32 * 32;  // a multiple of every stride
    if (info_pattern_.pattern == Pattern::kStrided) n = std::min(n, gpu::kAccessMaxStridedItems);  // the index's reciprocal
    std::vector<BenchCase> cases;
    if (info_pattern_.pattern == Pattern::kStrided) {
      std::vector<int> strides = full ? std::vector<int>{2, 4, 8, 16, 32} : std::vector<int>{4, 32};
      for (int s : strides) cases.push_back(BenchCase(fmt::format("stride {}", s), n, 0, s, ""));
    } else {
      cases.push_back(BenchCase(info_pattern_.name, n, 0, 1, ""));
    }
    return cases;
  }
  Work WorkFor(const BenchCase& c) const override {
    Work w;
    w.bytes_read = 4.0 * static_cast<double>(c.size);
    return w;
  }
  PlanEstimate Plan(const PredictionContext& pc, const BenchCase& c) const override {
    PlanEstimate plan = Benchmark::Plan(pc, c);
    // The checksum over the buffer; the random pattern also shuffles and uploads its indices.
    plan.host_elements = static_cast<double>(c.size) * (info_pattern_.pattern == Pattern::kRandom ? 5 : 1);
    return plan;
  }
  Prediction Predict(const PredictionContext& pc, const BenchCase& c) const override {
    Prediction p;
    const auto* ctx = GpuFactsOf(pc.context);
    if (ctx == nullptr) return p;
    auto bw = model::TheoreticalBandwidth(ctx->Figures());
    if (!bw) return p;
    double useful = gpu::AccessUsefulFraction(info_pattern_.pattern, static_cast<std::uint32_t>(c.param));
    p.value = *bw * useful;
    p.basis = info_pattern_.pattern == Pattern::kMisaligned
                  ? "memory bandwidth: each warp's extra sector is its neighbour's first, read at the same time and served by L2"
                  : fmt::format("memory bandwidth x {:.0f}% of the bytes fetched from DRAM used", useful * 100);
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<AccessInstance>(static_cast<CudaContext&>(context), info_pattern_.pattern, c.size,
                                                     static_cast<unsigned int>(c.param));
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  const PatternInfo& info_pattern_;
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaAccessBenchmarks(BenchmarkRegistry* registry) {
  for (const auto& p : kPatterns) registry->Add(std::make_unique<GpuAccessBenchmark>(p));
}

}  // namespace gpuprobe::bench
