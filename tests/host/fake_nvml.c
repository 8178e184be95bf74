/* A fake NVML (libnvidia-ml) for tests: the six entry points memfit
 * calls, with NVML's C ABI, reporting two fixed GPUs:
 *
 *   index  name                            total (bytes)            free (bytes)
 *   0      Fake NVIDIA A100-SXM4-40GB      42949672960 (40 GiB)     41875931136 (39 GiB)
 *   1      Fake NVIDIA GeForce RTX 4090    25769803776 (24 GiB)     21474836480 (20 GiB)
 *
 * Read when nvmlInit_v2 runs:
 *   FAKE_NVML_INIT_RESULT=N   nvmlInit_v2 returns N (9 = "Driver Not Loaded")
 *   FAKE_NVML_DEVICE_COUNT=N  report only the first N (0..2) devices
 * Built with FAKE_NVML_MINIMAL, it exports only the pre-v2 names nvmlInit,
 * nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex and nvmlDeviceGetMemoryInfo
 * (no name, no shutdown, no error strings), as an old driver or a
 * hand-made fake might.
 * The counters fake_nvml_init_calls and fake_nvml_shutdown_calls record how
 * the library was used; a test reads them with dlsym while it holds the
 * library open itself (so memfit's dlclose does not unload it). */
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define FAKE_EXPORT __declspec(dllexport)
#else
#define FAKE_EXPORT __attribute__((visibility("default")))
#endif

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} FakeNvmlMemory;

typedef struct {
  const char* name;
  unsigned long long total_bytes;
  unsigned long long free_bytes;
} FakeDevice;

static const FakeDevice kDevices[] = {
    {"Fake NVIDIA A100-SXM4-40GB", 42949672960ULL, 41875931136ULL},
    {"Fake NVIDIA GeForce RTX 4090", 25769803776ULL, 21474836480ULL},
};
static const unsigned kDeviceCount = sizeof kDevices / sizeof kDevices[0];

enum { kSuccess = 0, kErrorInvalidArgument = 2, kErrorInsufficientSize = 7 };

FAKE_EXPORT int fake_nvml_init_calls = 0;
FAKE_EXPORT int fake_nvml_shutdown_calls = 0;
static unsigned visible_count = 0;

#ifdef FAKE_NVML_MINIMAL
#define NVML_INIT nvmlInit
#define NVML_GET_COUNT nvmlDeviceGetCount
#define NVML_GET_HANDLE nvmlDeviceGetHandleByIndex
#define NVML_OPTIONAL static __attribute__((unused))
#else
#define NVML_INIT nvmlInit_v2
#define NVML_GET_COUNT nvmlDeviceGetCount_v2
#define NVML_GET_HANDLE nvmlDeviceGetHandleByIndex_v2
#define NVML_OPTIONAL FAKE_EXPORT
#endif

FAKE_EXPORT int NVML_INIT(void) {
  ++fake_nvml_init_calls;
  const char* result = getenv("FAKE_NVML_INIT_RESULT");
  if (result != NULL && atoi(result) != 0) return atoi(result);
  visible_count = kDeviceCount;
  const char* count = getenv("FAKE_NVML_DEVICE_COUNT");
  if (count != NULL && (unsigned)atoi(count) < kDeviceCount) visible_count = (unsigned)atoi(count);
  return kSuccess;
}

NVML_OPTIONAL int nvmlShutdown(void) {
  ++fake_nvml_shutdown_calls;
  return kSuccess;
}

FAKE_EXPORT int NVML_GET_COUNT(unsigned int* count) {
  if (count == NULL) return kErrorInvalidArgument;
  *count = visible_count;
  return kSuccess;
}

FAKE_EXPORT int NVML_GET_HANDLE(unsigned int index, void** device) {
  if (device == NULL || index >= visible_count) return kErrorInvalidArgument;
  *device = (void*)&kDevices[index];
  return kSuccess;
}

NVML_OPTIONAL int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  const FakeDevice* d = (const FakeDevice*)device;
  if (d == NULL || name == NULL) return kErrorInvalidArgument;
  if (strlen(d->name) + 1 > length) return kErrorInsufficientSize;
  memcpy(name, d->name, strlen(d->name) + 1);
  return kSuccess;
}

FAKE_EXPORT int nvmlDeviceGetMemoryInfo(void* device, FakeNvmlMemory* memory) {
  const FakeDevice* d = (const FakeDevice*)device;
  if (d == NULL || memory == NULL) return kErrorInvalidArgument;
  memory->total = d->total_bytes;
  memory->free = d->free_bytes;
  memory->used = d->total_bytes - d->free_bytes;
  return kSuccess;
}

NVML_OPTIONAL const char* nvmlErrorString(int result) {
  return result == 9 ? "Driver Not Loaded" : "Fake Error";
}
