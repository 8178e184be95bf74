// The tensor list llama.cpp's converter (convert_hf_to_gguf.py, with the
// names of gguf-py/gguf/tensor_mapping.py) writes for a standard decoder,
// dense or MoE (with the per-family differences of DecoderTraits: GLM-4.5,
// OLMoE, MiniMax-M2, Seed-OSS, Hunyuan's dense models), StarCoder 2,
// Phi-3.5-MoE, GPT-NeoX, Phi-3, ChatGLM, gpt-oss, the gated delta net
// hybrids (Qwen3-Next, Qwen3.5) and Mamba-2, built from the config (the
// encoders: converted_encoders.h) (engines/llamacpp/quantize_plan.h;
// docs/engine-llamacpp.md, "GGUF file types for a safetensors or
// config-only model").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "engines/llamacpp/converted_deci.h"
#include "engines/llamacpp/converted_encoders.h"
#include "engines/llamacpp/converted_gemma3n.h"
#include "engines/llamacpp/converted_gemma4.h"
#include "engines/llamacpp/converted_hybrids.h"
#include "engines/llamacpp/converted_mamba1.h"
#include "engines/llamacpp/converted_t5.h"
#include "engines/llamacpp/quantize_plan.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"

namespace memfit::llamacpp {
namespace {

// The architectures whose converted tensors are the standard decoder's
// (attn_q/k/v/output, ffn_gate/up/down or their _exps, two norms a block);
// qwen2 adds Q/K/V biases, qwen3 per-head Q/K norms.
// qwen2vl (a GGUF's architecture for Qwen2-VL and Qwen2.5-VL's language
// model; the towers are an mmproj file) is qwen2's decoder with M-RoPE,
// which adds no tensor (llama.cpp's LLM_ARCH_QWEN2VL loads qwen2's).
// IBM's Granite 3.x and 4.1 dense models (granite) and Granite MoE
// (granitemoe) are llama's blocks: the converter's GraniteModel and
// GraniteMoeModel derive from LlamaModel (the MoE's input_linear split
// into ffn_gate_exps and ffn_up_exps, output_linear written as
// ffn_down_exps, the router as ffn_gate_inp), and llama.cpp's
// llama_model_granite::load_arch_tensors (src/models/granite.cpp) reads
// those names; a Granite MoE Shared file adds the shared expert's
// gate/up/down at expert_shared_feed_forward_length, ungated (add_ffn).
// InternLM2 (internlm2): the converter's InternLM2Model splits the
// checkpoint's fused wqkv into attn_q/k/v, and
// llama_model_internlm2::load_arch_tensors reads llama's names, the output
// required. EXAONE 3.x (exaone): llama's names (src/models/exaone.cpp's
// graph; its converter's ExaoneModel writes llama3 RoPE's rope_freqs as
// LlamaModel does). Qwen3-VL's language model (GGUF qwen3vl, qwen3vlmoe;
// the towers and the deepstack mergers are the mmproj file's): qwen3's
// and qwen3moe's tensors (llama_model_qwen3vl / qwen3vlmoe::
// load_arch_tensors, src/models/qwen3vl.cpp, qwen3vlmoe.cpp; the deepstack
// features are added to the hidden state, no tensor of the text model).
// Ministral 3 / Mistral's mistral3 GGUFs: llama's names, the attention
// temperature scaling a hyperparameter, not a tensor (llm_build_mistral3,
// src/models/mistral3.cpp, reads wq/wk/wv/wo, the two norms and the gated
// FFN or llama's MoE).
// ERNIE 4.5's dense models (ernie4_5): llama's names (llm_build_ernie4_5,
// src/models/ernie4-5.cpp; Q/K/V biases optional, which its checkpoints
// do not have).
// The blocks that differ from llama's by a tensor or two (DecoderTraits
// below): Hunyuan's dense models (hunyuan_v1_dense; GGUF hunyuan-dense)
// load qwen3's names, per-head Q/K norms included (LLM_ARCH_HUNYUAN_DENSE
// load_tensors: attn_q_norm and attn_k_norm n_embd_head_k wide); OLMoE
// (olmoe) and MiniMax-M2 (minimax_m2; GGUF minimax-m2) norm the whole Q
// and K rows (llama_model_olmoe / llama_model_minimax_m2::
// load_arch_tensors: attn_q_norm heads x head_dim, attn_k_norm kv_heads x
// head_dim), their output required, every block routed experts, and
// MiniMax-M2's router has its score correction bias (exp_probs_b.bias,
// one an expert); Seed-OSS (seed_oss) has Q/K/V biases (attention_bias)
// and names its norm before the MLP post_attention_norm
// (llama_model_seed_oss::load_arch_tensors, LLM_TENSOR_ATTN_POST_NORM);
// GLM-4.5 (glm4_moe; GGUF glm4moe) has Q/K/V biases, post_attention_norm
// before the MLP, a dense MLP in its first_k_dense_replace blocks, then
// routed experts with exp_probs_b and n_shared_experts shared experts
// (n_shared_experts x moe_intermediate_size wide, ungated), per-head Q/K
// norms in the 355B model only (use_qk_norm: a dump's counts decide,
// ConverterHints::glm4moe_qk_norm), and its NextN blocks
// (llama_model_glm4_moe::load_arch_tensors, src/models/glm4-moe.cpp).
// dots.llm1 (dots1): qwen3's per-head Q/K norms, its first
// first_k_dense_replace blocks dense, then routed experts with
// exp_probs_b and n_shared_experts ungated shared experts, the output its
// own (LLM_ARCH_DOTS1 load_tensors, src/llama-model.cpp; the converter's
// Dots1Model writes e_score_correction_bias as exp_probs_b).
// Hunyuan-MoE (hunyuan_v1_moe; GGUF hunyuan-moe): per-head Q/K norms,
// every block routed experts and one ungated shared expert, n_ff_shexp
// wide (llama_model_hunyuan_moe::load_arch_tensors; the converter's
// HunYuanMoEModel writes the config's intermediate_size as
// expert_shared_feed_forward_length), tied or not.
// Nemotron (nemotron: Minitron, Nemotron-Mini): LayerNorms with their
// biases (attn_norm, ffn_norm, output_norm), Q/K/V/O, ffn_up and ffn_down
// (ReLU^2, no gate), the output required (llama_model_nemotron::
// load_arch_tensors; its optional attention-output and MLP biases are not
// in NVIDIA's checkpoints).
// MiniCPM (minicpm: MiniCPM 1/2, MiniCPM4): llama's block (llama.cpp loads
// LLM_ARCH_MINICPM with LLM_ARCH_LLAMA's tensors), usually tied, and its
// longrope factors as Phi-3's (the converter's MiniCPMModel.
// generate_extra_tensors writes rope_factors_long/_short, head_dim / 2
// each, when the config has rope_scaling's long and short factors).
// Ling 1.0 (bailing_moe; GGUF bailingmoe): llama's attention (the
// converter's BailingMoeModel splits query_key_value into Q, K and V),
// every block routed experts and num_shared_experts ungated shared
// experts, n_ff_exp x n_expert_shared wide, the output required
// (llama_model_bailingmoe::load_arch_tensors).
// Apertus (apertus): per-head Q/K norms, ffn_up and ffn_down (xIELU, whose
// four per-layer parameters the converter's ApertusModel writes as keys,
// not tensors), the output required, rope_freqs for a llama3 rope as its
// LlamaModel base writes them (llama_model_apertus::load_arch_tensors).
// Arcee's AFM (arcee): llama's attention and norms, the MLP ffn_up and
// ffn_down only (ReLU^2, no gate), the output tied or not, rope_freqs for
// a llama3 rope (llama_model_arcee::load_arch_tensors, src/models/
// arcee.cpp; the converter's ArceeModel is a LlamaModel).
// ERNIE 4.5's MoE models (ernie4_5_moe; GGUF ernie4_5-moe): llama's
// attention, the first moe_layer_start_index blocks dense (the GGUF's
// leading_dense_block_count), then routed experts with the router's score
// correction bias (moe_statics.e_score_correction_bias, written as
// exp_probs_b: the converter squeezes its (1, experts) shape to one row)
// and moe_num_shared_experts ungated shared experts, one matrix of
// moe_num_shared_experts x moe_intermediate_size
// (llama_model_ernie4_5::load_arch_tensors with LLM_ARCH_ERNIE4_5_MOE; the
// converter's Ernie4_5MoeModel writes that width as
// expert_shared_feed_forward_length); the output tied or not.
// Ling 2.0 / Ring 2.0 (bailing_moe_v2; GGUF bailingmoe2): one fused
// attn_qkv (the checkpoint's query_key_value, hidden -> q + 2 kv), per-head
// Q/K norms, the first first_k_dense_replace blocks dense, then routed
// experts with exp_probs_b (the checkpoint's expert_bias) and
// num_shared_experts ungated shared experts of
// moe_shared_expert_intermediate_size (else moe_intermediate_size x
// num_shared_experts), the output required
// (llama_model_bailingmoe2::load_arch_tensors; the converter's
// BailingMoeV2Model). Its multi-token prediction blocks
// (num_nextn_predict_layers) are not built: such a file is refused.
// GroveMoE (GGUF grovemoe; memfit's model_type grove_moe): qwen3moe's
// block (per-head Q/K norms, the router, three routed experts) and its
// adjugate ("chunk") experts, experts / 2 of them, head_dim wide:
// ffn_gate_chexps, ffn_up_chexps, ffn_down_chexps
// (llama_model_grovemoe::load_arch_tensors: n_ff_chexp, default
// n_embd_head_k, and n_expert / n_group_experts; the converter's
// GroveMoeModel writes those two keys as head_dim and 2, hardcoded from
// GroveMoE's modeling code, and drops the router's expert_bias buffer).
constexpr std::array<std::string_view, 32> kStandardDecoders = {
    "llama",   "mistral", "qwen2",   "qwen2_moe", "qwen3",     "qwen3_moe", "mixtral",   "smollm3",
    "qwen2vl", "granite", "granitemoe", "internlm2", "exaone",  "qwen3vl",   "qwen3vlmoe", "mistral3",
    "ernie4_5", "hunyuan_v1_dense", "olmoe", "minimax_m2", "seed_oss", "glm4_moe", "dots1", "hunyuan_v1_moe",
    "nemotron", "minicpm", "bailing_moe", "apertus", "arcee", "ernie4_5_moe", "bailing_moe_v2", "grove_moe"};

// GPT-NeoX (Pythia): one fused QKV matrix, biases on every linear layer
// and LayerNorm (weight and bias) norms; its own block builder.
// CodeShell (GGUF codeshell) writes the same tensors: its converter's
// CodeShellModel maps the GPT-2-style c_attn (fused QKV, hidden -> hidden
// + 2 x num_query_groups x head_dim), c_proj, c_fc and the LayerNorms
// with their biases, and llama.cpp's llama_model_codeshell::
// load_arch_tensors (src/models/codeshell.cpp) reads attn_norm(+b),
// attn_qkv(+b), attn_output(+b), ffn_norm(+b), ffn_up(+b), ffn_down(+b),
// output_norm(+b) and output (never tied: the loader requires it and
// only token_embd may be duplicated from it).
bool gpt_neox(const ModelSpec& spec) { return spec.model_type == "gpt_neox" || spec.model_type == "codeshell"; }

// StarCoder 2 (starcoder2): LayerNorms with their biases before attention
// and the MLP, Q/K/V apart, each with its bias (use_bias: the converter
// writes the checkpoint's q/k/v_proj biases and llama.cpp's
// create_tensor_qkv loads them), the attention output and its bias, the
// MLP's ffn_up and ffn_down (GELU, no gate) with their biases, the output
// norm's bias; the output tied or not (llama_model_starcoder2::
// load_arch_tensors, src/models/starcoder2.cpp: output TENSOR_NOT_REQUIRED,
// else token_embd duplicated).
bool starcoder2(const ModelSpec& spec) { return spec.model_type == "starcoder2"; }

// Phi-3.5-MoE (phimoe): LayerNorms with their biases, Q/K/V apart with
// their biases (attention_bias), the attention output and its bias, 16
// routed experts a block (the F32 router, 3-D gate/up/down, no shared
// expert), the output with its bias (lm_head_bias) and the output norm's
// bias, and longrope's two factor tensors as Phi-3's
// (llama_model_phimoe::load_arch_tensors, src/models/phimoe.cpp).
bool phimoe(const ModelSpec& spec) { return spec.model_type == "phimoe"; }

// StableLM (stablelm: StableLM-3B-4E1T, StableLM 2): LayerNorms with
// their biases before attention and the MLP, Q/K/V (with their biases
// where the checkpoint has use_qkv_bias: ConverterHints::
// stablelm_qkv_bias), the attention output, the gated MLP, the output
// norm's bias, the output required (llama_model_stablelm::
// load_arch_tensors). StableLM 2 12B's per-head Q/K LayerNorms (2-D,
// head_dim x heads, F32) in place of ffn_norm (its parallel residual) are
// not built: the GGUF keeps no key of qk_layernorm and its counts by type
// equal the ffn_norm layout's, so a dump cannot tell them apart (its
// file is priced with 2 x hidden floats a block where it holds head_dim x
// (heads + kv_heads)).
bool stablelm(const ModelSpec& spec) { return spec.model_type == "stablelm"; }

// Phi-3: fused QKV and a fused gate-and-up matrix, RMS norms (weights
// only), no biases; its long-context RoPE keeps two factor tensors.
bool phi3(const ModelSpec& spec) { return spec.model_type == "phi3"; }

// ChatGLM (ChatGLM2/3, GLM-4 and CodeGeeX4 as THUDM's ChatGLMModel
// checkpoints): fused QKV with its bias, a fused gate-and-up matrix
// (dense_h_to_4h), RMS norms; its own block builder.
bool chatglm(const ModelSpec& spec) { return spec.model_type == "chatglm"; }

// gpt-oss: biased attention with per-head sinks, routed experts only,
// their weights MXFP4 as the checkpoint ships them.
bool gpt_oss(const ModelSpec& spec) { return spec.model_type == "gpt_oss"; }

// The gated delta nets' widths: those given (a dump's), else the spec's;
// nullptr when neither names key and value heads.
// nullptr too when the widest row, hidden x (2 key_dim + 2 value_dim),
// would not fit 64 bits (an untrusted config's widths).
const GatedDeltaWidths* delta_widths(const ModelSpec& spec, const GatedDeltaWidths* given) {
  const GatedDeltaWidths* d = given != nullptr ? given : &spec.gated_delta;
  if (d->key_heads == 0 || d->value_heads == 0 || d->key_dim == 0 || d->value_dim == 0) return nullptr;
  const CheckedBytes widest = (CheckedBytes(2) * d->key_heads * d->key_dim +
                               CheckedBytes(2) * d->value_heads * d->value_dim + d->kernel) *
                              std::max<uint64_t>(spec.geometry.hidden, 1);
  return widest.value() ? d : nullptr;
}

// Gemma (v1), Gemma 2 and Gemma 3's text decoder: the standard decoder's
// tensors, no biases; Gemma 2 adds the post-attention and post-feed-forward
// norms, Gemma 3 those and per-head Q/K norms (llama.cpp's LLM_ARCH_GEMMA,
// LLM_ARCH_GEMMA2 and LLM_ARCH_GEMMA3 tensors, src/llama-arch.cpp;
// load_tensors in src/llama-model.cpp; the converter's GemmaModel,
// Gemma2Model and Gemma3Model). Their embeddings are always tied: the
// loader reuses token_embd when the file has no output.
bool gemma(const ModelSpec& spec) { return spec.model_type == "gemma"; }
bool gemma2(const ModelSpec& spec) { return spec.model_type == "gemma2"; }
bool gemma3(const ModelSpec& spec) { return spec.model_type == "gemma3_text"; }

// Gemma 4's text decoder (GGUF gemma4): built from its widths alone
// (ConverterHints::gemma4, a GGUF's keys): per layer its own head width,
// KV heads and FFN width (engines/llamacpp/converted_gemma4.h).
bool gemma4(const ModelSpec& spec, const ConverterHints& h) {
  return spec.model_type == "gemma4_text" && h.gemma4 != nullptr && !spec.multimodal &&
         spec.nextn_layers == 0 && gemma4_widths_fit(spec, *h.gemma4);
}

// GLM-4.5 (glm4_moe): its NextN blocks are built (add_glm4moe_nextn_block).
bool glm4moe(const ModelSpec& spec) { return spec.model_type == "glm4_moe"; }

// GLM-4 (-0414, GLM-Z1; model_type glm4): Q/K/V with their biases, the
// attention output, ffn_up holding the gate and up halves (the
// checkpoint's gate_up_proj, hidden -> 2 x intermediate), ffn_down and
// four RMS norms a block (llama.cpp's LLM_ARCH_GLM4 tensors, src/
// llama-arch.cpp; src/models/glm4.cpp reads attn_norm, attn_post_norm,
// ffn_norm, ffn_post_norm; the converter's Glm4Model).
bool glm4(const ModelSpec& spec) { return spec.model_type == "glm4"; }

// OLMo 2 and OLMo 3 (GGUF olmo2; olmo3 where the file gives a sliding
// window, which adds no tensor): no norm before attention or the MLP, a
// norm after each (post_attention_norm, post_ffw_norm), RMS norms over
// the whole Q and K rows (attn_q_norm hidden wide, attn_k_norm kv_heads x
// head_dim), Q/K/V/O and the gated FFN, no biases, the output its own
// (llama_model_olmo2::load_arch_tensors, src/models/olmo2.cpp, requires
// it; the converter's Olmo2Model).
// EXAONE 4.0 (GGUF exaone4) has the same block but for its Q/K norms, one
// head wide (llm_build_exaone4 normalizes Q and K after splitting them
// into heads, src/models/exaone4.cpp), and llama3 RoPE's rope_freqs
// (get_rope_factors; its converter writes them as LlamaModel does).
bool olmo2(const ModelSpec& spec) {
  return spec.model_type == "olmo2" || spec.model_type == "olmo3" || spec.model_type == "exaone4";
}

// Phi-2 and Phi-1.5 (model_type phi; GGUF phi2): LayerNorm (weight and
// bias) before a parallel attention and MLP, every linear layer with its
// bias, the output with its own (llama.cpp's LLM_ARCH_PHI2 tensors and
// load_tensors, which takes a fused wqkv or wq/wk/wv; the converter's
// Phi2Model).
bool phi2(const ModelSpec& spec) { return spec.model_type == "phi"; }

// Command-R (model_type cohere; GGUF command-r): one LayerNorm weight a
// block before its parallel attention and MLP (no ffn_norm), the
// standard Q/K/V/output and gate/up/down matrices, no biases; tied
// embeddings (CohereConfig's default: the loader reads the output from
// token_embd, TENSOR_DUPLICATED). Command R+ (64 blocks) adds per-head
// Q/K norms, head_dim x heads and head_dim x kv_heads: llama.cpp's
// load_tensors creates attn_q_norm and attn_k_norm when n_layer >= 64
// (LLM_ARCH_COMMAND_R, src/llama-model.cpp; since ggml-org/llama.cpp
// #6491, Command R+). The converter (CommandR2Model) writes those norms
// F32, as it writes every "_norm.weight".
// Command R7B and Command A (GGUF cohere2; its sliding-window layers add
// no tensor) load the same block without the per-head norms at any depth
// and always tied (llama_model_cohere2::load_arch_tensors,
// src/models/cohere2.cpp: output is token_embd, TENSOR_DUPLICATED).
bool cohere(const ModelSpec& spec) { return spec.model_type == "cohere" || spec.model_type == "cohere2"; }

// DeepSeek V2/V3 (GGUF deepseek2): multi-head latent attention and
// DeepSeek-MoE blocks after the leading dense ones (llama.cpp's
// LLM_ARCH_DEEPSEEK2 tensors, src/llama-arch.cpp, and their load_tensors
// shapes; the converter's DeepseekV2Model); built only with its widths
// (a dump's, or the config's: ModelSpec::mla), the rope and value widths
// nonzero and the widest rows (attn_q_b's or attn_q's heads x (nope +
// rope), attn_kv_b's heads x (nope + v_head), by the larger input) within
// 64 bits (an untrusted config's widths).
bool deepseek2(const ModelSpec& spec, const MlaWidths* mla) {
  if (!(spec.model_type == "deepseek_v2" || spec.model_type == "deepseek_v3") || mla == nullptr ||
      mla->kv_lora_rank == 0 || mla->qk_rope == 0 || mla->v_head == 0 || spec.moe.experts == 0) {
    return false;
  }
  const uint64_t input = std::max({spec.geometry.hidden, mla->q_lora_rank, mla->kv_lora_rank});
  const CheckedBytes widest = CheckedBytes(spec.geometry.heads) *
                              (CheckedBytes(mla->qk_nope) + mla->qk_rope + mla->v_head) * input;
  return widest.value().has_value();
}

// Qwen3.5 (dense and MoE): full attention every few layers, gated delta
// net layers between, as llama.cpp's qwen35 / qwen35moe load them. A
// Hugging Face checkpoint says qwen3_5 / qwen3_5_moe (the multimodal
// wrapper, whose text_config is the language model) or the _text types.
bool qwen35(const ModelSpec& spec) {
  const std::string_view t = spec.model_type;
  return t == "qwen3_5" || t == "qwen3_5_moe" || t == "qwen3_5_text" || t == "qwen3_5_moe_text";
}

// Qwen3-Next: Qwen3.5's layer pattern with every block's feed-forward
// routed experts and a gated shared expert, its linear layers' beta and
// alpha projections one matrix (llama.cpp's qwen3next load_arch_tensors).
bool qwen3_next(const ModelSpec& spec) { return spec.model_type == "qwen3_next"; }

// A gated delta net hybrid memfit builds, with the widths it needs.
bool delta_hybrid(const ModelSpec& spec, const GatedDeltaWidths* d) {
  return (qwen35(spec) || (qwen3_next(spec) && spec.moe.experts > 0)) && delta_widths(spec, d) != nullptr;
}

// Mamba-2 (model_type mamba2: Mamba-Codestral): every layer a Mamba-2
// mixer, no attention and no MLP (llama_model_mamba2::load_arch_tensors),
// sized by the spec's Mamba-2 widths.
// Widths whose ssm_in row (inner + conv + heads) x hidden would not fit 64
// bits (an untrusted config's) are not built.
bool mamba2(const ModelSpec& spec) {
  const Mamba2Geometry& m = spec.mamba2;
  const CheckedBytes widest = (CheckedBytes(2) * m.inner + CheckedBytes(2) * m.groups * m.state + m.heads +
                               m.kernel) *
                              std::max<uint64_t>(spec.geometry.hidden, 1);
  return spec.model_type == "mamba2" && m.heads != 0 && m.groups != 0 && m.inner % m.groups == 0 &&
         m.inner != 0 && m.kernel != 0 && widest.value() &&
         std::all_of(spec.layers.begin(), spec.layers.end(),
                     [](const LayerCache& l) { return l.kind == LayerKind::kSsm; });
}

// Llama 4's text model (GGUF llama4; model_type llama4_text): llama's
// block, every interleave_moe_layer_step-th block routed experts (the
// router F32) and one shared expert of the routed width, the others a
// dense MLP of feed_forward_length; no Q/K norm weights (its L2 norm has
// none); rope_freqs for a llama3 rope, the output tied or not
// (llama_model_llama4::load_arch_tensors, src/models/llama4.cpp; the
// converter's Llama4Model, a LlamaModel, swaps intermediate_size_mlp in as
// feed_forward_length and writes intermediate_size as
// expert_feed_forward_length). Built where the spec has both widths (a
// GGUF's keys: moe_intermediate_size beside intermediate_size); a Hugging
// Face config names the dense width intermediate_size_mlp, which memfit
// does not read, so it is not built from one.
bool llama4(const ModelSpec& spec) {
  return spec.model_type == "llama4_text" && spec.moe.experts > 0 && spec.moe.expert_intermediate != 0;
}

bool converted(const ModelSpec& spec, const GatedDeltaWidths* d, const MlaWidths* mla) {
  if (mamba2(spec) || t5_encoder(spec)) return !spec.multimodal;
  if (converted_hybrid(spec) != ConvertedHybrid::kNone) return !spec.multimodal && spec.nextn_layers == 0;
  const bool hybrid = delta_hybrid(spec, d);
  const bool latent = deepseek2(spec, mla);
  // The converter writes a multimodal checkpoint's language model as its
  // own GGUF and the towers to an mmproj file (--mmproj): built for the
  // families whose text tensors memfit lists (Qwen3.5). Multi-token
  // prediction blocks are built for deepseek2 (add_nextn_block) and
  // Qwen3.5 (add_qwen35_nextn_block).
  if ((spec.multimodal && !(hybrid && qwen35(spec))) ||
      (spec.nextn_layers != 0 && !latent && !(hybrid && qwen35(spec)) && !glm4moe(spec))) {
    return false;
  }
  // An encoder's layers keep no cache (LayerKind::kNone).
  if (converted_encoder(spec) != ConvertedEncoder::kNone) return spec.embedding.bidirectional;
  const bool attention_only = std::all_of(spec.layers.begin(), spec.layers.end(), [&](const LayerCache& l) {
    return l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
           (llama4(spec) && l.kind == LayerKind::kChunked) ||
           (hybrid && l.kind == LayerKind::kLinearAttention) || (latent && l.kind == LayerKind::kMlaLatent);
  });
  return attention_only &&
         (gpt_neox(spec) || phi3(spec) || chatglm(spec) || gemma(spec) || gemma2(spec) || gemma3(spec) ||
          glm4(spec) || olmo2(spec) || phi2(spec) || cohere(spec) || hybrid || latent ||
          starcoder2(spec) || (phimoe(spec) && spec.moe.experts > 0) || llama4(spec) ||
          (stablelm(spec) && spec.moe.experts == 0) ||
          (gpt_oss(spec) && spec.moe.experts > 0) ||
          std::find(kStandardDecoders.begin(), kStandardDecoders.end(), spec.model_type) !=
              kStandardDecoders.end());
}

using Tensors = std::vector<ConvertedTensor>;

// How a standard decoder's block differs from llama's (kStandardDecoders):
// Q/K/V biases, Q/K norms one head wide or over the whole Q and K rows,
// the name of the norm before the MLP, the routed experts' score
// correction bias, LayerNorms with their biases, a dense MLP without its
// gate.
enum class QkNorm { kNone, kPerHead, kWholeRow };
struct DecoderTraits {
  bool qkv_bias = false;
  QkNorm qk_norm = QkNorm::kNone;
  std::string_view ffn_norm = "ffn_norm";
  bool expert_bias = false;
  // attn_norm, ffn_norm and output_norm are LayerNorms, each with its
  // bias (Nemotron's).
  bool norm_bias = false;
  // The dense MLP is ffn_up and ffn_down only (Nemotron's ReLU^2,
  // Apertus's xIELU).
  bool gated_ffn = true;
  // A routed block holds one shared expert of the routed width whatever
  // the file says (Llama 4's: its GGUF has no expert_shared_count).
  bool one_shared_expert = false;
  // A shared expert of its own width has a one-output sigmoid gate
  // (Qwen2-MoE's shared_expert_gate: ffn_gate_inp_shexp); Granite MoE
  // Shared's, Hunyuan-MoE's, ERNIE 4.5's and Ling 2.0's are added ungated.
  bool shared_expert_gate = true;
  // Q, K and V as one attn_qkv matrix (Ling 2.0's query_key_value).
  bool fused_qkv = false;
};

DecoderTraits decoder_traits(const ModelSpec& spec, const ConverterHints& h) {
  const std::string_view t = spec.model_type;
  DecoderTraits d;
  d.qkv_bias = t.starts_with("qwen2") || t == "seed_oss" || t == "glm4_moe";
  if (t.starts_with("qwen3") || t == "hunyuan_v1_dense" || t == "hunyuan_v1_moe" || t == "dots1" || t == "apertus" ||
      t == "bailing_moe_v2" || t == "grove_moe" || (t == "glm4_moe" && h.glm4moe_qk_norm)) {
    d.qk_norm = QkNorm::kPerHead;
  } else if (t == "olmoe" || t == "minimax_m2") {
    d.qk_norm = QkNorm::kWholeRow;
  }
  if (t == "seed_oss" || t == "glm4_moe") d.ffn_norm = "post_attention_norm";
  d.expert_bias = t == "minimax_m2" || t == "glm4_moe" || t == "dots1" ||
                  ((t == "ernie4_5_moe" || t == "bailing_moe_v2") && !h.no_expert_bias);
  d.norm_bias = t == "nemotron";
  d.gated_ffn = t != "nemotron" && t != "apertus" && t != "arcee";
  d.one_shared_expert = t == "llama4_text";
  d.shared_expert_gate = t != "granitemoe" && t != "hunyuan_v1_moe" && t != "ernie4_5_moe" && t != "bailing_moe_v2";
  d.fused_qkv = t == "bailing_moe_v2";
  return d;
}

// Whether block `i` holds routed experts: transformers' Qwen2-MoE and
// Qwen3-MoE decoder layer is a dense MLP when listed in mlp_only_layers
// or when (i + 1) is not a multiple of decoder_sparse_step; the converter
// writes the checkpoint's tensors as they are.
// GLM-4.5's first first_k_dense_replace blocks (the loader's
// n_layer_dense_lead) are in mlp_only_layers too (read_moe).
bool moe_block(const MoeInfo& moe, uint64_t i) {
  if (moe.experts == 0 || (i + 1) % moe.decoder_sparse_step != 0) return false;
  return std::find(moe.mlp_only_layers.begin(), moe.mlp_only_layers.end(), i) ==
         moe.mlp_only_layers.end();
}

// Mixtral as the converters wrote it before ggml-org/llama.cpp #6387
// ("update mul_mat_id to use the same tensor for all the experts", merged
// 2024-04; "existing MoE model files (ie. mixtral and grok) with split
// experts are still usable"): each expert's matrices as 2-D tensors of
// their own, blk.N.ffn_{down,gate,up}.E.weight, and the router 2-D at the
// converter's matrix type (F16), which llama-quantize leaves as it is.
void add_split_experts(const MoeInfo& moe, uint64_t hidden, uint64_t inter, const std::string& blk,
                       Tensors& out) {
  for (uint64_t e = 0; e < moe.experts; ++e) {
    add_converted(out, fmt::format("{}ffn_down.{}.weight", blk, e), {inter, hidden});
    add_converted(out, fmt::format("{}ffn_gate.{}.weight", blk, e), {hidden, inter});
    add_converted(out, fmt::format("{}ffn_up.{}.weight", blk, e), {hidden, inter});
  }
  add_converted(out, blk + "ffn_gate_inp.weight", {hidden, moe.experts});
}

// One block's feed-forward: dense, or routed experts (3-D, one slice per
// expert) with their F32 router and any shared expert; `split_experts`:
// a routed block as before #6387 (add_split_experts). `d`: the family's
// differences (DecoderTraits): the router's score correction bias
// (exp_probs_b.bias, one an expert, F32: GLM-4.5's, MiniMax-M2's,
// dots.llm1's) and an ungated dense MLP.
void add_ffn(const ModelSpec& spec, uint64_t i, const std::string& blk, Tensors& out,
             bool split_experts = false, const DecoderTraits& d = DecoderTraits{}) {
  const uint64_t hidden = spec.geometry.hidden;
  const MoeInfo& moe = spec.moe;
  if (!moe_block(moe, i)) {
    add_converted(out, blk + "ffn_down.weight", {spec.geometry.intermediate, hidden});
    if (d.gated_ffn) add_converted(out, blk + "ffn_gate.weight", {hidden, spec.geometry.intermediate});
    add_converted(out, blk + "ffn_up.weight", {hidden, spec.geometry.intermediate});
    return;
  }
  // Mixtral's experts are intermediate_size wide (no moe_intermediate_size).
  const uint64_t inter = moe.expert_intermediate != 0 ? moe.expert_intermediate
                                                      : spec.geometry.intermediate;
  if (split_experts && moe.shared_experts == 0 && !d.one_shared_expert) {
    add_split_experts(moe, hidden, inter, blk, out);
    return;
  }
  add_converted(out, blk + "ffn_down_exps.weight", {inter, hidden, moe.experts});
  add_converted(out, blk + "ffn_gate_exps.weight", {hidden, inter, moe.experts});
  add_converted(out, blk + "ffn_gate_inp.weight", {hidden, moe.experts});
  out.back().type = GgmlType::kF32;  // the router: the converter keeps it F32
  add_converted(out, blk + "ffn_up_exps.weight", {hidden, inter, moe.experts});
  if (d.expert_bias) add_converted(out, blk + "exp_probs_b.bias", {moe.experts});
  if (spec.model_type == "grove_moe") {
    // GroveMoE's adjugate experts: one per group of two, head_dim wide.
    const uint64_t chunk = spec.geometry.head_dim != 0 ? spec.geometry.head_dim
                                                       : hidden / std::max<uint64_t>(spec.geometry.heads, 1);
    const uint64_t groups = moe.experts / 2;
    add_converted(out, blk + "ffn_down_chexps.weight", {chunk, hidden, groups});
    add_converted(out, blk + "ffn_gate_chexps.weight", {hidden, chunk, groups});
    add_converted(out, blk + "ffn_up_chexps.weight", {hidden, chunk, groups});
  }
  if (moe.shared_experts > 0 || d.one_shared_expert) {
    // Qwen2-MoE's one shared expert is shared_expert_intermediate_size
    // wide, behind a sigmoid gate (shared_expert_gate: one output, written
    // as ffn_gate_inp_shexp, F32 as the router is); DeepSeek-style shared
    // experts are n_shared_experts x the routed width (dots.llm1's too:
    // LLM_ARCH_DOTS1 loads ffn_*_shexp n_ff_exp x n_expert_shared wide).
    // Granite MoE Shared's is added to the routed output ungated
    // (llama_model_granite's graph): no ffn_gate_inp_shexp; so are
    // dots.llm1's and Hunyuan-MoE's (llama_model_hunyuan_moe::
    // load_arch_tensors: n_ff_shexp wide, which its converter writes as
    // the config's intermediate_size: expert_shared_feed_forward_length).
    const bool own_width = moe.shared_expert_intermediate != 0;
    const uint64_t shared = own_width            ? moe.shared_expert_intermediate
                            : d.one_shared_expert ? inter
                                                  : moe.shared_experts * inter;
    add_converted(out, blk + "ffn_down_shexp.weight", {shared, hidden});
    add_converted(out, blk + "ffn_gate_shexp.weight", {hidden, shared});
    if (own_width && d.shared_expert_gate) add_converted(out, blk + "ffn_gate_inp_shexp.weight", {hidden});
    add_converted(out, blk + "ffn_up_shexp.weight", {hidden, shared});
  }
}

uint64_t head_dim_of(const ModelGeometry& g) {
  return g.head_dim != 0 ? g.head_dim : g.hidden / std::max<uint64_t>(g.heads, 1);
}

// The converter's LlamaModel (llama, mistral, mixtral and SmolLM3, which
// derives from it; DeciModel, Nemotron-NAS, ExaoneModel, Llama4Model and ApertusModel likewise) writes llama3 RoPE's per-frequency factors as a tensor
// of its own: rope_freqs.weight, head_dim / 2 F32 values, which
// llama-quantize leaves F32 (one dimension).
bool writes_rope_freqs(const ModelSpec& spec) {
  const std::string_view type = spec.model_type;
  return spec.rope_scaling.type == "llama3" && (type == "llama" || type == "mistral" || type == "mixtral" ||
                                                type == "smollm3" || type == "deci" || type == "exaone" ||
                                                type == "exaone4" || type == "llama4_text" ||
                                                type == "apertus" || type == "arcee");
}

// One block's tensors, by name (the loader's order within a block).
// `biases`: a llama checkpoint with LlamaConfig's attention_bias and
// mlp_bias (transformers #30031; IBM's Granite Code 3B and 8B), whose
// Q/K/V/output and gate/up/down biases the converter writes as they are
// (F32, one dimension) and llama.cpp's LLM_ARCH_LLAMA loads as optional
// tensors (bq, bk, bv, bo; ffn_gate_b, ffn_up_b, ffn_down_b since
// ggml-org/llama.cpp #7481, "llama: extend for small granite models").
void add_block(const ModelSpec& spec, const ConverterHints& h, bool biases, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  const DecoderTraits d = decoder_traits(spec, h);
  Tensors block;
  if (d.qkv_bias) {
    add_converted(block, blk + "attn_q.bias", {q});
    add_converted(block, blk + "attn_k.bias", {kv});
    add_converted(block, blk + "attn_v.bias", {kv});
  }
  if (d.qk_norm != QkNorm::kNone) {
    const bool whole = d.qk_norm == QkNorm::kWholeRow;
    add_converted(block, blk + "attn_q_norm.weight", {whole ? q : head_dim});
    add_converted(block, blk + "attn_k_norm.weight", {whole ? kv : head_dim});
  }
  add_converted(block, blk + "attn_norm.weight", {g.hidden});
  if (d.norm_bias) {
    add_converted(block, blk + "attn_norm.bias", {g.hidden});
    add_converted(block, blk + std::string(d.ffn_norm) + ".bias", {g.hidden});
  }
  if (d.fused_qkv) {
    add_converted(block, blk + "attn_qkv.weight", {g.hidden, q + 2 * kv});
  } else {
    add_converted(block, blk + "attn_q.weight", {g.hidden, q});
    add_converted(block, blk + "attn_k.weight", {g.hidden, kv});
    add_converted(block, blk + "attn_v.weight", {g.hidden, kv});
  }
  add_converted(block, blk + "attn_output.weight", {q, g.hidden});
  add_converted(block, blk + std::string(d.ffn_norm) + ".weight", {g.hidden});
  add_ffn(spec, i, blk, block, h.split_experts, d);
  if (biases && !moe_block(spec.moe, i)) {
    add_converted(block, blk + "attn_q.bias", {q});
    add_converted(block, blk + "attn_k.bias", {kv});
    add_converted(block, blk + "attn_v.bias", {kv});
    add_converted(block, blk + "attn_output.bias", {g.hidden});
    add_converted(block, blk + "ffn_gate.bias", {g.intermediate});
    add_converted(block, blk + "ffn_up.bias", {g.intermediate});
    add_converted(block, blk + "ffn_down.bias", {g.hidden});
  }
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

// The attention half StarCoder 2 and Phi-3.5-MoE share, by name: Q/K/V
// and the attention output, each with its bias, and the two LayerNorms
// (attn_norm, ffn_norm), weight and bias each.
void add_biased_attention(const ModelSpec& spec, const std::string& blk, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  add_converted(out, blk + "attn_k.bias", {kv});
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_norm.bias", {g.hidden});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.bias", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  add_converted(out, blk + "attn_q.bias", {q});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_v.bias", {kv});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(out, blk + "ffn_norm.bias", {g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
}

// One StableLM block (stablelm above): attn_norm and ffn_norm with their
// biases, Q/K/V (and their biases), attn_output, ffn_gate/up/down.
void add_stablelm_block(const ModelSpec& spec, bool qkv_bias, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.bias", {g.hidden});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  if (qkv_bias) {
    add_converted(out, blk + "attn_k.bias", {kv});
    add_converted(out, blk + "attn_q.bias", {q});
    add_converted(out, blk + "attn_v.bias", {kv});
  }
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(out, blk + "ffn_norm.bias", {g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  add_ffn(spec, i, blk, out);
}

// One StarCoder 2 block (starcoder2 above): the biased attention, then
// ffn_up and ffn_down with their biases.
void add_starcoder2_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const std::string blk = fmt::format("blk.{}.", i);
  add_biased_attention(spec, blk, out);
  add_converted(out, blk + "ffn_down.bias", {g.hidden});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_up.bias", {g.intermediate});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
}

// One Phi-3.5-MoE block (phimoe above): the biased attention, then the
// routed experts (add_ffn).
void add_phimoe_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const std::string blk = fmt::format("blk.{}.", i);
  add_biased_attention(spec, blk, out);
  add_ffn(spec, i, blk, out);
}

// One GPT-NeoX block, by name: LayerNorms before attention and the MLP
// (weight and bias each), the fused query-key-value matrix (hidden ->
// q + 2 kv) and the attention output, the MLP's up and down matrices
// (GELU, no gate); every linear layer with its bias, every bias F32.
void add_gpt_neox_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t qkv = (g.heads + 2 * g.kv_heads) * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.bias", {g.hidden});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.bias", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {g.heads * head_dim, g.hidden});
  add_converted(out, blk + "attn_qkv.bias", {qkv});
  add_converted(out, blk + "attn_qkv.weight", {g.hidden, qkv});
  add_converted(out, blk + "ffn_down.bias", {g.hidden});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_norm.bias", {g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  add_converted(out, blk + "ffn_up.bias", {g.intermediate});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
}

