// NCCL collectives across every local GPU, measured the way nccl-tests measures them: one
// process drives all GPUs (ncclCommInitAll), one stream per GPU, each operation issued on
// every rank inside ncclGroupStart/End, warm-up then timed iterations between CUDA events,
// time = the slowest GPU's span / iterations; out-of-place, then in-place. Every element of
// every size's output is compared on its GPU with collective_pattern.h's closed-form values
// (a compare kernel with an error counter); the head and tail of each block are also read
// back and compared on the host, a check of the compare kernel itself.
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "bench/collective_pattern.h"
#include "bench/cuda/multi_gpu_cuda.h"
#include "bench/multi_gpu.h"

namespace gpuprobe::bench {
namespace {

using model::Collective;
using multi_gpu::CudaCallFailed;
using multi_gpu::DeviceBuffer;
using multi_gpu::DeviceTimer;

struct Rank {
  int device = 0;
  DeviceTimer timer;
  DeviceBuffer send;
  DeviceBuffer recv;
  nccl::Comm comm = nullptr;
};

class Ranks {
 public:
  explicit Ranks(const nccl::Api& api) : api_(api) {}
  ~Ranks() {
    for (auto& r : ranks_) {
      if (r->comm != nullptr) api_.comm_destroy(r->comm);
    }
  }
  std::vector<std::unique_ptr<Rank>>& all() { return ranks_; }
  int size() const { return static_cast<int>(ranks_.size()); }

