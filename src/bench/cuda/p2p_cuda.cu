// The GPU x GPU copy matrix with the copy engines (cudaMemcpyPeerAsync), after nvbandwidth's
// device_to_device memcpy tests: for every ordered pair, a buffer copied `iterations` times
// between CUDA events on the stream of the GPU that drives the copy (read: the destination
// pulls from its peer; write: the source pushes into its peer), one way or with the reverse
// copy running at the same time. Peer access is enabled wherever cudaDeviceCanAccessPeer
// allows; elsewhere CUDA stages the copy through host memory, which the matrix shows as such.
// Every element of every copied buffer is compared on its GPU with the source's pattern.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "bench/collective_pattern.h"
#include "bench/cuda/multi_gpu_cuda.h"
#include "bench/multi_gpu.h"

namespace gpuprobe::bench {
namespace {

using multi_gpu::CudaCallFailed;
using multi_gpu::DeviceBuffer;
using multi_gpu::DeviceTimer;

struct Gpu {
  int device = 0;
  DeviceTimer timer;
  DeviceBuffer src;  ///< PatternInput(its rank), never written after the fill
  DeviceBuffer dst;  ///< what a peer's copy lands in
};

struct Copy {
  int from = 0;        ///< rank indices
  int to = 0;
  int driver = 0;      ///< whose stream runs it
};

core::Status IssueCopies(std::vector<std::unique_ptr<Gpu>>& gpus, const Copy& c, std::uint64_t bytes, int count) {
  Gpu& from = *gpus[static_cast<size_t>(c.from)];
  Gpu& to = *gpus[static_cast<size_t>(c.to)];
  Gpu& driver = *gpus[static_cast<size_t>(c.driver)];
  cudaError_t e = cudaSetDevice(driver.device);
  for (int k = 0; k < count && e == cudaSuccess; ++k) {
    e = cudaMemcpyPeerAsync(to.dst.get(), to.device, from.src.get(), from.device, bytes, driver.timer.stream);
  }
  if (e != cudaSuccess) return CudaCallFailed("cudaMemcpyPeerAsync", driver.device, e);
  return core::Status::Ok();
}

// Times `measured` (and runs `reverse` at the same time when given); returns seconds per copy.
core::Result<double> TimeCopies(std::vector<std::unique_ptr<Gpu>>& gpus, const P2pPlan& plan, const Copy& measured,
                                const Copy* reverse) {
  std::uint64_t bytes = plan.buffer_bytes;
  GPUPROBE_RETURN_IF_ERROR(IssueCopies(gpus, measured, bytes, plan.warmup_iterations));
  if (reverse != nullptr) GPUPROBE_RETURN_IF_ERROR(IssueCopies(gpus, *reverse, bytes, plan.warmup_iterations));
  for (auto& g : gpus) {
    cudaError_t e = cudaSetDevice(g->device);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->timer.stream);
    if (e != cudaSuccess) return CudaCallFailed("cudaStreamSynchronize", g->device, e);
  }
  Gpu& driver = *gpus[static_cast<size_t>(measured.driver)];
  // The reverse copies are queued first so they are already running when the measured ones start.
  if (reverse != nullptr) GPUPROBE_RETURN_IF_ERROR(IssueCopies(gpus, *reverse, bytes, plan.iterations + 1));
  cudaError_t e = cudaSetDevice(driver.device);
  if (e == cudaSuccess) e = cudaEventRecord(driver.timer.start, driver.timer.stream);
  if (e != cudaSuccess) return CudaCallFailed("cudaEventRecord", driver.device, e);
  GPUPROBE_RETURN_IF_ERROR(IssueCopies(gpus, measured, bytes, plan.iterations));
  e = cudaSetDevice(driver.device);
  if (e == cudaSuccess) e = cudaEventRecord(driver.timer.stop, driver.timer.stream);
  float ms = 0;
  if (e == cudaSuccess) e = cudaEventSynchronize(driver.timer.stop);
  if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, driver.timer.start, driver.timer.stop);
  if (e != cudaSuccess) return CudaCallFailed("timing the copies", driver.device, e);
  for (auto& g : gpus) {
    e = cudaSetDevice(g->device);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->timer.stream);
    if (e != cudaSuccess) return CudaCallFailed("cudaStreamSynchronize", g->device, e);
  }
  return ms * 1e-3 / plan.iterations;
}

