// The config.json `mlx_lm.convert -q` writes for a base model's config
// (docs/engine-mlxlm.md, "Converted checkpoints"): the base config with a
// "quantization" block of the run's bits and group size, and a per-module
// entry for each module the model's quant_predicate quantizes otherwise
// (a MoE router at 8 bits). What prices an mlx-community "-4bit"
// checkpoint when only its base model's config is public. Private to the
// library.
#ifndef MEMFIT_ENGINES_MLXLM_CONVERT_CONFIG_H_
#define MEMFIT_ENGINES_MLXLM_CONVERT_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/result.h"

namespace memfit {

// mlx_lm.convert's --q-bits and --q-group-size (its defaults: 4 and 64),
// and whether it quantized the Embedding: false for a conversion under an
// MLX before v0.11.0, whose QuantizedLinear.quantize_module took Linear
// layers only (Embedding quantization came with "Quantize embedding",
// mlx #994, 2024-04-15, in v0.11.0). mlx_lm.load quantizes only the modules
// whose "<path>.scales" the weights hold (mlx_lm/utils.py, load_model's
// class_predicate), so such an Embedding loads at the checkpoint's dtype.
struct MlxConversion {
  uint64_t bits = 4;
  uint64_t group_size = 64;
  bool quantize_embeddings = true;
};

// The most decoder layers a converted config lists per-module entries for;
// a base config claiming more is refused (its size is untrusted).
inline constexpr uint64_t kMaxConvertedLayers = 4096;

// `base` (a config.json's object) as mlx_lm.convert writes it quantized by
// `conversion`: "quantization": {"group_size": g, "bits": b} plus, for a
// model type whose mlx-lm model sets a quant_predicate memfit reads (at
// 0.31.3: qwen3_moe's mlp.gate, qwen3_next's mlp.gate and
// mlp.shared_expert_gate; gemma4's router.proj, since v0.31.2; at 8 bits,
// group 64), "model.layers.<i>.<path>" (gemma4's multimodal wrapper:
// "language_model.model.layers.<i>.<path>") : {"group_size": 64,
// "bits": 8} for each layer i that holds the module;
// without quantize_embeddings, "model.embed_tokens": false (the entry
// mlx-lm reads as a module left unquantized; the token embedding, and so a
// tied LM head, stays at the config's dtype). kInput when `base` is no object, already declares a quantization, names
// no model_type or more than kMaxConvertedLayers layers (a gemma4's
// text_config's), a gemma4 without a text_config, or is a model
// type whose quant_predicate memfit does not model (its conversion would
// differ from the one priced), or a conversion without quantize_embeddings
// of a model type with a router rule (an MLX before v0.11.0 predates it).
Result<nlohmann::json> mlx_converted_config(const nlohmann::json& base,
                                            const MlxConversion& conversion);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_CONVERT_CONFIG_H_