// One Phi-3 block, by name: the fused query-key-value matrix, the
// attention output, ffn_up holding the gate and up halves (hidden -> 2 x
// intermediate), ffn_down and the two RMS norms.
void add_phi3_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {g.heads * head_dim, g.hidden});
  add_converted(out, blk + "attn_qkv.weight", {g.hidden, (g.heads + 2 * g.kv_heads) * head_dim});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, 2 * g.intermediate});
}

// One ChatGLM block, by name (llama.cpp's LLM_ARCH_CHATGLM tensors; the
// converter's ChatGLMModel): the RMS norm before attention, the fused
// query-key-value matrix (hidden -> q + 2 kv) and its bias (add_qkv_bias:
// ChatGLM2/3 and GLM-4 all have it), the attention output (no bias), the
// RMS norm before the MLP, ffn_up holding the gate and up halves (hidden
// -> 2 x intermediate) and ffn_down.
void add_chatglm_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t qkv = (g.heads + 2 * g.kv_heads) * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {g.heads * head_dim, g.hidden});
  add_converted(out, blk + "attn_qkv.bias", {qkv});
  add_converted(out, blk + "attn_qkv.weight", {g.hidden, qkv});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, 2 * g.intermediate});
}

// One Gemma, Gemma 2 or Gemma 3 block, by name: the standard decoder's
// attention and gated MLP without biases, Gemma 3's per-head Q/K norms
// (head_dim wide), and Gemma 2's and 3's post_attention_norm and
// post_ffw_norm (hidden wide).
void add_gemma_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  const bool v3 = gemma3(spec);
  const bool post_norms = v3 || gemma2(spec);
  if (v3) add_converted(out, blk + "attn_k_norm.weight", {head_dim});
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  if (v3) add_converted(out, blk + "attn_q_norm.weight", {head_dim});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
  if (post_norms) add_converted(out, blk + "post_attention_norm.weight", {g.hidden});
  if (post_norms) add_converted(out, blk + "post_ffw_norm.weight", {g.hidden});
}

