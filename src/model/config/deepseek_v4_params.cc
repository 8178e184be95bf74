// DeepSeek V4's parameter blocks (model/config/deepseek_v4_params.h).
#include "model/config/deepseek_v4_params.h"

#include <utility>

#include "memfit/checked_math.h"
#include "model/config/param_block_list.h"

namespace memfit {
namespace {

constexpr uint64_t kFloat32 = 4;  // F32 tensors and the int32 hash table
constexpr uint64_t kWindowOnly = 1;  // compress ratio 0 or 1: no compressor
constexpr uint64_t kIndexedRatio = 4;  // the ratio whose layers are sparse (an indexer)

uint64_t field(FieldReader& reader, std::string_view name) {
  Result<std::optional<uint64_t>> v = reader.doc().u64({name});
  return v && v->has_value() ? **v : 0;
}

// ParamBlockList with the float32 (or int32) blocks V4 stores at a fixed
// width.
class Blocks : public ParamBlockList {
 public:
  void add_f32(std::string_view module, std::optional<uint64_t> layer, CheckedBytes rows, CheckedBytes cols,
               uint64_t copies = 1) {
    add(ParamRole::kNorm, module, layer, rows, cols, copies, kFloat32);
  }
};

struct V4Widths {
  uint64_t hidden = 0, q_rank = 0, heads = 0, head_dim = 0, o_groups = 0, o_rank = 0;
  uint64_t index_heads = 0, index_dim = 0, hc = 0, experts = 0, expert_width = 0, shared = 0;
  uint64_t top_k = 0, hash_layers = 0, vocab = 0;
};

// A compressor of `width` (head_dim, or index_head_dim for the indexer's)
// at ratio `ratio`: at ratio 4 its windows overlap and it projects twice
// the width (DeepSeek's inference/model.py Compressor: coff = 1 + overlap).
void add_compressor(std::string_view projections, std::string_view vectors, uint64_t width,
                    uint64_t ratio, uint64_t hidden, uint64_t layer, Blocks& out) {
  const CheckedBytes rows = CheckedBytes(ratio == kIndexedRatio ? 2 : 1) * width;
  out.add(ParamRole::kCompressor, projections, layer, rows * 2, hidden);  // wkv and wgate
  out.add_f32(vectors, layer, ratio, rows);                             // ape
  out.add(ParamRole::kNorm, vectors, layer, 1, width);                  // norm
}

void add_layer(const V4Widths& w, uint64_t ratio, uint64_t layer, Blocks& out) {
  const uint64_t h = w.hidden;
  const CheckedBytes q_heads = CheckedBytes(w.heads) * w.head_dim;
  out.add(ParamRole::kAttention, "attn.wq_a", layer, w.q_rank, h);
  out.add(ParamRole::kAttention, "attn.wkv", layer, w.head_dim, h);
  out.add(ParamRole::kAttention, "attn.wq_b", layer, q_heads, w.q_rank);
  if (w.o_groups > 0) {
    out.add(ParamRole::kAttention, "attn.wo_a", layer, CheckedBytes(w.o_groups) * w.o_rank,
            CheckedBytes::ceil_div(q_heads, w.o_groups));
  }
  out.add(ParamRole::kAttention, "attn.wo_b", layer, h, CheckedBytes(w.o_groups) * w.o_rank);
  out.add(ParamRole::kNorm, "attn.q_norm", layer, 1, w.q_rank);
  out.add(ParamRole::kNorm, "attn.kv_norm", layer, 1, w.head_dim);
  out.add_f32("attn.attn_sink", layer, 1, w.heads);
  if (ratio > kWindowOnly) {
    add_compressor("attn.compressor.wkv, wgate", "attn.compressor", w.head_dim, ratio, h, layer, out);
  }
  if (ratio == kIndexedRatio) {
    out.add(ParamRole::kAttention, "attn.indexer.wq_b", layer, CheckedBytes(w.index_heads) * w.index_dim,
            w.q_rank);
    out.add(ParamRole::kCompressor, "attn.indexer.weights_proj", layer, w.index_heads, h);
    add_compressor("attn.indexer.compressor.wkv, wgate", "attn.indexer.compressor", w.index_dim, ratio, h, layer, out);
  }
  // Hyper-connections: c residual streams mixed before and after the
  // attention and the MoE (inference/model.py Block: hc_attn_fn, _base,
  // _scale; hc_ffn_*).
  const CheckedBytes mix = (CheckedBytes(2) + w.hc) * w.hc;
  out.add_f32("hc_attn_fn, hc_ffn_fn", layer, mix, CheckedBytes(w.hc) * h, 2);
  out.add_f32("hc_attn_base, hc_ffn_base", layer, 1, mix, 2);
  out.add_f32("hc_attn_scale, hc_ffn_scale", layer, 1, 3, 2);
  out.add(ParamRole::kRouter, "ffn.gate", layer, w.experts, h);
  if (layer < w.hash_layers) {
    out.add_f32("ffn.gate.tid2eid", layer, w.vocab, w.top_k);
  } else {
    out.add_f32("ffn.gate.bias", layer, 1, w.experts);
  }
  for (const auto& [role, copies] : {std::pair{ParamRole::kExperts, w.experts},
                                     std::pair{ParamRole::kSharedExperts, w.shared}}) {
    const std::string_view up = role == ParamRole::kExperts ? "ffn.experts.w1, w3" : "ffn.shared_experts.w1, w3";
    const std::string_view down = role == ParamRole::kExperts ? "ffn.experts.w2" : "ffn.shared_experts.w2";
    out.add(role, up, layer, w.expert_width, h, copies * 2);
    out.add(role, down, layer, h, w.expert_width, copies);
  }
  out.add(ParamRole::kNorm, "attn_norm, ffn_norm", layer, 2, h);
}

}  // namespace

std::vector<ParamBlock> deepseek_v4_param_blocks(FieldReader& reader, const ModelSpec& spec) {
  const CompressedAttentionGeometry& c = spec.compressed_attention;
  V4Widths w;
  w.hidden = spec.geometry.hidden;
  w.q_rank = field(reader, "q_lora_rank");
  w.heads = spec.geometry.heads;
  w.head_dim = c.head_dim;
  w.o_groups = field(reader, "o_groups");
  w.o_rank = field(reader, "o_lora_rank");
  w.index_heads = field(reader, "index_n_heads");
  w.index_dim = c.index_head_dim;
  w.hc = field(reader, "hc_mult");
  w.experts = spec.moe.experts;
  w.expert_width = spec.moe.expert_intermediate;
  w.shared = spec.moe.shared_experts;
  w.top_k = spec.moe.experts_per_token;
  w.hash_layers = field(reader, "num_hash_layers");
  w.vocab = spec.geometry.vocab;
  if (w.hidden == 0 || w.heads == 0 || w.head_dim == 0) return {};
  Blocks out;
  for (uint64_t i = 0; i < c.compress_ratios.size(); ++i) add_layer(w, c.compress_ratios[i], i, out);
  out.add(ParamRole::kEmbedding, "embed", std::nullopt, w.vocab, w.hidden);
  out.add(ParamRole::kLmHead, "head", std::nullopt, w.vocab, w.hidden);
  out.add(ParamRole::kNorm, "norm", std::nullopt, 1, w.hidden);
  out.add_f32("hc_head_fn", std::nullopt, w.hc, CheckedBytes(w.hc) * w.hidden);
  out.add_f32("hc_head_base", std::nullopt, 1, w.hc);
  out.add_f32("hc_head_scale", std::nullopt, 1, 1);
  return out.take();
}

}  // namespace memfit
