/* A fake ROCm SMI (librocm_smi64) for tests: the entry points memfit
 * calls, with ROCm SMI's C ABI, reporting one fixed GPU:
 *
 *   index  name                       VRAM total (bytes)      VRAM used (bytes)
 *   0      Fake AMD Instinct MI300X   206158430208 (192 GiB)  8589934592 (8 GiB)
 *
 * so memfit should report free = 206158430208 - 8589934592 = 197568495616
 * (184 GiB). Memory types other than VRAM (0) are refused, so a caller
 * asking for the wrong type is caught. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

enum { kSuccess = 0, kInvalidArgs = 1, kInsufficientSize = 11 };
enum { kMemTypeVram = 0 };

static const char kName[] = "Fake AMD Instinct MI300X";
static const uint64_t kTotalBytes = 206158430208ULL;
static const uint64_t kUsedBytes = 8589934592ULL;
static int initialised = 0;

FAKE_EXPORT int rsmi_init(uint64_t flags) {
  (void)flags;
  initialised = 1;
  return kSuccess;
}

FAKE_EXPORT int rsmi_shut_down(void) {
  initialised = 0;
  return kSuccess;
}

FAKE_EXPORT int rsmi_num_monitor_devices(uint32_t* count) {
  if (count == NULL || !initialised) return kInvalidArgs;
  *count = 1;
  return kSuccess;
}

FAKE_EXPORT int rsmi_dev_name_get(uint32_t index, char* name, size_t length) {
  if (index != 0 || name == NULL) return kInvalidArgs;
  if (sizeof kName > length) return kInsufficientSize;
  memcpy(name, kName, sizeof kName);
  return kSuccess;
}

FAKE_EXPORT int rsmi_dev_memory_total_get(uint32_t index, int type, uint64_t* total) {
  if (index != 0 || type != kMemTypeVram || total == NULL) return kInvalidArgs;
  *total = kTotalBytes;
  return kSuccess;
}

FAKE_EXPORT int rsmi_dev_memory_usage_get(uint32_t index, int type, uint64_t* used) {
  if (index != 0 || type != kMemTypeVram || used == NULL) return kInvalidArgs;
  *used = kUsedBytes;
  return kSuccess;
}
