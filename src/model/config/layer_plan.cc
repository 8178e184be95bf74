// plan_layers() (model/config/layer_plan.h): first decide each layer's slot
// (full / sliding / chunked attention, linear attention, SSM, conv, shared,
// none) from whichever per-layer description the config carries; then price
// each slot. Keeping the two steps apart means a new config form only adds
// a slot reader.
#include "model/config/layer_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "memfit/untrusted_text.h"
#include "memfit/checked_math.h"
#include "model/config/recurrent_state.h"

namespace memfit {
namespace {

enum class Slot { kFull, kSliding, kChunked, kLinear, kSsm, kConv, kShared, kNone };

using Slots = std::vector<Slot>;

bool is_pure_ssm(const std::string& type) {
  return type == "mamba" || type == "mamba2" || type == "falcon_mamba" || type == "rwkv" ||
         type == "rwkv5" || type == "rwkv6" || type == "rwkv7";
}

std::optional<Slot> slot_from_name(const std::string& name) {
  if (name == "full_attention" || name == "attention" || name == "global" ||
      name == "global_attention" || name == "full" || name == "hybrid")
    return Slot::kFull;
  if (name == "sliding_attention" || name == "sliding" || name == "local" ||
      name == "local_attention" || name == "swa")
    return Slot::kSliding;
  if (name == "chunked_attention" || name == "chunked") return Slot::kChunked;
  if (name == "linear_attention" || name == "linear" || name == "lightning") return Slot::kLinear;
  if (name == "mamba" || name == "mamba2" || name == "ssm" || name == "m2" || name == "recurrent")
    return Slot::kSsm;
  if (name == "conv" || name == "short_conv" || name == "shortconv") return Slot::kConv;
  if (name == "mlp" || name == "moe" || name == "none") return Slot::kNone;
  return std::nullopt;
}

// A list field of per-layer names (layer_types, layers_block_type,
// block_types). Must cover every layer; extra trailing entries (MTP
// layers some configs list) are ignored.
Result<std::optional<Slots>> slots_from_names(const ConfigDocument& doc, std::string_view field,
                                              uint64_t layers, FieldReader& reader) {
  const nlohmann::json* list = doc.find(field);
  if (list == nullptr) return std::optional<Slots>();
  if (!list->is_array()) return Error(fmt::format("{}: expected a list of strings", field));
  if (list->size() < layers) {
    return Error(fmt::format("{} has {} entries but the model has {} layers", field,
                             list->size(), layers));
  }
  Slots slots;
  slots.reserve(layers);
  for (uint64_t i = 0; i < layers; ++i) {
    const nlohmann::json& item = (*list)[i];
    if (!item.is_string()) {
      return Error(
          fmt::format("{}[{}]: expected a string, got {}", field, i, show_untrusted_json(item)));
    }
    std::optional<Slot> slot = slot_from_name(item.get<std::string>());
    if (!slot) {
      reader.assume(fmt::format("{}[{}] = {} is unknown; counted as full attention", field, i,
                                show_untrusted_json(item)));
      slot = Slot::kFull;
    }
    slots.push_back(*slot);
  }
  return std::optional<Slots>(std::move(slots));
}

// Nemotron-H: one character per layer; M = Mamba, * = attention,
// - = MLP, E = MoE.
Result<std::optional<Slots>> slots_from_pattern(const ConfigDocument& doc, uint64_t layers) {
  const nlohmann::json* pattern = doc.find("hybrid_override_pattern");
  if (pattern == nullptr) return std::optional<Slots>();
  if (!pattern->is_string()) return Error("hybrid_override_pattern: expected a string");
  const std::string text = pattern->get<std::string>();
  if (text.size() != layers) {
    return Error(fmt::format("hybrid_override_pattern has {} characters but the model has {} layers",
                             text.size(), layers));
  }
  Slots slots;
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
      case 'M': slots.push_back(Slot::kSsm); break;
      case '*': slots.push_back(Slot::kFull); break;
      case '-':
      case 'E': slots.push_back(Slot::kNone); break;
      default:
        return Error(fmt::format("hybrid_override_pattern[{}] = {} is not one of M * - E", i,
                                 quote_untrusted(text.substr(i, 1))));
    }
  }
  return std::optional<Slots>(std::move(slots));
}

