// The axes of the memory plot: a log2 context axis and a linear byte axis,
// their ticks and tick labels, and the mapping to pixels.
//
// Byte and token values stay uint64_t; doubles appear only where a value
// becomes a pixel coordinate.
#ifndef MEMFIT_ENGINES_SHARED_PLOT_AXES_H_
#define MEMFIT_ENGINES_SHARED_PLOT_AXES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memfit {

// Context axis: log2(tokens) from [min_tokens, max_tokens] onto
// [left_px, right_px]. min_tokens < max_tokens, both > 0.
class ContextAxis {
 public:
  ContextAxis(uint64_t min_tokens, uint64_t max_tokens, double left_px, double right_px);
  double x(uint64_t tokens) const;

 private:
  double lo_log2_;
  double hi_log2_;
  double left_px_;
  double right_px_;
};

// Byte axis: [0, top_bytes] onto [bottom_px, top_px] (pixels grow down).
class ByteAxis {
 public:
  ByteAxis(uint64_t top_bytes, double bottom_px, double top_px);
  double y(uint64_t bytes) const;  // values above top_bytes land above top_px

 private:
  double top_bytes_;
  double bottom_px_;
  double top_px_;
};

// Evenly spaced byte ticks from 0 to top_bytes: step_bytes is 1, 2 or 5 x
// 10^k of `unit_bytes` (GiB for ranges of 2 GiB and more, MiB below, KiB
// below 2 MiB, bytes below 2 KiB), at most kMaxByteTicks steps, and top_bytes a multiple of
// it at or above the requested top.
struct ByteTicks {
  uint64_t top_bytes = 0;
  uint64_t step_bytes = 0;
  uint64_t unit_bytes = 0;
  std::string_view unit;  // "GiB", "MiB", "KiB", "B" (static strings)
};
inline constexpr uint64_t kMaxByteTicks = 5;
ByteTicks byte_ticks(uint64_t top_bytes);
// "12 GiB", "2.5 GiB" when a tick falls between units; "0" at zero.
std::string byte_tick_label(uint64_t bytes, const ByteTicks& ticks);

// The powers of two within [min_tokens, max_tokens], every `stride`-th one
// kept (counting from the top) so that at most max_labels remain.
std::vector<uint64_t> context_ticks(uint64_t min_tokens, uint64_t max_tokens, size_t max_labels);
// "512", "4K", "128K", "1M": tokens in binary thousands, as context
// lengths are usually named.
std::string context_tick_label(uint64_t tokens);

// 35584 -> "35,584".
std::string group_digits(uint64_t value);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PLOT_AXES_H_
