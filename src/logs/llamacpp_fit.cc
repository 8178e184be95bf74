// llama.cpp's --fit (`-fit on`, the tools' default since it was added):
// the placement and context it chose, read from what it prints, and the
// tensor overrides it set, written as the -ot rules memfit prices.
//
// The rule read (ggml-org/llama.cpp PR #16653: src/llama.cpp,
// llama_params_fit_impl, from b7400; common/fit.cpp,
// common_params_fit_impl, once moved to common; the same indexing in both):
//   - each device ends with n_layer layers of which n_part are "partial"
//     (printed "N layers (M overflowing)" for a MoE model, "N layers" for a
//     dense one, whose layers are whole); -ngl is the sum (the log's
//     "offloaded N/M layers" prints it too), over several devices the
//     tensor split is each device's n_layer;
//   - set_ngl_tensor_split_tbo numbers the layers from il0 = n_layer_total
//     + 1 - ngl (n_layer_total + 1 = "offloaded N/M"'s M, the blocks and
//     the output layer), device by device: its n_full = n_layer - n_part
//     layers first, then its n_part, each partial layer il getting an
//     override "blk\.il\.ffn_(up|down|gate_up|gate)_(ch|)exps" to the CPU
//     (the MoE experts), the first one of a device the pattern of its
//     overflow_type (UP: its gate and down; GATE: its down; ATTN: its
//     whole FFN) to its overflow buffer (the next device's, else the CPU);
//   - on the device holding the output layer the last index is the output
//     layer's (n_layer_total), a "blk.N" no tensor has: it matches nothing,
//     so that device moves the experts of n_part - 1 blocks.
// The overflow type is printed only at debug level ("set
// ngl_per_device[i].(n_layer, n_part, overflow_type)=(a, b, UP)"); without
// that line the first partial layer is priced with its experts moved (the
// default, LAYER_FRACTION_MOE), which the note says.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "logs/llamacpp_lines.h"
#include "memfit/checked_math.h"

