// Mamba's and Jamba's converted tensors (engines/llamacpp/converted_mamba1.h;
// docs/check-log.md, "The dump's tensor list").
#include "engines/llamacpp/converted_mamba1.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/checked_math.h"
#include "model/gguf/keys.h"

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

// The converter's types: F32 for what has one dimension or no ".weight"
// suffix (ssm_a), and for SSM_CONV1D and the router; F16 otherwise.
void add(Tensors& out, std::string name, std::vector<uint64_t> ne, bool f32 = false) {
  const bool one_dim = ne.size() < 2;
  const GgmlType type = one_dim || f32 ? GgmlType::kF32 : GgmlType::kF16;
  out.push_back(ConvertedTensor{std::move(name), std::move(ne), type});
}

// Whether block `i` holds routed experts: transformers' JambaConfig puts
// them in every expert_layer_period-th layer from expert_layer_offset
// (defaults 2 and 1, as Jamba v0.1, Mini and Large ship them); the GGUF
// keeps no key of it (llama.cpp's loader takes ffn_gate_inp
// TENSOR_NOT_REQUIRED and reads a dense FFN without it), so a dump's
// counts check it.
bool moe_block(const ModelSpec& spec, uint64_t i) {
  constexpr uint64_t kPeriod = 2, kOffset = 1;
  return spec.moe.experts > 0 && i % kPeriod == kOffset;
}

// A Mamba-1 mixer (LLM_ARCH_MAMBA's and LLM_ARCH_JAMBA's load_tensors):
// ssm_in (hidden -> 2 inner, x and z); ssm_conv1d (conv x inner, F32: the
// converter keeps SSM_CONV1D float32) with its bias; ssm_x (inner ->
// dt_rank + 2 state); ssm_dt (dt_rank -> inner) with its bias; ssm_a
// (state x inner) and ssm_d (inner), no ".weight" suffix, so F32 and
// never quantized; ssm_out (inner -> hidden). Jamba adds the dt, B and C
// RMS norms (`norms`). `small_f32`: ssm_x and ssm_dt F32, as the converter
// wrote Mamba's before dropping MambaModel.tensor_force_quant.
void add_mixer(uint64_t hidden, const Mamba1Widths& w, const std::string& blk, bool norms, bool small_f32,
               Tensors& out) {
  add(out, blk + "ssm_in.weight", {hidden, 2 * w.inner});
  add(out, blk + "ssm_conv1d.weight", {w.conv, w.inner}, true);
  add(out, blk + "ssm_conv1d.bias", {w.inner});
  add(out, blk + "ssm_x.weight", {w.inner, w.dt_rank + 2 * w.state}, small_f32);
  add(out, blk + "ssm_dt.weight", {w.dt_rank, w.inner}, small_f32);
  add(out, blk + "ssm_dt.bias", {w.inner});
  if (norms) {
    add(out, blk + "ssm_dt_norm.weight", {w.dt_rank});
    add(out, blk + "ssm_b_norm.weight", {w.state});
    add(out, blk + "ssm_c_norm.weight", {w.state});
  }
  add(out, blk + "ssm_a", {w.state, w.inner}, true);
  add(out, blk + "ssm_d", {w.inner});
  add(out, blk + "ssm_out.weight", {w.inner, hidden});
}

