// A release number as the engines print it and users write it (the
// --vllm-version, --mlx-lm-version and --mlx-version fields): X.Y or X.Y.Z,
// an optional leading "v", each part at most 4 digits ("0.7", "v0.27.0").
#ifndef MEMFIT_ENGINES_SHARED_RELEASE_NUMBER_H_
#define MEMFIT_ENGINES_SHARED_RELEASE_NUMBER_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace memfit {

struct ReleaseNumber {
  uint64_t major = 0, minor = 0, patch = 0;  // a missing patch is 0
  bool has_patch = false;                    // "0.7.3" (else "0.7")
};

// nullopt when `text` is not a release number.
std::optional<ReleaseNumber> parse_release_number(std::string_view text);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_RELEASE_NUMBER_H_
