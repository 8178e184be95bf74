// Runtime admission guard for one request's prefill (docs/service.md,
// "POST /v1/admit").
//
// A request's prefill peak is the SDPA transient of its last chunk plus
// the KV cache of its new tokens:
//   new_tokens = prompt_tokens - cached_tokens (already resident in a prefix cache)
//   chunk      = min(prefill_chunk, new_tokens)
//   kv_len     = new_tokens + cached_tokens  (the span the last chunk attends over)
//   peak       = sdpa(chunk, kv_len) + new_tokens x every_layer_kv_bytes_per_token
//
// SDPA transient of one call with q query tokens over kv_len keys:
//   fused      n_q x q x head_dim x 4 (the fp32 output only). Decode-sized
//              queries (q <= 8) are fused when head_dim is in {64, 96, 128, 256}
//              and q x (n_q / n_kv) <= 32; longer ones when head_dim is in
//              {64, 80, 128}; never when kv_len < q.
//   tiled      a registered head_dim with q > 1 and kv_len >= its threshold:
//              output + n_q x q x min(tile, kv_len) x score_bytes
//   unfused    output + n_q x q x kv_len x score_bytes (the score matrix)
//
// Unknown geometry, a disabled guard, no limit or zero new tokens always
// admit: the guard never refuses on a guess.
#ifndef MEMFIT_PREFILL_GUARD_H_
#define MEMFIT_PREFILL_GUARD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "memfit/kv_cache.h"
#include "memfit/model_spec.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// What the guard needs of a model. Zero fields mean "unknown".
struct AttentionGeometry {
  uint64_t q_heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  // Resident cache bytes each new token adds, over the layers that hold
  // per-token KV (MLA latents at their own rate; recurrent layers none).
  uint64_t every_layer_kv_bytes_per_token = 0;
  uint64_t score_bytes = 2;  // bytes per unfused score element (the compute dtype)
  bool known() const { return q_heads > 0 && head_dim > 0; }
};

// The geometry of `spec` with its KV stored at `element` width.
AttentionGeometry attention_geometry(const ModelSpec& spec, KvElement element);

// Head dims served by an O(L) tiled prefill kernel. A value, not global
// state: the runtime that installs such a kernel registers it here.
class SdpaKernels {
 public:
  void register_tiled_head_dim(uint64_t head_dim, uint64_t kv_tile = 1024,
                               uint64_t min_kv_len = 8192);
  // The kv tile of a registered head_dim that applies at kv_len; nullopt otherwise.
  std::optional<uint64_t> tile_for(uint64_t head_dim, uint64_t kv_len) const;

 private:
  struct Tiled {
    uint64_t kv_tile;
    uint64_t min_kv_len;
  };
  std::map<uint64_t, Tiled> tiled_;
};

bool uses_fused_sdpa(const AttentionGeometry& g, uint64_t query_tokens, uint64_t kv_len);

// Transient bytes of one SDPA call; 0 for unknown geometry or no query.
// Saturates at UINT64_MAX rather than wrapping.
uint64_t sdpa_transient_bytes(const AttentionGeometry& g, const SdpaKernels& kernels,
                              uint64_t query_tokens, uint64_t kv_len);

// The peak above, in bytes; 0 when the geometry is unknown or nothing is new.
uint64_t prefill_peak_bytes(const AttentionGeometry& g, const SdpaKernels& kernels,
                            uint64_t prompt_tokens, uint64_t cached_tokens,
                            uint64_t prefill_chunk);

struct PrefillRequest {
  std::string request_id;  // generated when empty
  uint64_t prompt_tokens = 0;
  uint64_t cached_tokens = 0;
  uint64_t current_usage_bytes = 0;
  std::optional<uint64_t> hard_limit_bytes;  // nullopt: no limit, always admit
  uint64_t prefill_chunk = 2048;
  bool enabled = true;
};

// Machine-readable code of a refusal, as the HTTP service returns it.
inline constexpr std::string_view kPrefillMemoryExceeded = "prefill_memory_exceeded";

struct AdmissionDecision {
  bool admitted = true;
  uint64_t peak_bytes = 0;       // the request's estimated prefill peak
  std::string request_id;        // as given, or generated
  // Set when refused: both figures and what to change.
  std::string message;
  uint64_t estimated_bytes = 0;  // current usage + peak
  uint64_t limit_bytes = 0;
};

// Admits when current_usage + peak <= hard_limit. Never fails.
[[nodiscard]] AdmissionDecision check_prefill(const AttentionGeometry& g, const SdpaKernels& kernels,
                                              const PrefillRequest& request);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_PREFILL_GUARD_H_
