// The GPU side of the crossover suite: one synchronous call, timed on the host clock as a
// caller sees it, of a vector triad and of an fp32 matmul at the CPU side's sizes; either with
// the data already on the GPU ("resident") or copied in and the result copied back.
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "bench/cuda/cublas_loader.h"
#include "bench/cuda/cuda_context.h"
#include "bench/registry.h"

namespace gpuprobe::bench {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

__global__ void TriadKernel(const float* a, const float* b, float* c, unsigned long long n) {
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + gpu::kStreamScalar * b[i];
  }
}

class CrossoverGpuInstance : public BenchmarkInstance {
 public:
  CrossoverGpuInstance(CudaContext& ctx, bool matmul, std::uint64_t size, bool copies)
      : ctx_(ctx), matmul_(matmul), size_(size), copies_(copies) {}

  std::uint64_t Count() const { return matmul_ ? size_ * size_ : size_; }

  core::Status Prepare() {
    std::uint64_t count = Count();
    cudaError_t e;
    if ((e = a_.Allocate(count)) != cudaSuccess || (e = b_.Allocate(count)) != cudaSuccess || (e = c_.Allocate(count)) != cudaSuccess) {
      return CudaFailed("cudaMalloc", e);
    }
    if ((e = ha_.Allocate(count * 4, ctx_.numa_node())) != cudaSuccess || (e = hb_.Allocate(count * 4, ctx_.numa_node())) != cudaSuccess ||
        (e = hc_.Allocate(count * 4, ctx_.numa_node())) != cudaSuccess) {
      return CudaFailed("cudaMallocHost", e);
    }
    float* a = static_cast<float*>(ha_.get());
    float* b = static_cast<float*>(hb_.get());
    for (std::uint64_t i = 0; i < count; ++i) {
      a[i] = matmul_ ? gpu::MatmulValue(i, gpu::kSeedA) : gpu::FillValue(i, gpu::kSeedA);
      b[i] = matmul_ ? gpu::MatmulValue(i, gpu::kSeedB) : gpu::FillValue(i, gpu::kSeedB);
    }
    if ((e = cudaMemcpy(a_.get(), a, count * 4, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(b_.get(), b, count * 4, cudaMemcpyHostToDevice)) != cudaSuccess) {
      return CudaFailed("cudaMemcpy", e);
    }
    if (matmul_) {
      auto api = LoadCublas();
      if (!api.ok()) return api.status();
      api_ = *api;
      GPUPROBE_RETURN_IF_ERROR(handle_.Open(*api_, ctx_.stream()));
    }
    return core::Status::Ok();
  }

  core::Result<double> RunOnce() override {
    cudaStream_t s = ctx_.stream();
    std::uint64_t bytes = Count() * 4;
    double start = Now();
    cudaError_t e = cudaSuccess;
    if (copies_) {
      e = cudaMemcpyAsync(a_.get(), ha_.get(), bytes, cudaMemcpyHostToDevice, s);
      if (e == cudaSuccess) e = cudaMemcpyAsync(b_.get(), hb_.get(), bytes, cudaMemcpyHostToDevice, s);
    }
    if (e == cudaSuccess) {
      if (matmul_) {
        const float alpha = 1, beta = 0;
        int n = static_cast<int>(size_);
        cublasStatus_t st = api_->sgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b_.get(), n, a_.get(), n, &beta, c_.get(), n);
        if (st != CUBLAS_STATUS_SUCCESS) return core::Status::Internal(fmt::format("cuBLAS returned status {}", static_cast<int>(st)));
      } else {
        gpu::LaunchGeometry g = Geometry(ctx_, size_, 1);
        TriadKernel<<<g.blocks, g.threads, 0, s>>>(a_.get(), b_.get(), c_.get(), size_);
        e = cudaGetLastError();
      }
    }
    if (e == cudaSuccess && copies_) e = cudaMemcpyAsync(hc_.get(), c_.get(), bytes, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    double end = Now();
    if (e != cudaSuccess) return CudaFailed("crossover call", e);
    return end - start;
  }

  Verification Verify() override {
    Verification v;
    std::uint64_t count = Count();
    if (!copies_ && cudaMemcpy(hc_.get(), c_.get(), count * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
      v.detail = "cannot copy the result back";
      return v;
    }
    const float* c = static_cast<const float*>(hc_.get());
    if (matmul_) {
      double total = 0;
      for (std::uint64_t i = 0; i < count; ++i) total += c[i];
      v.checksum = gpu::MatmulTotal(size_);
      v.verified = total == v.checksum && static_cast<double>(c[0]) == gpu::MatmulElement(size_, 0, 0);
    } else {
      std::uint64_t bad = 0;
      for (std::uint64_t i = 0; i < count; ++i) bad += c[i] != gpu::StreamElement(gpu::StreamOp::kTriad, i);
      v.checksum = static_cast<double>(count);
      v.verified = bad == 0;
    }
    v.detail = v.verified ? "the result matched the host's exactly" : "the result differs from the host's";
    return v;
  }

  bool CorruptForTest() override {
    float wrong = 777.0f;
    if (copies_) {
      // The next Verify reads the host copy: damage it there.
      static_cast<float*>(hc_.get())[0] = wrong;
      return true;
    }
    return cudaMemcpy(c_.get(), &wrong, sizeof wrong, cudaMemcpyHostToDevice) == cudaSuccess;
  }

 private:
  CudaContext& ctx_;
  bool matmul_;
  std::uint64_t size_;
  bool copies_;
  DeviceArray<float> a_, b_, c_;
  PinnedBuffer ha_, hb_, hc_;
  const CublasApi* api_ = nullptr;
  CublasHandle handle_;
};

class CrossoverGpuBenchmark : public Benchmark {
 public:
  explicit CrossoverGpuBenchmark(bool matmul) : matmul_(matmul) {
    info_ = MakeBenchmarkInfo("crossover", matmul ? "matmul" : "vector", matmul ? "Matmul crossover" : "Vector crossover",
                              matmul ? "one cuBLAS fp32 matmul call by size (s per call), resident and with copies"
                                     : "one triad call by size (s per call), resident and with copies",
                              "small jobs stay on the CPU: the GPU wins only once the work pays for the launch and the copies",
                              Metric::kLatency, {"cuda"});
  }
  const BenchmarkInfo& Info() const override { return info_; }
  std::vector<BenchCase> Cases(const BackendContext&, const model::CpuSpec&, bool full, std::uint64_t) const override {
    std::vector<BenchCase> cases;
    for (std::uint64_t size : gpu::CrossoverSizes(matmul_, full)) {
      cases.push_back(BenchCase(gpu::CrossoverLabel(matmul_, size, "resident"), size, 0, 0, "resident"));
      cases.push_back(BenchCase(gpu::CrossoverLabel(matmul_, size, "with copies"), size, 0, 1, "copies"));
    }
    return cases;
  }
  Availability Check(const BackendContext&, const BenchCase&) const override {
    if (matmul_) {
      auto api = LoadCublas();
      if (!api.ok()) return Availability::No(api.status().message(), api.status().hint());
    }
    return Availability::Yes();
  }
  Work WorkFor(const BenchCase&) const override {
    Work w;
    w.items = 1;
    return w;
  }
  Prediction Predict(const PredictionContext&, const BenchCase&) const override {
    Prediction p;
    p.basis = "the curve is the measurement: 'gpuprobe' and the report draw it beside the model";
    return p;
  }
  core::Result<std::unique_ptr<BenchmarkInstance>> Prepare(BackendContext& context, const BenchCase& c) const override {
    auto instance = std::make_unique<CrossoverGpuInstance>(static_cast<CudaContext&>(context), matmul_, c.size, c.param > 0);
    GPUPROBE_RETURN_IF_ERROR(instance->Prepare());
    return std::unique_ptr<BenchmarkInstance>(std::move(instance));
  }

 private:
  bool matmul_;
  BenchmarkInfo info_;
};

}  // namespace

void RegisterCudaCrossoverBenchmarks(BenchmarkRegistry* registry) {
  registry->Add(std::make_unique<CrossoverGpuBenchmark>(false));
  registry->Add(std::make_unique<CrossoverGpuBenchmark>(true));
}

}  // namespace gpuprobe::bench
