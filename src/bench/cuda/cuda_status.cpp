#include "bench/cuda/cuda_status.h"

#include <fmt/format.h>

#include "core/dynamic_library.h"

namespace gpuprobe::bench {

bool DriverLibraryLoadable() { return core::CanLoadLibrary("libcuda.so.1"); }

core::Status StatusFromCuda(const std::string& context, cudaError_t error) {
  if (error == cudaSuccess) return core::Status::Ok();
  switch (error) {
    case cudaErrorInsufficientDriver:
      if (!DriverLibraryLoadable()) {
        // The static runtime reports a missing libcuda.so.1 as "insufficient driver"; the
        // truth a user needs is that there is no driver at all.
        return core::Status::Unavailable(
                   "no NVIDIA driver found (libcuda.so.1 cannot be loaded)",
                   "on a GPU machine install the NVIDIA driver; in a container start it with --gpus all")
            .WithKeys("error.cuda.no_driver", {}, "error.cuda.no_driver.hint");
      }
      return core::Status::Unavailable(
          fmt::format("the NVIDIA driver is too old for this gpuprobe (built with CUDA {}.{})",
                      CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10),
          "upgrade the driver (CUDA 13 needs driver 580 or newer), or build gpuprobe with an older toolkit")
          .WithKeys("error.cuda.driver_too_old", {{"cuda", fmt::format("{}.{}", CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10)}},
                    "error.cuda.driver_too_old.hint");
    case cudaErrorNoDevice:
      return core::Status::NotFound("the NVIDIA driver is loaded but no GPU is visible",
                                    "check CUDA_VISIBLE_DEVICES and the container's device passthrough")
          .WithKeys("error.cuda.no_device", {}, "error.cuda.no_device.hint");
    case cudaErrorStubLibrary:
      return core::Status::Unavailable("the CUDA driver found is a stub library, not a real driver",
                                       "remove the toolkit's lib64/stubs directory from LD_LIBRARY_PATH")
          .WithKeys("error.cuda.stub", {}, "error.cuda.stub.hint");
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return core::Status::Unavailable(fmt::format("{}: {}", context, cudaGetErrorString(error)),
                                       "align the forward-compatibility libcuda with the host driver")
          .WithKeys("error.nvml.other", {{"context", context}, {"detail", cudaGetErrorString(error)}}, "error.cuda.compat.hint");
    case cudaErrorNoKernelImageForDevice:
      return core::Status::Unavailable(fmt::format("{}: {}", context, cudaGetErrorString(error)),
                                       "this GPU's architecture is newer or older than the ones gpuprobe was built for")
          .WithKeys("error.nvml.other", {{"context", context}, {"detail", cudaGetErrorString(error)}}, "error.cuda.no_image.hint");
    default:
      return core::Status::Internal(fmt::format("{} failed: {} ({})", context, cudaGetErrorString(error),
                                                static_cast<int>(error)))
          .WithKeys("error.cuda.failed", {{"context", context}, {"detail", cudaGetErrorString(error)},
                                          {"code", std::to_string(static_cast<int>(error))}},
                    "error.cuda.failed.hint");
  }
}

}  // namespace gpuprobe::bench
