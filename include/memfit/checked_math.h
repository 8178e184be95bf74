// CheckedBytes: uint64_t arithmetic that remembers overflow.
//
// Every byte count in memfit is a uint64_t. Products such as
// layers x heads x head_dim x tokens x batch come from untrusted config
// values, so they are computed through CheckedBytes: once any step
// overflows, the whole expression is marked overflowed and value() is
// empty. Callers turn that into an Error naming the quantity.
#ifndef MEMFIT_CHECKED_MATH_H_
#define MEMFIT_CHECKED_MATH_H_

#include <cstdint>
#include <optional>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

class CheckedBytes {
 public:
  constexpr CheckedBytes() = default;
  constexpr CheckedBytes(uint64_t v) : value_(v) {}  // NOLINT: implicit by design

  constexpr bool overflowed() const { return overflowed_; }
  constexpr std::optional<uint64_t> value() const {
    if (overflowed_) return std::nullopt;
    return value_;
  }
  // The value, or UINT64_MAX when overflowed: a safe upper bound for
  // "does it fit" comparisons.
  constexpr uint64_t saturated() const { return overflowed_ ? UINT64_MAX : value_; }

  friend constexpr CheckedBytes operator+(CheckedBytes a, CheckedBytes b) {
    CheckedBytes r;
    r.overflowed_ = a.overflowed_ || b.overflowed_ ||
                    __builtin_add_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  friend constexpr CheckedBytes operator-(CheckedBytes a, CheckedBytes b) {
    CheckedBytes r;
    r.overflowed_ = a.overflowed_ || b.overflowed_ ||
                    __builtin_sub_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  friend constexpr CheckedBytes operator*(CheckedBytes a, CheckedBytes b) {
    CheckedBytes r;
    r.overflowed_ = a.overflowed_ || b.overflowed_ ||
                    __builtin_mul_overflow(a.value_, b.value_, &r.value_);
    return r;
  }
  CheckedBytes& operator+=(CheckedBytes b) { return *this = *this + b; }
  CheckedBytes& operator*=(CheckedBytes b) { return *this = *this * b; }

  // ceil(a / b); b must be non-zero.
  static constexpr CheckedBytes ceil_div(CheckedBytes a, uint64_t b) {
    CheckedBytes r = a;
    if (!a.overflowed_) r.value_ = a.value_ / b + (a.value_ % b != 0 ? 1 : 0);
    return r;
  }

 private:
  uint64_t value_ = 0;
  bool overflowed_ = false;
};

// Rounds `tokens` up to a multiple of `block` (block > 0).
constexpr CheckedBytes round_up(CheckedBytes tokens, uint64_t block) {
  return CheckedBytes::ceil_div(tokens, block) * block;
}

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_CHECKED_MATH_H_