// One OLMo 2 or EXAONE 4 block, by name (olmo2 above).
void add_olmo2_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const bool per_head = spec.model_type == "exaone4";
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_k_norm.weight", {per_head ? head_dim : kv});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_q_norm.weight", {per_head ? head_dim : q});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
  add_converted(out, blk + "post_attention_norm.weight", {g.hidden});
  add_converted(out, blk + "post_ffw_norm.weight", {g.hidden});
}

// One GLM-4 block, by name: Q/K/V with their biases (F32) when the
// checkpoint has them (ConverterHints::glm4_no_qkv_bias), the attention
// output, the fused gate-and-up ffn_up, ffn_down, and the norms before
// and after attention and the MLP.
void add_glm4_block(const ModelSpec& spec, bool qkv_bias, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  if (qkv_bias) {
    add_converted(out, blk + "attn_k.bias", {kv});
    add_converted(out, blk + "attn_q.bias", {q});
    add_converted(out, blk + "attn_v.bias", {kv});
  }
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, 2 * g.intermediate});
  add_converted(out, blk + "post_attention_norm.weight", {g.hidden});
  add_converted(out, blk + "post_ffw_norm.weight", {g.hidden});
}

// One Command-R block, by name: attn_norm, Command R+'s per-head Q/K
// norms (F32, 2-D), Q/K/V/output, gate/up/down (see cohere()).
void add_cohere_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const bool qk_norm = spec.model_type == "cohere" && spec.layers.size() >= 64;
  const std::string blk = fmt::format("blk.{}.", i);
  if (qk_norm) add_converted_f32(out, blk + "attn_k_norm.weight", {head_dim, g.kv_heads});
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  if (qk_norm) add_converted_f32(out, blk + "attn_q_norm.weight", {head_dim, g.heads});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
}

