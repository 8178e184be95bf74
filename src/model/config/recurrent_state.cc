// recurrent_state() (model/config/recurrent_state.h): one layer's state from
// the config's fields, per family: the convolution's K - 1 columns and the
// SSM state of Mamba-1 and Mamba-2 mixers, the gated delta net's convolution
// and recurrent state, lightning attention's state, a short convolution's
// columns, RWKV's token shift and wkv state. The shape of each, in elements:
// docs/cache-layouts.md, "Recurrent state, per layer per sequence".
#include "model/config/recurrent_state.h"

#include <fmt/format.h>

#include "memfit/untrusted_text.h"
#include "memfit/checked_math.h"

namespace memfit {
namespace {

constexpr uint64_t kStateF32Bytes = 4;

// Bytes per SSM-state element: float32 unless the config names a 16-bit
// cache dtype.
uint64_t ssm_state_element_bytes(const FieldReader& reader) {
  for (const char* key : {"mamba_ssm_cache_dtype", "mamba_ssm_dtype"}) {
    std::string dtype = reader.doc().string_field(key);
    if (dtype == "bfloat16" || dtype == "float16" || dtype == "half") return 2;
  }
  return kStateF32Bytes;
}

Result<uint64_t> need(FieldReader& reader, std::initializer_list<std::string_view> aliases) {
  Result<std::optional<uint64_t>> v = reader.u64(aliases);
  if (!v) return v.error();
  if (!v->has_value()) {
    return Error(fmt::format("missing geometry: {} (needed for the {} recurrent state)",
                             *aliases.begin(), escape_untrusted(reader.model_type())));
  }
  return **v;
}

Result<RecurrentState> finish(CheckedBytes conv_elems, CheckedBytes ssm_elems,
                              uint64_t ssm_elem_bytes, std::string detail) {
  CheckedBytes total = conv_elems * kStateF32Bytes + ssm_elems * ssm_elem_bytes;
  if (!total.value()) return Error("recurrent state size overflows");
  return RecurrentState{*total.value(), (conv_elems * kStateF32Bytes).saturated(),
                        std::move(detail), {}, {}};
}

std::string dtype_name(uint64_t bytes) { return bytes == 2 ? "16-bit" : "f32"; }

Result<RecurrentState> mamba1_state(FieldReader& reader, uint64_t hidden, bool jamba) {
  uint64_t expand_default_inner = 0;
  Result<uint64_t> kernel = need(reader, {jamba ? "mamba_d_conv" : "conv_kernel"});
  if (!kernel) return kernel.error();
  Result<uint64_t> state = need(reader, {jamba ? "mamba_d_state" : "state_size"});
  if (!state) return state.error();
  Result<uint64_t> expand = need(reader, {jamba ? "mamba_expand" : "expand"});
  if (!expand) return expand.error();
  const std::optional<uint64_t> expanded = (CheckedBytes(*expand) * hidden).value();
  if (!expanded) return Error("recurrent state size overflows");
  expand_default_inner = *expanded;
  uint64_t d_inner = expand_default_inner;
  if (!jamba) {
    Result<std::optional<uint64_t>> inner = reader.doc().u64({"intermediate_size"});
    if (!inner) return inner.error();
    if (inner->has_value()) d_inner = **inner;
  }
  uint64_t k = *kernel > 0 ? *kernel - 1 : 0;
  uint64_t ssm_bytes = ssm_state_element_bytes(reader);
  return finish(CheckedBytes(k) * d_inner, CheckedBytes(d_inner) * *state, ssm_bytes,
                fmt::format("conv {}x{} + ssm {}x{}, {}", k, d_inner, d_inner, *state,
                            dtype_name(ssm_bytes)));
}

struct Mamba2Fields {
  std::string_view heads, head_dim, groups, state, kernel;
  std::string_view d_ssm;  // a field giving the SSM width directly ("" if none)
};

// A dimension that may be the string "auto" (Granite, Falcon-H1): nullopt then.
Result<std::optional<uint64_t>> auto_dim(FieldReader& reader, std::string_view field) {
  const nlohmann::json* value = reader.doc().find(field);
  if (value != nullptr && value->is_string() && value->get<std::string>() == "auto") {
    return std::optional<uint64_t>();
  }
  return reader.u64({field});
}

// Mamba-2 mixers. d_ssm, the SSM width, is the d_ssm field when the family
// has one, else heads x head_dim when both are given, else expand x hidden
// (head_dim "auto" is then d_ssm / heads).
Result<RecurrentState> mamba2_state(FieldReader& reader, uint64_t hidden, const Mamba2Fields& f) {
  Result<uint64_t> heads = need(reader, {f.heads});
  if (!heads) return heads.error();
  Result<uint64_t> groups = need(reader, {f.groups});
  if (!groups) return groups.error();
  Result<uint64_t> state = need(reader, {f.state});
  if (!state) return state.error();
  Result<uint64_t> kernel = need(reader, {f.kernel});
  if (!kernel) return kernel.error();
  Result<std::optional<uint64_t>> head_dim = auto_dim(reader, f.head_dim);
  if (!head_dim) return head_dim.error();
  std::optional<uint64_t> d_ssm;
  if (!f.d_ssm.empty()) {
    Result<std::optional<uint64_t>> given = reader.doc().u64({f.d_ssm});
    if (!given) return given.error();
    d_ssm = *given;
  }
  if (!d_ssm && head_dim->has_value()) {
    d_ssm = (CheckedBytes(*heads) * **head_dim).value();
    if (!d_ssm) return Error("recurrent state size overflows");
  }
  if (!d_ssm) {
    Result<uint64_t> expand = reader.u64_or({"mamba_expand", "expand"}, 2, "Mamba-2 default");
    if (!expand) return expand.error();
    d_ssm = (CheckedBytes(*expand) * hidden).value();
    if (!d_ssm) return Error("recurrent state size overflows");
  }
  if (*heads == 0) return Error("Mamba-2 head count must be positive");
  uint64_t per_head = head_dim->has_value() ? **head_dim : *d_ssm / *heads;
  CheckedBytes conv_dim = CheckedBytes(*d_ssm) + CheckedBytes(2) * *groups * *state;
  uint64_t k = *kernel > 0 ? *kernel - 1 : 0;
  uint64_t ssm_bytes = ssm_state_element_bytes(reader);
  Result<RecurrentState> out =
      finish(conv_dim * k, CheckedBytes(*heads) * per_head * *state, ssm_bytes,
             fmt::format("conv {}x{} + ssm {}x{}x{}, {}", k, conv_dim.saturated(), *heads,
                         per_head, *state, dtype_name(ssm_bytes)));
  if (out) out->mamba2 = Mamba2Geometry{*heads, *d_ssm, *groups, *state, *kernel, 0};
  return out;
}

Result<RecurrentState> gated_delta_state(FieldReader& reader) {
  Result<uint64_t> key_heads = need(reader, {"linear_num_key_heads"});
  if (!key_heads) return key_heads.error();
  Result<uint64_t> value_heads = need(reader, {"linear_num_value_heads"});
  if (!value_heads) return value_heads.error();
  Result<uint64_t> key_dim = need(reader, {"linear_key_head_dim"});
  if (!key_dim) return key_dim.error();
  Result<uint64_t> value_dim = need(reader, {"linear_value_head_dim"});
  if (!value_dim) return value_dim.error();
  Result<uint64_t> kernel = need(reader, {"linear_conv_kernel_dim"});
  if (!kernel) return kernel.error();
  CheckedBytes conv_dim =
      CheckedBytes(2) * *key_heads * *key_dim + CheckedBytes(*value_heads) * *value_dim;
  uint64_t k = *kernel > 0 ? *kernel - 1 : 0;
  CheckedBytes recurrent = CheckedBytes(*value_heads) * *key_dim * *value_dim;
  Result<RecurrentState> out =
      finish(conv_dim * k, recurrent, kStateF32Bytes,
             fmt::format("conv {}x{} + delta state {}x{}x{}, f32", k, conv_dim.saturated(),
                         *value_heads, *key_dim, *value_dim));
  if (out) out->gated_delta = GatedDeltaGeometry{*key_heads, *value_heads, *key_dim, *value_dim, *kernel};
  return out;
}

}  // namespace

Result<RecurrentState> recurrent_state(LayerKind kind, FieldReader& reader, uint64_t hidden) {
  const std::string& type = reader.model_type();
  if (kind == LayerKind::kConv) {
    Result<uint64_t> cache = need(reader, {"conv_L_cache"});
    if (!cache) return cache.error();
    uint64_t k = *cache > 0 ? *cache - 1 : 0;
    return finish(CheckedBytes(k) * hidden, 0, kStateF32Bytes,
                  fmt::format("conv {}x{}, f32", k, hidden));
  }
  if (kind == LayerKind::kLinearAttention) {
    if (type.rfind("minimax", 0) == 0) {
      Result<std::optional<uint64_t>> heads = reader.u64({"num_attention_heads"});
      if (!heads) return heads.error();
      Result<std::optional<uint64_t>> head_dim = reader.u64({"head_dim"});
      if (!head_dim) return head_dim.error();
      if (!heads->has_value() || **heads == 0) return Error("missing geometry: num_attention_heads");
      uint64_t hd = head_dim->value_or(hidden / **heads);
      return finish(0, CheckedBytes(**heads) * hd * hd, kStateF32Bytes,
                    fmt::format("lightning state {}x{}x{}, f32", **heads, hd, hd));
    }
    return gated_delta_state(reader);
  }
  // kSsm
  if (type == "rwkv") {
    return finish(CheckedBytes(5) * hidden, 0, kStateF32Bytes,
                  fmt::format("5x{} token state, f32", hidden));
  }
  if (type.rfind("rwkv", 0) == 0) {
    Result<uint64_t> head_size = need(reader, {"head_size", "head_dim"});
    if (!head_size) return head_size.error();
    return finish(CheckedBytes(2) * hidden, CheckedBytes(hidden) * *head_size, kStateF32Bytes,
                  fmt::format("shift 2x{} + wkv {}x{}, f32", hidden, hidden, *head_size));
  }
  if (type == "mamba2") {
    return mamba2_state(reader, hidden,
                        {"num_heads", "head_dim", "n_groups", "state_size", "conv_kernel", ""});
  }
  if (type == "nemotron_h") {
    return mamba2_state(reader, hidden, {"mamba_num_heads", "mamba_head_dim", "n_groups",
                                         "ssm_state_size", "conv_kernel", ""});
  }
  if (type == "granitemoehybrid" || type == "falcon_h1" || type == "bamba" || type == "zamba2") {
    return mamba2_state(reader, hidden, {"mamba_n_heads", "mamba_d_head", "mamba_n_groups",
                                         "mamba_d_state", "mamba_d_conv", "mamba_d_ssm"});
  }
  return mamba1_state(reader, hidden, /*jamba=*/type == "jamba");
}

}  // namespace memfit
