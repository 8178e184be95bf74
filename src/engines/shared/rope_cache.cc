// rope_cache_rows() and rope_cache_bytes(): the rotary caches vLLM keeps
// (rope_cache.h).
#include "engines/shared/rope_cache.h"

#include <cmath>
#include <string_view>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

constexpr uint64_t kCacheElementBytes = 2;    // the model's bf16 / fp16
constexpr uint64_t kFloat32CacheBytes = 4;    // gpt-oss's float32 cache

// max_positions x factor, rounded up; a factor under 1 or not finite
// leaves the length as it is (vLLM builds at least the unscaled rows).
uint64_t scaled_rows(uint64_t positions, double factor) {
  if (!std::isfinite(factor) || factor <= 1.0) return positions;
  const long double rows = std::ceil(static_cast<long double>(positions) * factor);
  if (rows >= static_cast<long double>(UINT64_MAX)) return UINT64_MAX;
  return static_cast<uint64_t>(rows);
}

bool keeps_local_cache(std::string_view model_type) {
  return model_type == "gemma3" || model_type == "gemma3_text";
}

}  // namespace

uint64_t rope_cache_rows(const ModelSpec::RopeScaling& scaling, uint64_t max_positions) {
  const std::string_view type = scaling.type;
  if (type == "linear" || type == "dynamic") return scaled_rows(max_positions, scaling.factor);
  if (type == "yarn") {
    const uint64_t original = scaling.original_max_positions != 0 ? scaling.original_max_positions : max_positions;
    return scaled_rows(original, scaling.factor);
  }
  return max_positions;
}

namespace {

// DeepSeek V4's tables (vLLM's DeepseekV4ScalingRotaryEmbedding, which
// get_rope builds where the rope parameters say is_deepseek_v4, from
// models/deepseek_v4.py's DeepseekV4Attention): float32 cos/sin of the
// rotated tail only (rotary_dim = qk_rope_head_dim, rope_parameters'
// rope_dim), rows as yarn's, one table at rope_theta for the window-only
// layers and one at compress_rope_theta for the compressed layers (their
// compressor and indexer reuse it: get_rope caches by its arguments).
// DeepSeek-V4-Flash: 65,536 x 16 = 1,048,576 rows x 64 x 4 B = 256 MiB, two
// tables 512 MiB.
uint64_t compressed_attention_rope_bytes(const ModelSpec& spec) {
  const CompressedAttentionGeometry& c = spec.compressed_attention;
  const uint64_t tables = c.second_rope_base ? 2 : 1;
  return (CheckedBytes(rope_cache_rows(spec.rope_scaling, spec.max_position_tokens)) * c.rope_dim *
          kFloat32CacheBytes * tables)
      .saturated();
}

}  // namespace

uint64_t rope_cache_bytes(const ModelSpec& spec) {
  if (!spec.compressed_attention.compress_ratios.empty()) return compressed_attention_rope_bytes(spec);
  if (spec.geometry.head_dim == 0) return 0;
  const uint64_t element = spec.model_type == "gpt_oss" ? kFloat32CacheBytes : kCacheElementBytes;
  CheckedBytes rows = rope_cache_rows(spec.rope_scaling, spec.max_position_tokens);
  if (keeps_local_cache(spec.model_type)) rows += spec.max_position_tokens;
  return (rows * spec.geometry.head_dim * element).saturated();
}

uint64_t vllm_mrope_cache_bytes(const ModelSpec& spec) {
  const ModelSpec::RopeScaling& rope = spec.rope_scaling;
  if ((rope.type != "mrope" && !rope.mrope) || spec.geometry.head_dim == 0) return 0;
  constexpr uint64_t kMropeRowsPerPosition = 4;  // mrope.py: max_position_embeddings * 4
  const CheckedBytes rows =
      CheckedBytes(rope_cache_rows(rope, spec.max_position_tokens)) * kMropeRowsPerPosition;
  // int(head_size * partial_rotary_factor): truncated, as Python's int().
  const auto rotary_dim = static_cast<uint64_t>(
      static_cast<long double>(spec.geometry.head_dim) * rope.partial_rotary_factor);
  return (rows * rotary_dim * kCacheElementBytes).saturated();
}

}  // namespace memfit
