// Gemma 4's converted tensors (engines/llamacpp/converted_gemma4.h;
// docs/check-log.md, "The dump's tensor list").
#include "engines/llamacpp/converted_gemma4.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/checked_math.h"
#include "model/gguf/keys.h"

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

// A count every layer has one of, read as llama.cpp's get_key_or_arr.
Result<std::vector<uint64_t>> per_layer(const GgufArchKeys& keys, std::string_view name, uint64_t layers,
                                        std::optional<uint64_t> fallback) {
  Result<std::optional<std::vector<uint64_t>>> v = keys.per_layer(name, layers);
  if (!v.ok()) return v.error();
  if (v->has_value()) return std::move(**v);
  if (fallback) return std::vector<uint64_t>(layers, *fallback);
  return keys.error(name, "is missing (gemma4's tensors are sized by it)");
}

}  // namespace

Result<std::optional<Gemma4Widths>> gemma4_widths_of_gguf(const GgufHeader& header) {
  Result<std::string_view> name = header.get_string("general.architecture");
  if (!name || *name != "gemma4") return std::optional<Gemma4Widths>();
  const GgufArchKeys keys(header, "gemma4");
  Result<uint64_t> layers = keys.required_count("block_count");
  if (!layers.ok()) return layers.error();
  if (*layers == 0 || *layers > kMaxGgufCount) return keys.error("block_count", "is out of range");
  Gemma4Widths w;
  Result<std::optional<std::vector<bool>>> flags = keys.per_layer_flags("attention.sliding_window_pattern", *layers);
  if (!flags.ok()) return flags.error();
  if (!flags->has_value()) {
    return keys.error("attention.sliding_window_pattern", "is missing or not one flag a layer");
  }
  w.sliding = std::move(**flags);
  Result<uint64_t> heads = keys.required_count("attention.head_count");
  if (!heads.ok()) return heads.error();
  w.heads = *heads;
  Result<std::vector<uint64_t>> kv = per_layer(keys, "attention.head_count_kv", *layers, w.heads);
  if (!kv.ok()) return kv.error();
  w.kv_heads = std::move(*kv);
  Result<std::vector<uint64_t>> ff = per_layer(keys, "feed_forward_length", *layers, std::nullopt);
  if (!ff.ok()) return ff.error();
  w.ff = std::move(*ff);
  for (auto [field, key] : {std::pair{&w.head_dim_full, "attention.key_length"},
                            {&w.head_dim_swa, "attention.key_length_swa"}}) {
    Result<uint64_t> v = keys.required_count(key);
    if (!v.ok()) return v.error();
    *field = *v;
  }
  for (auto [field, key] : {std::pair{&w.per_layer_input, "embedding_length_per_layer_input"},
                            {&w.experts, "expert_count"},
                            {&w.expert_ff, "expert_feed_forward_length"}}) {
    Result<std::optional<uint64_t>> v = keys.count(key);
    if (!v.ok()) return v.error();
    *field = v->value_or(0);
  }
  return std::optional<Gemma4Widths>(std::move(w));
}

bool gemma4_widths_fit(const ModelSpec& spec, const Gemma4Widths& w) {
  const uint64_t n = spec.layers.size();
  const uint64_t hidden = spec.geometry.hidden;
  if (n == 0 || w.sliding.size() != n || w.kv_heads.size() != n || w.ff.size() != n || w.heads == 0 ||
      w.head_dim_swa == 0 || w.head_dim_full == 0 || hidden == 0 || spec.geometry.vocab == 0 ||
      (w.experts != 0 && w.expert_ff == 0)) {
    return false;
  }
  const uint64_t widest_ff = *std::max_element(w.ff.begin(), w.ff.end());
  const uint64_t widest_kv = *std::max_element(w.kv_heads.begin(), w.kv_heads.end());
  const uint64_t head_dim = std::max(w.head_dim_swa, w.head_dim_full);
  const CheckedBytes checks[] = {
      CheckedBytes(w.per_layer_input) * n * spec.geometry.vocab,
      CheckedBytes(hidden) * widest_ff,
      CheckedBytes(hidden) * std::max(w.heads, widest_kv) * head_dim,
      CheckedBytes(hidden) * w.expert_ff * 2 * w.experts,
      CheckedBytes(hidden) * spec.geometry.vocab,
  };
  return std::all_of(std::begin(checks), std::end(checks), [](const CheckedBytes& c) { return c.value().has_value(); });
}

