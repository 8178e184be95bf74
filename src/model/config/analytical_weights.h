// Config-only weights at the quantization the config declares: which of the
// config's parameter blocks each scheme packs, and what they then take.
//
// What each scheme quantizes, as the tools that write these checkpoints do:
//   mlx_affine    every Linear and Embedding (lm_head, embeddings, routers
//                 included) whose input dimension is a multiple of the group
//                 size (mlx-lm's quantize predicate); per-module settings
//                 of the config override bits and group size; norms never
//   gptq, awq     the decoder layers' linear projections (attention, MLP,
//                 experts, shared experts, mixers); never embeddings or
//                 routers; the LM head only when GPTQ says "lm_head": true
//   fp8           the decoder layers' linear projections; routers, the LM
//                 head and embeddings stay in 16 bits (transformers never
//                 converts the output embedding; FP8 checkpoints keep their
//                 gates unconverted)
//   mxfp4         routed experts only (gpt-oss)
//   bitsandbytes  every Linear but the LM head (routers included)
// On top of that, every module the config names unquantized
// (modules_to_not_convert, ignored_layers, ignore, llm_int8_skip_modules)
// stays at full width. Unquantized parameters take the width of the
// config's torch_dtype: 4 bytes for float32, else 2.
#ifndef MEMFIT_MODEL_CONFIG_ANALYTICAL_WEIGHTS_H_
#define MEMFIT_MODEL_CONFIG_ANALYTICAL_WEIGHTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/model_spec.h"
#include "model/config/analytical_params.h"

namespace memfit {

// A module path from a config (modules_to_not_convert entries, MLX
// per-module keys), as a pattern over parameter blocks. Leading "model." /
// "language_model." are dropped; "layers.<i>." or "layers.*." scopes it to
// one decoder layer or to all; a path with neither prefix nor layer (e.g.
// "lm_head", "gate") matches anywhere, as transformers' substring matching
// does. Synonyms are folded to the block spelling (attn / attention ->
// self_attn, block_sparse_moe / feed_forward -> mlp, router -> gate,
// switch_mlp -> experts, shared_expert -> shared_experts, w1 / w3 / w2 ->
// gate_proj / up_proj / down_proj, linear_attn / mamba -> mixer, wte ->
// embed_tokens).
struct ModulePattern {
  enum class Scope { kAnywhere, kOutsideLayers, kLayers };
  Scope scope = Scope::kAnywhere;
  std::optional<uint64_t> layer;    // kLayers: nullopt for every layer
  std::vector<std::string> tokens;  // path segments below the layer; "*" matches one
};
ModulePattern parse_module_pattern(std::string_view path);
// Whether `pattern` names `block` or a module that contains it.
bool pattern_matches(const ModulePattern& pattern, const ParamBlock& block);

// Bytes per unquantized weight for a torch_dtype: 4 for "float32", else 2.
uint64_t unquantized_width_bytes(std::string_view torch_dtype);

// Prices `blocks` at `quantization`. A config with no quantization, or one
// memfit cannot price (compressed-tensors, an unknown method, a scheme with
// no bits or nothing to apply to), is priced at 2 bytes per parameter and
// the detail says why the quantization was not applied. Saturates on
// overflow. `experts_mxfp4`: an FP8 checkpoint whose routed experts are
// MXFP4 (deepseek_v4_fp4_experts, checkpoint_traits.h) has them priced so.
AnalyticalWeights price_analytical_weights(const std::vector<ParamBlock>& blocks,
                                           const QuantizationInfo& quantization,
                                           uint64_t unquantized_width, bool experts_mxfp4 = false);

// Of `priced` (price_analytical_weights over `blocks`), the bytes of the
// vision tower and projector (ParamRole::kVision): always at full width,
// which is 2 bytes where the quantization was not applied. At most
// priced.bytes; 0 for a config with no tower memfit counts.
uint64_t analytical_tower_bytes(const std::vector<ParamBlock>& blocks,
                                const AnalyticalWeights& priced, uint64_t unquantized_width);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_ANALYTICAL_WEIGHTS_H_