void sort_into(Tensors& block, Tensors& out) {
  std::sort(block.begin(), block.end(),
            [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
  std::move(block.begin(), block.end(), std::back_inserter(out));
}

// Whether the widths are nonzero and ssm_in's (hidden x 2 inner) and
// ssm_x's (inner x (dt_rank + 2 state)) elements fit 64 bits (an untrusted
// file's widths).
bool mixer_fits(uint64_t hidden, const Mamba1Widths& w) {
  if (w.inner == 0 || w.state == 0 || w.conv == 0 || w.dt_rank == 0 || hidden == 0) return false;
  const CheckedBytes in = CheckedBytes(hidden) * 2 * w.inner;
  const CheckedBytes x = CheckedBytes(w.inner) * (CheckedBytes(w.dt_rank) + CheckedBytes(2) * w.state);
  return in.value() && x.value();
}

}  // namespace

Result<std::optional<Mamba1Widths>> mamba1_widths_of_gguf(const GgufHeader& header) {
  Result<std::string_view> name = header.get_string("general.architecture");
  if (!name || (*name != "jamba" && *name != "mamba")) return std::optional<Mamba1Widths>();
  const GgufArchKeys keys(header, std::string(*name));
  const std::string why = fmt::format("{}'s Mamba tensors are sized by it", *name);
  Mamba1Widths w;
  for (auto [field, key] : {std::pair{&w.inner, "ssm.inner_size"}, {&w.state, "ssm.state_size"},
                            {&w.conv, "ssm.conv_kernel"}, {&w.dt_rank, "ssm.time_step_rank"}}) {
    Result<uint64_t> v = keys.required_count(key, why);
    if (!v.ok()) return v.error();
    *field = *v;
  }
  return std::optional<Mamba1Widths>(w);
}

bool jamba_widths_fit(const ModelSpec& spec, const Mamba1Widths& w) {
  const uint64_t hidden = spec.geometry.hidden;
  if (spec.model_type != "jamba" || !mixer_fits(hidden, w) || spec.geometry.heads == 0 ||
      spec.geometry.kv_heads == 0) {
    return false;
  }
  const bool kinds = std::all_of(spec.layers.begin(), spec.layers.end(), [](const LayerCache& l) {
    return l.kind == LayerKind::kSsm || l.kind == LayerKind::kFullAttention;
  });
  const CheckedBytes experts = CheckedBytes(hidden) * spec.geometry.intermediate * std::max<uint64_t>(spec.moe.experts, 1);
  return kinds && experts.value();
}

bool mamba1_widths_fit(const ModelSpec& spec, const Mamba1Widths& w) {
  return spec.model_type == "mamba" && mixer_fits(spec.geometry.hidden, w) && !spec.layers.empty() &&
         std::all_of(spec.layers.begin(), spec.layers.end(),
                     [](const LayerCache& l) { return l.kind == LayerKind::kSsm; });
}

// One Mamba block (llama.cpp's llama_model_mamba::load_arch_tensors,
// src/models/mamba.cpp): attn_norm (the mixer's input RMS norm) and the
// mixer; no feed-forward.
void add_mamba1_block(const ModelSpec& spec, const Mamba1Widths& w, bool small_f32, uint64_t i, Tensors& out) {
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  add(block, blk + "attn_norm.weight", {spec.geometry.hidden});
  add_mixer(spec.geometry.hidden, w, blk, /*norms=*/false, small_f32, block);
  sort_into(block, out);
}

// One Jamba block (LLM_ARCH_JAMBA's load_tensors): attn_norm; a Mamba-1
// mixer with its dt, B and C RMS norms on a layer without KV heads
// (add_mixer), or attention (Q and O hidden x hidden, K and V hidden
// x kv_heads x head_dim); ffn_norm; the routed experts (F32 router, 3-D
// gate/up/down of intermediate_size) or a dense gated FFN.
void add_jamba_block(const ModelSpec& spec, const Mamba1Widths& w, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t hidden = g.hidden;
  const uint64_t ff = g.intermediate;
  const std::string blk = fmt::format("blk.{}.", i);
  Tensors block;
  add(block, blk + "attn_norm.weight", {hidden});
  if (spec.layers[i].kind == LayerKind::kSsm) {
    add_mixer(hidden, w, blk, /*norms=*/true, /*small_f32=*/false, block);
  } else {
    const uint64_t head_dim = g.head_dim != 0 ? g.head_dim : hidden / g.heads;
    add(block, blk + "attn_q.weight", {hidden, hidden});
    add(block, blk + "attn_k.weight", {hidden, g.kv_heads * head_dim});
    add(block, blk + "attn_v.weight", {hidden, g.kv_heads * head_dim});
    add(block, blk + "attn_output.weight", {hidden, hidden});
  }
  add(block, blk + "ffn_norm.weight", {hidden});
  if (moe_block(spec, i)) {
    const uint64_t experts = spec.moe.experts;
    add(block, blk + "ffn_gate_inp.weight", {hidden, experts}, true);
    add(block, blk + "ffn_gate_exps.weight", {hidden, ff, experts});
    add(block, blk + "ffn_down_exps.weight", {ff, hidden, experts});
    add(block, blk + "ffn_up_exps.weight", {hidden, ff, experts});
  } else {
    add(block, blk + "ffn_gate.weight", {hidden, ff});
    add(block, blk + "ffn_down.weight", {ff, hidden});
    add(block, blk + "ffn_up.weight", {hidden, ff});
  }
  sort_into(block, out);
}

}  // namespace memfit::llamacpp
