// The hybrid models' state pool under SGLang's rules (state_pool.h;
// docs/engine-sglang.md, "Hybrid models"): the shapes of
// configs/mamba_utils.py's Mamba2StateShape, the split of
// model_runner.py's handle_max_mamba_cache and the request cap of its
// init_memory_pool.
#include "engines/sglang/state_pool.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

#include "memfit/checked_math.h"

namespace memfit::sglang {
namespace {

// memfit prices a recurrent layer's state at f32 (model/config/
// recurrent_state.h): its element counts are the bytes over 4.
constexpr uint64_t kSpecStateElementBytes = 4;

// The model types whose linear attention is a gated delta-net
// (Qwen3NextConfig, Qwen3_5 configs' mamba2_cache_params).
bool gated_delta(const ModelSpec& spec) {
  constexpr std::array<std::string_view, 5> kTypes = {"qwen3_next", "qwen3_5", "qwen3_5_text",
                                                      "qwen3_5_moe", "qwen3_5_moe_text"};
  return std::find(kTypes.begin(), kTypes.end(), spec.model_type) != kTypes.end();
}

// The model types whose short-conv layers SGLang pools as a conv-only
// Mamba-2 state (configs/lfm2.py, configs/lfm2_moe.py: mamba2_cache_params).
bool short_conv(const ModelSpec& spec) {
  return spec.model_type == "lfm2" || spec.model_type == "lfm2_moe";
}

enum class StateRule { kNone, kMamba2, kGatedDelta, kShortConv, kUnread };

StateRule rule_of(const ModelSpec& spec, const LayerCache& l) {
  if (l.state_bytes == 0) return StateRule::kNone;
  // A Mamba-2 mixer: its own layer, or beside the attention (Falcon-H1).
  if (spec.mamba2.heads != 0 && l.kind != LayerKind::kLinearAttention && l.kind != LayerKind::kConv) {
    return StateRule::kMamba2;
  }
  if (l.kind == LayerKind::kLinearAttention && gated_delta(spec)) return StateRule::kGatedDelta;
  if (l.kind == LayerKind::kConv && short_conv(spec)) return StateRule::kShortConv;
  return StateRule::kUnread;
}

struct LayerState {
  uint64_t conv = 0, temporal = 0;
};

// Mamba2StateShape.create: B/C groups not divisible by TP grow to TP
// (extra_groups_for_head_shards); conv (intermediate + 2 x groups x
// state) / TP x (kernel - 1); temporal heads / TP x head_dim x state.
Result<LayerState> mamba2_layer(const Mamba2Geometry& m, uint64_t tp, uint64_t ssm_bytes) {
  const uint64_t groups = m.groups % tp == 0 ? m.groups : tp;
  const CheckedBytes conv_dim = CheckedBytes(m.inner) + CheckedBytes(2) * groups * m.state;
  if (m.heads % tp != 0 || !conv_dim.value() || *conv_dim.value() % tp != 0) {
    return Error::usage("tensor_parallel", fmt::format("SGLang splits the Mamba heads ({}) and the "
                                                       "conv channels ({}) by TP: {} divides neither "
                                                       "evenly",
                                                       m.heads, conv_dim.saturated(), tp));
  }
  const uint64_t kernel = m.kernel > 0 ? m.kernel - 1 : 0;
  const uint64_t head_dim = m.heads == 0 ? 0 : m.inner / m.heads;
  LayerState s;
  s.conv = (CheckedBytes(*conv_dim.value() / tp) * kernel * kConvStateBytes).saturated();
  s.temporal = (CheckedBytes(m.heads / tp) * head_dim * m.state * ssm_bytes).saturated();
  return s;
}

// A gated delta-net layer: the same shape with intermediate = value heads
// x value dim, groups = key heads, state = key dim; memfit's spec holds
// its element counts (conv, then the delta state), split here by TP.
LayerState gated_delta_layer(const ModelSpec& spec, const LayerCache& l, uint64_t tp, uint64_t ssm_bytes) {
  const uint64_t conv_elems = spec.conv_state_bytes / kSpecStateElementBytes;
  const uint64_t temporal_elems = (l.state_bytes - std::min(l.state_bytes, spec.conv_state_bytes)) / kSpecStateElementBytes;
  LayerState s;
  s.conv = (CheckedBytes::ceil_div(conv_elems, tp) * kConvStateBytes).saturated();
  s.temporal = (CheckedBytes::ceil_div(temporal_elems, tp) * ssm_bytes).saturated();
  return s;
}

// An LFM2 short-conv layer: SGLang's Mamba2StateShape.create with
// intermediate = hidden, state 0 (configs/lfm2.py): a conv state of
// hidden / attention-TP x (conv_L_cache - 1) at 16 bits and no temporal
// state. memfit's spec holds its (conv_L_cache - 1) x hidden elements at
// f32; divide(hidden, TP) asserts that TP divides the channels.
Result<LayerState> short_conv_layer(const ModelSpec& spec, const LayerCache& l, uint64_t tp) {
  const uint64_t hidden = spec.geometry.hidden;
  if (hidden == 0 || hidden % tp != 0) {
    return Error::usage("tensor_parallel", fmt::format("SGLang splits the short-conv channels ({}) "
                                                       "by TP: {} does not divide them evenly",
                                                       hidden, tp));
  }
  const uint64_t elems = l.state_bytes / kSpecStateElementBytes;  // (kernel - 1) x hidden
  LayerState s;
  s.conv = (CheckedBytes(elems / tp) * kConvStateBytes).saturated();
  return s;
}

}  // namespace

bool prices_state(const ModelSpec& spec) {
  return std::any_of(spec.layers.begin(), spec.layers.end(), [&](const LayerCache& l) {
    const StateRule r = rule_of(spec, l);
    return r == StateRule::kMamba2 || r == StateRule::kGatedDelta || r == StateRule::kShortConv;
  });
}

Result<StateCell> state_cell(const ModelSpec& spec, uint64_t tp, uint64_t ssm_bytes) {
  tp = std::max<uint64_t>(1, tp);
  StateCell cell;
  CheckedBytes conv = 0, temporal = 0;
  for (const LayerCache& l : spec.layers) {
    LayerState s;
    switch (rule_of(spec, l)) {
      case StateRule::kNone:
        continue;
      case StateRule::kUnread:
        cell.unpriced = true;
        continue;
      case StateRule::kMamba2: {
        Result<LayerState> m = mamba2_layer(spec.mamba2, tp, ssm_bytes);
        if (!m) return m.error();
        s = *m;
        break;
      }
      case StateRule::kGatedDelta:
        s = gated_delta_layer(spec, l, tp, ssm_bytes);
        break;
      case StateRule::kShortConv: {
        Result<LayerState> c = short_conv_layer(spec, l, tp);
        if (!c) return c.error();
        s = *c;
        break;
      }
    }
    cell.layers += 1;
    conv += s.conv;
    temporal += s.temporal;
  }
  const CheckedBytes total = conv + temporal;
  if (!total.value()) return Error::overflow("SGLang state per request overflows 64 bits");
  cell.conv_bytes = conv.saturated();
  cell.temporal_bytes = temporal.saturated();
  cell.bytes = *total.value();
  return cell;
}

StatePool size_state_pool(uint64_t rest_bytes, const StateCell& cell, const StateSettings& s,
                          std::optional<uint64_t> max_running_requests, uint64_t dp_attention_size) {
  StatePool pool;
  if (cell.bytes == 0) return pool;
  pool.slots_per_request = s.disable_radix_cache ? 1 : kSlotsPerRequestWithRadix;
  if (s.disable_radix_cache || s.max_mamba_cache_size) {
    // An explicit size, else (radix cache off) one slot per request.
    const uint64_t given = s.max_mamba_cache_size.value_or(max_running_requests.value_or(kSlotsWithoutRadixCache));
    pool.slots = given / std::max<uint64_t>(1, dp_attention_size);
  } else {
    // mamba memory = rest x r / (1 + r), in whole states.
    const long double r = s.mamba_full_memory_ratio;
    const long double share = static_cast<long double>(rest_bytes) * r / (1.0L + r);
    pool.slots = static_cast<uint64_t>(share / static_cast<long double>(cell.bytes));
    pool.from_ratio = true;
  }
  pool.bytes = (CheckedBytes(pool.slots) * cell.bytes).saturated();
  return pool;
}

}  // namespace memfit::sglang
