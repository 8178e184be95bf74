// What every fuzz target asserts about an error message, whatever the
// input: it holds no control character (< 0x20 or 0x7f: untrusted text is
// escaped through one helper, include/memfit/untrusted_text.h) and it is not the
// exception boundary's catch-all ("internal error ...",
// src/base/exception_boundary.h), which means something threw. A failed
// check traps, which libFuzzer and the replay program both report as a
// crash of the input.
#ifndef MEMFIT_FUZZ_FUZZ_CHECKS_H_
#define MEMFIT_FUZZ_FUZZ_CHECKS_H_

#include <string_view>

namespace memfit_fuzz {

inline bool has_control_byte(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return true;
  }
  return false;
}

inline void check_message(std::string_view message) {
  if (has_control_byte(message)) __builtin_trap();
  if (message.substr(0, 14) == "internal error") __builtin_trap();
}

}  // namespace memfit_fuzz

#endif  // MEMFIT_FUZZ_FUZZ_CHECKS_H_
