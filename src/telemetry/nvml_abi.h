/* The subset of the NVML C ABI gpuprobe calls, declared here because the build machines
 * carry no nvml.h (following NVML_API_VERSION 13 as shipped with driver 590). C-compatible:
 * the fake libnvidia-ml built by the tests includes this same header. Every struct has a
 * static size check, so a wrong mirror fails at compile time. */
#ifndef GPUPROBE_TELEMETRY_NVML_ABI_H_
#define GPUPROBE_TELEMETRY_NVML_ABI_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef int nvmlReturn_t;
enum {
  NVML_SUCCESS = 0, NVML_ERROR_UNINITIALIZED = 1, NVML_ERROR_INVALID_ARGUMENT = 2, NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4, NVML_ERROR_NOT_FOUND = 6, NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_TIMEOUT = 10, NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13, NVML_ERROR_GPU_IS_LOST = 15, NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17, NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18, NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
  NVML_ERROR_UNKNOWN = 999
};

typedef struct nvmlDevice_st* nvmlDevice_t;

typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

/* version must be sizeof | (2 << 24) = 0x02000028, not the literal 2. */
typedef struct {
  unsigned int version;
  unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define GPUPROBE_NVML_MEMORY_V2_VERSION ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

typedef struct {
  unsigned int gpu, memory;
} nvmlUtilization_t;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device;
  unsigned int pciDeviceId; /* device id in the high 16 bits, vendor in the low */
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

/* The 24-byte layout the _v2/_v3 process queries normally fill. */
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_v2_t;

/* Drivers 535.43 <= v < 535.86 filled this 32-byte layout from the same _v3 symbols. */
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId, computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessInfo_v3_535_t;

enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };

/* nvmlGpuTopologyLevel_t: the closest common ancestor of two devices. */
enum {
  NVML_TOPOLOGY_INTERNAL = 0,
  NVML_TOPOLOGY_SINGLE = 10,
  NVML_TOPOLOGY_MULTIPLE = 20,
  NVML_TOPOLOGY_HOSTBRIDGE = 30,
  NVML_TOPOLOGY_NODE = 40,
  NVML_TOPOLOGY_SYSTEM = 50
};
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
#define GPUPROBE_NVML_NVLINK_MAX_LINKS 18

#define GPUPROBE_NVML_NAME_BUFFER 96
#define GPUPROBE_NVML_VERSION_BUFFER 80

#ifdef __cplusplus
}
static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t layout");
static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t layout");
static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t layout");
static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t layout");
static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t layout");
static_assert(sizeof(nvmlProcessInfo_v3_535_t) == 32, "535.43-535.85 process layout");
#endif

#endif  /* GPUPROBE_TELEMETRY_NVML_ABI_H_ */