 private:
  const nccl::Api& api_;
  std::vector<std::unique_ptr<Rank>> ranks_;
};

core::Status NcclFailed(const nccl::Api& api, const char* call, nccl::Result r) {
  return core::Status::Internal(fmt::format("{} failed: {} (NCCL error {})", call, api.get_error_string(r), r));
}

// Issues one `c` of `count` on every rank as one group (one process driving several GPUs
// must, or the ranks wait on each other forever).
core::Status Issue(const nccl::Api& api, Collective c, Ranks& ranks, std::uint64_t count, bool in_place) {
  const int n = ranks.size();
  nccl::Result first = api.group_start();
  if (first != nccl::kSuccess) return NcclFailed(api, "ncclGroupStart", first);
  for (int i = 0; i < n; ++i) {
    Rank& r = *ranks.all()[static_cast<size_t>(i)];
    float* send = r.send.get();
    float* recv = r.recv.get();
    nccl::Stream s = r.timer.stream;
    nccl::Result e = nccl::kSuccess;
    std::uint64_t offset = static_cast<std::uint64_t>(i) * count;
    switch (c) {
      case Collective::kAllReduce:
        e = api.all_reduce(in_place ? recv : send, recv, count, nccl::kFloat32, nccl::kSum, r.comm, s);
        break;
      case Collective::kAllGather:
        // In place: each rank's part already sits at its offset of the gathered buffer.
        e = api.all_gather(in_place ? recv + offset : send, recv, count, nccl::kFloat32, r.comm, s);
        break;
      case Collective::kReduceScatter:
        // In place: the result lands at the rank's offset of its own input.
        e = api.reduce_scatter(send, in_place ? send + offset : recv, count, nccl::kFloat32, nccl::kSum, r.comm, s);
        break;
      case Collective::kBroadcast:
        e = api.broadcast(in_place ? recv : send, recv, count, nccl::kFloat32, 0, r.comm, s);
        break;
      case Collective::kAllToAll:
        // ncclSend/ncclRecv to every peer (NCCL's alltoall before ncclAlltoAll existed).
        for (int p = 0; p < n && e == nccl::kSuccess; ++p) {
          std::uint64_t at = static_cast<std::uint64_t>(p) * count;
          e = api.send(send + at, count, nccl::kFloat32, p, r.comm, s);
          if (e == nccl::kSuccess) e = api.recv(recv + at, count, nccl::kFloat32, p, r.comm, s);
        }
        break;
      case Collective::kReduce:
      case Collective::kSendRecv:
        e = 1;  // not in the plan
        break;
    }
    if (e != nccl::kSuccess && first == nccl::kSuccess) first = e;
  }
  // The group is always closed, even after a failed call inside it.
  nccl::Result end = api.group_end();
  if (first != nccl::kSuccess) return NcclFailed(api, "enqueueing the collective", first);
  if (end != nccl::kSuccess) return NcclFailed(api, "ncclGroupEnd", end);
  return core::Status::Ok();
}

std::uint64_t InputElements(Collective c, int n, std::uint64_t count) {
  if (c == Collective::kReduceScatter || c == Collective::kAllToAll) return count * static_cast<std::uint64_t>(n);
  return count;
}

// Puts PatternInput into the buffers the next operation reads, and NaN (all bits set) into
// what it writes, so an element the collective never wrote fails the check.
core::Status Fill(Collective c, Ranks& ranks, std::uint64_t count, bool in_place) {
  const int n = ranks.size();
  for (int i = 0; i < n; ++i) {
    Rank& r = *ranks.all()[static_cast<size_t>(i)];
    cudaStream_t s = r.timer.stream;
    cudaError_t e = cudaSetDevice(r.device);
    float scale = static_cast<float>(i + 1);
    std::uint64_t out = PatternOutputElements(c, n, count);
    std::uint64_t in = InputElements(c, n, count);
    if (e == cudaSuccess) {
      if (!in_place) {
        e = multi_gpu::LaunchFillPattern(r.send.get(), in, 0, scale, s);
        if (e == cudaSuccess) e = cudaMemsetAsync(r.recv.get(), 0xFF, out * sizeof(float), s);
      } else if (c == Collective::kReduceScatter) {
        e = multi_gpu::LaunchFillPattern(r.send.get(), in, 0, scale, s);
      } else if (c == Collective::kAllGather) {
        e = cudaMemsetAsync(r.recv.get(), 0xFF, out * sizeof(float), s);
        if (e == cudaSuccess) e = multi_gpu::LaunchFillPattern(r.recv.get() + static_cast<std::uint64_t>(i) * count, count, 0, scale, s);
      } else if (c == Collective::kBroadcast && i != 0) {
        e = cudaMemsetAsync(r.recv.get(), 0xFF, out * sizeof(float), s);
      } else {
        e = multi_gpu::LaunchFillPattern(r.recv.get(), in, 0, scale, s);
      }
    }
    if (e != cudaSuccess) return CudaCallFailed("filling the buffers", r.device, e);
  }
  return core::Status::Ok();
}

core::Status SyncAll(Ranks& ranks) {
  for (auto& r : ranks.all()) {
    cudaError_t e = cudaSetDevice(r->device);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->timer.stream);
    if (e != cudaSuccess) return CudaCallFailed("cudaStreamSynchronize", r->device, e);
  }
  return core::Status::Ok();
}

// Compares every element of every rank's output with the pattern on its GPU; then reads back
// the head and tail of each block and compares them on the host: a wrong element there that
// the GPU's compare did not count means the compare kernel itself is broken.
core::Status Verify(Collective c, Ranks& ranks, std::uint64_t count, bool in_place, CollectiveTiming* t) {
  const int n = ranks.size();
  std::uint64_t out = PatternOutputElements(c, n, count);
  std::vector<float> host;
  for (int i = 0; i < n; ++i) {
    Rank& r = *ranks.all()[static_cast<size_t>(i)];
    const float* output = (in_place && c == Collective::kReduceScatter) ? r.send.get() + static_cast<std::uint64_t>(i) * count
                                                                        : r.recv.get();
    cudaError_t e = cudaSetDevice(r.device);
    if (e != cudaSuccess) return CudaCallFailed("cudaSetDevice", r.device, e);
    PatternCheck check;
    check.collective = c;
    check.rank = i;
    check.ranks = n;
    check.count = count;
    auto device = multi_gpu::ComparePatternOnDevice(output, out, check, r.timer.stream);
    if (!device.ok()) return device.status();
    t->checked_elements += out;
    if (device->count > 0) {
      if (t->mismatches == 0) {
        t->first_mismatch = fmt::format("rank {} element {}: {} (expected {})", i, device->first_index, device->first_value,
                                        PatternCheckExpected(check, device->first_index));
      }
      t->mismatches += device->count;
    }
    std::uint64_t host_wrong = 0;
    for (const auto& [begin, end] : VerifyRanges(out, n, kVerifyElementsPerBlockEnd)) {
      host.resize(end - begin);
      e = cudaMemcpy(host.data(), output + begin, (end - begin) * sizeof(float), cudaMemcpyDeviceToHost);
      if (e != cudaSuccess) return CudaCallFailed("cudaMemcpy (reading the result)", r.device, e);
      for (std::uint64_t k = begin; k < end; ++k) host_wrong += PatternElementOk(check, k, host[k - begin]) ? 0 : 1;
    }
    if (host_wrong > 0 && device->count == 0) {
      if (t->mismatches == 0) {
        t->first_mismatch = fmt::format("rank {}: {} wrong elements read back that the GPU's compare did not count", i, host_wrong);
      }
      t->mismatches += host_wrong;
    }
  }
  t->verified = t->mismatches == 0 && t->checked_elements > 0;
  return core::Status::Ok();
}

core::Status TimeOne(const nccl::Api& api, const CollectivesPlan& plan, Collective c, Ranks& ranks, std::uint64_t count,
                     std::uint64_t size_bytes, bool in_place, CollectiveTiming* t) {
  GPUPROBE_RETURN_IF_ERROR(Fill(c, ranks, count, in_place));
  for (int w = 0; w < plan.warmup_iterations; ++w) GPUPROBE_RETURN_IF_ERROR(Issue(api, c, ranks, count, in_place));
  GPUPROBE_RETURN_IF_ERROR(SyncAll(ranks));
  for (auto& r : ranks.all()) {
    cudaError_t e = cudaSetDevice(r->device);
    if (e == cudaSuccess) e = cudaEventRecord(r->timer.start, r->timer.stream);
    if (e != cudaSuccess) return CudaCallFailed("cudaEventRecord", r->device, e);
  }
  for (int k = 0; k < plan.iterations; ++k) GPUPROBE_RETURN_IF_ERROR(Issue(api, c, ranks, count, in_place));
  float slowest_ms = 0;
  for (auto& r : ranks.all()) {
    cudaError_t e = cudaSetDevice(r->device);
    if (e == cudaSuccess) e = cudaEventRecord(r->timer.stop, r->timer.stream);
    if (e != cudaSuccess) return CudaCallFailed("cudaEventRecord", r->device, e);
  }
  for (auto& r : ranks.all()) {
    float ms = 0;
    cudaError_t e = cudaSetDevice(r->device);
    if (e == cudaSuccess) e = cudaEventSynchronize(r->timer.stop);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, r->timer.start, r->timer.stop);
    if (e != cudaSuccess) return CudaCallFailed("cudaEventElapsedTime", r->device, e);
    slowest_ms = std::max(slowest_ms, ms);
  }
  t->ran = true;
  t->seconds = slowest_ms * 1e-3 / plan.iterations;
  t->bandwidth = model::CollectiveBandwidthOf(c, static_cast<double>(size_bytes), t->seconds, ranks.size());
  // In-place iterations fed their own output back in (sums grow each time): refill, run once
  // more, and check that one. Out-of-place outputs are the last iteration's, from unchanged inputs.
  if (in_place) {
    GPUPROBE_RETURN_IF_ERROR(Fill(c, ranks, count, in_place));
    GPUPROBE_RETURN_IF_ERROR(Issue(api, c, ranks, count, in_place));
    GPUPROBE_RETURN_IF_ERROR(SyncAll(ranks));
  }
  if (plan.corrupt_for_test) {
    Rank& r0 = *ranks.all().front();
    float* output = (in_place && c == Collective::kReduceScatter) ? r0.send.get() : r0.recv.get();
    // The middle element: beyond the head and tail the host reads back, so only the GPU's
    // compare of every element can see it.
    std::uint64_t elements = (in_place && c == Collective::kReduceScatter) ? count : PatternOutputElements(c, ranks.size(), count);
    cudaError_t e = cudaSetDevice(r0.device);
    if (e == cudaSuccess) e = cudaMemset(output + elements / 2, 0, sizeof(float));
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return CudaCallFailed("cudaMemset (test hook)", r0.device, e);
  }
  return Verify(c, ranks, count, in_place, t);
}

