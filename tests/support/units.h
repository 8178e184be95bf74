// Byte units for the tests. A test file takes them with a using-declaration
// (`using ::memfit::testing::kGiB;`), which, unlike a file-local constant,
// may appear in several files of one unity batch (tests/CMakeLists.txt,
// MEMFIT_UNITY_TESTS).
#pragma once

#include <cstdint>

namespace memfit::testing {

inline constexpr uint64_t kMiB = uint64_t{1} << 20;
inline constexpr uint64_t kGiB = uint64_t{1} << 30;

}  // namespace memfit::testing
