// The Mamba-2 and short-convolution hybrids' converted tensors
// (engines/llamacpp/converted_hybrids.h; docs/engine-llamacpp.md, "GGUF
// file types for a safetensors or config-only model").
#include "engines/llamacpp/converted_hybrids.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

bool layers_are(const ModelSpec& spec, std::initializer_list<LayerKind> kinds) {
  return std::all_of(spec.layers.begin(), spec.layers.end(), [&](const LayerCache& l) {
    return std::find(kinds.begin(), kinds.end(), l.kind) != kinds.end();
  });
}

// Mamba-2 widths a mixer can be built from, its widest row within 64 bits.
bool mamba2_widths(const ModelSpec& spec) {
  const Mamba2Geometry& m = spec.mamba2;
  const CheckedBytes widest = (CheckedBytes(2) * m.inner + CheckedBytes(2) * m.groups * m.state + m.heads) *
                              std::max<uint64_t>(spec.geometry.hidden, 1);
  return m.heads != 0 && m.groups != 0 && m.inner != 0 && m.inner % m.groups == 0 && m.kernel != 0 &&
         m.state != 0 && widest.value();
}

uint64_t head_dim_of(const ModelGeometry& g) {
  return g.head_dim != 0 ? g.head_dim : g.hidden / std::max<uint64_t>(g.heads, 1);
}

// Attention without biases: attn_q (hidden -> heads x head_dim), attn_k
// and attn_v (hidden -> kv_heads x head_dim), attn_output.
void add_attention(const ModelSpec& spec, const std::string& blk, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = head_dim_of(g);
  add_converted(out, blk + "attn_k.weight", {g.hidden, g.kv_heads * head_dim});
  add_converted(out, blk + "attn_output.weight", {g.heads * head_dim, g.hidden});
  add_converted(out, blk + "attn_q.weight", {g.hidden, g.heads * head_dim});
  add_converted(out, blk + "attn_v.weight", {g.hidden, g.kv_heads * head_dim});
}

// Routed experts' width: moe_intermediate_size, else intermediate_size
// (Granite's GGUF writes the experts' width as feed_forward_length).
uint64_t expert_width(const ModelSpec& spec) {
  return spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : spec.geometry.intermediate;
}

// The shared expert's width: its own (Granite's shared_intermediate_size,
// Nemotron-H's moe_shared_expert_intermediate_size; the GGUFs'
// expert_shared_feed_forward_length), else n_shared_experts x the routed
// width; 0 without one.
uint64_t shared_width(const ModelSpec& spec) {
  if (spec.moe.shared_expert_intermediate != 0) return spec.moe.shared_expert_intermediate;
  return spec.moe.shared_experts * expert_width(spec);
}

// One Granite 4.0 hybrid block, by name (LLM_ARCH_GRANITE_HYBRID's
// load_tensors; the converter's GraniteHybridModel): attn_norm, a Mamba-2
// mixer (a layer without KV heads) or attention, ffn_norm, then the FFN:
// with experts the F32 router, the routed experts' 3-D gate/up/down (the
// converter splits block_sparse_moe.input_linear into gate and up) and
// the shared expert's gate/up/down (shared_mlp, split likewise); without,
// a dense gated FFN.
void add_granite_block(const ModelSpec& spec, uint64_t i, const std::string& blk, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  add_converted(out, blk + "attn_norm.weight", {hidden});
  if (spec.layers[i].kind == LayerKind::kSsm) add_mamba2_mixer(spec, blk, out);
  else add_attention(spec, blk, out);
  add_converted(out, blk + "ffn_norm.weight", {hidden});
  if (spec.moe.experts == 0) {
    const uint64_t ff = spec.geometry.intermediate;
    add_converted(out, blk + "ffn_down.weight", {ff, hidden});
    add_converted(out, blk + "ffn_gate.weight", {hidden, ff});
    add_converted(out, blk + "ffn_up.weight", {hidden, ff});
    return;
  }
  const uint64_t ff = expert_width(spec);
  const uint64_t experts = spec.moe.experts;
  add_converted(out, blk + "ffn_down_exps.weight", {ff, hidden, experts});
  add_converted(out, blk + "ffn_gate_exps.weight", {hidden, ff, experts});
  add_converted_f32(out, blk + "ffn_gate_inp.weight", {hidden, experts});
  add_converted(out, blk + "ffn_up_exps.weight", {hidden, ff, experts});
  if (const uint64_t shared = shared_width(spec); shared != 0) {
    add_converted(out, blk + "ffn_down_shexp.weight", {shared, hidden});
    add_converted(out, blk + "ffn_gate_shexp.weight", {hidden, shared});
    add_converted(out, blk + "ffn_up_shexp.weight", {hidden, shared});
  }
}