// A list of layer indices that are full attention; the others are `rest`.
Result<std::optional<Slots>> slots_from_indices(const ConfigDocument& doc, std::string_view field,
                                                uint64_t layers, Slot rest) {
  const nlohmann::json* list = doc.find(field);
  if (list == nullptr) return std::optional<Slots>();
  if (!list->is_array()) return Error(fmt::format("{}: expected a list of layer indices", field));
  Slots slots(layers, rest);
  for (const nlohmann::json& item : *list) {
    Result<uint64_t> index = json_to_u64(item, field);
    if (!index) return index.error();
    if (*index >= layers) {
      return Error(fmt::format("{}: layer {} is past the model's {} layers", field, *index, layers));
    }
    slots[*index] = Slot::kFull;
  }
  return std::optional<Slots>(std::move(slots));
}

// MiMo-V2-Flash: hybrid_layer_pattern, one 0 or 1 per layer, 1 a
// sliding-window layer (MiMoV2FlashDecoderLayer's is_sliding_window =
// hybrid_layer_pattern[i] == 1 in SGLang's and mlx-lm's mimo_v2_flash.py).
// A string of that name (Megatron's layer codes) is another format: not read.
Result<std::optional<Slots>> slots_from_layer_pattern(const ConfigDocument& doc, uint64_t layers) {
  const nlohmann::json* list = doc.find("hybrid_layer_pattern");
  if (list == nullptr || !list->is_array()) return std::optional<Slots>();
  if (list->size() < layers) {
    return Error(fmt::format("hybrid_layer_pattern has {} entries but the model has {} layers",
                             list->size(), layers));
  }
  Slots slots;
  for (uint64_t i = 0; i < layers; ++i) {
    Result<uint64_t> v = json_to_u64((*list)[i], "hybrid_layer_pattern");
    if (!v) return v.error();
    if (*v > 1) return Error(fmt::format("hybrid_layer_pattern[{}] = {} is not 0 or 1", i, *v));
    slots.push_back(*v == 1 ? Slot::kSliding : Slot::kFull);
  }
  return std::optional<Slots>(std::move(slots));
}

// MiniMax-Text-01: attn_type_list, 0 = lightning (linear), 1 = softmax.
Result<std::optional<Slots>> slots_from_attn_type_list(const ConfigDocument& doc, uint64_t layers) {
  const nlohmann::json* list = doc.find("attn_type_list");
  if (list == nullptr) return std::optional<Slots>();
  if (!list->is_array() || list->size() < layers) {
    return Error(fmt::format("attn_type_list: expected a list of {} 0/1 entries", layers));
  }
  Slots slots;
  for (uint64_t i = 0; i < layers; ++i) {
    Result<uint64_t> v = json_to_u64((*list)[i], "attn_type_list");
    if (!v) return v.error();
    slots.push_back(*v == 1 ? Slot::kFull : Slot::kLinear);
  }
  return std::optional<Slots>(std::move(slots));
}

Result<std::optional<Slots>> slots_from_periods(FieldReader& reader, uint64_t layers) {
  const ConfigDocument& doc = reader.doc();
  if (doc.find("attn_layer_period") != nullptr || reader.model_type() == "jamba") {
    // Jamba: layer i is attention when i % period == offset, else Mamba.
    Result<std::optional<uint64_t>> period = reader.u64({"attn_layer_period"});
    if (!period) return period.error();
    Result<std::optional<uint64_t>> offset = reader.u64({"attn_layer_offset"});
    if (!offset) return offset.error();
    if (period->value_or(0) == 0) return Error("attn_layer_period must be positive");
    Slots slots;
    for (uint64_t i = 0; i < layers; ++i) {
      slots.push_back(i % **period == offset->value_or(0) ? Slot::kFull : Slot::kSsm);
    }
    return std::optional<Slots>(std::move(slots));
  }
  if (doc.find("full_attention_interval") != nullptr) {
    // Qwen3-Next: layer i is full attention when (i + 1) % interval == 0.
    Result<std::optional<uint64_t>> interval = reader.u64({"full_attention_interval"});
    if (!interval) return interval.error();
    if (**interval == 0) return Error("full_attention_interval must be positive");
    Slots slots;
    for (uint64_t i = 0; i < layers; ++i) {
      slots.push_back((i + 1) % **interval == 0 ? Slot::kFull : Slot::kLinear);
    }
    return std::optional<Slots>(std::move(slots));
  }
  return std::optional<Slots>();
}

