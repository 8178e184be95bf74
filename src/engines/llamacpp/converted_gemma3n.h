// The tensors llama.cpp's converter (convert_hf_to_gguf.py's Gemma3nModel)
// writes for Gemma 3n's text decoder (GGUF gemma3n: E2B, E4B), as
// llama.cpp's loader creates them (load_tensors, LLM_ARCH_GEMMA3N, in
// src/llama-model.cpp since #14400, b5757; llama_model_gemma3n::
// load_arch_tensors, src/models/gemma3n.cpp, in later trees; names from
// src/llama-arch.cpp). Private to the library; engines/llamacpp/
// quantize_plan.h's converted_tensors() is the way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_GEMMA3N_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_GEMMA3N_H_

#include <cstdint>
#include <vector>

#include "memfit/ggml_types.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {

struct ConvertedTensor;

// llama.cpp's hard-coded Gemma 3n widths (llama_hparams, src/
// llama-hparams.h: n_altup 4, laurel_rank 64, n_embd_altup 256; the
// loader reads no key of them: a file of other widths fails to load).
inline constexpr uint64_t kGemma3nAltup = 4;
inline constexpr uint64_t kGemma3nLaurelRank = 64;
inline constexpr uint64_t kGemma3nPerLayerInput = 256;

// Whether `spec` (model_type gemma3n_text, text only) has the widths that
// size its tensors: hidden, heads, KV heads, head_dim, the FFN width and
// the vocabulary nonzero, and the widest row (per_layer_token_embd's,
// 256 x layers, by the vocabulary) within 64 bits.
bool gemma3n_builds(const ModelSpec& spec);

// Every tensor, in the loader's order: those outside the blocks by name
// (altup_proj, altup_unembd_proj, output (untied), output_norm,
// per_layer_model_proj, per_layer_proj_norm, per_layer_token_embd,
// token_embd), then each block's by name. `kept`: the converter's type
// for the matrices llama-quantize never retypes (altup_*, laurel_*,
// per_layer_model_proj: tensor_allows_quantization in
// src/llama-quant.cpp): F16 under the converter's default --outtype
// f16, BF16 under bf16. Requires gemma3n_builds(spec).
std::vector<ConvertedTensor> gemma3n_tensors(const ModelSpec& spec, GgmlType kept);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_GEMMA3N_H_
