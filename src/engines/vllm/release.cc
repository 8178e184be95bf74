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
  switch (a) {
    case VllmAccounting::kCurrent: return "current";
    case VllmAccounting::kV011: return "v0.11";
    case VllmAccounting::kV07: return "v0.7";
  }
  return "current";
}

// 0.21 to 0.32 (the default): the worker profiles the CUDA graphs and
// subtracts their estimate from the KV memory, the utilization's default
// 0.92 (vllm-project/vllm#38284, v0.21.0; determine_available_memory read
// in v1/worker/gpu_worker.py of the v0.23 line; 0.26's and 0.31's logs
// print the same lines). 0.11 to 0.20: the rules read at v0.11. v0.7.x:
// the V1 worker's own accounting (read at v0.7). Between 0.7 and 0.11 the
// V1 worker changed its accounting (non-torch measured from the worker's
// start, then the memory_profiling context: vllm-project/vllm#19312, June
// 2025) and its profile (the logits of each request's last token, then the
// dummy sampler run), which is not modelled; nor is a release past 0.32,
// the newest memfit has read.
Result<VllmAccounting> vllm_accounting(const std::optional<VllmRelease>& release) {
  if (!release) return VllmAccounting::kCurrent;
  const VllmRelease& r = *release;
  if (r.major == 0 && r.minor == 7) return VllmAccounting::kV07;
  if (r.major == 0 && r.minor >= 11 && r.minor <= 20) return VllmAccounting::kV011;
  if (r.major == 0 && r.minor >= 21 && r.minor <= kVllmNewestMinor) return VllmAccounting::kCurrent;
  return Error::usage("vllm_version",
                      fmt::format("{}: not modelled; memfit prices vLLM 0.7 (the V1 engine), 0.11 "
                                  "to 0.20, and 0.21 to 0.{} (the default)",
                                  to_string(r), kVllmNewestMinor));
}

}  // namespace memfit
