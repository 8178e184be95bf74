// Nemotron-NAS (deci) converted tensors (engines/llamacpp/
// converted_deci.h; docs/check-log.md, "The dump's tensor list").
#include "engines/llamacpp/converted_deci.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/checked_math.h"
#include "model/gguf/keys.h"

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

}  // namespace

Result<std::optional<DeciWidths>> deci_widths_of_gguf(const GgufHeader& header) {
  Result<std::string_view> name = header.get_string("general.architecture");
  if (!name || *name != "deci") return std::optional<DeciWidths>();
  const GgufArchKeys keys(header, "deci");
  Result<uint64_t> layers = keys.required_count("block_count");
  if (!layers.ok()) return layers.error();
  if (*layers == 0 || *layers > kMaxGgufCount) return keys.error("block_count", "is out of range");
  DeciWidths w;
  for (auto [field, key] : {std::pair{&w.heads, "attention.head_count"}, {&w.kv_heads, "attention.head_count_kv"},
                            {&w.ff, "feed_forward_length"}}) {
    Result<std::optional<std::vector<uint64_t>>> v = keys.per_layer(key, *layers);
    if (!v.ok()) return v.error();
    if (!v->has_value()) return keys.error(key, "is missing (deci's tensors are sized by it)");
    *field = std::move(**v);
  }
  Result<uint64_t> head_dim = keys.required_count("attention.key_length", "deci's tensors are sized by it");
  if (!head_dim.ok()) return head_dim.error();
  w.head_dim = *head_dim;
  return std::optional<DeciWidths>(std::move(w));
}

bool deci_widths_fit(const ModelSpec& spec, const DeciWidths& w) {
  const uint64_t n = spec.layers.size();
  const uint64_t hidden = spec.geometry.hidden;
  if (spec.model_type != "deci" || n == 0 || w.heads.size() != n || w.kv_heads.size() != n || w.ff.size() != n ||
      w.head_dim == 0 || hidden == 0) {
    return false;
  }
  const uint64_t heads = *std::max_element(w.heads.begin(), w.heads.end());
  const uint64_t ff = *std::max_element(w.ff.begin(), w.ff.end());
  const CheckedBytes q = CheckedBytes(hidden) * heads * w.head_dim;
  const CheckedBytes mlp = CheckedBytes(hidden) * ff;
  return q.value() && mlp.value();
}

// One deci block (LLM_ARCH_DECI's load_tensors): with KV heads, attn_norm
// and Q/K/V/output at the layer's heads (Q and O heads x head_dim, K and V
// KV heads x head_dim); with heads and no KV heads (DeciLM's linear
// attention), attn_norm and a hidden x hidden attn_output; with neither
// (the NAS's no-op attention), nothing. With an FFN width, ffn_norm and
// the gated FFN at that width; with 0, nothing.
void add_deci_block(const ModelSpec& spec, const DeciWidths& w, uint64_t i, Tensors& out) {
  const uint64_t hidden = spec.geometry.hidden;
  const uint64_t q = w.heads[i] * w.head_dim;
  const uint64_t kv = w.kv_heads[i] * w.head_dim;
  const uint64_t ff = w.ff[i];
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  if (w.kv_heads[i] > 0) {
    add_converted(block, blk + "attn_norm.weight", {hidden});
    add_converted(block, blk + "attn_q.weight", {hidden, q});
    add_converted(block, blk + "attn_k.weight", {hidden, kv});
    add_converted(block, blk + "attn_v.weight", {hidden, kv});
    add_converted(block, blk + "attn_output.weight", {q, hidden});
  } else if (w.heads[i] > 0) {
    add_converted(block, blk + "attn_norm.weight", {hidden});
    add_converted(block, blk + "attn_output.weight", {hidden, hidden});
  }
  if (ff > 0) {
    add_converted(block, blk + "ffn_norm.weight", {hidden});
    add_converted(block, blk + "ffn_gate.weight", {hidden, ff});
    add_converted(block, blk + "ffn_down.weight", {ff, hidden});
    add_converted(block, blk + "ffn_up.weight", {hidden, ff});
  }
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

}  // namespace memfit::llamacpp
