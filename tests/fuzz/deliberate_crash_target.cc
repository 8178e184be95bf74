// A fuzz target that crashes on purpose, built only to show that a
// committed crash reproducer fails CI: its replay program
// (tests/fuzz/CMakeLists.txt) and its libFuzzer build (the fuzz preset,
// run by scripts/fuzz-smoke.sh's self-check) must both exit non-zero on
// the inputs in tests/data/fuzz_selftest/trap and .../throw, and zero on
// .../benign.
//
//   input starts with "trap"   -> __builtin_trap(), as a failed check does
//   input starts with "throw"  -> an exception escapes the target
//   anything else              -> returns 0
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.substr(0, 4) == "trap") __builtin_trap();
  if (input.substr(0, 5) == "throw") throw std::runtime_error("deliberate");
  return 0;
}