namespace memfit::logs {
namespace {

// llama_max_devices(): the fit's per-device arrays are this long.
constexpr uint64_t kMaxFitDevices = 16;
// get_overflow_pattern's table: the fit throws for a layer index past it.
constexpr uint64_t kMaxFitLayers = 1000;
// Block numbers per expert rule: a pattern well under memfit's 512 bytes
// (placement_flags.cc, kMaxPatternBytes) at 3 digits a number.
constexpr size_t kBlocksPerRule = 32;

// "CUDA0 (NVIDIA GeForce RTX 4060): 49 layers (47 overflowing),   5767 MiB
// used, ..." or "ROCm0 (AMD Radeon (TM) Pro VII): 21 layers,   6080 MiB
// used, ...": the device, its layers and overflowing layers (0 in the dense
// form). The multi-device projection lines ("4096 total, ...") are not it.
bool read_device_line(std::string_view rest, LlamaCppReadState& state) {
  const size_t layers_at = rest.find(" layers");
  if (layers_at == std::string_view::npos) return false;
  const size_t close = rest.rfind("): ", layers_at);
  const size_t open = rest.find(" (");
  if (close == std::string_view::npos || open == std::string_view::npos || open > close) return false;
  const std::optional<uint64_t> layers = leading_count(rest.substr(close + 3, layers_at - close - 3));
  if (!layers) return false;
  LlamaCppReadState::FitDevice device{std::string(trim(rest.substr(0, open))), *layers, 0};
  const std::optional<std::string_view> part = after(rest.substr(layers_at), " layers (");
  const bool overflow_form = part && contains(*part, " overflowing)");
  if (overflow_form) {
    const std::optional<uint64_t> n = leading_count(*part);
    if (!n || *n > *layers) return false;
    device.overflowing = *n;
  }
  std::vector<LlamaCppReadState::FitDevice>& devices = state.fit_devices;
  if (overflow_form && !state.fit_overflow_form) devices.clear();  // step 4 supersedes step 3
  state.fit_overflow_form = state.fit_overflow_form || overflow_form;
  auto same = std::find_if(devices.begin(), devices.end(), [&](const auto& d) { return d.name == device.name; });
  if (same != devices.end()) {
    *same = device;
  } else if (devices.size() < kMaxFitDevices) {
    // Step 3 ("filling ... back-to-front") prints the last device first,
    // step 4 ("front-to-back") the first: either way in device order here.
    if (overflow_form) {
      devices.push_back(device);
    } else {
      devices.insert(devices.begin(), device);
    }
  }
  return true;
}

// "set ngl_per_device[0].(n_layer, n_part, overflow_type)=(42, 6, GATE)".
void read_overflow_type(std::string_view rest, LlamaCppReadState& state) {
  const std::optional<uint64_t> id = leading_count(rest);
  const std::optional<std::string_view> values = after(rest, "overflow_type)=(");
  if (!id || !values || *id >= kMaxFitDevices) return;
  const std::string_view inside = values->substr(0, values->find(')'));
  const size_t comma = inside.rfind(", ");
  if (comma == std::string_view::npos) return;
  const std::string_view type = trim(inside.substr(comma + 2));
  if (type != "UP" && type != "GATE" && type != "ATTN") return;
  if (state.fit_first_fraction.size() <= *id) state.fit_first_fraction.resize(*id + 1);
  state.fit_first_fraction[*id] = std::string(type);
}

// The pattern of the tensors one fraction of block `il` moves
// (get_overflow_pattern; searched, as llama.cpp does, so no ".*" tail).
std::string fraction_pattern(uint64_t il, std::string_view fraction) {
  if (fraction == "UP") return fmt::format("blk\\.{}\\.ffn_(gate|gate_up|down)", il);
  if (fraction == "GATE") return fmt::format("blk\\.{}\\.ffn_down", il);
  return fmt::format("blk\\.{}\\.ffn_(gate|up|gate_up|down)", il);  // ATTN
}

// The experts of `blocks`, a rule per kBlocksPerRule of them.
void add_expert_rules(const std::vector<uint64_t>& blocks, std::vector<std::string>& rules) {
  for (size_t at = 0; at < blocks.size(); at += kBlocksPerRule) {
    std::string numbers;
    for (size_t i = at; i < std::min(blocks.size(), at + kBlocksPerRule); ++i) {
      if (!numbers.empty()) numbers += '|';
      numbers += std::to_string(blocks[i]);
    }
    rules.push_back(fmt::format("blk\\.({})\\.ffn_(up|down|gate_up|gate)_(ch)?exps=CPU", numbers));
  }
}

// The overrides set_ngl_tensor_split_tbo sets for `devices` holding `ngl`
// of `offloadable` layers (the blocks and the output layer).
std::vector<std::string> fit_rules(const LlamaCppReadState& state, uint64_t offloadable, uint64_t ngl) {
  std::vector<std::string> rules;
  std::vector<uint64_t> experts;
  const uint64_t blocks = offloadable - 1;
  uint64_t il0 = offloadable - ngl;
  const std::vector<LlamaCppReadState::FitDevice>& devices = state.fit_devices;
  for (size_t id = 0; id < devices.size(); ++id) {
    il0 += devices[id].layers - devices[id].overflowing;
    const std::string fraction = id < state.fit_first_fraction.size() ? state.fit_first_fraction[id] : "";
    for (uint64_t il = il0; il < il0 + devices[id].overflowing && il < blocks; ++il) {
      if (il == il0 && !fraction.empty()) {
        const std::string buffer = id + 1 < devices.size() ? devices[id + 1].name : "CPU";
        rules.push_back(fmt::format("{}={}", fraction_pattern(il, fraction), buffer));
      } else {
        experts.push_back(il);
      }
    }
    il0 += devices[id].overflowing;
  }
  add_expert_rules(experts, rules);
  return rules;
}

}  // namespace

bool read_fit_line(std::string_view text, LlamaCppReadState& state) {
  if (!contains(text, "params_fit") && !contains(text, "fit_params:")) return false;
  if (contains(text, "successfully fit params to free device memory")) state.fit_succeeded = true;
  if (std::optional<std::string_view> reduced = after(text, "context size reduced from ")) {
    if (std::optional<std::string_view> to = after(*reduced, " to ")) state.fit_ctx = leading_count(*to);
  }
  if (std::optional<std::string_view> set = after(text, "set ngl_per_device[")) read_overflow_type(*set, state);
  if (std::optional<std::string_view> rest = after(text, "_fit_impl:   - ")) read_device_line(*rest, state);
  return true;
}

void add_fit_placement(const LlamaCppReadState& state, LogBuilder& out) {
  // Step 2 writes the caller's cparams->n_ctx before any later abort (the
  // -ngl or -ot the user set), so a reduced context stands even when the
  // fit then fails; the layers and overrides are set at its end, only when
  // it succeeds.
  if (state.fit_ctx && out.find_setting("n_ctx") == nullptr) out.setting("n_ctx", std::to_string(*state.fit_ctx));
  if (!state.fit_succeeded) return;
  const std::vector<LlamaCppReadState::FitDevice>& devices = state.fit_devices;
  if (devices.empty()) return;
  if (devices.size() > 1 && out.find_setting("tensor_split") == nullptr) {
    std::string split;
    for (const auto& d : devices) split += (split.empty() ? "" : ",") + std::to_string(d.layers);
    out.setting("tensor_split", split);
  }
  // Layer counts from the log, summed with overflow checked.
  CheckedBytes ngl_sum = 0;
  CheckedBytes overflowing_sum = 0;
  for (const auto& d : devices) {
    ngl_sum += d.layers;
    overflowing_sum += d.overflowing;
  }
  if (!ngl_sum.value() || !overflowing_sum.value() || *overflowing_sum.value() == 0) return;
  const uint64_t ngl = *ngl_sum.value();
  const uint64_t overflowing = *overflowing_sum.value();
  const LogSetting* offloadable_setting = out.find_setting("n_layers_offloadable");
  const std::optional<uint64_t> offloadable =
      offloadable_setting != nullptr ? parse_count(offloadable_setting->value) : std::nullopt;
  if (!offloadable || *offloadable == 0 || *offloadable > kMaxFitLayers || ngl > *offloadable) {
    out.note("--fit's overflowing layers are not placed: the log prints no 'offloaded N/M layers' "
             "line that numbers them");
    return;
  }
  std::string joined;
  for (const std::string& rule : fit_rules(state, *offloadable, ngl)) joined += (joined.empty() ? "" : ",") + rule;
  if (joined.empty()) return;
  out.setting("override_tensor", joined);
  const bool typed = !state.fit_first_fraction.empty();
  out.note(fmt::format("--fit kept {} layers on the GPUs, {} of them overflowing: their experts priced on "
                       "the host as the tensor overrides the fit sets (llama_params_fit_impl, #16653){}",
                       ngl, overflowing,
                       typed ? "" : "; the first overflowing layer's fraction is printed only at debug "
                                    "level: priced with all its experts moved"));
}

}  // namespace memfit::logs
