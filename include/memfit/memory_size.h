// Memory sizes as people write them and as memfit prints them. The lowest
// layer: model, host, estimate and every front end use these.
//
// Units are binary: a "48 GB" Mac has 48 x 2^30 bytes, so "48GB" = "48G" =
// "48GiB" = 51539607552 bytes.
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

// Parses raw bytes ("4096"), or a number with a binary unit (K/KB/KiB,
// M/MB/MiB, G/GB/GiB, T/TB/TiB; case-insensitive; fractions allowed, "1.5G",
// rounded up to a byte). "0", "none" and "" parse to nullopt (unset).
// Fails (kUsage) on anything else and on sizes of 2^64 bytes or more.
Result<std::optional<uint64_t>> parse_memory_size(std::string_view text);

// "1.50 GiB", "512.0 MiB", "900 B": binary units; two decimals from GiB up,
// one for KiB and MiB, whole bytes below 1 KiB.
std::string format_bytes(uint64_t bytes);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MEMORY_SIZE_H_