// The send and receive bytes one rank needs for `size_bytes` of `c`.
std::pair<std::uint64_t, std::uint64_t> BufferBytes(Collective c, std::uint64_t size_bytes, int n) {
  std::uint64_t part = size_bytes / static_cast<std::uint64_t>(n);
  if (c == Collective::kAllGather) return {part, size_bytes};
  if (c == Collective::kReduceScatter) return {size_bytes, part};
  return {size_bytes, size_bytes};
}

CollectiveResult RunOneCollective(const nccl::Api& api, const CollectivesPlan& plan, const CollectivePlanEntry& entry,
                                  Ranks& ranks, std::uint64_t memory_limit,
                                  const std::function<void(const CollectiveProgress&)>& progress, int* done, int total) {
  const int n = ranks.size();
  Collective c = entry.collective;
  CollectiveResult result;
  result.collective = c;
  result.factor = model::BusBandwidthFactor(c, n);
  CollectivesPlan limited = plan;
  limited.gpus = n;
  limited.memory_limit_bytes = memory_limit;
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s : plan.sizes_bytes) {
    std::uint64_t rounded = RoundedCollectiveBytes(c, s, plan.dtype_bytes, n);
    if (rounded == 0) continue;  // less than one element per rank
    if (!CollectiveSizeFits(limited, c, rounded)) {
      result.skipped_for_memory_bytes.push_back(s);
      continue;
    }
    if (sizes.empty() || sizes.back() != rounded) sizes.push_back(rounded);
  }
  if (sizes.empty()) return result;
  // Buffers for the largest size, reused by the smaller ones.
  auto [send_bytes, recv_bytes] = BufferBytes(c, sizes.back(), n);
  for (auto& r : ranks.all()) {
    cudaError_t e = r->send.Allocate(r->device, send_bytes);
    if (e == cudaSuccess) e = r->recv.Allocate(r->device, recv_bytes);
    if (e != cudaSuccess) {
      CollectiveSizeResult failed;
      failed.size_bytes = sizes.back();
      failed.error = CudaCallFailed("cudaMalloc", r->device, e).message();
      result.sizes.push_back(failed);
      return result;
    }
  }
  for (std::uint64_t size : sizes) {
    if (progress) progress({model::CollectiveId(c), size, ++*done, total});
    CollectiveSizeResult row;
    row.size_bytes = size;
    row.count = model::NcclTestsCount(c, size, static_cast<std::uint64_t>(plan.dtype_bytes), n);
    core::Status out_status = TimeOne(api, plan, c, ranks, row.count, size, false, &row.out_of_place);
    core::Status in_status = out_status.ok() && entry.in_place
                                 ? TimeOne(api, plan, c, ranks, row.count, size, true, &row.in_place)
                                 : core::Status::Ok();
    const core::Status& s = out_status.ok() ? in_status : out_status;
    if (!s.ok()) row.error = s.message();
    if (row.out_of_place.verified && row.out_of_place.bandwidth.busbw_bytes_per_second > result.peak_busbw_bytes_per_second) {
      result.peak_busbw_bytes_per_second = row.out_of_place.bandwidth.busbw_bytes_per_second;
      result.peak_size_bytes = size;
    }
    result.sizes.push_back(row);
    // A failed CUDA or NCCL call may leave the communicators unusable: stop this collective.
    if (!s.ok()) break;
  }
  for (auto& r : ranks.all()) {
    r->send = DeviceBuffer();
    r->recv = DeviceBuffer();
  }
  return result;
}

}  // namespace