// Nemotron-NAS / DeciLM: one object per layer; attention.no_op and
// attention.replace_with_linear layers hold no cache; the others have
// heads / n_heads_in_group KV heads. Fills `kv_heads` per layer.
Result<std::optional<Slots>> slots_from_block_configs(const ConfigDocument& doc, uint64_t layers,
                                                      uint64_t heads,
                                                      std::vector<uint64_t>& kv_heads) {
  const nlohmann::json* list = doc.find("block_configs");
  if (list == nullptr) return std::optional<Slots>();
  if (!list->is_array() || list->size() != layers) {
    return Error(fmt::format("block_configs: expected a list of {} layer objects", layers));
  }
  Slots slots;
  kv_heads.assign(layers, 0);
  for (uint64_t i = 0; i < layers; ++i) {
    const nlohmann::json& block = (*list)[i];
    const auto found = block.find("attention");  // end() for a block that is not an object
    if (found == block.end() || !found->is_object()) {
      return Error(fmt::format("block_configs[{}]: expected an \"attention\" object", i));
    }
    const nlohmann::json* attention = &*found;
    bool no_op = false;
    for (std::string_view flag : {"no_op", "replace_with_linear"}) {
      auto value = attention->find(flag);
      if (value == attention->end() || value->is_null()) continue;
      if (!value->is_boolean()) {
        return Error(fmt::format("block_configs[{}].attention.{}: expected true or false, got {}",
                                 i, flag, show_untrusted_json(*value)));
      }
      no_op = no_op || value->get<bool>();
    }
    if (no_op) {
      slots.push_back(Slot::kNone);
      continue;
    }
    auto group = attention->find("n_heads_in_group");
    if (group == attention->end()) {
      return Error(fmt::format("block_configs[{}].attention: missing n_heads_in_group", i));
    }
    Result<uint64_t> per_group = json_to_u64(*group, "n_heads_in_group");
    if (!per_group) return per_group.error();
    if (*per_group == 0 || heads % *per_group != 0) {
      return Error(fmt::format("block_configs[{}].attention: n_heads_in_group {} does not divide {} heads",
                               i, *per_group, heads));
    }
    kv_heads[i] = heads / *per_group;
    slots.push_back(Slot::kFull);
  }
  return std::optional<Slots>(std::move(slots));
}

// The hybrid / per-layer description, if the config has one.
Result<std::optional<Slots>> explicit_slots(FieldReader& reader, const ModelGeometry& g,
                                            std::vector<uint64_t>& kv_heads) {
  const ConfigDocument& doc = reader.doc();
  for (std::string_view field : {"layer_types", "layers_block_type", "block_types"}) {
    Result<std::optional<Slots>> s = slots_from_names(doc, field, g.layers, reader);
    if (!s || s->has_value()) return s;
  }
  Result<std::optional<Slots>> s = slots_from_pattern(doc, g.layers);
  if (!s || s->has_value()) return s;
  s = slots_from_layer_pattern(doc, g.layers);
  if (!s || s->has_value()) return s;
  s = slots_from_attn_type_list(doc, g.layers);
  if (!s || s->has_value()) return s;
  s = slots_from_indices(doc, "full_attn_idxs", g.layers, Slot::kConv);
  if (!s || s->has_value()) return s;
  s = slots_from_periods(reader, g.layers);
  if (!s || s->has_value()) return s;
  return slots_from_block_configs(doc, g.layers, g.heads, kv_heads);
}

struct Window {
  uint64_t tokens = 0;  // 0: no sliding window applies
};

// The sliding window, when it applies: sliding_window > 0 and not
// use_sliding_window: false.
Result<Window> sliding_window(FieldReader& reader) {
  Result<std::optional<bool>> use = reader.doc().boolean("use_sliding_window");
  if (!use) return use.error();
  if (use->has_value() && !**use) return Window{};
  // An explicit null means "no window" even where the family has a default.
  auto& text = reader.doc().text();
  auto it = text.find("sliding_window");
  if (it != text.end() && it->is_null()) return Window{};
  Result<std::optional<uint64_t>> window = reader.u64({"sliding_window"});
  if (!window) return window.error();
  return Window{window->value_or(0)};
}