// One Nemotron-H block, by name (LLM_ARCH_NEMOTRON_H / _MOE's
// load_tensors; the converter's NemotronHModel): every block one norm
// (attn_norm) and one mixer: Mamba-2 (kSsm), attention (kFullAttention,
// no FFN) or a squared-ReLU MLP (kNone): ffn_up and ffn_down, no gate;
// with experts (Nemotron 3, nemotron_h_moe) the F32 router, its score
// correction bias exp_probs_b.bias (F32, one an expert), the routed
// experts' 3-D up and down and the shared expert's up and down.
void add_nemotron_h_block(const ModelSpec& spec, uint64_t i, const std::string& blk, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  add_converted(out, blk + "attn_norm.weight", {hidden});
  const LayerKind kind = spec.layers[i].kind;
  if (kind == LayerKind::kSsm) {
    add_mamba2_mixer(spec, blk, out);
    return;
  }
  if (kind == LayerKind::kFullAttention) {
    add_attention(spec, blk, out);
    return;
  }
  if (spec.moe.experts == 0) {
    add_converted(out, blk + "ffn_down.weight", {spec.geometry.intermediate, hidden});
    add_converted(out, blk + "ffn_up.weight", {hidden, spec.geometry.intermediate});
    return;
  }
  const uint64_t ff = expert_width(spec);
  const uint64_t experts = spec.moe.experts;
  add_converted(out, blk + "exp_probs_b.bias", {experts});
  add_converted(out, blk + "ffn_down_exps.weight", {ff, hidden, experts});
  add_converted_f32(out, blk + "ffn_gate_inp.weight", {hidden, experts});
  add_converted(out, blk + "ffn_up_exps.weight", {hidden, ff, experts});
  if (const uint64_t shared = shared_width(spec); shared != 0) {
    add_converted(out, blk + "ffn_down_shexp.weight", {shared, hidden});
    add_converted(out, blk + "ffn_up_shexp.weight", {hidden, shared});
  }
}

// One Falcon-H1 block, by name (llama_model_falcon_h1::load_arch_tensors,
// src/models/falcon-h1.cpp; the converter's FalconH1Model, a Mamba2Model
// with LlamaModel's attention, which folds the muP multipliers into the
// weights and adds no tensor for them): attn_norm (input_layernorm, which
// feeds both mixers), a Mamba-2 mixer (add_mamba2_mixer; its gated norm
// unless `ssm_norm` is false: FalconH1Config's mamba_rms_norm, the loader's
// TENSOR_NOT_REQUIRED), attention without biases (attention_bias and
// projectors_bias false in TII's checkpoints), then the pre-MLP norm, which
// the loader names "blk.N.ffn_norm" with no ".weight" (tn(LLM_TENSOR_
// FFN_NORM, i)), and the gated FFN (mlp_bias false).
void add_falcon_h1_block(const ModelSpec& spec, bool ssm_norm, const std::string& blk, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  const uint64_t ff = spec.geometry.intermediate;
  add_converted(out, blk + "attn_norm.weight", {hidden});
  add_mamba2_mixer(spec, blk, out);
  if (!ssm_norm) {
    std::erase_if(out, [&](const ConvertedTensor& t) { return t.name == blk + "ssm_norm.weight"; });
  }
  add_attention(spec, blk, out);
  add_converted(out, blk + "ffn_down.weight", {ff, hidden});
  add_converted(out, blk + "ffn_gate.weight", {hidden, ff});
  add_converted(out, blk + "ffn_norm", {hidden});
  add_converted(out, blk + "ffn_up.weight", {hidden, ff});
}

