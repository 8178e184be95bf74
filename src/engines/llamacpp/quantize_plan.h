// A safetensors or config-only model priced as the GGUF that llama.cpp's
// llama-quantize would write for a file type (`--quant Q4_K_M`): the
// tensor list llama.cpp's converter writes for the architecture, built
// from the config, and each tensor's type as llama-quantize chooses it.
// The rules and their sources: docs/engine-llamacpp.md, "GGUF file types
// for a safetensors or config-only model". Private to the library.
#ifndef MEMFIT_ENGINES_LLAMACPP_QUANTIZE_PLAN_H_
#define MEMFIT_ENGINES_LLAMACPP_QUANTIZE_PLAN_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/ggml_types.h"
#include "memfit/model.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

// A file type llama-quantize writes (its LLAMA_FTYPE_*), by the name its
// command line takes.
struct GgufFileType {
  std::string_view name;   // "Q4_K_M"
  GgmlType default_type;   // llama_ftype_get_default_type()
};

// The file types memfit prices, most precise first (the order
// recommend-quant ranks them in). Those that need an importance matrix
// (IQ1_*, IQ2_*, IQ3_XXS, IQ3_XS, Q2_K_S) are not among them.
std::span<const GgufFileType> gguf_file_types();

// The file type `name` names, case-insensitively; Q3_K, Q4_K and Q5_K are
// llama-quantize's aliases of the _M types. nullptr for any other name.
const GgufFileType* find_gguf_file_type(std::string_view name);

// The file llama-quantize would write for `file_type` from the model at
// `model_path`: its folder's name, "-", the type's name, ".gguf"
// ("Qwen3-8B-Q4_K_M.gguf"; "model-..." when the path names no folder).
std::string quantized_gguf_file_name(const std::string& model_path, std::string_view file_type);

// The GGUF a launch command for `r` loads: `model_path` itself, or under a
// --quant GGUF file type the file llama-quantize would write.
std::string launch_model_file(const EstimateRequest& r, const std::string& model_path);

// The file type `name` names among gguf_file_types() and the types
// llama-quantize writes only with an importance matrix (IQ1_S, IQ1_M,
// IQ2_XXS, IQ2_XS, IQ2_S, IQ2_M, IQ3_XXS, IQ3_XS, Q2_K_S: the matrix
// changes the values; a tensor's type reads only whether there is one): a
// llama.cpp dump of such a file is rebuilt tensor by tensor
// (logs/log_model_tensors.cc), though `--quant` does not offer them
// (memfit cannot make the matrix). nullptr for any other name.
const GgufFileType* find_rebuilt_file_type(std::string_view name);

// Whether llama-quantize writes `type` only with an importance matrix
// (those find_rebuilt_file_type() adds to gguf_file_types()).
bool needs_importance_matrix(const GgufFileType& type);

// "F32, F16, BF16, Q8_0, ...": every name gguf_file_types() holds.
std::string gguf_file_type_names();

// One tensor of the converted model: its GGUF name, dims (ne[0] first,
// the row length) and the type the converter writes it in (F32 for 1-D
// tensors, norms and routers; F16 for the matrices).
struct ConvertedTensor {
  std::string name;
  std::vector<uint64_t> ne;
  GgmlType type = GgmlType::kF16;
};

// Appends a tensor with the converter's type: F32 for what has one
// dimension, F16 otherwise (convert_hf_to_gguf.py's default for an F16
// file); add_converted_f32 keeps a matrix the converter writes in F32.
void add_converted(std::vector<ConvertedTensor>& out, std::string name, std::vector<uint64_t> ne);
void add_converted_f32(std::vector<ConvertedTensor>& out, std::string name, std::vector<uint64_t> ne);

// A gated delta net's widths (Qwen3-Next's and Qwen3.5's linear-attention
// layers): ModelSpec::gated_delta, which a config or a GGUF fills; a
// llama.cpp dump's reader passes its own (the dump's ssm.* keys).
using GatedDeltaWidths = GatedDeltaGeometry;