// Which layers are windowed when the config has no per-layer list:
// sliding_window_pattern p makes every p-th layer global (layers/p of
// them); without a pattern every layer is windowed.
Result<Slots> sliding_slots(FieldReader& reader, uint64_t layers) {
  Result<std::optional<uint64_t>> pattern = reader.u64({"sliding_window_pattern"});
  if (!pattern) return pattern.error();
  Slots slots;
  for (uint64_t i = 0; i < layers; ++i) {
    bool global = pattern->has_value() && **pattern > 0 && (i + 1) % **pattern == 0;
    slots.push_back(global ? Slot::kFull : Slot::kSliding);
  }
  return slots;
}

// Llama 4: layers with RoPE attend within chunks of attention_chunk_size;
// no_rope_layers[i] == 0 marks the global (NoPE) layers, by default every
// fourth.
Result<std::optional<Slots>> chunked_slots(FieldReader& reader, uint64_t layers, uint64_t& chunk) {
  Result<std::optional<uint64_t>> size = reader.u64({"attention_chunk_size"});
  if (!size) return size.error();
  if (!size->has_value() || **size == 0) return std::optional<Slots>();
  chunk = **size;
  const nlohmann::json* no_rope = reader.doc().find("no_rope_layers");
  Slots slots;
  if (no_rope != nullptr && no_rope->is_array() && no_rope->size() >= layers) {
    for (uint64_t i = 0; i < layers; ++i) {
      Result<uint64_t> v = json_to_u64((*no_rope)[i], "no_rope_layers");
      if (!v) return v.error();
      slots.push_back(*v != 0 ? Slot::kChunked : Slot::kFull);
    }
  } else {
    Result<uint64_t> interval =
        reader.u64_or({"no_rope_layer_interval"}, 4, "llama4 default: every 4th layer is global");
    if (!interval) return interval.error();
    for (uint64_t i = 0; i < layers; ++i) {
      slots.push_back(*interval > 0 && (i + 1) % *interval == 0 ? Slot::kFull : Slot::kChunked);
    }
  }
  return std::optional<Slots>(std::move(slots));
}

struct AttentionRate {
  uint64_t elems_per_token = 0;  // for a layer with the model's kv_heads
  uint64_t k_elems = 0;          // K's share where K and V differ in width (LayerCache)
  bool mla = false;
  uint64_t index_elems = 0;      // MLA indexer elements on indexer layers
  uint64_t latent_elems = 0;     // an MLA latent's kv_lora_rank (LayerCache::latent_elems)
  std::string detail;
};

Result<AttentionRate> attention_rate(FieldReader& reader, const ModelGeometry& g) {
  AttentionRate rate;
  Result<std::optional<uint64_t>> rank = reader.doc().u64({"kv_lora_rank"});
  if (!rank) return rank.error();
  if (rank->has_value()) {
    rate.mla = true;
    Result<uint64_t> rope = reader.u64_or({"qk_rope_head_dim"}, 64, "MLA default");
    if (!rope) return rope.error();
    if (reader.model_type() == "deepseek_v2") {
      // DeepSeek-V2 as the MLX runtime serves it, and any deepseek2 GGUF
      // without the MLA keys (model/gguf/arch_rules.cc) as llama.cpp runs
      // it: decompressed per-head K (nope + rope) and V, of their own widths.
      Result<uint64_t> nope = reader.u64_or({"qk_nope_head_dim"}, 128, "MLA default");
      if (!nope) return nope.error();
      Result<uint64_t> v = reader.u64_or({"v_head_dim"}, 128, "MLA default");
      if (!v) return v.error();
      CheckedBytes k = CheckedBytes(g.heads) * (CheckedBytes(*nope) + *rope);
      CheckedBytes elems = k + CheckedBytes(g.heads) * *v;
      if (!elems.value()) return Error("MLA cache size overflows");
      rate.elems_per_token = *elems.value();
      rate.k_elems = *k.value();  // at most elems, checked above
      rate.detail = fmt::format("MLA decompressed: {} heads x ({} nope + {} rope + {} v)", g.heads,
                                *nope, *rope, *v);
    } else {
      CheckedBytes elems = CheckedBytes(**rank) + *rope;
      if (!elems.value()) return Error("MLA cache size overflows");
      rate.elems_per_token = *elems.value();
      rate.latent_elems = **rank;
      rate.detail = fmt::format("MLA latent: {} kv_lora_rank + {} rope", **rank, *rope);
    }
    Result<std::optional<uint64_t>> index = reader.doc().u64({"index_head_dim"});
    if (!index) return index.error();
    if (index->has_value()) {
      rate.index_elems = **index;
      rate.detail += fmt::format(" + {} indexer key", **index);
    }
    return rate;
  }
  if (g.kv_heads == 0 || g.head_dim == 0) {
    return Error("missing geometry: attention layers need num_key_value_heads and head_dim "
                 "(or hidden_size and num_attention_heads)");
  }
  CheckedBytes elems = CheckedBytes(2) * g.kv_heads * g.head_dim;
  if (!elems.value()) return Error("KV cache size overflows");
  rate.elems_per_token = *elems.value();
  rate.detail = fmt::format("2 x {} kv heads x {} head_dim", g.kv_heads, g.head_dim);
  return rate;
}