core::Result<CollectivesReport> RunCollectives(const CollectivesPlan& plan, const nccl::Api& api,
                                               const std::vector<int>& devices,
                                               const std::function<void(const CollectiveProgress&)>& progress) {
  const int n = static_cast<int>(devices.size());
  if (n < 2) return core::Status::InvalidArgument("a collective needs at least two GPUs");
  if (n > kPatternMaxRanks) return core::Status::InvalidArgument(fmt::format("more than {} GPUs", kPatternMaxRanks));
  CollectivesReport report;
  report.gpus = n;
  report.nccl_version = nccl::NcclVersionText(api.version);
  report.nccl_library = api.library_name;
  Ranks ranks(api);
  for (int d : devices) {
    auto r = std::make_unique<Rank>();
    r->device = d;
    cudaError_t e = r->timer.Create(d);
    if (e != cudaSuccess) return CudaCallFailed("creating a stream", d, e);
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess) report.devices.push_back({d, prop.name});
    ranks.all().push_back(std::move(r));
  }
  std::vector<nccl::Comm> comms(static_cast<size_t>(n), nullptr);
  nccl::Result init = api.comm_init_all(comms.data(), n, devices.data());
  if (init != nccl::kSuccess) return NcclFailed(api, "ncclCommInitAll", init);
  for (int i = 0; i < n; ++i) ranks.all()[static_cast<size_t>(i)]->comm = comms[static_cast<size_t>(i)];
  // Free memory after NCCL made its own buffers: the cap is the smallest GPU's share.
  std::uint64_t min_free = 0;
  for (int d : devices) {
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t e = cudaSetDevice(d);
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_bytes, &total_bytes);
    if (e != cudaSuccess) return CudaCallFailed("cudaMemGetInfo", d, e);
    min_free = min_free == 0 ? free_bytes : std::min<std::uint64_t>(min_free, free_bytes);
  }
  std::uint64_t limit = MakeCollectivesPlan(n, min_free).memory_limit_bytes;
  if (plan.memory_limit_bytes > 0) limit = std::min(limit, plan.memory_limit_bytes);
  report.memory_limit_bytes = limit;
  // The progress counts the sizes that will run: those with an element per GPU that fit.
  CollectivesPlan capped = plan;
  capped.gpus = n;
  capped.memory_limit_bytes = limit;
  int total = 0;
  for (const auto& entry : plan.collectives) {
    std::uint64_t last = 0;
    for (std::uint64_t s : plan.sizes_bytes) {
      std::uint64_t rounded = RoundedCollectiveBytes(entry.collective, s, plan.dtype_bytes, n);
      if (rounded == 0 || rounded == last || !CollectiveSizeFits(capped, entry.collective, rounded)) continue;
      last = rounded;
      ++total;
    }
  }
  int done = 0;
  report.all_verified = true;
  for (const auto& entry : plan.collectives) {
    CollectiveResult r = RunOneCollective(api, plan, entry, ranks, limit, progress, &done, total);
    for (const auto& s : r.sizes) {
      bool ok = s.error.empty() && s.out_of_place.verified && (!entry.in_place || s.in_place.verified);
      if (!ok) report.all_verified = false;
    }
    report.results.push_back(std::move(r));
  }
  return report;
}

}  // namespace gpuprobe::bench
