// libFuzzer target for the settings text parsers: the input is one value
// of MEMFIT_MEMORY_LIMIT / --memory-limit / a request's memory_limit
// (parse_memory_size) and of MEMFIT_HEADROOM_FACTOR and friends
// (parse_multiplier_micros). Errors must be clean (fuzz_checks.h); a
// multiplier that parsed is at most 10^6, so at most 10^12 millionths.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  memfit::Result<std::optional<uint64_t>> bytes = memfit::parse_memory_size(text);
  if (!bytes.ok()) memfit_fuzz::check_message(bytes.error().message());
  // 0 means unset: a size that parsed is never 0.
  if (bytes.ok() && bytes->has_value() && **bytes == 0) __builtin_trap();

  memfit::Result<uint64_t> micros = memfit::parse_multiplier_micros(text);
  if (!micros.ok()) {
    memfit_fuzz::check_message(micros.error().message());
  } else if (*micros > 1'000'000'000'000ull) {
    __builtin_trap();
  }
  return 0;
}