std::string layout_name(const Slots& slots, bool mla) {
  bool any_state = false, all_ssm = true, any_sliding = false, any_chunked = false;
  for (Slot s : slots) {
    any_state |= s == Slot::kLinear || s == Slot::kSsm || s == Slot::kConv || s == Slot::kNone ||
                 s == Slot::kShared;
    all_ssm &= s == Slot::kSsm;
    any_sliding |= s == Slot::kSliding;
    any_chunked |= s == Slot::kChunked;
  }
  if (all_ssm) return "ssm";
  if (any_state) return "hybrid";
  if (mla) return "mla";
  if (any_chunked) return "chunked";
  if (any_sliding) return "sliding_window";
  return "standard";
}

// The slots of a config with no per-layer description: Llama 4's chunks,
// else the sliding window's pattern, else every layer full attention.
Result<Slots> implicit_slots(FieldReader& reader, uint64_t layers, uint64_t& chunk_tokens) {
  Result<std::optional<Slots>> chunked = chunked_slots(reader, layers, chunk_tokens);
  if (!chunked) return chunked.error();
  if (chunked->has_value()) return std::move(**chunked);
  Result<Window> window = sliding_window(reader);
  if (!window) return window.error();
  if (window->tokens > 0) return sliding_slots(reader, layers);
  return Slots(layers, Slot::kFull);
}

// Each layer's slot: pure SSM model types, Granite 4's all-Mamba default,
// the config's per-layer description, or implicit_slots. Block configs
// fill `per_layer_kv_heads`; Llama 4's chunks set `chunk_tokens`.
Result<Slots> read_slots(FieldReader& reader, const ModelGeometry& g,
                         std::vector<uint64_t>& per_layer_kv_heads, uint64_t& chunk_tokens) {
  const std::string& type = reader.model_type();
  if (is_pure_ssm(type)) return Slots(g.layers, Slot::kSsm);
  if (type == "granitemoehybrid" && reader.doc().find("layer_types") == nullptr &&
      reader.doc().find("layers_block_type") == nullptr) {
    // GraniteMoeHybridConfig: with no layer_types, every layer is Mamba.
    reader.assume("layer_types = all mamba (granitemoehybrid default)");
    return Slots(g.layers, Slot::kSsm);
  }
  Result<std::optional<Slots>> given = explicit_slots(reader, g, per_layer_kv_heads);
  if (!given) return given.error();
  if (given->has_value()) return std::move(**given);
  return implicit_slots(reader, g.layers, chunk_tokens);
}

// Gemma 3n: the last num_kv_shared_layers layers read earlier layers' KV.
Status mark_shared_layers(FieldReader& reader, uint64_t layers, Slots& slots) {
  Result<std::optional<uint64_t>> shared = reader.doc().u64({"num_kv_shared_layers"});
  if (!shared) return shared.error();
  if (shared->has_value() && **shared > 0) {
    uint64_t n = std::min<uint64_t>(**shared, layers);
    for (uint64_t i = layers - n; i < layers; ++i) slots[i] = Slot::kShared;
  }
  return Status::Ok();
}

