// llama.cpp's per-architecture rules for GGUF models (load_hparams and the
// architecture's graph), applied to the layers the generic keys describe.
// Private to the model area (model/gguf/config.cc, the GGUF loader).
#ifndef MEMFIT_MODEL_GGUF_ARCH_RULES_H_
#define MEMFIT_MODEL_GGUF_ARCH_RULES_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"
#include "model/gguf/keys.h"

namespace memfit {

// Layer kinds, spelled as config.json's layer_types spells them.
inline constexpr std::string_view kGgufFullAttention = "full_attention";
inline constexpr std::string_view kGgufSlidingAttention = "sliding_attention";
inline constexpr std::string_view kGgufChunkedAttention = "chunked_attention";
inline constexpr std::string_view kGgufMamba = "mamba";
inline constexpr std::string_view kGgufLinearAttention = "linear_attention";
inline constexpr std::string_view kGgufConv = "conv";
inline constexpr std::string_view kGgufNoCache = "none";

// The decoder layers as the generic keys give them, one entry per layer
// (multi-token-prediction layers past them left out).
struct GgufLayers {
  uint64_t block_count = 0;        // <arch>.block_count, multi-token-prediction layers included
  std::vector<uint64_t> heads;     // attention.head_count
  std::vector<uint64_t> kv_heads;  // attention.head_count_kv (head_count when absent)
  std::vector<uint64_t> ff;        // feed_forward_length (0 when absent)
  // Full attention where kv_heads > 0, none elsewhere, until the rules
  // say otherwise.
  std::vector<std::string> kinds;
};

// True for the architectures whose llama.cpp rules memfit applies.
bool is_known_gguf_architecture(std::string_view arch);

// What the rules of the architecture did.
struct GgufArchOutcome {
  // The rules read <arch>.attention.sliding_window (applied or not, by
  // llama.cpp's rule for the architecture).
  bool window_read = false;
};

// Applies the rules of keys.arch(): sets config["model_type"] (the Hugging
// Face model_type of the same model, or the architecture itself when
// unknown), the architecture's own fields (sliding window, MLA lengths, SSM
// and convolution sizes) and the layers' kinds, and appends the rules
// applied that the file does not state to `assumptions`. Fails, naming the
// key, on what the architecture needs and the file lacks.
Result<GgufArchOutcome> apply_gguf_arch_rules(const GgufArchKeys& keys, GgufLayers& layers,
                                              nlohmann::json& config,
                                              std::vector<std::string>& assumptions);

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_ARCH_RULES_H_
