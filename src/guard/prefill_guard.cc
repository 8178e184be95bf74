// The prefill admission guard; see prefill_guard.h for the arithmetic.
// Every product saturates (CheckedBytes), so an absurd request is refused
// rather than wrapped into a small number and admitted.
#include "memfit/prefill_guard.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

constexpr uint64_t kVectorQueryThreshold = 8;
constexpr uint64_t kFp32Bytes = 4;

bool is_vector_head_dim(uint64_t d) { return d == 64 || d == 96 || d == 128 || d == 256; }
bool is_full_head_dim(uint64_t d) { return d == 64 || d == 80 || d == 128; }

std::string generate_request_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("req-{:016x}", rng());
}

}  // namespace

AttentionGeometry attention_geometry(const ModelSpec& spec, KvElement element) {
  AttentionGeometry g;
  g.q_heads = spec.geometry.heads;
  g.kv_heads = spec.geometry.kv_heads > 0 ? spec.geometry.kv_heads : spec.geometry.heads;
  g.head_dim = spec.geometry.head_dim;
  g.every_layer_kv_bytes_per_token = every_layer_kv_bytes_per_token(spec, element);
  return g;
}

void SdpaKernels::register_tiled_head_dim(uint64_t head_dim, uint64_t kv_tile, uint64_t min_kv_len) {
  tiled_[head_dim] = Tiled{kv_tile, min_kv_len};
}

std::optional<uint64_t> SdpaKernels::tile_for(uint64_t head_dim, uint64_t kv_len) const {
  auto it = tiled_.find(head_dim);
  if (it == tiled_.end() || kv_len < it->second.min_kv_len) return std::nullopt;
  return it->second.kv_tile;
}

bool uses_fused_sdpa(const AttentionGeometry& g, uint64_t query_tokens, uint64_t kv_len) {
  if (!g.known() || g.kv_heads == 0 || query_tokens == 0) return false;
  if (kv_len < query_tokens) return false;
  if (query_tokens <= kVectorQueryThreshold) {
    uint64_t gqa = std::max<uint64_t>(1, g.q_heads / g.kv_heads);
    return is_vector_head_dim(g.head_dim) && query_tokens * gqa <= 32;
  }
  return is_full_head_dim(g.head_dim);
}

uint64_t sdpa_transient_bytes(const AttentionGeometry& g, const SdpaKernels& kernels,
                              uint64_t query_tokens, uint64_t kv_len) {
  if (!g.known() || query_tokens == 0) return 0;
  CheckedBytes output = CheckedBytes(g.q_heads) * query_tokens * g.head_dim * kFp32Bytes;
  if (uses_fused_sdpa(g, query_tokens, kv_len)) return output.saturated();
  if (query_tokens > 1) {
    if (std::optional<uint64_t> tile = kernels.tile_for(g.head_dim, kv_len)) {
      CheckedBytes scores =
          CheckedBytes(g.q_heads) * query_tokens * std::min(*tile, kv_len) * g.score_bytes;
      return (output + scores).saturated();
    }
  }
  CheckedBytes scores = CheckedBytes(g.q_heads) * query_tokens * kv_len * g.score_bytes;
  return (output + scores).saturated();
}

uint64_t prefill_peak_bytes(const AttentionGeometry& g, const SdpaKernels& kernels,
                            uint64_t prompt_tokens, uint64_t cached_tokens,
                            uint64_t prefill_chunk) {
  if (!g.known() || cached_tokens >= prompt_tokens) return 0;
  uint64_t new_tokens = prompt_tokens - cached_tokens;
  uint64_t chunk = prefill_chunk == 0 ? new_tokens : std::min(prefill_chunk, new_tokens);
  CheckedBytes attention = sdpa_transient_bytes(g, kernels, chunk, prompt_tokens);
  CheckedBytes kv = CheckedBytes(new_tokens) * g.every_layer_kv_bytes_per_token;
  return (attention + kv).saturated();
}

AdmissionDecision check_prefill(const AttentionGeometry& g, const SdpaKernels& kernels,
                                const PrefillRequest& request) {
  AdmissionDecision d;
  d.request_id = request.request_id.empty() ? generate_request_id() : request.request_id;
  if (!request.enabled || !request.hard_limit_bytes || !g.known()) return d;
  d.peak_bytes = prefill_peak_bytes(g, kernels, request.prompt_tokens, request.cached_tokens,
                                    request.prefill_chunk);
  if (d.peak_bytes == 0) return d;
  CheckedBytes estimated = CheckedBytes(request.current_usage_bytes) + d.peak_bytes;
  d.estimated_bytes = estimated.saturated();
  d.limit_bytes = *request.hard_limit_bytes;
  if (d.estimated_bytes <= d.limit_bytes) return d;
  d.admitted = false;
  uint64_t new_tokens = request.prompt_tokens - request.cached_tokens;
  d.message = fmt::format(
      "request {}: prefill of {} new tokens ({} cached) needs an estimated {} bytes on top of "
      "{} bytes in use, {} in all, over the hard limit of {} bytes by {} bytes; shorten the "
      "prompt, lower the prefill chunk ({} tokens now), or wait for memory to free",
      d.request_id, new_tokens, request.cached_tokens, d.peak_bytes, request.current_usage_bytes,
      d.estimated_bytes, d.limit_bytes, d.estimated_bytes - d.limit_bytes, request.prefill_chunk);
  return d;
}

}  // namespace memfit
