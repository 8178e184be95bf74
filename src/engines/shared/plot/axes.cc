// The memory plot's axes (engines/shared/plot/axes.h): the log2 context
// axis, the byte axis, their ticks and labels.
#include "engines/shared/plot/axes.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "memfit/checked_math.h"

namespace memfit {

ContextAxis::ContextAxis(uint64_t min_tokens, uint64_t max_tokens, double left_px,
                         double right_px)
    : lo_log2_(std::log2(static_cast<double>(std::max<uint64_t>(min_tokens, 1)))),
      hi_log2_(std::log2(static_cast<double>(std::max<uint64_t>(max_tokens, 1)))),
      left_px_(left_px),
      right_px_(right_px) {}

double ContextAxis::x(uint64_t tokens) const {
  double span = hi_log2_ - lo_log2_;
  if (span <= 0) return left_px_;
  double t = (std::log2(static_cast<double>(std::max<uint64_t>(tokens, 1))) - lo_log2_) / span;
  return left_px_ + t * (right_px_ - left_px_);
}

ByteAxis::ByteAxis(uint64_t top_bytes, double bottom_px, double top_px)
    : top_bytes_(static_cast<double>(std::max<uint64_t>(top_bytes, 1))),
      bottom_px_(bottom_px),
      top_px_(top_px) {}

double ByteAxis::y(uint64_t bytes) const {
  return bottom_px_ - static_cast<double>(bytes) / top_bytes_ * (bottom_px_ - top_px_);
}

ByteTicks byte_ticks(uint64_t top_bytes) {
  constexpr uint64_t kKiB = 1ull << 10, kMiB = 1ull << 20, kGiB = 1ull << 30;
  ByteTicks ticks;
  if (top_bytes >= 2 * kGiB) {
    ticks.unit_bytes = kGiB;
    ticks.unit = "GiB";
  } else if (top_bytes >= 2 * kMiB) {
    ticks.unit_bytes = kMiB;
    ticks.unit = "MiB";
  } else if (top_bytes >= 2 * kKiB) {
    ticks.unit_bytes = kKiB;
    ticks.unit = "KiB";
  } else {
    ticks.unit_bytes = 1;
    ticks.unit = "B";
  }
  uint64_t wanted = std::max<uint64_t>(top_bytes, 1);
  // 1, 2, 5, 10, 20, 50, ... units: the first whose multiples reach the top
  // in at most kMaxByteTicks steps. The step can always reach wanted / 5
  // before it overflows, so the loop ends.
  CheckedBytes decade = ticks.unit_bytes;
  for (;;) {
    for (uint64_t m : {1, 2, 5}) {
      CheckedBytes step = decade * m;
      if (step.overflowed()) {
        ticks.step_bytes = wanted;
        ticks.top_bytes = wanted;
        return ticks;
      }
      uint64_t steps = *CheckedBytes::ceil_div(wanted, *step.value()).value();
      if (steps <= kMaxByteTicks) {
        ticks.step_bytes = *step.value();
        ticks.top_bytes = (CheckedBytes(steps) * ticks.step_bytes).saturated();
        return ticks;
      }
    }
    decade = decade * 10;
  }
}

std::string byte_tick_label(uint64_t bytes, const ByteTicks& ticks) {
  if (bytes == 0) return "0";
  double units = static_cast<double>(bytes) / static_cast<double>(ticks.unit_bytes);
  return fmt::format("{:g} {}", units, ticks.unit);
}

std::vector<uint64_t> context_ticks(uint64_t min_tokens, uint64_t max_tokens, size_t max_labels) {
  std::vector<uint64_t> powers;
  for (uint64_t p = 1; p <= max_tokens && p != 0; p <<= 1) {
    if (p >= min_tokens) powers.push_back(p);
    if (p > (UINT64_MAX >> 1)) break;
  }
  if (max_labels == 0 || powers.size() <= max_labels) return powers;
  size_t stride = (powers.size() + max_labels - 1) / max_labels;
  std::vector<uint64_t> kept;
  for (size_t i = 0; i < powers.size(); ++i) {
    // Counted from the top, so the largest power (nearest the interesting
    // right-hand end) always has its label.
    if ((powers.size() - 1 - i) % stride == 0) kept.push_back(powers[i]);
  }
  return kept;
}

std::string context_tick_label(uint64_t tokens) {
  constexpr uint64_t kKi = 1ull << 10, kMi = 1ull << 20;
  if (tokens >= kMi && tokens % kMi == 0) return fmt::format("{}M", tokens / kMi);
  if (tokens >= kKi && tokens % kKi == 0) return fmt::format("{}K", tokens / kKi);
  return fmt::format("{}", tokens);
}

std::string group_digits(uint64_t value) {
  std::string digits = fmt::format("{}", value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace memfit