// The fixed state of the layers that keep no per-token KV, read once per
// kind (ssm, linear, conv) on first use, in layer order.
class StateReader {
 public:
  StateReader(FieldReader& reader, uint64_t hidden) : reader_(reader), hidden_(hidden) {}

  // One layer's state bytes; an SSM layer is counted as holding a mixer.
  Result<uint64_t> bytes(LayerKind kind) {
    int slot = kind == LayerKind::kSsm ? 0 : kind == LayerKind::kLinearAttention ? 1 : 2;
    if (kind == LayerKind::kSsm) ++ssm_layers_;
    if (!state_of_[slot]) {
      Result<RecurrentState> s = recurrent_state(kind, reader_, hidden_);
      if (!s) return s.error();
      state_of_[slot] = std::move(*s);
    }
    return state_of_[slot]->bytes;
  }

  // The states' details, the largest convolution state, the Mamba-2
  // shape and the gated delta nets' widths, into the plan.
  void describe(LayerPlan& plan, std::vector<std::string>& details) const {
    for (const auto& s : state_of_) {
      if (s) details.push_back(s->detail);
      if (s) plan.conv_state_bytes = std::max(plan.conv_state_bytes, s->conv_bytes);
    }
    if (state_of_[0] && state_of_[0]->mamba2.heads != 0) {
      plan.mamba2 = state_of_[0]->mamba2;
      plan.mamba2.layers = ssm_layers_;
    }
    if (state_of_[1]) plan.gated_delta = state_of_[1]->gated_delta;
  }

 private:
  FieldReader& reader_;
  uint64_t hidden_;
  std::optional<RecurrentState> state_of_[3];  // cache per kind: ssm, linear, conv
  uint64_t ssm_layers_ = 0;  // layers holding an SSM mixer (called once per such layer)
};

// One attention layer's cache geometry when K and V differ in width.
struct KvShape {
  uint64_t kv_heads = 0;
  uint64_t k_dim = 0;
  uint64_t v_dim = 0;
};

// The shapes of a config that gives V its own head dim (v_head_dim outside
// MLA) or its sliding-window layers their own heads: MiMo-V2-Flash caches
// K at head_dim 192 and V at v_head_dim 128, its sliding-window layers
// swa_num_key_value_heads at swa_head_dim and swa_v_head_dim (MiMoV2Flash
// attention; SGLang's HybridSWAPoolConfigurator, sgl-project/sglang#18039,
// sizes each pool's token at kv heads x (head_dim + v_head_dim) x dtype).
// Neither is set for any other config.
struct KvShapes {
  std::optional<KvShape> full;
  std::optional<KvShape> sliding;
};

Result<KvShapes> kv_shapes(FieldReader& reader, const ModelGeometry& g, bool mla) {
  KvShapes shapes;
  if (mla) return shapes;
  const ConfigDocument& doc = reader.doc();
  Result<std::optional<uint64_t>> v = doc.u64({"v_head_dim"});
  Result<std::optional<uint64_t>> swa_heads = doc.u64({"swa_num_key_value_heads"});
  Result<std::optional<uint64_t>> swa_k = doc.u64({"swa_head_dim"});
  Result<std::optional<uint64_t>> swa_v = doc.u64({"swa_v_head_dim"});
  for (const auto* r : {&v, &swa_heads, &swa_k, &swa_v}) {
    if (!*r) return r->error();
  }
  if (!v->has_value() && !swa_heads->has_value() && !swa_k->has_value() && !swa_v->has_value()) {
    return shapes;
  }
  const KvShape full{g.kv_heads, g.head_dim, v->value_or(g.head_dim)};
  if (full.kv_heads == 0 || full.k_dim == 0 || full.v_dim == 0) {
    return Error("v_head_dim: the layers' kv heads and head_dim are needed beside it");
  }
  shapes.full = full;
  shapes.sliding = KvShape{swa_heads->value_or(full.kv_heads), swa_k->value_or(full.k_dim),
                           swa_v->value_or(full.v_dim)};
  if (shapes.sliding->kv_heads == 0 || shapes.sliding->k_dim == 0 || shapes.sliding->v_dim == 0) {
    return Error("swa_num_key_value_heads, swa_head_dim and swa_v_head_dim must be positive");
  }
  return shapes;
}

