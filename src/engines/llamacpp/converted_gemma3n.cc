// Gemma 3n's converted tensors (engines/llamacpp/converted_gemma3n.h;
// docs/engine-llamacpp.md, "Gemma 3n").
#include "engines/llamacpp/converted_gemma3n.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

// A matrix the converter writes in its output type and llama-quantize
// keeps as written.
void add_kept(Tensors& out, std::string name, std::vector<uint64_t> ne, GgmlType kept) {
  add_converted(out, std::move(name), std::move(ne));
  out.back().type = kept;
}

// Block `i` (load_tensors): attn_norm; attn_q, attn_k, attn_v,
// attn_output; per-head Q/K norms; post_attention_norm; ffn_norm, the
// gated FFN, post_ffw_norm; the per-layer input's inp_gate (hidden ->
// 256), proj (256 -> hidden) and post_norm; AltUp's correct_coef (4 x 4)
// and predict_coef (4 x 16), F32 (the converter keeps ALTUP_CORRECT_COEF
// and ALTUP_PREDICT_COEF float32), correct_scale, router (hidden -> 4)
// and router_norm; LAuReL's laurel_l (hidden -> 64), laurel_r (64 ->
// hidden) and post norm. 24 a block. The KV-sharing layers (from the
// 20th) keep their own K and V: the checkpoint has them and the loader
// requires them.
void add_block(const ModelSpec& spec, GgmlType kept, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t q = g.heads * g.head_dim;
  const uint64_t kv = g.kv_heads * g.head_dim;
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  add_converted(block, blk + "attn_norm.weight", {g.hidden});
  add_converted(block, blk + "attn_q.weight", {g.hidden, q});
  add_converted(block, blk + "attn_k.weight", {g.hidden, kv});
  add_converted(block, blk + "attn_v.weight", {g.hidden, kv});
  add_converted(block, blk + "attn_output.weight", {q, g.hidden});
  add_converted(block, blk + "attn_q_norm.weight", {g.head_dim});
  add_converted(block, blk + "attn_k_norm.weight", {g.head_dim});
  add_converted(block, blk + "post_attention_norm.weight", {g.hidden});
  add_converted(block, blk + "ffn_norm.weight", {g.hidden});
  add_converted(block, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
  add_converted(block, blk + "ffn_up.weight", {g.hidden, g.intermediate});
  add_converted(block, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(block, blk + "post_ffw_norm.weight", {g.hidden});
  add_converted(block, blk + "inp_gate.weight", {g.hidden, kGemma3nPerLayerInput});
  add_converted(block, blk + "proj.weight", {kGemma3nPerLayerInput, g.hidden});
  add_converted(block, blk + "post_norm.weight", {g.hidden});
  add_converted_f32(block, blk + "altup_correct_coef.weight", {kGemma3nAltup, kGemma3nAltup});
  add_converted(block, blk + "altup_correct_scale.weight", {g.hidden});
  add_converted_f32(block, blk + "altup_predict_coef.weight", {kGemma3nAltup, kGemma3nAltup * kGemma3nAltup});
  add_kept(block, blk + "altup_router.weight", {g.hidden, kGemma3nAltup}, kept);
  add_converted(block, blk + "altup_router_norm.weight", {g.hidden});
  add_kept(block, blk + "laurel_l.weight", {g.hidden, kGemma3nLaurelRank}, kept);
  add_kept(block, blk + "laurel_r.weight", {kGemma3nLaurelRank, g.hidden}, kept);
  add_converted(block, blk + "laurel_post_norm.weight", {g.hidden});
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

}  // namespace

bool gemma3n_builds(const ModelSpec& spec) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t n = spec.layers.size();
  if (spec.model_type != "gemma3n_text" || spec.multimodal || spec.nextn_layers != 0 || n == 0 ||
      g.hidden == 0 || g.heads == 0 || g.kv_heads == 0 || g.head_dim == 0 || g.intermediate == 0 ||
      g.vocab == 0) {
    return false;
  }
  const CheckedBytes checks[] = {
      CheckedBytes(kGemma3nPerLayerInput) * n * g.vocab,
      CheckedBytes(g.hidden) * g.intermediate,
      CheckedBytes(g.hidden) * std::max(g.heads, g.kv_heads) * g.head_dim,
      CheckedBytes(g.hidden) * g.hidden * (kGemma3nAltup - 1),
      CheckedBytes(g.hidden) * g.vocab,
  };
  return std::all_of(std::begin(checks), std::end(checks),
                     [](const CheckedBytes& c) { return c.value().has_value(); });
}

// Outside the blocks: AltUp's projections (hidden x hidden x 3, the
// converter's altup_projections stacked), the output unless tied (Gemma
// 3n's is: the loader duplicates token_embd), output_norm, the per-layer
// embedding's projection (hidden -> 256 x layers), its norm (256) and
// table (256 x layers by the vocabulary), token_embd.
std::vector<ConvertedTensor> gemma3n_tensors(const ModelSpec& spec, GgmlType kept) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t per_layer = kGemma3nPerLayerInput * spec.layers.size();
  Tensors out;
  add_kept(out, "altup_proj.weight", {g.hidden, g.hidden, kGemma3nAltup - 1}, kept);
  add_kept(out, "altup_unembd_proj.weight", {g.hidden, g.hidden, kGemma3nAltup - 1}, kept);
  if (!spec.tied_embeddings) add_converted(out, "output.weight", {g.hidden, g.vocab});
  add_converted(out, "output_norm.weight", {g.hidden});
  add_kept(out, "per_layer_model_proj.weight", {g.hidden, per_layer}, kept);
  add_converted(out, "per_layer_proj_norm.weight", {kGemma3nPerLayerInput});
  add_converted(out, "per_layer_token_embd.weight", {per_layer, g.vocab});
  add_converted(out, "token_embd.weight", {g.hidden, g.vocab});
  for (uint64_t i = 0; i < spec.layers.size(); ++i) add_block(spec, kept, i, out);
  return out;
}

}  // namespace memfit::llamacpp
