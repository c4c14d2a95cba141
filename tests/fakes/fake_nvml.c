/* A fake libnvidia-ml.so.1 for the tests: exports NVML's symbols (the layouts of
 * src/telemetry/nvml_abi.h) with values scripted from a fixture file named by
 * $FAKE_NVML_FIXTURE, one "key=value" per line (see tests/fixtures/nvml/). gpuprobe loads it
 * through its real dlopen code with GPUPROBE_NVML_LIBRARY. Built twice: complete, and with
 * -DFAKE_NVML_MINIMAL exporting only what an old driver has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/nvml_abi.h"

#define MAX_KEYS 256
static char g_keys[MAX_KEYS][64];
static char g_values[MAX_KEYS][256];
static int g_count = -1;

static void load(void) {
  if (g_count >= 0) return;
  g_count = 0;
  const char* path = getenv("FAKE_NVML_FIXTURE");
  FILE* f = path ? fopen(path, "r") : NULL;
  if (!f) return;
  char line[400];
  while (fgets(line, sizeof line, f) && g_count < MAX_KEYS) {
    char* eq = strchr(line, '=');
    if (!eq || line[0] == '#') continue;
    *eq = 0;
    char* value = eq + 1;
    value[strcspn(value, "\r\n")] = 0;
    snprintf(g_keys[g_count], sizeof g_keys[0], "%s", line);
    snprintf(g_values[g_count], sizeof g_values[0], "%s", value);
    ++g_count;
  }
  fclose(f);
}

static const char* get(const char* key) {
  load();
  for (int i = 0; i < g_count; ++i) {
    if (strcmp(g_keys[i], key) == 0) return g_values[i];
  }
  return NULL;
}

static const char* dev_key(nvmlDevice_t d, const char* field, char* buffer, size_t size) {
  snprintf(buffer, size, "gpu%ld.%s", (long)(size_t)d - 1, field);
  return get(buffer);
}

/* Returns the scripted code for "gpuN.field_ret" or "field_ret", else SUCCESS (or NOT_SUPPORTED when absent). */
static nvmlReturn_t dev_u64(nvmlDevice_t d, const char* field, unsigned long long* out) {
  char key[96];
  char ret_key[96];
  snprintf(ret_key, sizeof ret_key, "%s_ret", field);
  const char* ret = dev_key(d, ret_key, key, sizeof key);
  if (ret) return atoi(ret);
  const char* v = dev_key(d, field, key, sizeof key);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *out = strtoull(v, NULL, 0);
  return NVML_SUCCESS;
}
static nvmlReturn_t dev_u32(nvmlDevice_t d, const char* field, unsigned int* out) {
  unsigned long long v = 0;
  nvmlReturn_t rc = dev_u64(d, field, &v);
  if (rc == NVML_SUCCESS) *out = (unsigned int)v;
  return rc;
}
static nvmlReturn_t dev_str(nvmlDevice_t d, const char* field, char* out, unsigned int size) {
  char key[96];
  const char* v = dev_key(d, field, key, sizeof key);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  if (strlen(v) + 1 > size) return NVML_ERROR_INSUFFICIENT_SIZE;
  strcpy(out, v);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) {
  const char* rc = get("init_ret");
  return rc ? atoi(rc) : NVML_SUCCESS;
}
nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }
const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "Driver/library version mismatch";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    default: return "Unknown Error";
  }
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  const char* c = get("count");
  *count = c ? (unsigned int)atoi(c) : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  *device = (nvmlDevice_t)(size_t)(index + 1);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned int size) {
  unsigned long long dummy;
  nvmlReturn_t lost = dev_u64(d, "lost", &dummy);
  if (lost == NVML_SUCCESS && dummy) return NVML_ERROR_GPU_IS_LOST;
  return dev_str(d, "name", name, size);
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  unsigned long long total = 0, used = 0, reserved = 0;
  if (dev_u64(d, "memory_total", &total) != NVML_SUCCESS) return NVML_ERROR_NOT_SUPPORTED;
  dev_u64(d, "memory_used", &used);
  dev_u64(d, "memory_reserved", &reserved);
  m->total = total;
  m->used = used + reserved; /* v1 counts the reservation as used */
  m->free = total - m->used;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  nvmlReturn_t rc = dev_u32(d, "util_gpu", &u->gpu);
  if (rc != NVML_SUCCESS) return rc;
  dev_u32(d, "util_memory", &u->memory);
  return NVML_SUCCESS;
}

