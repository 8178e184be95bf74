// T5's encoder's converted tensors (engines/llamacpp/converted_t5.h).
#include "engines/llamacpp/converted_t5.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

// T5Config's relative_attention_num_buckets default (transformers'
// configuration_t5.py), for a dump whose relative_buckets_count is unsaid.
constexpr uint64_t kT5Buckets = 32;

// One block, by name (LLM_ARCH_T5ENCODER's names: enc.blk.N.*): the
// relative attention bias attn_rel_b (buckets x heads; the loader takes it
// in any block, TENSOR_NOT_REQUIRED: T5 has it in block 0, UMT5 in every
// block; llama-quantize leaves "attn_rel_b.weight" as the converter wrote
// it), attn_norm, attn_q/k/v (hidden -> heads x key width) and attn_o,
// ffn_norm, and the gated-GELU FFN's ffn_gate, ffn_up and ffn_down (T5
// v1.1 and UMT5; no biases, RMS norms).
void add_block(const ModelSpec& spec, const ConverterHints& h, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = g.head_dim != 0 ? g.head_dim : g.hidden / std::max<uint64_t>(g.heads, 1);
  const uint64_t inner = g.heads * head_dim;
  const std::string blk = fmt::format("enc.blk.{}.", i);
  Tensors block;
  add_converted(block, blk + "attn_k.weight", {g.hidden, inner});
  add_converted(block, blk + "attn_norm.weight", {g.hidden});
  add_converted(block, blk + "attn_o.weight", {inner, g.hidden});
  add_converted(block, blk + "attn_q.weight", {g.hidden, inner});
  if (i == 0 || h.t5_rel_b_every_block) {
    add_converted(block, blk + "attn_rel_b.weight",
        {h.t5_relative_buckets != 0 ? h.t5_relative_buckets : kT5Buckets, g.heads});
  }
  add_converted(block, blk + "attn_v.weight", {g.hidden, inner});
  add_converted(block, blk + "ffn_down.weight", {g.intermediate, g.hidden});
  add_converted(block, blk + "ffn_gate.weight", {g.hidden, g.intermediate});
  add_converted(block, blk + "ffn_norm.weight", {g.hidden});
  add_converted(block, blk + "ffn_up.weight", {g.hidden, g.intermediate});
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

}  // namespace

bool t5_encoder(const ModelSpec& spec) { return spec.model_type == "t5encoder"; }

void add_t5_encoder_tensors(const ModelSpec& spec, const ConverterHints& hints, Tensors& out) {
  // The encoder's final norm (ENC_OUTPUT_NORM); no output layer.
  add_converted(out, "enc.output_norm.weight", {spec.geometry.hidden});
  add_converted(out, "token_embd.weight", {spec.geometry.hidden, spec.geometry.vocab});
  for (uint64_t i = 0; i < spec.layers.size(); ++i) add_block(spec, hints, i, out);
}

}  // namespace memfit::llamacpp