void add_gemma4_globals(const ModelSpec& spec, const Gemma4Widths& w, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  const uint64_t vocab = spec.geometry.vocab;
  const uint64_t per_layer = w.per_layer_input * spec.layers.size();
  if (!spec.tied_embeddings) add_converted(out, "output.weight", {hidden, vocab});
  add_converted(out, "output_norm.weight", {hidden});
  if (w.per_layer_input != 0) {
    add_converted(out, "per_layer_model_proj.weight", {hidden, per_layer});
    out.back().type = w.kept_type;
    add_converted(out, "per_layer_proj_norm.weight", {w.per_layer_input});
    add_converted(out, "per_layer_token_embd.weight", {per_layer, vocab});
  }
  // The converter's generate_extra_tensors: the global layers' proportional
  // RoPE factors, head_dim_full / 2 F32 values (llama.cpp creates it with
  // the first global layer's tensors, the others' as duplicates).
  add_converted(out, "rope_freqs.weight", {w.head_dim_full / 2});
  add_converted(out, "token_embd.weight", {hidden, vocab});
}

// Per block (load_arch_tensors): attn_norm; attn_q, attn_k, attn_v (not on
// a k_eq_v global layer), attn_output at the layer's head width; per-head
// Q/K norms; post_attention_norm; layer_output_scale (the checkpoint's
// layer_scalar, one F32); ffn_norm, the dense gated FFN at the layer's
// width and post_ffw_norm; with experts the router (F32, the converter
// keeps FFN_GATE_INP float32) and its scale (router.scale, written
// ffn_gate_inp.scale), the MoE branch's three norms, the experts' fused
// gate_up (hidden -> 2 x expert_ff, one slice an expert) and down, and
// per_expert_scale (ffn_down_exps.scale, one an expert); with per-layer
// embeddings inp_gate (hidden -> width), proj (width -> hidden) and
// post_norm. KV-sharing layers keep their own K and V: the converter
// writes the checkpoint's (llama.cpp loads them TENSOR_NOT_REQUIRED).
void add_gemma4_block(const ModelSpec& spec, const Gemma4Widths& w, bool k_eq_v, uint64_t i, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  const bool sliding = w.sliding[i];
  const uint64_t hd = sliding ? w.head_dim_swa : w.head_dim_full;
  const uint64_t kv = w.kv_heads[i] * hd;
  const uint64_t q = w.heads * hd;
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  add_converted(block, blk + "attn_norm.weight", {hidden});
  add_converted(block, blk + "attn_q.weight", {hidden, q});
  add_converted(block, blk + "attn_k.weight", {hidden, kv});
  if (sliding || !k_eq_v) add_converted(block, blk + "attn_v.weight", {hidden, kv});
  add_converted(block, blk + "attn_output.weight", {q, hidden});
  add_converted(block, blk + "attn_q_norm.weight", {hd});
  add_converted(block, blk + "attn_k_norm.weight", {hd});
  add_converted(block, blk + "post_attention_norm.weight", {hidden});
  add_converted(block, blk + "layer_output_scale.weight", {1});
  add_converted(block, blk + "ffn_norm.weight", {hidden});
  add_converted(block, blk + "ffn_gate.weight", {hidden, w.ff[i]});
  add_converted(block, blk + "ffn_up.weight", {hidden, w.ff[i]});
  add_converted(block, blk + "ffn_down.weight", {w.ff[i], hidden});
  add_converted(block, blk + "post_ffw_norm.weight", {hidden});
  if (w.experts != 0) {
    add_converted_f32(block, blk + "ffn_gate_inp.weight", {hidden, w.experts});
    add_converted(block, blk + "ffn_gate_inp.scale", {hidden});
    add_converted(block, blk + "pre_ffw_norm_2.weight", {hidden});
    add_converted(block, blk + "post_ffw_norm_1.weight", {hidden});
    add_converted(block, blk + "post_ffw_norm_2.weight", {hidden});
    add_converted(block, blk + "ffn_gate_up_exps.weight", {hidden, 2 * w.expert_ff, w.experts});
    add_converted(block, blk + "ffn_down_exps.weight", {w.expert_ff, hidden, w.experts});
    add_converted(block, blk + "ffn_down_exps.scale", {w.experts});
  }
  if (w.per_layer_input != 0) {
    add_converted(block, blk + "inp_gate.weight", {hidden, w.per_layer_input});
    add_converted(block, blk + "proj.weight", {w.per_layer_input, hidden});
    add_converted(block, blk + "post_norm.weight", {hidden});
  }
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

}  // namespace memfit::llamacpp