#ifndef FAKE_NVML_MINIMAL
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned int size) {
  const char* s = get("driver");
  if (!s) return NVML_ERROR_NOT_SUPPORTED;
  snprintf(v, size, "%s", s);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  const char* s = get("cuda");
  if (!s) return NVML_ERROR_NOT_SUPPORTED;
  *v = atoi(s);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* s, unsigned int n) { return dev_str(d, "uuid", s, n); }
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char* s, unsigned int n) { return dev_str(d, "serial", s, n); }
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t d, char* s, unsigned int n) { return dev_str(d, "vbios", s, n); }
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* p) {
  memset(p, 0, sizeof *p);
  if (dev_str(d, "bus_id", p->busId, sizeof p->busId) != NVML_SUCCESS) return NVML_ERROR_NOT_SUPPORTED;
  dev_u32(d, "pci_device_id", &p->pciDeviceId);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t* m) {
  /* As the real driver: the version must be sizeof | 2 << 24. */
  if (m->version != ((unsigned int)sizeof(nvmlMemory_v2_t) | (2u << 24))) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  unsigned long long total = 0, used = 0, reserved = 0;
  if (dev_u64(d, "memory_total", &total) != NVML_SUCCESS) return NVML_ERROR_NOT_SUPPORTED;
  dev_u64(d, "memory_used", &used);
  dev_u64(d, "memory_reserved", &reserved);
  m->total = total;
  m->reserved = reserved;
  m->used = used;
  m->free = total - reserved - used;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t d, unsigned int* v, unsigned int* p) { *p = 1000; return dev_u32(d, "util_encoder", v); }
nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t d, unsigned int* v, unsigned int* p) { *p = 1000; return dev_u32(d, "util_decoder", v); }
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* t) { (void)sensor; return dev_u32(d, "temperature", t); }
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int which, unsigned int* t) {
  return dev_u32(d, which == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN ? "temp_slowdown" : "temp_shutdown", t);
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* mw) { return dev_u32(d, "power_mw", mw); }
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int* mw) { return dev_u32(d, "power_limit_mw", mw); }
nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t d, unsigned int* lo, unsigned int* hi) {
  *lo = 0;
  return dev_u32(d, "power_max_mw", hi);
}
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t d, int* p) {
  unsigned int v = 0;
  nvmlReturn_t rc = dev_u32(d, "pstate", &v);
  *p = (int)v;
  return rc;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) {
  return dev_u32(d, type == NVML_CLOCK_SM ? "clock_sm" : type == NVML_CLOCK_MEM ? "clock_mem" : "clock_graphics", mhz);
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) {
  return dev_u32(d, type == NVML_CLOCK_SM ? "clock_sm_max" : type == NVML_CLOCK_MEM ? "clock_mem_max" : "clock_graphics_max", mhz);
}
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long* r) { return dev_u64(d, "clock_reasons", r); }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int* v) { return dev_u32(d, "pcie_gen", v); }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* v) { return dev_u32(d, "pcie_gen_max", v); }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int* v) { return dev_u32(d, "pcie_width", v); }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int* v) { return dev_u32(d, "pcie_width_max", v); }
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int* v) {
  return dev_u32(d, counter == NVML_PCIE_UTIL_TX_BYTES ? "pcie_tx_kb" : "pcie_rx_kb", v);
}
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d, unsigned int* v) { return dev_u32(d, "pcie_replay", v); }
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int* v) {
  unsigned int x = 0;
  nvmlReturn_t rc = dev_u32(d, "persistence", &x);
  *v = (int)x;
  return rc;
}
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int* v) {
  unsigned int x = 0;
  nvmlReturn_t rc = dev_u32(d, "compute_mode", &x);
  *v = (int)x;
  return rc;
}
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) {
  nvmlReturn_t rc = dev_u32(d, "mig", current);
  *pending = *current;
  return rc;
}
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, int* current, int* pending) {
  unsigned int x = 0;
  nvmlReturn_t rc = dev_u32(d, "ecc", &x);
  *current = *pending = (int)x;
  return rc;
}
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long* v) {
  const char* field = type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? (counter == NVML_VOLATILE_ECC ? "ecc_corr_vol" : "ecc_corr_agg")
                                                               : (counter == NVML_VOLATILE_ECC ? "ecc_unc_vol" : "ecc_unc_agg");
  return dev_u64(d, field, v);
}
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int* corr, unsigned int* unc, unsigned int* pending, unsigned int* failure) {
  nvmlReturn_t rc = dev_u32(d, "remap_corr", corr);
  if (rc != NVML_SUCCESS) return rc;
  dev_u32(d, "remap_unc", unc);
  *pending = 0;
  *failure = 0;
  dev_u32(d, "remap_pending", pending);
  dev_u32(d, "remap_failure", failure);
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t d, unsigned int* v) { return dev_u32(d, "fan", v); }
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  unsigned int cc = 0;
  nvmlReturn_t rc = dev_u32(d, "cc", &cc);
  *major = (int)(cc / 10);
  *minor = (int)(cc % 10);
  return rc;
}
/* Processes: "gpuN.processes=pid:bytes,pid:bytes"; layout "wide" (32-byte, 535.43-535.85) when
 * the fixture says layout=535; the two-call pattern with INSUFFICIENT_SIZE as the driver does. */