// An MLA model's widths (DeepSeek V2/V3's deepseek2), which ModelSpec
// does not carry: the config's q_lora_rank (0: a full-rank attn_q, as
// DeepSeek-V2-Lite), kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim,
// v_head_dim and first_k_dense_replace (a GGUF's attention.q_lora_rank,
// attention.kv_lora_rank, key_length(_mla) - rope.dimension_count,
// value_length(_mla), rope.dimension_count, leading_dense_block_count).
struct MlaWidths {
  uint64_t q_lora_rank = 0;
  uint64_t kv_lora_rank = 0;
  uint64_t qk_nope = 0;
  uint64_t qk_rope = 0;
  uint64_t v_head = 0;
  uint64_t leading_dense = 0;
  // attn_kv_b split into attn_k_b and attn_v_b: the converter does so
  // since ggml-org/llama.cpp #12801 (MLA absorption), whose files carry
  // attention.key_length_mla; older files keep attn_kv_b.
  bool split_kv_b = false;
  // The routed experts' score correction bias (DeepSeek-V3's
  // e_score_correction_bias, written as exp_probs_b.bias, F32): the
  // sigmoid-gated models (expert_gating_func 2) have it, V2 does not.
  bool expert_bias = false;
};

// What a GGUF's keys (a log's dump) say of the converted tensors beyond
// ModelSpec and the widths above; the defaults are a config's.
struct Gemma4Widths;  // engines/llamacpp/converted_gemma4.h
struct Mamba1Widths;  // engines/llamacpp/converted_mamba1.h
struct DeciWidths;    // engines/llamacpp/converted_deci.h

struct ConverterHints {
  // A deepseek2 model's MLA widths: its tensors are built only with them.
  const MlaWidths* mla = nullptr;
  // glm4's Q/K/V biases: Glm4Config's attention_bias defaults to True
  // (GLM-4-9B-0414, GLM-Z1-9B), GLM-4-32B-0414 and GLM-Z1-32B say False;
  // the GGUF keeps no key of it (llama.cpp's loader takes either: bq, bk
  // and bv are TENSOR_NOT_REQUIRED), so a dump's counts decide.
  bool glm4_no_qkv_bias = false;
  // GLM-4.5's per-head Q/K norms (Glm4MoeConfig's use_qk_norm: the 355B
  // model's, not Air's): the GGUF keeps no key of it (llama.cpp loads
  // attn_q_norm and attn_k_norm TENSOR_NOT_REQUIRED), so a dump's counts
  // decide; a config builds none.
  bool glm4moe_qk_norm = false;
  // Phi-2 (model_type phi) with one fused attn_qkv: the converter maps
  // microsoft's first MixFormer checkpoints' mixer.Wqkv to ATTN_QKV, and
  // transformers' PhiForCausalLM's q_proj/k_proj/v_proj to ATTN_Q/K/V
  // (gguf-py tensor_mapping.py); a GGUF keeps no key of which, so a
  // dump's counts decide.
  bool phi2_fused_qkv = false;
  // StableLM's Q/K/V biases (StableLmConfig's use_qkv_bias: StableLM 2
  // 1.6B's, not StableLM-3B-4E1T's): the GGUF keeps no key of it
  // (llama.cpp's create_tensor_qkv loads them when present), so a dump's
  // counts decide; a config builds none.
  bool stablelm_qkv_bias = false;
  // Falcon-H1's Mamba-2 mixer without its gated norm (FalconH1Config's
  // mamba_rms_norm false: Falcon-H1-0.5B's; the loader's ssm_norm is
  // TENSOR_NOT_REQUIRED): a dump's counts decide; a config builds the norm
  // (the larger Falcon-H1 models have it).
  bool falcon_h1_no_ssm_norm = false;
  // ERNIE 4.5 MoE's and Ling 2.0's routers without their score correction
  // bias (exp_probs_b: the loaders' TENSOR_NOT_REQUIRED; a checkpoint has it
  // with moe_use_aux_free / moe_router_enable_expert_bias, as the published
  // ones do): a dump's counts decide; a config builds it.
  bool no_expert_bias = false;
  // A llama checkpoint with Q/K/V/output and MLP biases (LlamaConfig's
  // attention_bias and mlp_bias, both true in IBM's Granite Code 3B and
  // 8B): the converter writes the seven biases of each block; the GGUF
  // keeps no key of them (llama.cpp loads them when present), so a dump's
  // counts decide.
  bool llama_biases = false;
  // A Mixtral-style file converted before ggml-org/llama.cpp #6387: each
  // routed expert's matrices as 2-D tensors of their own
  // (blk.N.ffn_gate.E.weight, ...) and the router at F16; the GGUF keeps
  // no key of it, so a dump's counts decide.
  bool split_experts = false;
  // BERT's token_types rows: the config's type_vocab_size, which the
  // converter writes as tokenizer.ggml.token_type_count (XLM-RoBERTa's 1);
  // 0: BertConfig's default, 2.
  uint64_t token_types = 0;
  // T5's encoder (t5encoder): the relative attention bias's buckets (the
  // GGUF's attention.relative_buckets_count; 0: T5Config's default, 32)
  // and whether every block has its own (UMT5) or block 0 alone (T5); the
  // GGUF keeps no key of which, so a dump's counts decide.
  uint64_t t5_relative_buckets = 0;
  bool t5_rel_b_every_block = false;
  // Gemma 4 (gemma4_text): its per-layer widths (a GGUF's gemma4.* keys);
  // its tensors are built only with them. `gemma4_k_eq_v`: the global
  // layers have no attn_v (attention_k_eq_v; the GGUF keeps no key of it,
  // llama.cpp loads wv TENSOR_NOT_REQUIRED), so a dump's counts decide.
  const Gemma4Widths* gemma4 = nullptr;
  bool gemma4_k_eq_v = false;
  // Gemma 3n (gemma3n_text): built only from a GGUF's widths (`gemma3n`:
  // a config's vocab_size need not be the rows the converter wrote, 262,144
  // text tokens in the first Gemma3nModel, the full 262,400 later), and
  // the converter's type for the matrices llama-quantize never retypes
  // (altup_*, laurel_*, per_layer_model_proj): F16 (--outtype f16, the
  // default) or BF16; the GGUF keeps no key of it, so a dump's counts
  // decide.
  bool gemma3n = false;
  GgmlType gemma3n_kept_type = GgmlType::kF16;
  // Mamba's and Jamba's Mamba-1 widths (a GGUF's mamba.ssm.* or
  // jamba.ssm.* keys): their tensors are built only with them.
  const Mamba1Widths* mamba1 = nullptr;
  // Mamba's ssm_x and ssm_dt written F32, as the first converter did
  // (QuantizeRules::mamba1_small_f32, which a rebuild sets with it).
  bool mamba1_small_f32 = false;
  // Nemotron-NAS (deci): each layer's heads, KV heads and FFN width (a
  // GGUF's per-layer deci.* arrays): its tensors are built only with them.
  const DeciWidths* deci = nullptr;
};