// One deepseek2 block (names and shapes of llama.cpp's load_tensors for
// LLM_ARCH_DEEPSEEK2; n_embd_head_k = qk_nope + qk_rope): attn_norm; the
// query through its low-rank pair (attn_q_a, hidden -> q_lora_rank; its
// norm attn_q_a_norm; attn_q_b, q_lora_rank -> heads x n_embd_head_k) or
// one attn_q; attn_kv_a_mqa (hidden -> kv_lora_rank + qk_rope) and its
// norm attn_kv_a_norm; the latent's up-projection, attn_kv_b
// (kv_lora_rank -> heads x (qk_nope + v_head)) or, converted since #12801,
// attn_k_b (qk_nope x kv_lora_rank x heads, 3-D) and attn_v_b (kv_lora_rank
// x v_head x heads); attn_output (heads x v_head -> hidden); ffn_norm;
// then the first leading_dense blocks a dense gated MLP (intermediate
// wide) and the rest the F32 router ffn_gate_inp, V3's exp_probs_b.bias
// (one an expert, F32), the routed experts' 3-D gate/up/down and the
// shared experts (n_shared_experts x the routed width).
void add_deepseek2_block(const ModelSpec& spec, const MlaWidths& w, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t heads = g.heads;
  const uint64_t head_k = w.qk_nope + w.qk_rope;
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  if (w.q_lora_rank != 0) {
    add_converted(out, blk + "attn_q_a.weight", {g.hidden, w.q_lora_rank});
    add_converted(out, blk + "attn_q_a_norm.weight", {w.q_lora_rank});
    add_converted(out, blk + "attn_q_b.weight", {w.q_lora_rank, heads * head_k});
  } else {
    add_converted(out, blk + "attn_q.weight", {g.hidden, heads * head_k});
  }
  add_converted(out, blk + "attn_kv_a_mqa.weight", {g.hidden, w.kv_lora_rank + w.qk_rope});
  add_converted(out, blk + "attn_kv_a_norm.weight", {w.kv_lora_rank});
  if (w.split_kv_b) {
    add_converted(out, blk + "attn_k_b.weight", {w.qk_nope, w.kv_lora_rank, heads});
    add_converted(out, blk + "attn_v_b.weight", {w.kv_lora_rank, w.v_head, heads});
  } else {
    add_converted(out, blk + "attn_kv_b.weight", {w.kv_lora_rank, heads * (w.qk_nope + w.v_head)});
  }
  add_converted(out, blk + "attn_output.weight", {heads * w.v_head, g.hidden});
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  if (i < w.leading_dense) {
    add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
    add_converted(out, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
    add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
    return;
  }
  const MoeInfo& moe = spec.moe;
  const uint64_t inter = moe.expert_intermediate != 0 ? moe.expert_intermediate : g.intermediate;
  if (w.expert_bias) add_converted(out, blk + "exp_probs_b.bias", {moe.experts});
  add_converted(out, blk + "ffn_gate_inp.weight", {g.hidden, moe.experts});
  out.back().type = GgmlType::kF32;  // the router: the converter keeps it F32
  add_converted(out, blk + "ffn_down_exps.weight", {inter, g.hidden, moe.experts});
  add_converted(out, blk + "ffn_gate_exps.weight", {g.hidden, inter, moe.experts});
  add_converted(out, blk + "ffn_up_exps.weight", {g.hidden, inter, moe.experts});
  if (moe.shared_experts > 0) {
    const uint64_t shared = moe.shared_experts * inter;
    add_converted(out, blk + "ffn_down_shexp.weight", {shared, g.hidden});
    add_converted(out, blk + "ffn_gate_shexp.weight", {g.hidden, shared});
    add_converted(out, blk + "ffn_up_shexp.weight", {g.hidden, shared});
  }
}

// The NextN head's own tensors in block i, which an MTP block holds beside
// its layer's (deepseek2's and qwen35's alike): eh_proj (2 hidden -> hidden:
// the embedding and the hidden state, concatenated), enorm, hnorm and
// shared_head_norm (hidden each).
void add_nextn_head(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "nextn.eh_proj.weight", {2 * hidden, hidden});
  add_converted(out, blk + "nextn.enorm.weight", {hidden});
  add_converted(out, blk + "nextn.hnorm.weight", {hidden});
  add_converted(out, blk + "nextn.shared_head_norm.weight", {hidden});
}

