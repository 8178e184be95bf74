// The tensors llama.cpp's converter (convert_hf_to_gguf.py's Gemma4Model,
// conversion/gemma.py in later trees) writes for Gemma 4's text decoder
// (GGUF gemma4: E2B and E4B with per-layer embeddings, the 26B-A4B MoE,
// the 31B), as llama.cpp's loader creates them (llama_model_gemma4::
// load_arch_tensors, src/models/gemma4.cpp; names from src/llama-arch.cpp).
// Private to the library; engines/llamacpp/quantize_plan.h's
// converted_tensors() is the way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_GEMMA4_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_GEMMA4_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "memfit/ggml_types.h"
#include "memfit/gguf.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

struct ConvertedTensor;

// What sizes Gemma 4's tensors beyond ModelSpec: per layer whether it is
// windowed, its KV heads and FFN width (use_double_wide_mlp doubles the
// KV-sharing layers'), the two head widths, the per-layer embedding width
// and the MoE block's widths.
struct Gemma4Widths {
  std::vector<bool> sliding;        // one a layer: attention.sliding_window_pattern
  std::vector<uint64_t> kv_heads;   // one a layer: attention.head_count_kv
  std::vector<uint64_t> ff;         // one a layer: feed_forward_length
  uint64_t heads = 0;               // attention.head_count
  uint64_t head_dim_swa = 0;        // attention.key_length_swa (= value_length_swa)
  uint64_t head_dim_full = 0;       // attention.key_length (= value_length)
  uint64_t per_layer_input = 0;     // embedding_length_per_layer_input; 0: none
  uint64_t experts = 0;             // expert_count; 0: no MoE block
  uint64_t expert_ff = 0;           // expert_feed_forward_length
  // The converter's type for per_layer_model_proj, which llama-quantize
  // never retypes ("these are not too big so keep them as it is",
  // tensor_allows_quantization in src/llama-quant.cpp): the checkpoint's
  // BF16 under --outtype auto or bf16, F16 under the default f16.
  GgmlType kept_type = GgmlType::kF16;
};

// Gemma 4's widths from a GGUF's gemma4.* keys (a file's header, or a
// llama.cpp log's dump with its cut arrays filled); nullopt when the
// architecture is not gemma4. An error naming the key when one is missing
// or not one count a layer.
Result<std::optional<Gemma4Widths>> gemma4_widths_of_gguf(const GgufHeader& header);

// Whether `w` can size `spec`'s tensors: one entry a layer, the widths
// nonzero, and the widest row (per_layer_token_embd's, layers x the
// per-layer width; an FFN's, the experts' gate_up) within 64 bits.
bool gemma4_widths_fit(const ModelSpec& spec, const Gemma4Widths& w);

// The tensors outside the blocks: output (untied), output_norm, the
// per-layer embedding's three (per_layer_model_proj, per_layer_proj_norm,
// per_layer_token_embd), rope_freqs and token_embd, by name.
void add_gemma4_globals(const ModelSpec& spec, const Gemma4Widths& w, std::vector<ConvertedTensor>& out);

// Block `i`'s tensors, by name. `k_eq_v`: the global layers have no
// attn_v (transformers' attention_k_eq_v, the 26B-A4B's and the 31B's:
// those layers read V from K; llama.cpp's wv is TENSOR_NOT_REQUIRED and
// the GGUF keeps no key of it). Requires gemma4_widths_fit(spec, w).
void add_gemma4_block(const ModelSpec& spec, const Gemma4Widths& w, bool k_eq_v, uint64_t i,
                      std::vector<ConvertedTensor>& out);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_GEMMA4_H_