// The tensors llama.cpp's converter writes for `spec`, in the order
// llama.cpp's loader walks them (tensors outside the blocks first, then
// block by block; by name within each). A usage error on `quant` for an
// architecture whose tensor list memfit does not build (the message names
// those it does).
// `gated_delta`, when given, are the widths of a Qwen3-Next or Qwen3.5
// model's gated delta nets; nullptr takes spec.gated_delta. Such a model's
// tensors are built only with nonzero key and value heads.
// `hints`, when given, are what the dump says beyond the spec
// (ConverterHints).
Result<std::vector<ConvertedTensor>> converted_tensors(const ModelSpec& spec,
                                                       const GatedDeltaWidths* gated_delta = nullptr,
                                                       const ConverterHints* hints = nullptr);

// How one llama-quantize run chose types beyond the file type: whether it
// had an importance matrix, and the rules that changed between releases
// (a file's quantizing build is not in a log that loads it, so a dump is
// rebuilt under each and its printed counts decide: logs/
// log_model_tensors.cc). The defaults are `--quant`'s: no matrix and the
// pinned release's rules (src/llama-quant.cpp at 007dbbf). Sources:
// docs/engine-llamacpp.md, "Each tensor's type".
struct QuantizeRules {
  // An importance matrix was given (llama-quantize's has_imatrix; a dump
  // says so by its quantize.imatrix.* keys): the IQ4_NL/IQ4_XS ffn_down
  // lift to Q5_K is skipped and Q4_0/Q5_0 lift the first n_layer/8
  // ffn_down to Q4_1/Q5_1.
  bool imatrix = false;
  // The releases before the tensor_category rewrite (ggml-org/llama.cpp
  // #19770; e.g. the llama.cpp Ollama vendors): a fused attn_qkv takes its
  // own rule (Q4_K for Q3_K_M/Q3_K_L/IQ3_M, Q5_K for Q4_K_M, Q6_K for
  // Q5_K_M; the 2-bit mixes' default) and does not advance attn_v's
  // index. From the rewrite, category_is_attn_v() holds ATTENTION_QKV and
  // its branch comes first: attn_qkv takes attn_v's rules and index.
  // Those releases' attn_v branch matched "attn_v.weight" alone, so a
  // deepseek2 attn_kv_b (counted in n_attention_wv) took the default type;
  // from the rewrite it is ATTENTION_KV_B, attn_v-like.
  bool qkv_own_rule = false;
  // Older releases' fallback of a Q2_K or Q3_K row that is not whole
  // 256-blocks: IQ4_NL (the llama.cpp Ollama vendors, ollama/ollama
  // 02725d3d), where 007dbbf takes Q4_0; the PR that changed it was not
  // found.
  bool k_fallback_iq4_nl = false;
  // A build with LLAMA_QKK_64 (QK_K = 64, until its removal in 2024):
  // the K types' super-blocks hold 64 elements, so a row of 3,200 is whole
  // Q6_K blocks (ggml-org/ci built llama.cpp so for open_llama_3b_v2,
  // whose hidden size is 3,200: "cmake -DCMAKE_BUILD_TYPE=Release
  // -DLLAMA_QKK_64=1"). Q6_K's block is then 2 + 13 x 64 / 16 = 54 bytes
  // (block_q6_K's static_assert); the other K types' 64-element layouts
  // are not priced (a rebuild holding one is refused).
  bool qk_k_64 = false;
  // Mamba-1's ssm_x and ssm_dt as the first Mamba support wrote them
  // (ggml-org/llama.cpp #5328, 2024-03): the converter's MambaModel forced
  // them to F32 (tensor_force_quant, with SSM_CONV1D, SSM_A and SSM_D) and
  // llama-quantize did not quantize them ("do not quantize Mamba's small
  // yet 2D weights": ssm_conv1d.weight, ssm_x.weight, ssm_dt.weight; still
  // so in mid-2024, beside T5's attn_rel_b). Both were dropped later
  // (compilade proposed it in #9074's thread, falcon-mamba, 2024-08); the
  // pinned 007dbbf's tensor_allows_quantization keeps only ssm_conv1d and
  // the converter writes ssm_x and ssm_dt at the output type.
  bool mamba1_small_f32 = false;
};

