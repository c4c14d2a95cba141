// The transfer suites' prediction, CUDA-free: a copy's time is a fixed setup cost plus the
// bytes over the path's bandwidth, once for each time every byte crosses that path. A
// host<->device copy crosses PCIe once; copies both ways at once run on separate lanes in
// parallel; a device-to-device copy reads every byte from HBM and writes it back through the
// same HBM: twice, so it copies at most half the memory bandwidth.
//
// Thread safety: pure functions.
#pragma once

namespace gpuprobe::bench::gpu {

enum class CopyPath {
  kOneWay,          ///< host to device or device to host: `bytes` once over the link
  kBothWays,        ///< `bytes` each way at once; the result counts both
  kDeviceToDevice,  ///< `bytes` read and written through the same memory
};

/// Seconds one copy of `bytes` takes: setup + the bytes each lane carries / bandwidth.
double CopySeconds(CopyPath path, double bytes, double bytes_per_second, double setup_seconds);

/// The predicted rate in the result's convention: bytes copied per second (both directions
/// counted for kBothWays; each byte once for a device-to-device copy, as nvbandwidth counts
/// it). 0 when the bandwidth is not positive.
double PredictedCopyRate(CopyPath path, double bytes, double bytes_per_second, double setup_seconds);

}  // namespace gpuprobe::bench::gpu
