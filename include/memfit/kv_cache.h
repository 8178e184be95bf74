// KV cache sizing over a model's per-layer cache description.
//
// Context is allocated in blocks of kKvBlockTokens. Layers with the same
// cache shape form a group; a group costs
//   elems_per_token x min(round(ctx), round(window)) x elem_bytes x batch x layers
//   + state_bytes x batch x layers
// where round() rounds up to kKvBlockTokens and an unbounded window is ctx.
#ifndef MEMFIT_KV_CACHE_H_
#define MEMFIT_KV_CACHE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

inline constexpr uint64_t kKvBlockTokens = 256;

enum class KvElement { kFp16, kInt8 };
// Every cache width, widest first: what fit, the plot and the service's
// /v1/fit answer for.
inline constexpr std::array<KvElement, 2> kAllKvElements = {KvElement::kFp16, KvElement::kInt8};
std::string_view to_string(KvElement element);
uint64_t element_bytes(KvElement element);  // fp16 2, int8 1

// One group of layers that share a cache shape.
struct KvGroup {
  LayerKind kind = LayerKind::kFullAttention;
  uint64_t layers = 0;
  std::optional<uint64_t> window_tokens;  // nullopt: unbounded
  uint64_t bytes_per_token = 0;  // per token per sequence, whole group, at the chosen width
  uint64_t fixed_bytes = 0;      // per sequence, whole group
  uint64_t bytes = 0;            // the group's total at the requested ctx and batch
};

struct KvCacheEstimate {
  bool available = false;         // false when the model's geometry is unknown
  uint64_t total_bytes = 0;       // sum of the groups' bytes
  uint64_t rounded_tokens = 0;    // ctx rounded up to kKvBlockTokens
  // Marginal bytes per token per sequence once every windowed layer is
  // full: the layers whose cache grows without bound (full attention, MLA
  // latents). The report's kv_bytes_per_token; 0 when every layer is windowed.
  uint64_t unbounded_fp16_bytes_per_token = 0;
  uint64_t unbounded_int8_bytes_per_token = 0;
  std::vector<KvGroup> groups;
  std::string detail;             // one-line summary for the report
};

// The bytes one token adds, per sequence, to every layer that keeps
// per-token KV: windowed, chunked and shared layers included (a prefill
// shorter than the window writes all of them), recurrent layers none.
// What the prefill guard charges per new token and what a paged KV block
// of the serve plan holds per token. Saturates at UINT64_MAX.
uint64_t every_layer_kv_bytes_per_token(const ModelSpec& spec, KvElement element);

// Sizes the cache of `spec` for `tokens` of context and `batch` sequences.
// Fails on overflow only.
Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, uint64_t tokens,
                                          uint64_t batch, KvElement element);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_KV_CACHE_H_