// One LFM2 block, by name (LLM_ARCH_LFM2's load_tensors, ggml-org/
// llama.cpp #14620; the converter's LFM2Model): attn_norm (operator_norm),
// then a short convolution (kConv): shortconv.conv (width x hidden, the
// depthwise kernel; llama-quantize skips "shortconv.conv.weight", the
// converter writes it F32), shortconv.in_proj (hidden -> 3 hidden: B, C
// and x) and shortconv.out_proj; or attention with per-head Q/K norms;
// then ffn_norm and the gated FFN (intermediate_size as the config's
// block_auto_adjust_ff_dim adjusts it). LFM2-MoE (lfm2_moe; GGUF lfm2moe)
// has the same blocks, its FFN routed experts after the first
// num_dense_layers (the GGUF's leading_dense_block_count).
void add_lfm2_block(const ModelSpec& spec, uint64_t i, const std::string& blk, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  add_converted(out, blk + "attn_norm.weight", {g.hidden});
  if (spec.layers[i].kind == LayerKind::kConv) {
    add_converted_f32(out, blk + "shortconv.conv.weight", {lfm2_conv_kernel(spec), g.hidden});
    add_converted(out, blk + "shortconv.in_proj.weight", {g.hidden, 3 * g.hidden});
    add_converted(out, blk + "shortconv.out_proj.weight", {g.hidden, g.hidden});
  } else {
    add_attention(spec, blk, out);
    add_converted(out, blk + "attn_k_norm.weight", {head_dim_of(g)});
    add_converted(out, blk + "attn_q_norm.weight", {head_dim_of(g)});
  }
  add_converted(out, blk + "ffn_norm.weight", {g.hidden});
  const MoeInfo& moe = spec.moe;
  const bool routed = moe.experts > 0 && std::find(moe.mlp_only_layers.begin(), moe.mlp_only_layers.end(), i) ==
                                             moe.mlp_only_layers.end();
  if (!routed) {
    add_converted(out, blk + "ffn_down.weight", {g.intermediate, g.hidden});
    add_converted(out, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
    add_converted(out, blk + "ffn_up.weight", {g.hidden, g.intermediate});
    return;
  }
  // LFM2-MoE's routed blocks (llama_model_lfm2moe::load_arch_tensors):
  // the F32 router, three expert tensors of n_ff_exp and the router's
  // score correction bias (exp_probs_b, required); no shared expert.
  const uint64_t ff = moe.expert_intermediate;
  add_converted(out, blk + "exp_probs_b.bias", {moe.experts});
  add_converted(out, blk + "ffn_down_exps.weight", {ff, g.hidden, moe.experts});
  add_converted(out, blk + "ffn_gate_exps.weight", {g.hidden, ff, moe.experts});
  add_converted_f32(out, blk + "ffn_gate_inp.weight", {g.hidden, moe.experts});
  add_converted(out, blk + "ffn_up_exps.weight", {g.hidden, ff, moe.experts});
}

}  // namespace

