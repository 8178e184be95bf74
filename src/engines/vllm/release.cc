// --vllm-version: which vLLM release's KV accounting prices the estimate
// (vllm.h; docs/engine-vllm.md, "Older releases").
#include <fmt/format.h>

#include "engines/shared/release_number.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm.h"

namespace memfit {
namespace {

Error bad_version(std::string_view text) {
  return Error::usage(fmt::format("{}: expected a release X.Y or X.Y.Z, e.g. 0.7 or 0.11.0",
                                  quote_untrusted(text)));
}

}  // namespace

Result<VllmRelease> parse_vllm_version(std::string_view text) {
  const std::optional<ReleaseNumber> n = parse_release_number(text);
  if (!n) return bad_version(text);
  return VllmRelease{n->major, n->minor, n->patch, n->has_patch};
}

std::string to_string(const VllmRelease& r) {
  return r.has_patch ? fmt::format("{}.{}.{}", r.major, r.minor, r.patch)
                     : fmt::format("{}.{}", r.major, r.minor);
}

std::string_view to_string(VllmAccounting a) {
  return a == VllmAccounting::kV07 ? "v0.7" : "current";
}

// v0.7.x: the V1 worker's own accounting (read at v0.7). 0.11 to 0.20: the
// rules read at v0.11. Between them the V1 worker changed its accounting
// (non-torch measured from the worker's start, then the memory_profiling
// context: vllm-project/vllm#19312, June 2025) and its profile (the logits
// of each request's last token, then the dummy sampler run); from v0.21
// the CUDA graphs are profiled by default. None of those is modelled.
Result<VllmAccounting> vllm_accounting(const std::optional<VllmRelease>& release) {
  if (!release) return VllmAccounting::kCurrent;
  const VllmRelease& r = *release;
  if (r.major == 0 && r.minor == 7) return VllmAccounting::kV07;
  if (r.major == 0 && r.minor >= 11 && r.minor <= 20) return VllmAccounting::kCurrent;
  return Error::usage("vllm_version",
                      fmt::format("{}: not modelled; memfit prices vLLM 0.7 (the V1 engine) and "
                                  "0.11 to 0.20 (the default)",
                                  to_string(r)));
}

}  // namespace memfit
