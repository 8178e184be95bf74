// parse_model_config: config.json text -> ModelSpec.
//
// Field aliases, first present wins:
//   layers        num_hidden_layers | n_layers | num_layers | n_layer
//   hidden        hidden_size | d_model | dim | model_dim | n_embd
//   heads         num_attention_heads | num_heads | n_heads | n_head
//   kv heads      num_key_value_heads | num_kv_heads | n_kv_heads | n_head_kv |
//                 multi_query_group_num, else multi_query: true -> 1, else heads
//   head_dim      head_dim | head_size, else hidden / heads
//   intermediate  intermediate_size | ffn_dim | ffn_hidden_size, else 4 x hidden
//   vocab         vocab_size | padded_vocab_size
#include <fmt/format.h>

#include "base/exception_boundary.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"
#include "memfit/model_spec.h"
#include "model/config/analytical_params.h"
#include "model/config/analytical_weights.h"
#include "model/config/checkpoint_traits.h"
#include "model/config/config_document.h"
#include "model/config/config_spec.h"
#include "model/config/config_tower.h"
#include "model/config/embedding_traits.h"
#include "model/config/family.h"
#include "model/config/field_reader.h"
#include "model/config/layer_plan.h"
#include "model/config/rope_scaling.h"

namespace memfit {
namespace {

bool is_pure_ssm_type(const std::string& type) {
  return type == "mamba" || type == "mamba2" || type == "falcon_mamba" ||
         type.rfind("rwkv", 0) == 0;
}

// Nemotron-H configs that list layers_block_type and no layer count:
// NemotronHConfig derives num_hidden_layers as len(layers_block_type)
// (transformers, models/nemotron_h/configuration_nemotron_h.py; the
// parameter is deprecated there). nullopt for other configs.
std::optional<uint64_t> layers_from_block_types(FieldReader& reader) {
  if (reader.model_type() != "nemotron_h") return std::nullopt;
  const nlohmann::json* list = reader.doc().find("layers_block_type");
  if (list == nullptr || !list->is_array() || list->empty()) return std::nullopt;
  reader.assume(fmt::format("num_hidden_layers = {}, the length of layers_block_type (NemotronHConfig)",
                            list->size()));
  return list->size();
}

// LFM2's MLP width (transformers' Lfm2MLP): with block_auto_adjust_ff_dim
// the configured width w (block_ff_dim) becomes floor(2w / 3), and with a
// block_ffn_dim_multiplier m, floor(m x that) rounded up to a multiple of
// block_multiple_of. LFM2-700M: 10240 -> 6826 -> 6912. Other configs: `width`.
uint64_t adjusted_ff_dim(const ConfigDocument& doc, uint64_t width) {
  Result<std::optional<bool>> adjust = doc.boolean("block_auto_adjust_ff_dim");
  if (!adjust || !adjust->value_or(false) || width > (1ull << 32)) return width;
  uint64_t ff = 2 * width / 3;
  const nlohmann::json* multiplier = doc.find("block_ffn_dim_multiplier");
  if (multiplier == nullptr || !multiplier->is_number()) return ff;
  const double m = multiplier->get<double>();
  if (!(m > 0.0 && m <= 64.0)) return ff;
  ff = static_cast<uint64_t>(m * static_cast<double>(ff));
  Result<std::optional<uint64_t>> multiple = doc.u64({"block_multiple_of"});
  const uint64_t step = multiple && multiple->value_or(0) > 0 ? **multiple : 1;
  return round_up(ff, step).saturated();
}

Result<ModelGeometry> read_geometry(FieldReader& reader) {
  ModelGeometry g;
  Result<std::optional<uint64_t>> layers = reader.u64(kLayerAliases);
  if (!layers) return layers.error();
  if (!layers->has_value()) layers = layers_from_block_types(reader);
  if (!layers->has_value()) {
    return Error("missing geometry: no layer count (num_hidden_layers, n_layers, num_layers or n_layer)");
  }
  g.layers = **layers;
  if (g.layers == 0 || g.layers > kMaxLayers) {
    return Error(fmt::format("layer count {} is outside 1..{}", g.layers, kMaxLayers));
  }
  Result<std::optional<uint64_t>> hidden =
      reader.u64({"hidden_size", "d_model", "dim", "model_dim", "n_embd"});
  if (!hidden) return hidden.error();
  if (!hidden->has_value() || **hidden == 0) {
    return Error("missing geometry: no hidden size (hidden_size, d_model, dim, model_dim or n_embd)");
  }
  g.hidden = **hidden;

  Result<std::optional<uint64_t>> heads =
      reader.u64({"num_attention_heads", "num_heads", "n_heads", "n_head"});
  if (!heads) return heads.error();
  g.heads = heads->value_or(0);

  Result<std::optional<uint64_t>> kv = reader.u64(
      {"num_key_value_heads", "num_kv_heads", "n_kv_heads", "n_head_kv", "multi_query_group_num"});
  if (!kv) return kv.error();
  if (kv->has_value()) {
    g.kv_heads = **kv;
  } else {
    Result<std::optional<bool>> mqa = reader.doc().boolean("multi_query");
    if (!mqa) return mqa.error();
    g.kv_heads = (mqa->has_value() && **mqa) ? 1 : g.heads;
  }

  Result<std::optional<uint64_t>> head_dim = reader.u64({"head_dim", "head_size"});
  if (!head_dim) return head_dim.error();
  if (head_dim->has_value() && **head_dim > 0) {
    g.head_dim = **head_dim;
  } else if (g.heads > 0) {
    g.head_dim = g.hidden / g.heads;
  }

  Result<std::optional<uint64_t>> inter =
      reader.u64({"intermediate_size", "ffn_dim", "ffn_hidden_size", "block_ff_dim"});
  if (!inter) return inter.error();
  g.intermediate = inter->value_or(0) > 0 ? **inter : 4 * g.hidden;
  g.intermediate = adjusted_ff_dim(reader.doc(), g.intermediate);

  Result<std::optional<uint64_t>> vocab = reader.doc().u64_or_top({"vocab_size", "padded_vocab_size"});
  if (!vocab) return vocab.error();
  if (vocab->has_value()) {
    g.vocab = **vocab;
  } else {
    Result<std::optional<uint64_t>> def = reader.u64({"vocab_size"});
    if (!def) return def.error();
    g.vocab = def->value_or(0);
  }
  // Every product below is overflow-checked, but a dimension past 2^32 is
  // nonsense in any real model; refuse it early with a clear message.
  for (auto [name, value] : {std::pair{"hidden_size", g.hidden}, {"num_attention_heads", g.heads},
                             {"num_key_value_heads", g.kv_heads}, {"head_dim", g.head_dim},
                             {"intermediate_size", g.intermediate}, {"vocab_size", g.vocab}}) {
    if (value > (1ull << 32)) return Error(fmt::format("{} {} is implausibly large", name, value));
  }
  return g;
}

// The model_type of `scope` (the top level or the text config): "" when
// absent or null, an error when it is not a string.
Result<std::string> model_type_of(const nlohmann::json& scope) {
  auto it = scope.find("model_type");
  if (it == scope.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return Error("model_type: expected a string, got " + show_untrusted_json(*it));
  }
  return it->get<std::string>();
}

// model_spec_from_document, and the tower's bytes in `tower_bytes`.
// The modules of a Qwen-VL vision tower (analytical_params.cc's
// add_qwen3_vl_vision, add_qwen25_vl_vision) that vLLM keeps whole on every
// rank: the patch embedding (nn.Conv3d, Qwen3_VisionPatchEmbed and
// Qwen2_5_VisionPatchEmbed), Qwen3-VL's position embedding (nn.Embedding
// pos_embed) and the norms (the blocks' norm1 / norm2, the mergers' norm
// and ln_q), in models/qwen3_vl.py and qwen2_5_vl.py. Their linear layers
// are Column/RowParallelLinear, split.
bool qwen_vision_whole_on_rank(std::string_view module) {
  return module.starts_with("visual.patch_embed.") || module == "visual.pos_embed" ||
         module == "norm1, norm2" || module == "merger.norm" || module == "deepstack_merger_list.norm" ||
         module == "visual.merger.ln_q";
}

Result<ModelSpec> spec_and_tower(const ConfigDocument& doc, uint64_t& tower_bytes) {
  ModelSpec spec;
  Result<std::string> top_type = model_type_of(doc.top());
  if (!top_type) return top_type.error();
  spec.model_type = std::move(*top_type);
  Result<std::string> text_type_or = model_type_of(doc.text());
  if (!text_type_or) return text_type_or.error();
  std::string text_type = text_type_or->empty() ? spec.model_type : std::move(*text_type_or);
  spec.family = family_slug(text_type);

  FieldReader reader(doc, text_type, spec.assumptions);
  Result<ModelGeometry> geometry = read_geometry(reader);
  if (!geometry) return geometry.error();
  spec.geometry = *geometry;

  Result<LayerPlan> plan = plan_layers(reader, spec.geometry);
  if (!plan) return plan.error();
  spec.layers = std::move(plan->layers);
  spec.layout = text_type == "falcon_h1" ? "hybrid" : plan->layout;
  spec.cache_detail = std::move(plan->detail);
  spec.conv_state_bytes = plan->conv_state_bytes;
  spec.mamba2 = plan->mamba2;
  spec.gated_delta = plan->gated_delta;
  spec.embedding = embedding_traits_of_config(doc, text_type);
  if (text_type == "bert" && is_jina_bert_architecture(doc)) {
    // Jina's BERT v2 checkpoints say model_type "bert"; their classes
    // (JinaBertModel, JinaBertForMaskedLM, ...) are another encoder
    // (ALiBi, no position embeddings, a gated MLP), which llama.cpp's
    // converter writes as jina-bert-v2 (convert_hf_to_gguf.py,
    // JinaBertV2Model): the family a GGUF of it reads as.
    spec.family = "jina_bert_v2";
  }
  if (spec.embedding.bidirectional) {
    // An encoder attends over its whole input at once and caches nothing
    // (docs/embedding-models.md).
    spec.layers.assign(spec.geometry.layers, LayerCache{LayerKind::kNone});
    spec.layout = "encoder";
    spec.cache_detail = "bidirectional encoder: no KV cache";
  }
  if (is_pure_ssm_type(text_type)) {
    // Attention fields of an SSM config (mamba2's head_dim) describe the
    // SSM, not a KV cache.
    spec.geometry.kv_heads = 0;
  }
  if (text_type.empty()) {
    spec.assumptions.push_back("config has no model_type: layout chosen from the geometry alone");
  }
  for (const char* key : {"vision_config", "audio_config", "vision_tower", "audio_tower"}) {
    if (doc.top().contains(key)) spec.multimodal = true;
  }
  if (!doc.text_key().empty()) spec.multimodal = true;
  spec.quantization = read_quantization(doc);
  spec.moe = read_moe(doc);
  spec.mla = read_mla(doc, text_type);
  spec.compressed_attention = read_compressed_attention(doc, text_type);
  spec.qkv_bias = text_type.starts_with("qwen2");
  const std::vector<ParamBlock> blocks = analytical_param_blocks(reader, spec);
  spec.analytical_params = count_parameters(blocks);
  spec.attention_output_gate = gates_attention_output(reader);
  std::vector<ParamBlock> replicated;
  for (const ParamBlock& b : blocks) {
    if (b.role == ParamRole::kLmHead) spec.tied_embeddings = false;
    // vLLM's gemma4_mm.py builds Gemma 4's vision tower from transformers'
    // modules, its linears replaced by ReplicatedLinear, and the embedder
    // as a ReplicatedLinear: whole on every rank. (SigLIP, siglip.py, and
    // the Qwen-VL towers are split like the text model, but for the parts
    // qwen_vision_whole_on_rank names.)
    const bool whole_tower = b.role == ParamRole::kVision &&
                             (spec.model_type == "gemma4" || qwen_vision_whole_on_rank(b.module));
    // MLA's down-projections are ReplicatedLinear in vLLM's
    // DeepseekV2MLAAttention (q_a_proj, kv_a_proj_with_mqa; fused as
    // MergedReplicatedLinear fused_qkv_a_proj since 2025) and SGLang's
    // DeepseekV2AttentionMLA: whole on every rank, as the tensor list's
    // split keeps them (engines/shared/parallel_tensors.cc).
    // DeepSeek V4's the same: DeepseekV4Attention fuses wq_a and wkv into
    // one MergedColumnParallelLinear with disable_tp (models/deepseek_v4.py),
    // and its indexer is V3.2's, replicated; its compressors (kCompressor)
    // are whole too (layers/deepseek_compressor.py).
    const bool mla_down = b.module == "self_attn.q_a_proj" || b.module == "self_attn.kv_a_proj_with_mqa" ||
                          b.module.starts_with("self_attn.indexer.") || b.module == "attn.wq_a" ||
                          b.module == "attn.wkv" || b.module.starts_with("attn.indexer.");
    if (b.role == ParamRole::kNorm || b.role == ParamRole::kRouter || b.role == ParamRole::kCompressor ||
        whole_tower || mla_down) {
      spec.replicated_params =
          (CheckedBytes(spec.replicated_params) + CheckedBytes(b.rows) * b.cols * b.copies).saturated();
      replicated.push_back(b);
    }
  }
  std::string dtype = doc.string_field("torch_dtype");
  if (dtype.empty()) dtype = doc.string_field("dtype");
  spec.analytical_weights =
      price_analytical_weights(blocks, spec.quantization, unquantized_width_bytes(dtype),
                               deepseek_v4_fp4_experts(doc));
  spec.replicated_bytes = price_analytical_weights(replicated, spec.quantization, unquantized_width_bytes(dtype),
                                                   deepseek_v4_fp4_experts(doc))
                              .bytes;
  tower_bytes =
      analytical_tower_bytes(blocks, spec.analytical_weights, unquantized_width_bytes(dtype));
  // Informational only, so a malformed value is ignored rather than failing
  // the whole config.
  Result<std::optional<uint64_t>> positions = doc.u64_or_top(
      {"max_position_embeddings", "max_sequence_length", "seq_length", "n_positions", "n_ctx"});
  if (positions.ok()) spec.max_position_tokens = positions->value_or(0);
  spec.rope_scaling = read_rope_scaling(doc);
  if (auto vision = doc.top().find("vision_config"); vision != doc.top().end() && vision->is_object()) {
    auto deepstack = vision->find("deepstack_visual_indexes");
    if (deepstack != vision->end() && deepstack->is_array()) spec.deepstack_levels = deepstack->size();
  }
  Result<std::optional<uint64_t>> mtp = doc.u64_or_top(
      {"num_nextn_predict_layers", "mtp_num_hidden_layers", "mtp_transformer_layers"});
  if (mtp.ok()) spec.mtp_layers = mtp->value_or(0);  // informational, as positions
  return spec;
}

}  // namespace

Result<ModelSpec> model_spec_from_document(const ConfigDocument& doc) {
  uint64_t tower_bytes = 0;
  return spec_and_tower(doc, tower_bytes);
}

Result<ConfigWithTower> parse_model_config_with_tower(std::string_view config_json) {
  return without_exceptions("parse_model_config", [&]() -> Result<ConfigWithTower> {
    Result<ConfigDocument> doc = ConfigDocument::parse(config_json);
    if (!doc) return doc.error();
    ConfigWithTower out;
    Result<ModelSpec> spec = spec_and_tower(*doc, out.tower_bytes);
    if (!spec) return spec.error();
    out.spec = std::move(*spec);
    return out;
  });
}

Result<ModelSpec> parse_model_config(std::string_view config_json) {
  return without_exceptions("parse_model_config", [&]() -> Result<ModelSpec> {
    Result<ConfigDocument> doc = ConfigDocument::parse(config_json);
    if (!doc) return doc.error();
    return model_spec_from_document(*doc);
  });
}

std::string_view to_string(LayerKind kind) {
  switch (kind) {
    case LayerKind::kFullAttention: return "full_attention";
    case LayerKind::kSlidingWindow: return "sliding_window";
    case LayerKind::kChunked: return "chunked_attention";
    case LayerKind::kMlaLatent: return "mla_latent";
    case LayerKind::kSharedKv: return "shared_kv";
    case LayerKind::kLinearAttention: return "linear_attention";
    case LayerKind::kSsm: return "ssm_state";
    case LayerKind::kConv: return "conv_state";
    case LayerKind::kNone: return "none";
  }
  return "none";
}

}  // namespace memfit