static nvmlReturn_t process_list(nvmlDevice_t d, const char* which, unsigned int* count, void* infos) {
  char key[96];
  const char* list = dev_key(d, which, key, sizeof key);
  const char* layout = get("layout");
  int wide = layout && strcmp(layout, "535") == 0;
  unsigned int n = 0;
  unsigned int pids[16];
  unsigned long long used[16];
  if (list && *list) {
    const char* p = list;
    while (*p && n < 16) {
      pids[n] = (unsigned int)strtoul(p, (char**)&p, 10);
      if (*p == ':') ++p;
      used[n] = strtoull(p, (char**)&p, 10);
      ++n;
      if (*p == ',') ++p;
    }
  }
  if (*count < n || infos == NULL) {
    *count = n;
    return n == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned int i = 0; i < n; ++i) {
    if (wide) {
      nvmlProcessInfo_v3_535_t* e = (nvmlProcessInfo_v3_535_t*)infos + i;
      e->pid = pids[i];
      e->usedGpuMemory = used[i];
      e->gpuInstanceId = e->computeInstanceId = 0xFFFFFFFFu;
      e->usedGpuCcProtectedMemory = 0;
    } else {
      nvmlProcessInfo_v2_t* e = (nvmlProcessInfo_v2_t*)infos + i;
      e->pid = pids[i];
      e->usedGpuMemory = used[i];
      e->gpuInstanceId = e->computeInstanceId = 0xFFFFFFFFu;
    }
  }
  *count = n;
  return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int* count, void* infos) {
  return process_list(d, "processes", count, infos);
}
/* Graphics processes: "gpuN.graphics_processes=pid:bytes,..." (same layout). */
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned int* count, void* infos) {
  return process_list(d, "graphics_processes", count, infos);
}
nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char* name, unsigned int size) {
  char key[64];
  snprintf(key, sizeof key, "name.%u", pid);
  const char* v = get(key);
  if (!v) return NVML_ERROR_NOT_FOUND;
  snprintf(name, size, "%s", v);
  return NVML_SUCCESS;
}
/* Presence-only symbols: 535.43-535.85 export the first but not the second. */
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t d, void* info) {
  (void)d;
  (void)info;
  return NVML_ERROR_NOT_SUPPORTED;
}
#ifndef FAKE_NVML_DRIVER_535
nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t d, void* list) {
  (void)d;
  (void)list;
  return NVML_ERROR_NOT_SUPPORTED;
}
#endif
/* Topology: "gpuN.topo.M=<level>" (nvmlGpuTopologyLevel_t) for each pair, "gpuN.nvlink.L=<bus
 * id of the far end>" for an active link, "gpuN.nvlink.L=inactive" for a link that is down; a
 * link with no key does not exist (NOT_SUPPORTED). */
static unsigned int device_index(nvmlDevice_t d) { return (unsigned int)((size_t)d - 1); }

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int* level) {
  char key[96];
  snprintf(key, sizeof key, "gpu%u.topo.%u", device_index(a), device_index(b));
  const char* v = get(key);
  if (!v) {
    snprintf(key, sizeof key, "gpu%u.topo.%u", device_index(b), device_index(a));
    v = get(key);
  }
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *level = atoi(v);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int* active) {
  char key[96];
  snprintf(key, sizeof key, "gpu%u.nvlink.%u", device_index(d), link);
  const char* v = get(key);
  if (!v) return NVML_ERROR_NOT_SUPPORTED;
  *active = strcmp(v, "inactive") == 0 ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t* p) {
  char key[96];
  snprintf(key, sizeof key, "gpu%u.nvlink.%u", device_index(d), link);
  const char* v = get(key);
  if (!v || strcmp(v, "inactive") == 0) return NVML_ERROR_NOT_SUPPORTED;
  memset(p, 0, sizeof *p);
  snprintf(p->busId, sizeof p->busId, "%s", v);
  return NVML_SUCCESS;
}

#endif /* FAKE_NVML_MINIMAL */