// Gemma 4's global (full-attention) layers: heads of global_head_dim
// where the sliding layers' are head_dim, and num_global_key_value_heads
// KV heads where the config sets them (the 31B's, with attention_k_eq_v).
// transformers' Gemma4TextConfig; Ollama's convert/convert_gemma4.go
// writes them as GGUF key_length (global) against key_length_swa, and a
// per-layer head_count_kv; llama.cpp sizes each layer's K and V rows by
// its own n_embd_head_k(il) x n_head_kv(il) (llama_hparams::n_embd_k_gqa).
// Either unset: the model's own. The full layers' KvShape (K and V
// alike), nullopt when the config sets neither.
Result<std::optional<KvShape>> global_shape(FieldReader& reader, const ModelGeometry& g) {
  Result<std::optional<uint64_t>> dim = reader.doc().u64({"global_head_dim"});
  if (!dim) return dim.error();
  Result<std::optional<uint64_t>> kv = reader.doc().u64({"num_global_key_value_heads"});
  if (!kv) return kv.error();
  const uint64_t head_dim = dim->value_or(0);
  const uint64_t kv_heads = kv->value_or(0);
  if (head_dim == 0 && kv_heads == 0) return std::optional<KvShape>();
  const uint64_t heads = kv_heads != 0 ? kv_heads : g.kv_heads;
  const uint64_t width = head_dim != 0 ? head_dim : g.head_dim;
  return std::optional<KvShape>(KvShape{heads, width, width});
}

// What an attention layer's cache is priced with.
struct AttentionPricing {
  const AttentionRate& rate;
  const std::vector<uint64_t>& per_layer_kv_heads;  // empty: the model's kv_heads
  uint64_t window_tokens = 0;  // the sliding window, 0 when none applies
  uint64_t chunk_tokens = 0;
  bool parallel_ssm = false;   // Falcon-H1: a Mamba-2 mixer beside the attention
  KvShapes shapes;             // K and V of their own widths (kv_shapes, global_shape), else none
};

// An attention layer (slot full, sliding or chunked) of layer index i.
Result<LayerCache> attention_layer(Slot slot, uint64_t i, const ModelGeometry& g,
                                   const AttentionPricing& p, StateReader& states) {
  LayerCache layer;
  const CheckedBytes rate_elems = CheckedBytes(p.rate.elems_per_token) + p.rate.index_elems;
  if (!rate_elems.value()) return Error("KV cache size overflows");
  layer.elems_per_token = *rate_elems.value();
  if (!p.per_layer_kv_heads.empty() && g.kv_heads > 0) {
    CheckedBytes elems = CheckedBytes(2) * p.per_layer_kv_heads[i] * g.head_dim;
    if (!elems.value()) return Error("KV cache size overflows");
    layer.elems_per_token = *elems.value();
  }
  const std::optional<KvShape> shape = slot == Slot::kSliding ? p.shapes.sliding
                                       : slot == Slot::kFull  ? p.shapes.full
                                                              : std::optional<KvShape>();
  if (shape) {
    CheckedBytes elems = CheckedBytes(shape->kv_heads) * (CheckedBytes(shape->k_dim) + shape->v_dim);
    if (!elems.value()) return Error("KV cache size overflows");
    layer.elems_per_token = *elems.value();
  }
  if (p.rate.mla) {
    layer.kind = LayerKind::kMlaLatent;
    layer.k_elems_per_token = p.rate.k_elems;
    layer.latent_elems = p.rate.latent_elems;
    layer.index_elems = p.rate.index_elems;
  } else if (slot == Slot::kSliding && p.window_tokens > 0) {
    layer.kind = LayerKind::kSlidingWindow;
    layer.window_tokens = p.window_tokens;
  } else if (slot == Slot::kChunked) {
    layer.kind = LayerKind::kChunked;
    layer.window_tokens = p.chunk_tokens;
  } else {
    layer.kind = LayerKind::kFullAttention;
  }
  if (p.parallel_ssm) {
    Result<uint64_t> s = states.bytes(LayerKind::kSsm);
    if (!s) return s.error();
    layer.state_bytes = *s;
  }
  return layer;
}