// Compares every element of `to`'s destination with `from`'s pattern on `to`'s GPU; the head
// and tail of each sixteenth are also read back and compared on the host (a check of the
// compare kernel itself).
core::Status VerifyCopy(std::vector<std::unique_ptr<Gpu>>& gpus, int from, int to, std::uint64_t bytes, bool corrupt,
                        P2pMatrix* m) {
  Gpu& g = *gpus[static_cast<size_t>(to)];
  std::uint64_t elements = bytes / sizeof(float);
  std::vector<float> host;
  cudaError_t e = cudaSetDevice(g.device);
  if (e == cudaSuccess && corrupt) e = cudaMemset(g.dst.get() + elements / 2, 0, sizeof(float));  // mid-buffer: only a full check sees it
  if (e == cudaSuccess && corrupt) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return CudaCallFailed("cudaSetDevice", g.device, e);
  PatternCheck check;
  check.copy = true;
  check.rank = from;
  auto device = multi_gpu::ComparePatternOnDevice(g.dst.get(), elements, check, g.timer.stream);
  if (!device.ok()) return device.status();
  if (device->count > 0) {
    if (m->mismatches == 0) {
      m->first_mismatch = fmt::format("GPU {} -> GPU {} element {}: {} (expected {})", gpus[static_cast<size_t>(from)]->device, g.device,
                                      device->first_index, device->first_value, PatternInput(from, device->first_index));
    }
    m->mismatches += device->count;
  }
  std::uint64_t host_wrong = 0;
  for (const auto& [begin, end] : VerifyRanges(elements, 16, 1024)) {
    host.resize(end - begin);
    e = cudaMemcpy(host.data(), g.dst.get() + begin, (end - begin) * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return CudaCallFailed("cudaMemcpy (reading the copy)", g.device, e);
    for (std::uint64_t k = begin; k < end; ++k) host_wrong += PatternElementOk(check, k, host[k - begin]) ? 0 : 1;
  }
  if (host_wrong > 0 && device->count == 0) {
    if (m->mismatches == 0) {
      m->first_mismatch = fmt::format("GPU {} -> GPU {}: {} wrong elements read back that the GPU's compare did not count",
                                      gpus[static_cast<size_t>(from)]->device, g.device, host_wrong);
    }
    m->mismatches += host_wrong;
  }
  // Clear it for the next pair, so a copy that did not happen cannot pass on old data. On the
  // GPU's own stream and waited for: the copies run on non-blocking streams, which a memset on
  // the legacy default stream would not be ordered with.
  e = cudaMemsetAsync(g.dst.get(), 0xFF, bytes, g.timer.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(g.timer.stream);
  if (e != cudaSuccess) return CudaCallFailed("cudaMemsetAsync", g.device, e);
  return core::Status::Ok();
}

}  // namespace

core::Result<P2pReport> RunP2p(const P2pPlan& plan, const std::vector<int>& devices) {
  const int n = static_cast<int>(devices.size());
  if (n < 2) return core::Status::InvalidArgument("a copy matrix needs at least two GPUs");
  P2pReport report;
  report.gpus = n;
  report.buffer_bytes = plan.buffer_bytes;
  std::vector<std::unique_ptr<Gpu>> gpus;
  for (int i = 0; i < n; ++i) {
    auto g = std::make_unique<Gpu>();
    g->device = devices[static_cast<size_t>(i)];
    cudaError_t e = g->timer.Create(g->device);
    if (e == cudaSuccess) e = g->src.Allocate(g->device, plan.buffer_bytes);
    if (e == cudaSuccess) e = g->dst.Allocate(g->device, plan.buffer_bytes);
    if (e == cudaSuccess) e = multi_gpu::LaunchFillPattern(g->src.get(), plan.buffer_bytes / sizeof(float), 0,
                                                            static_cast<float>(i + 1), g->timer.stream);
    if (e == cudaSuccess) e = cudaMemsetAsync(g->dst.get(), 0xFF, plan.buffer_bytes, g->timer.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(g->timer.stream);
    if (e != cudaSuccess) return CudaCallFailed("preparing the buffers", g->device, e);
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, g->device) == cudaSuccess) report.devices.push_back({g->device, prop.name});
    gpus.push_back(std::move(g));
  }
  report.peer_access.assign(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(n), false));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int can = 0;
      cudaError_t e = cudaDeviceCanAccessPeer(&can, devices[static_cast<size_t>(i)], devices[static_cast<size_t>(j)]);
      if (e != cudaSuccess) return CudaCallFailed("cudaDeviceCanAccessPeer", devices[static_cast<size_t>(i)], e);
      report.peer_access[static_cast<size_t>(i)][static_cast<size_t>(j)] = can != 0;
      if (can == 0) continue;
      e = cudaSetDevice(devices[static_cast<size_t>(i)]);
      if (e == cudaSuccess) e = cudaDeviceEnablePeerAccess(devices[static_cast<size_t>(j)], 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();  // enabled earlier in this process: fine, and not sticky
        e = cudaSuccess;
      }
      if (e != cudaSuccess) return CudaCallFailed("cudaDeviceEnablePeerAccess", devices[static_cast<size_t>(i)], e);
    }
  }
  report.all_verified = true;
  for (const std::string& test : plan.tests) {
    P2pMatrix m;
    m.test = test;
    bool read = test.find("_read_") != std::string::npos;
    m.bidirectional = test.find("bidirectional") != std::string::npos;
    m.bytes_per_second.assign(static_cast<size_t>(n), std::vector<std::optional<double>>(static_cast<size_t>(n)));
    for (int row = 0; row < n; ++row) {
      for (int col = 0; col < n; ++col) {
        if (row == col) continue;
        // Read: the row pulls from the column. Write: the row pushes into the column.
        Copy measured = read ? Copy{col, row, row} : Copy{row, col, row};
        Copy reverse = read ? Copy{row, col, col} : Copy{col, row, col};
        auto seconds = TimeCopies(gpus, plan, measured, m.bidirectional ? &reverse : nullptr);
        if (!seconds.ok()) return seconds.status();
        if (*seconds > 0) m.bytes_per_second[static_cast<size_t>(row)][static_cast<size_t>(col)] = plan.buffer_bytes / *seconds;
        GPUPROBE_RETURN_IF_ERROR(VerifyCopy(gpus, measured.from, measured.to, plan.buffer_bytes, plan.corrupt_for_test, &m));
        if (m.bidirectional) {
          GPUPROBE_RETURN_IF_ERROR(VerifyCopy(gpus, reverse.from, reverse.to, plan.buffer_bytes, plan.corrupt_for_test, &m));
        }
      }
    }
    if (m.mismatches > 0) report.all_verified = false;
    report.matrices.push_back(std::move(m));
  }
  return report;
}

}  // namespace gpuprobe::bench