// The bytes of a tensor of `type`, dims `ne` (ne[0] the row), as a build
// under `rules` lays it out: ggml_tensor_bytes(), but for the K types of
// a QK_K = 64 build. An error when the row is not whole blocks or the
// layout is one memfit does not price.
Result<uint64_t> quantized_tensor_bytes(GgmlType type, std::span<const uint64_t> ne,
                                        const QuantizeRules& rules);

// How llama-quantize came to one tensor's type, beyond the type itself
// (src/llama-quant.cpp, llama_model_quantize_impl).
struct TypeChoice {
  // tensor_allows_quantization(): a matrix llama-quantize may retype; the
  // others keep the converter's type whatever the options.
  bool quantizable = false;
  // Its row took tensor_type_fallback(): a --tensor-type override then
  // leaves it alone ("unless the user specifies a type, and the tensor
  // geometry will not require fallback quantisation").
  bool fell_back = false;
};

// The type llama-quantize gives each of `tensors` (converted_tensors'
// order) for `file_type`. A usage error on `quant` when a tensor's row
// fits no type llama-quantize falls back to. `choices`, when given,
// receives one TypeChoice per tensor.
Result<std::vector<GgmlType>> quantized_types(const ModelSpec& spec,
                                              std::span<const ConvertedTensor> tensors,
                                              const GgufFileType& file_type,
                                              const QuantizeRules& rules = {},
                                              std::vector<TypeChoice>* choices = nullptr);

// `model` with its tensors replaced by `tensors` at `types` (one each, in
// order), as quantized_gguf_model() describes its result; the bytes as a
// build under `rules` lays them out. A usage error on `quant` naming the
// tensor whose row is not whole blocks of its type.
Result<Model> gguf_model_of_types(const Model& model, std::span<const ConvertedTensor> tensors,
                                  std::span<const GgmlType> types, const QuantizeRules& rules);

// The model as that GGUF: `model` with its tensors replaced by the
// quantized list (SafetensorsTensor rows as a GGUF model carries them:
// dtype the ggml type name, shape outermost first), weights.bytes their
// exact sum, source kGgufHeader, verified false (the file is not read:
// it would be written), gguf null. Errors as above.
Result<Model> quantized_gguf_model(const Model& model, const GgufFileType& file_type,
                                   const GatedDeltaWidths* gated_delta = nullptr,
                                   const QuantizeRules& rules = {},
                                   const ConverterHints* hints = nullptr);

// The request's `quant` applied under llamacpp: none leaves `p` as it is;
// a GGUF file type on a safetensors or config-only model replaces
// p.model with quantized_gguf_model() and says so in a warning. A usage
// error on `quant` for a GGUF model (its own file type is its weights),
// for a name that is not one of gguf_file_types() (the message lists
// them), and for an architecture memfit does not convert.
Status apply_gguf_file_type(const EstimateRequest& r, PreparedRequest& p);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_QUANTIZE_PLAN_H_