// A Mamba-2 mixer (the loaders of granitehybrid and nemotron_h, as
// mamba2's): with conv = inner + 2 x groups x state (x, B and C), ssm_in
// (hidden -> inner + conv + heads: z, xBC and dt), ssm_conv1d (kernel x
// conv, F32: the converter keeps SSM_CONV1D float32 and llama-quantize
// skips it) with its bias (conv; both checkpoints have use_conv_bias /
// conv_bias), ssm_dt.bias (heads), ssm_a and ssm_d (1 x heads, F32, no
// ".weight": llama-quantize leaves them), ssm_norm (inner / groups x
// groups, the gated norm) and ssm_out (inner -> hidden).
void add_mamba2_mixer(const ModelSpec& spec, const std::string& blk, std::vector<ConvertedTensor>& out) {
  const uint64_t hidden = spec.geometry.hidden;
  const Mamba2Geometry& m = spec.mamba2;
  const uint64_t conv = m.inner + 2 * m.groups * m.state;
  add_converted_f32(out, blk + "ssm_a", {1, m.heads});
  add_converted(out, blk + "ssm_conv1d.bias", {conv});
  add_converted_f32(out, blk + "ssm_conv1d.weight", {m.kernel, conv});
  add_converted_f32(out, blk + "ssm_d", {1, m.heads});
  add_converted(out, blk + "ssm_dt.bias", {m.heads});
  add_converted(out, blk + "ssm_in.weight", {hidden, m.inner + conv + m.heads});
  add_converted_f32(out, blk + "ssm_norm.weight", {m.inner / m.groups, m.groups});
  add_converted(out, blk + "ssm_out.weight", {m.inner, hidden});
}

uint64_t lfm2_conv_kernel(const ModelSpec& spec) {
  constexpr uint64_t kF32Bytes = 4;
  const uint64_t row = kF32Bytes * spec.geometry.hidden;
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kConv) continue;
    return row != 0 && l.state_bytes % row == 0 ? l.state_bytes / row + 1 : 0;
  }
  return 0;
}

ConvertedHybrid converted_hybrid(const ModelSpec& spec) {
  using enum LayerKind;
  const std::string_view type = spec.model_type;
  if (type == "granitemoehybrid" && mamba2_widths(spec) && layers_are(spec, {kSsm, kFullAttention})) {
    return ConvertedHybrid::kGranite;
  }
  if (type == "nemotron_h" && mamba2_widths(spec) && layers_are(spec, {kSsm, kFullAttention, kNone})) {
    return ConvertedHybrid::kNemotronH;
  }
  const bool lfm2_ffn = (type == "lfm2" && spec.moe.experts == 0) ||
                        (type == "lfm2_moe" && spec.moe.experts > 0 && spec.moe.expert_intermediate != 0);
  if (lfm2_ffn && layers_are(spec, {kConv, kFullAttention}) && lfm2_conv_kernel(spec) > 1) {
    return ConvertedHybrid::kLfm2;
  }
  if (type == "falcon_h1" && spec.moe.experts == 0 && mamba2_widths(spec) && layers_are(spec, {kFullAttention})) {
    return ConvertedHybrid::kFalconH1;
  }
  return ConvertedHybrid::kNone;
}

void add_hybrid_globals(const ModelSpec& spec, ConvertedHybrid kind, Tensors& out) {
  // LFM2's final norm is its embedding_norm, written as token_embd_norm.
  if (kind == ConvertedHybrid::kLfm2) add_converted(out, "token_embd_norm.weight", {spec.geometry.hidden});
}

void add_hybrid_block(const ModelSpec& spec, ConvertedHybrid kind, const ConverterHints& hints, uint64_t i,
                      Tensors& out) {
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  switch (kind) {
    case ConvertedHybrid::kGranite: add_granite_block(spec, i, blk, block); break;
    case ConvertedHybrid::kNemotronH: add_nemotron_h_block(spec, i, blk, block); break;
    case ConvertedHybrid::kLfm2: add_lfm2_block(spec, i, blk, block); break;
    case ConvertedHybrid::kFalconH1: add_falcon_h1_block(spec, !hints.falcon_h1_no_ssm_norm, blk, block); break;
    case ConvertedHybrid::kNone: return;
  }
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

}  // namespace memfit::llamacpp