// A deepseek2 multi-token prediction block (the last nextn_predict_layers
// of block_count; ModelSpec::layers holds the others): a MoE block as
// add_deepseek2_block writes it, and its NextN tensors as llama.cpp's
// loader creates them for i >= n_layer - nextn_predict_layers: eh_proj
// (2 hidden -> hidden: the embedding and the hidden state, concatenated),
// enorm and hnorm (their norms) and shared_head_norm (hidden each). The
// converter's DeepseekV2Model dropped the checkpoint's MTP layers
// (model.layers.N, N >= num_hidden_layers) in the releases that wrote no
// nextn_predict_layers; a file that has the key keeps them, so a dump's
// key decides, and a config (no key) converts without them.
void add_nextn_block(const ModelSpec& spec, const MlaWidths& w, uint64_t i, Tensors& out) {
  add_deepseek2_block(spec, w, i, out);
  add_nextn_head(spec, i, out);
}

// A GLM-4.5 multi-token prediction block (block num_hidden_layers + k, k
// < nextn_predict_layers): a MoE block as the others, the NextN head's
// four tensors, and the checkpoint's own copies of the embedding and the
// output (model.layers.N.embed_tokens and shared_head.head, written as
// nextn.embed_tokens and nextn.shared_head_head, hidden x vocab each;
// llama_model_glm4_moe::load_arch_tensors loads them TENSOR_NOT_REQUIRED;
// GLM-4.5-Air's GGUFs hold 803 tensors, ggml-org/llama.cpp #14939, and
// name them). llama.cpp creates them TENSOR_SKIP: they are in the file,
// not in a buffer. A file's nextn_predict_layers key says how many; a
// config builds none (ModelSpec keeps no NextN block for it).
void add_glm4moe_nextn_block(const ModelSpec& spec, const ConverterHints& h, uint64_t i, Tensors& out) {
  add_block(spec, h, false, i, out);
  Tensors head;
  add_nextn_head(spec, i, head);
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(head, blk + "nextn.embed_tokens.weight", {spec.geometry.hidden, spec.geometry.vocab});
  add_converted(head, blk + "nextn.shared_head_head.weight", {spec.geometry.hidden, spec.geometry.vocab});
  std::move(head.begin(), head.end(), std::back_inserter(out));
}

