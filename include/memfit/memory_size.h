// Memory sizes as people write them and as memfit prints them. The lowest
// layer: model, host, estimate and every front end use these.
//
// A size names its unit (docs/host.md, "Sizes"): "80GB" is 80 x 10^9 bytes
// (SI, as GPU makers and disks count), "80GiB" and "80G" are 80 x 2^30, "512B"
// is 512 bytes. A bare number is refused, since "16" is as likely meant as
// 16 GB as 16 bytes; only a field whose runtime flag counts bytes (vLLM's
// --kv-cache-memory-bytes) takes one.
#ifndef MEMFIT_MEMORY_SIZE_H_
#define MEMFIT_MEMORY_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Whether a number without a unit is bytes or an error.
enum class BareNumber { kRefused, kBytes };

// Parses a number with its unit, ignoring case and spaces around it:
//   B                  bytes
//   KB, MB, GB, TB     10^3, 10^6, 10^9, 10^12 bytes
//   KiB, MiB, GiB, TiB 2^10, 2^20, 2^30, 2^40 bytes; K, M, G, T the same
// Fractions are allowed ("1.5GB"), rounded up to a byte. "0" (of any unit),
// "none" and "" parse to nullopt (unset). A bare number other than 0 is
// bytes when `bare` is kBytes, else an error showing the units:
//   "'16': a size needs its unit: 16GiB (16 x 2^30 bytes), 16GB (16 x 10^9) or 16B"
// Fails (kUsage, naming no field) on anything else and on sizes of 2^64
// bytes or more.
Result<std::optional<uint64_t>> parse_memory_size(std::string_view text,
                                                  BareNumber bare = BareNumber::kRefused);

// "1.50 GiB", "512.0 MiB", "900 B": binary units; two decimals from GiB up,
// one for KiB and MiB, whole bytes below 1 KiB.
std::string format_bytes(uint64_t bytes);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MEMORY_SIZE_H_