// One layer's cache from its slot.
Result<LayerCache> layer_cache(Slot slot, uint64_t i, const ModelGeometry& g,
                               const AttentionPricing& p, StateReader& states) {
  LayerCache layer;
  switch (slot) {
    case Slot::kFull:
    case Slot::kSliding:
    case Slot::kChunked:
      return attention_layer(slot, i, g, p, states);
    case Slot::kLinear:
    case Slot::kSsm:
    case Slot::kConv: {
      layer.kind = slot == Slot::kLinear ? LayerKind::kLinearAttention
                   : slot == Slot::kSsm  ? LayerKind::kSsm
                                         : LayerKind::kConv;
      Result<uint64_t> s = states.bytes(layer.kind);
      if (!s) return s.error();
      layer.state_bytes = *s;
      break;
    }
    case Slot::kShared: layer.kind = LayerKind::kSharedKv; break;
    case Slot::kNone: layer.kind = LayerKind::kNone; break;
  }
  return layer;
}

}  // namespace

Result<LayerPlan> plan_layers(FieldReader& reader, const ModelGeometry& g) {
  std::vector<uint64_t> per_layer_kv_heads;
  uint64_t chunk_tokens = 0;
  Result<Slots> read = read_slots(reader, g, per_layer_kv_heads, chunk_tokens);
  if (!read) return read.error();
  Slots slots = std::move(*read);
  if (Status bad = mark_shared_layers(reader, g.layers, slots); !bad) return bad.error();

  // Chunked layers named one by one (layer_types) attend within the
  // config's attention_chunk_size, as those chunked_slots finds do.
  if (chunk_tokens == 0 && std::find(slots.begin(), slots.end(), Slot::kChunked) != slots.end()) {
    Result<std::optional<uint64_t>> size = reader.u64({"attention_chunk_size"});
    if (!size) return size.error();
    chunk_tokens = size->value_or(0);
  }

  bool needs_attention = std::any_of(slots.begin(), slots.end(), [](Slot s) {
    return s == Slot::kFull || s == Slot::kSliding || s == Slot::kChunked;
  });
  AttentionRate rate;
  if (needs_attention) {
    Result<AttentionRate> r = attention_rate(reader, g);
    if (!r) return r.error();
    rate = std::move(*r);
  }
  Result<Window> window = sliding_window(reader);
  if (!window) return window.error();
  Result<KvShapes> shapes = needs_attention ? kv_shapes(reader, g, rate.mla) : Result<KvShapes>(KvShapes{});
  if (!shapes) return shapes.error();
  if (shapes->full) {
    rate.detail = fmt::format("{} kv heads x ({} K + {} V head_dim)", shapes->full->kv_heads,
                              shapes->full->k_dim, shapes->full->v_dim);
    if (std::find(slots.begin(), slots.end(), Slot::kSliding) != slots.end()) {
      rate.detail += fmt::format("; sliding layers {} kv heads x ({} K + {} V)", shapes->sliding->kv_heads,
                                 shapes->sliding->k_dim, shapes->sliding->v_dim);
    }
  }
  Result<std::optional<KvShape>> global = global_shape(reader, g);
  if (!global) return global.error();
  // Gemma 4's global layers take their own heads over any other full shape.
  const bool global_heads = global->has_value() && !rate.mla;
  if (global_heads) shapes->full = *global;
  // Falcon-H1 runs attention and a Mamba-2 mixer side by side in each layer.
  const AttentionPricing pricing{rate, per_layer_kv_heads, window->tokens, chunk_tokens,
                                 reader.model_type() == "falcon_h1", *shapes};

  LayerPlan plan;
  plan.layout = layout_name(slots, rate.mla);
  plan.layers.reserve(slots.size());
  StateReader states(reader, g.hidden);
  for (uint64_t i = 0; i < slots.size(); ++i) {
    Result<LayerCache> layer = layer_cache(slots[i], i, g, pricing, states);
    if (!layer) return layer.error();
    plan.layers.push_back(*layer);
  }
  std::vector<std::string> details;
  if (needs_attention) details.push_back(rate.detail);
  if (needs_attention && global_heads) {
    details.push_back(fmt::format("global layers 2 x {} kv heads x {} head_dim", (*global)->kv_heads,
                                  (*global)->k_dim));
  }
  states.describe(plan, details);
  plan.detail = fmt::format("{}", fmt::join(details, "; "));
  return plan;
}

}  // namespace memfit