// One Phi-2 block, by name: attn_norm (weight and bias), Q/K/V (fused
// into attn_qkv when `fused`) and attn_output, the MLP's ffn_up (hidden ->
// intermediate) and ffn_down, each with its bias.
void add_phi2_block(const ModelSpec& spec, bool fused, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.bias", {g.hidden});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  if (fused) {
    add_converted(out, blk + "attn_qkv.bias", {q + 2 * kv});
    add_converted(out, blk + "attn_qkv.weight", {g.hidden, q + 2 * kv});
  } else {
    add_converted(out, blk + "attn_k.bias", {kv});
    add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
    add_converted(out, blk + "attn_q.bias", {q});
    add_converted(out, blk + "attn_q.weight", {g.hidden, q});
    add_converted(out, blk + "attn_v.bias", {kv});
    add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  }
  add_converted(out, blk + "attn_output.bias", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  add_converted(out, blk + "ffn_down.bias", {g.hidden});
  add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(out, blk + "ffn_up.bias", {g.intermediate});
  add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
}

// Appends what `build` writes to `out`, sorted by name (the loader's
// order within a block).
template <typename Build>
void add_sorted(Tensors& out, Build build) {
  Tensors block;
  build(block);
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

// One gpt-oss block, by name (llama.cpp's LLM_ARCH_OPENAI_MOE tensors,
// src/llama-arch.cpp; shapes from its load_tensors): Q/K/V/output with
// their biases, attn_sinks (one value a head), the F32 router and its
// bias, the routed experts' gate, up and down (3-D, one slice an expert)
// with a bias row an expert each, and the two norms. The converter's
// GptOssModel (convert_hf_to_gguf.py) writes the experts' MXFP4 blocks as
// they are whatever its output type, every tensor whose name does not end
// in ".weight" (the biases, 2-D ones included) F32, the rest of the
// matrices at the output type.
void add_gpt_oss_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const uint64_t experts = spec.moe.experts;
  const uint64_t inter = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate
                                                           : g.intermediate;
  const std::string blk = fmt::format("blk.{}.", i);
  auto add_experts = [&](std::string name, std::vector<uint64_t> ne) {
    add_converted(out, std::move(name), std::move(ne));
    out.back().type = GgmlType::kMXFP4;
  };
  add_converted_f32(out, blk + "attn_k.bias", {kv});
  add_converted(out, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  add_converted_f32(out, blk + "attn_output.bias", {g.hidden});
  add_converted(out, blk + "attn_output.weight", {q, g.hidden});
  add_converted_f32(out, blk + "attn_q.bias", {q});
  add_converted(out, blk + "attn_q.weight", {g.hidden, q});
  add_converted(out, blk + "attn_sinks.weight", {g.heads});
  add_converted_f32(out, blk + "attn_v.bias", {kv});
  add_converted(out, blk + "attn_v.weight", {g.hidden, kv});
  add_converted_f32(out, blk + "ffn_down_exps.bias", {g.hidden, experts});
  add_experts(blk + "ffn_down_exps.weight", {inter, g.hidden, experts});
  add_converted_f32(out, blk + "ffn_gate_exps.bias", {inter, experts});
  add_experts(blk + "ffn_gate_exps.weight", {g.hidden, inter, experts});
  add_converted_f32(out, blk + "ffn_gate_inp.bias", {experts});
  add_converted_f32(out, blk + "ffn_gate_inp.weight", {g.hidden, experts});
  add_converted_f32(out, blk + "ffn_up_exps.bias", {inter, experts});
  add_experts(blk + "ffn_up_exps.weight", {g.hidden, inter, experts});
  add_converted(out, blk + "post_attention_norm.weight", {g.hidden});
}

// One Qwen3.5 block, by name (llama.cpp's qwen35 / qwen35moe
// load_arch_tensors; names from src/llama-arch.cpp). Both kinds: the two
// norms (attn_norm, post_attention_norm) and the feed-forward (dense, or
// routed experts with the F32 router and the shared expert behind its
// one-output gate, as add_ffn). A full-attention layer: attn_q twice the
// heads wide (the query and its output gate), attn_k, attn_v,
// attn_output, per-head Q/K norms. A gated delta net layer (key_dim = key
// heads x key width, value_dim = value heads x value width): attn_qkv
// (hidden -> 2 key_dim + value_dim), attn_gate (hidden -> value_dim),
// ssm_conv1d (kernel x that conv width; the converter keeps SSM_CONV1D
// F32), ssm_dt.bias and ssm_a (one a value head), ssm_beta and ssm_alpha
// (hidden -> value heads), ssm_norm (one value head's width) and ssm_out
// (value_dim -> hidden). Qwen3-Next's blocks are the same but for
// ssm_beta_alpha (hidden -> 2 value heads) in place of ssm_beta and
// ssm_alpha (llama.cpp's qwen3next load_arch_tensors; its converter splits
// the checkpoint's in_proj_qkvz into attn_qkv and attn_gate: the loader
// reads a single ssm_in, hidden -> 2 key_dim + 2 value_dim, only from
// "legacy" GGUFs, those converted before the split).
// A block past spec.layers (a multi-token prediction block) is a
// full-attention one.
void add_qwen35_block(const ModelSpec& spec, const GatedDeltaWidths& d, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  add_converted(block, blk + "attn_norm.weight", {g.hidden});
  add_converted(block, blk + "post_attention_norm.weight", {g.hidden});
  if (i < spec.layers.size() && spec.layers[i].kind == LayerKind::kLinearAttention) {
    const uint64_t key_dim = d.key_heads * d.key_dim;
    const uint64_t value_dim = d.value_heads * d.value_dim;
    add_converted(block, blk + "attn_qkv.weight", {g.hidden, 2 * key_dim + value_dim});
    add_converted(block, blk + "attn_gate.weight", {g.hidden, value_dim});
    add_converted(block, blk + "ssm_conv1d.weight", {d.kernel, 2 * key_dim + value_dim});
    block.back().type = GgmlType::kF32;
    add_converted(block, blk + "ssm_dt.bias", {d.value_heads});
    add_converted(block, blk + "ssm_a", {d.value_heads});
    if (qwen3_next(spec)) {
      // in_proj_ba: beta's and alpha's rows, one matrix.
      add_converted(block, blk + "ssm_beta_alpha.weight", {g.hidden, 2 * d.value_heads});
    } else {
      add_converted(block, blk + "ssm_beta.weight", {g.hidden, d.value_heads});
      add_converted(block, blk + "ssm_alpha.weight", {g.hidden, d.value_heads});
    }
    add_converted(block, blk + "ssm_norm.weight", {d.value_dim});
    add_converted(block, blk + "ssm_out.weight", {value_dim, g.hidden});
  } else {
    const uint64_t head_dim = head_dim_of(g);
    const uint64_t kv = g.kv_heads * head_dim;
    add_converted(block, blk + "attn_q.weight", {g.hidden, 2 * g.heads * head_dim});
    add_converted(block, blk + "attn_k.weight", {g.hidden, kv});
    add_converted(block, blk + "attn_v.weight", {g.hidden, kv});
    add_converted(block, blk + "attn_output.weight", {g.heads * head_dim, g.hidden});
    add_converted(block, blk + "attn_q_norm.weight", {head_dim});
    add_converted(block, blk + "attn_k_norm.weight", {head_dim});
  }
  add_ffn(spec, i, blk, block);
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

// A Qwen3.5 multi-token prediction block (block index num_hidden_layers
// + k, k < nextn_predict_layers): the checkpoint's mtp.layers.k, a
// full-attention decoder layer (dense or MoE as the model's), renamed to
// that block and written as the others are, and the head's own tensors
// as NextN ones: mtp.fc -> nextn.eh_proj (2 hidden -> hidden: the
// embedding and the hidden state, concatenated), mtp.pre_fc_norm_embedding
// -> nextn.enorm, mtp.pre_fc_norm_hidden -> nextn.hnorm, mtp.norm ->
// nextn.shared_head_norm (ggml-org/llama.cpp #20533, "gguf: include MTP
// tensors for Qwen3-Next and Qwen3.5 models", whose converter stopped
// dropping mtp.*; #22673 loads them for qwen35). A file has them when its
// nextn_predict_layers key says so: a dump's key decides.
void add_qwen35_nextn_block(const ModelSpec& spec, const GatedDeltaWidths& d, uint64_t i, Tensors& out) {
  add_qwen35_block(spec, d, i, out);
  add_nextn_head(spec, i, out);
}

// One Mamba-2 block, by name (llama.cpp's llama_model_mamba2
// load_arch_tensors; the converter's Mamba2Model). With conv = inner + 2 x
// groups x state (the x, B and C channels): attn_norm (the mixer's input
// RMS norm), ssm_in (hidden -> inner + conv + heads: z, x, B, C and dt),
// ssm_conv1d (kernel x conv, F32: the converter keeps SSM_CONV1D float32
// and llama-quantize does not quantize it) with its bias (conv), ssm_dt.bias
// (heads), ssm_a and ssm_d (1 x heads, F32; no ".weight" suffix, so
// llama-quantize leaves them), ssm_norm (inner / groups x groups, the gated
// norm's per-group weight, F32 as every "_norm.weight") and ssm_out (inner
// -> hidden).
void add_mamba2_block(const ModelSpec& spec, uint64_t i, Tensors& out) {
  const std::string blk = fmt::format("blk.{}.", i);
  add_converted(out, blk + "attn_norm.weight", {spec.geometry.hidden});
  add_mamba2_mixer(spec, blk, out);
}

// The converter's Phi3MiniModel writes a long-context ("longrope", "su"
// in older configs) model's per-frequency factors as rope_factors_long and
// rope_factors_short, head_dim / 2 F32 values each.
bool writes_rope_factors(const ModelSpec& spec) {
  return (phi3(spec) || phimoe(spec) || spec.model_type == "minicpm") &&
         (spec.rope_scaling.type == "longrope" || spec.rope_scaling.type == "su");
}

// A config's MLA widths (ModelSpec::mla) as the pinned release's converter
// writes them: attn_kv_b split into attn_k_b and attn_v_b (since
// ggml-org/llama.cpp #12801), exp_probs_b where the router has its score
// correction bias. kv_lora_rank 0 (no widths) when the spec has none.
MlaWidths mla_of_spec(const ModelSpec& spec) {
  const MlaGeometry& g = spec.mla;
  return MlaWidths{g.q_lora_rank, g.kv_lora_rank, g.qk_nope, g.qk_rope, g.v_head, g.leading_dense,
                   /*split_kv_b=*/true, g.expert_bias};
}

}  // namespace

Result<std::vector<ConvertedTensor>> converted_tensors(const ModelSpec& spec,
                                                       const GatedDeltaWidths* gated_delta,
                                                       const ConverterHints* hints) {
  const ModelGeometry& g = spec.geometry;
  const ConverterHints none;
  const ConverterHints& h = hints != nullptr ? *hints : none;
  const MlaWidths from_spec = mla_of_spec(spec);
  const MlaWidths* mla = h.mla != nullptr ? h.mla : &from_spec;
  // A Mamba-2 model has no attention heads and no MLP to size.
  const bool attention = !mamba2(spec);
  if (h.gemma3n && gemma3n_builds(spec)) return gemma3n_tensors(spec, h.gemma3n_kept_type);
  if (gemma4(spec, h)) {
    Tensors out;
    add_gemma4_globals(spec, *h.gemma4, out);
    for (uint64_t i = 0; i < spec.layers.size(); ++i) add_gemma4_block(spec, *h.gemma4, h.gemma4_k_eq_v, i, out);
    return out;
  }
  if (h.deci != nullptr && !spec.multimodal && spec.nextn_layers == 0 && deci_widths_fit(spec, *h.deci) &&
      g.vocab != 0) {
    Tensors out;
    if (!spec.tied_embeddings) add_converted(out, "output.weight", {g.hidden, g.vocab});
    add_converted(out, "output_norm.weight", {g.hidden});
    if (writes_rope_freqs(spec)) add_converted(out, "rope_freqs.weight", {h.deci->head_dim / 2});
    add_converted(out, "token_embd.weight", {g.hidden, g.vocab});
    for (uint64_t i = 0; i < spec.layers.size(); ++i) add_deci_block(spec, *h.deci, i, out);
    return out;
  }
  if (h.mamba1 != nullptr && !spec.multimodal && g.vocab != 0 &&
      (jamba_widths_fit(spec, *h.mamba1) || mamba1_widths_fit(spec, *h.mamba1))) {
    // Mamba's output is tied when the checkpoint's lm_head equals the
    // embedding (MambaModel.modify_tensors omits it; the loader then
    // duplicates token_embd).
    Tensors out;
    if (!spec.tied_embeddings) add_converted(out, "output.weight", {g.hidden, g.vocab});
    add_converted(out, "output_norm.weight", {g.hidden});
    add_converted(out, "token_embd.weight", {g.hidden, g.vocab});
    for (uint64_t i = 0; i < spec.layers.size(); ++i) {
      if (spec.model_type == "jamba") add_jamba_block(spec, *h.mamba1, i, out);
      else add_mamba1_block(spec, *h.mamba1, h.mamba1_small_f32, i, out);
    }
    return out;
  }
  if (!converted(spec, gated_delta, mla) || g.hidden == 0 || g.vocab == 0 || spec.layers.empty() ||
      (attention && (g.heads == 0 || g.kv_heads == 0 ||
                     (g.intermediate == 0 && spec.moe.expert_intermediate == 0)))) {
    return Error::usage("quant", fmt::format(
        "prices the GGUF llama-quantize would write from the tensors llama.cpp's converter "
        "writes, which memfit builds for text decoders of model_type {}, gpt_neox, codeshell, phi3, "
        "chatglm, gemma, gemma2, gemma3_text, glm4, olmo2, olmo3, exaone4, phi, cohere, cohere2, starcoder2, phimoe, stablelm, gpt_oss, the gated delta net hybrids qwen3_next, "
        "qwen3_5 and qwen3_5_moe, mamba2, the Mamba-2 and short-convolution hybrids "
        "granitemoehybrid, nemotron_h, lfm2, lfm2_moe and falcon_h1, t5encoder, deepseek_v2 and deepseek_v3 (with their MLA "
        "widths), gemma3n_text and gemma4_text (with a GGUF's widths), llama4_text (with a GGUF's expert width), mamba, jamba and deci (with a GGUF's widths) and the encoders bert and jina_bert_v2 only; this "
        "model is {} ({} layout): price a GGUF file of it", fmt::join(kStandardDecoders, ", "),
        quote_untrusted(spec.model_type), spec.layout));
  }
  Tensors out;
  if (t5_encoder(spec)) {
    add_t5_encoder_tensors(spec, h, out);
    return out;
  }
  if (const ConvertedEncoder encoder = converted_encoder(spec); encoder != ConvertedEncoder::kNone) {
    add_encoder_tensors(spec, encoder, h.token_types, out);
    return out;
  }
  // Outside the blocks, by name: output, output_norm (GPT-NeoX's with its
  // bias), rope_freqs, token_embd.
  if ((phi2(spec) || phimoe(spec)) && !spec.tied_embeddings) add_converted(out, "output.bias", {g.vocab});
  if (!spec.tied_embeddings) add_converted(out, "output.weight", {g.hidden, g.vocab});
  if (gpt_neox(spec) || phi2(spec) || starcoder2(spec) || phimoe(spec) || spec.model_type == "nemotron" ||
      stablelm(spec)) {
    add_converted(out, "output_norm.bias", {g.hidden});
  }
  const ConvertedHybrid hybrid = converted_hybrid(spec);
  if (hybrid != ConvertedHybrid::kLfm2) add_converted(out, "output_norm.weight", {g.hidden});
  if (writes_rope_freqs(spec)) add_converted(out, "rope_freqs.weight", {head_dim_of(g) / 2});
  if (writes_rope_factors(spec)) {
    add_converted(out, "rope_factors_long.weight", {head_dim_of(g) / 2});
    add_converted(out, "rope_factors_short.weight", {head_dim_of(g) / 2});
  }
  add_converted(out, "token_embd.weight", {g.hidden, g.vocab});
  add_hybrid_globals(spec, hybrid, out);
  for (uint64_t i = 0; i < spec.layers.size(); ++i) {
    if (hybrid != ConvertedHybrid::kNone) add_hybrid_block(spec, hybrid, h, i, out);
    else if (gpt_neox(spec)) add_gpt_neox_block(spec, i, out);
    else if (phi3(spec)) add_phi3_block(spec, i, out);
    else if (chatglm(spec)) add_chatglm_block(spec, i, out);
    else if (gemma(spec) || gemma2(spec) || gemma3(spec)) add_sorted(out, [&](Tensors& b) { add_gemma_block(spec, i, b); });
    else if (glm4(spec)) add_sorted(out, [&](Tensors& b) { add_glm4_block(spec, !h.glm4_no_qkv_bias, i, b); });
    else if (olmo2(spec)) add_sorted(out, [&](Tensors& b) { add_olmo2_block(spec, i, b); });
    else if (phi2(spec)) add_phi2_block(spec, h.phi2_fused_qkv, i, out);
    else if (cohere(spec)) add_sorted(out, [&](Tensors& b) { add_cohere_block(spec, i, b); });
    else if (deepseek2(spec, mla)) add_sorted(out, [&](Tensors& b) { add_deepseek2_block(spec, *mla, i, b); });
    else if (gpt_oss(spec)) add_gpt_oss_block(spec, i, out);
    else if (mamba2(spec)) add_mamba2_block(spec, i, out);
    else if (starcoder2(spec)) add_sorted(out, [&](Tensors& b) { add_starcoder2_block(spec, i, b); });
    else if (phimoe(spec)) add_sorted(out, [&](Tensors& b) { add_phimoe_block(spec, i, b); });
    else if (stablelm(spec)) add_sorted(out, [&](Tensors& b) { add_stablelm_block(spec, h.stablelm_qkv_bias, i, b); });
    else if (delta_hybrid(spec, gated_delta)) add_qwen35_block(spec, *delta_widths(spec, gated_delta), i, out);
    else add_block(spec, h, h.llama_biases && spec.model_type == "llama", i, out);
  }
  if (deepseek2(spec, mla)) {
    for (uint64_t k = 0; k < spec.nextn_layers; ++k) {
      add_sorted(out, [&](Tensors& b) { add_nextn_block(spec, *mla, spec.layers.size() + k, b); });
    }
  }
  if (glm4moe(spec)) {
    for (uint64_t k = 0; k < spec.nextn_layers; ++k) {
      add_sorted(out, [&](Tensors& b) { add_glm4moe_nextn_block(spec, h, spec.layers.size() + k, b); });
    }
  }
  if (qwen35(spec) && delta_hybrid(spec, gated_delta)) {
    for (uint64_t k = 0; k < spec.nextn_layers; ++k) {
      add_sorted(out, [&](Tensors& b) {
        add_qwen35_nextn_block(spec, *delta_widths(spec, gated_delta), spec.layers.size() + k, b);
      });
    }
  }
  return out;
}

}  // namespace memfit::llamacpp
