// Built only with the CUDA backend. Runs everywhere: it checks how CUDA errors become
// statuses, whichever way this machine's driver question is answered.
#include "bench/cuda/cuda_status.h"

#include <gtest/gtest.h>

#include "bench/cuda/cuda_device.h"

namespace gpuprobe::bench {
namespace {

TEST(StatusFromCuda, InsufficientDriverWithoutLibcudaMeansNoDriver) {
  core::Status status = StatusFromCuda("cudaGetDeviceCount", cudaErrorInsufficientDriver);
  EXPECT_EQ(status.code(), core::StatusCode::kUnavailable);
  if (!DriverLibraryLoadable()) {
    EXPECT_EQ(status.message(), "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
    EXPECT_EQ(status.message().find("insufficient"), std::string::npos);
  } else {
    EXPECT_NE(status.message().find("too old"), std::string::npos);
  }
}

TEST(StatusFromCuda, NoDeviceIsNotFoundAndOtherErrorsKeepTheirText) {
  EXPECT_EQ(StatusFromCuda("x", cudaErrorNoDevice).code(), core::StatusCode::kNotFound);
  core::Status illegal = StatusFromCuda("kernel", cudaErrorIllegalAddress);
  EXPECT_NE(illegal.message().find("illegal memory access"), std::string::npos);
  EXPECT_TRUE(StatusFromCuda("x", cudaSuccess).ok());
}

TEST(CudaDevice, QueryAnswersWithDevicesOrAOneLineReason) {
  EXPECT_TRUE(CudaBuilt());
  EXPECT_GE(CudaRuntimeVersion(), 12000);
  auto devices = QueryCudaDevices();
  if (!devices.ok()) {
    EXPECT_NE(devices.status().code(), core::StatusCode::kInternal) << devices.status().ToString();
    EXPECT_EQ(devices.status().message().find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuprobe::bench
