// ModelSpec: what memfit knows of a model's architecture, read from its
// config.json, or from a GGUF file's metadata, before any weight is touched.
//
// The cache is described per layer (LayerCache): each layer has a kind, a
// per-token element count and a fixed per-sequence state. Every cache total
// in memfit is a sum over these layers, so one mechanism serves standard,
// GQA, sliding-window, chunked, MLA, hybrid and recurrent models alike.
#ifndef MEMFIT_MODEL_SPEC_H_
#define MEMFIT_MODEL_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class LayerKind {
  kFullAttention,    // K and V for every token
  kSlidingWindow,    // K and V for the last `window_tokens` tokens
  kChunked,          // K and V within the current chunk of `window_tokens`
  kMlaLatent,        // one compressed latent (+ rope key) per token
  kSharedKv,         // reads another layer's cache; holds none itself
  kLinearAttention,  // fixed recurrent state (gated delta net, lightning, ...)
  kSsm,              // fixed conv + SSM state (Mamba family, RWKV)
  kConv,             // fixed short-convolution state (LFM2)
  kNone,             // no cache at all (an MLP-only block)
};

std::string_view to_string(LayerKind kind);

// The cache one layer holds for one sequence.
struct LayerCache {
  LayerKind kind = LayerKind::kFullAttention;
  // Elements cached per token, stored at the KV element width (2 bytes for
  // fp16, 1 for int8). For attention: 2 x kv_heads x head_dim.
  uint64_t elems_per_token = 0;
  // K's share of elems_per_token where K and V rows differ in width: an MLA
  // layer cached decompressed, heads x (qk_nope + qk_rope) of K beside
  // heads x v_head_dim of V (DeepSeek-V2 as mlx-lm serves it; a deepseek2
  // GGUF converted before llama.cpp #12801, which llama.cpp runs as
  // multi-head attention). 0: K and V are equal halves (attention), or the
  // row is one latent, all K (MLA). At most elems_per_token.
  uint64_t k_elems_per_token = 0;
  // Tokens kept: the sliding window or attention chunk; 0 means unbounded.
  uint64_t window_tokens = 0;
  // Fixed state per sequence in bytes, independent of context and of the KV
  // element width (recurrent state keeps its own dtype).
  uint64_t state_bytes = 0;
  // An MLA latent layer's kv_lora_rank: the first latent_elems elements of
  // its row, the part attention reads as V (the rest is the roped key).
  // llama.cpp before #19067 ("kv-cache : support V-less cache") also
  // cached them as a V tensor of their own (engines/llamacpp/memory.cc).
  // 0 for every other layer (and for a decompressed MLA layer). At most
  // elems_per_token.
  uint64_t latent_elems = 0;
  // An MLA layer's indexer-key elements within elems_per_token: DeepSeek-
  // V3.2's index_head_dim, the NSA lightning indexer's key cached beside
  // the latent (kv_lora_rank + qk_rope_head_dim + index_head_dim). 0 for
  // every other layer. At most elems_per_token - latent_elems.
  uint64_t index_elems = 0;

  bool operator==(const LayerCache&) const = default;
};

// An MLA layer whose cache holds every head's K and V, not the latent.
inline bool is_decompressed_mla(const LayerCache& layer) {
  return layer.kind == LayerKind::kMlaLatent && layer.k_elems_per_token != 0;
}

// The elements of one token's K row of `layer`: the latent for MLA,
// k_elems_per_token where K and V differ, else half of elems_per_token.
inline uint64_t k_row_elems(const LayerCache& layer) {
  if (layer.k_elems_per_token != 0) return layer.k_elems_per_token;
  return layer.kind == LayerKind::kMlaLatent ? layer.elems_per_token : layer.elems_per_token / 2;
}

// The elements of one token's V row of `layer`: 0 for an MLA latent (V is
// a view of it), the rest of elems_per_token where K and V differ, else
// half of elems_per_token.
inline uint64_t v_row_elems(const LayerCache& layer) {
  if (layer.k_elems_per_token != 0) {
    return layer.elems_per_token > layer.k_elems_per_token ? layer.elems_per_token - layer.k_elems_per_token
                                                           : 0;
  }
  return layer.kind == LayerKind::kMlaLatent ? 0 : layer.elems_per_token / 2;
}

// Scalar geometry of the language model. 0 means "not known".
struct ModelGeometry {
  uint64_t layers = 0;
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  uint64_t intermediate = 0;
  uint64_t vocab = 0;
};

// A module an MLX config quantizes its own way
// ("model.layers.0.mlp.gate": {"bits": 8, "group_size": 64}), or leaves
// unquantized (false).
struct QuantModuleOverride {
  std::string module;       // as written in the config
  uint64_t bits = 0;        // 0: left unquantized
  uint64_t group_size = 0;  // 0: the config's default
};

// Per-module quantization entries memfit reads from one config (a real one
// lists one per layer and module at most: a few thousand).
inline constexpr size_t kMaxQuantModules = 65536;

// The weight quantization a config declares. Header bytes stay the truth
// for the weights' size; with no weight file on disk it prices the
// config's parameters (ModelSpec::analytical_weights).
struct QuantizationInfo {
  std::string method;        // "" (none), "mlx_affine", "gptq", "awq", "fp8", "mxfp4",
                             // "compressed-tensors", "bitsandbytes", or the config's own name
  uint64_t bits = 0;         // 0 when not stated
  uint64_t group_size = 0;   // 0 when not stated (GPTQ / AWQ -1, per channel, reads as 0)
  std::vector<uint64_t> block_size;  // FP8 weight_block_size, e.g. {128, 128}
  // Modules left unquantized, as written: modules_to_not_convert,
  // ignored_layers, ignore (compressed-tensors), llm_int8_skip_modules.
  // At most kMaxQuantModules; the rest are not read.
  std::vector<std::string> unquantized_modules;
  // MLX per-module settings; at most kMaxQuantModules.
  std::vector<QuantModuleOverride> module_overrides;
  bool lm_head_quantized = false;  // GPTQ "lm_head": true
  bool double_quant = false;       // bitsandbytes bnb_4bit_use_double_quant
};

// Weights sized from the config alone, for a folder with no weight file: its
// parameters (analytical_params) priced at the quantization it declares.
struct AnalyticalWeights {
  uint64_t bytes = 0;               // 0 when the geometry cannot be counted
  uint64_t quantized_params = 0;    // parameters the declared scheme packs
  uint64_t unquantized_params = 0;  // parameters kept at full width
  bool quantization_applied = false;
  // How the bytes were priced, for the report's warning: "8030261248
  // parameters x 2 bytes", or "4-bit MLX affine (group 64) on 14767882240
  // quantizable parameters, 16-bit on the remaining 414720".
  std::string detail;
};

// Mixture-of-experts shape. Total weights still come from headers.
struct MoeInfo {
  uint64_t experts = 0;            // routed experts per MoE layer; 0 = dense model
  uint64_t experts_per_token = 0;
  uint64_t shared_experts = 0;
  // moe_intermediate_size (GGUF: <arch>.expert_feed_forward_length): one
  // routed expert's FFN width; 0 when the config gives none (then the
  // experts are intermediate_size wide, as in Mixtral).
  uint64_t expert_intermediate = 0;
  // shared_expert_intermediate_size (Qwen2-MoE; GGUF:
  // <arch>.expert_shared_feed_forward_length): the shared expert's FFN
  // width; 0 when the config gives none (then each shared expert is
  // expert_intermediate wide).
  uint64_t shared_expert_intermediate = 0;
  // Which decoder layers are MoE (Qwen2-MoE, Qwen3-MoE): layer i is when
  // it is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0,
  // as transformers' decoder layer picks; the others are a dense MLP of
  // intermediate_size. 1 and none when the config gives neither.
  uint64_t decoder_sparse_step = 1;
  std::vector<uint64_t> mlp_only_layers;
};

// A Mamba-2 mixer's widths (MambaMixer2 in vLLM): in_proj's output rows
// are [z, x, B, C, dt] = 2 x inner + 2 x groups x state + heads and
// conv1d's channels [x, B, C] = inner + 2 x groups x state. vLLM's
// tensor-parallel split needs them (the B/C groups are replicated when
// there is one group and several ranks). All zero for models without a
// Mamba-2 mixer (Mamba-1 and Jamba included).
struct Mamba2Geometry {
  uint64_t heads = 0;   // SSM heads (dt, A, D rows)
  uint64_t inner = 0;   // d_ssm = heads x head_dim
  uint64_t groups = 0;  // B/C groups (n_groups)
  uint64_t state = 0;   // state size per group
  uint64_t kernel = 0;  // conv1d kernel width
  uint64_t layers = 0;  // decoder layers that hold a Mamba-2 mixer
  bool operator==(const Mamba2Geometry&) const = default;
};

// A gated delta net's widths (the linear-attention layers of Qwen3-Next and
// Qwen3.5, dense and MoE): the config's linear_num_key_heads,
// linear_num_value_heads, linear_key_head_dim, linear_value_head_dim and
// linear_conv_kernel_dim; a GGUF's ssm.group_count, ssm.time_step_rank,
// ssm.state_size, ssm.inner_size / ssm.time_step_rank and ssm.conv_kernel.
// The tensors llama.cpp's converter writes for such a layer are sized by
// them (engines/llamacpp/quantize_plan.h). All zero for other models.
struct GatedDeltaGeometry {
  uint64_t key_heads = 0;    // query and key heads
  uint64_t value_heads = 0;  // value heads (dt, A, beta, alpha rows)
  uint64_t key_dim = 0;      // one key head's width (the state's rows)
  uint64_t value_dim = 0;    // one value head's width
  uint64_t kernel = 0;       // the short convolution's width
  bool operator==(const GatedDeltaGeometry&) const = default;
};

// A multi-head latent attention model's widths (DeepSeek V2/V3, Kimi K2):
// the config's q_lora_rank (0 or null: a full-rank query, as
// DeepSeek-V2-Lite), kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim,
// v_head_dim and first_k_dense_replace. The tensors llama.cpp's converter
// writes for such a model are sized by them (engines/llamacpp/
// quantize_plan.h). All zero for other models (kv_lora_rank 0).
struct MlaGeometry {
  uint64_t q_lora_rank = 0;
  uint64_t kv_lora_rank = 0;
  uint64_t qk_nope = 0;
  uint64_t qk_rope = 0;
  uint64_t v_head = 0;
  uint64_t leading_dense = 0;  // first_k_dense_replace
  // The router's score correction bias (e_score_correction_bias):
  // transformers' DeepseekV3 router always has it, DeepseekV2's MoEGate
  // only with topk_method "noaux_tc".
  bool expert_bias = false;
  bool operator==(const MlaGeometry&) const = default;
};

// DeepSeek V4's attention (config model_type "deepseek_v4"): every decoder
// layer keeps the last `window_tokens` rows of `head_dim` whole; a layer
// whose compress ratio r is above 1 also keeps one compressed row per r
// tokens (and the compressor's running state), and an r = 4 layer the
// lightning indexer's key, `index_head_dim` wide, per compressed row
// (config compress_ratios, sliding_window, head_dim, index_head_dim;
// DeepSeek's inference/model.py, vLLM's models/deepseek_v4). All empty or
// zero for every other model.
struct CompressedAttentionGeometry {
  std::vector<uint64_t> compress_ratios;  // one per decoder layer; 0 or 1: the window only
  uint64_t window_tokens = 0;
  uint64_t head_dim = 0;
  uint64_t index_head_dim = 0;
  // The rotated tail of each head (qk_rope_head_dim, 64 for V4), and
  // whether the compressed layers rotate at their own base
  // (compress_rope_theta, unlike rope_theta): vLLM then keeps two rotary
  // tables (engines/shared/rope_cache.h).
  uint64_t rope_dim = 0;
  bool second_rope_base = false;
  bool operator==(const CompressedAttentionGeometry&) const = default;
};

// What makes a model an embedding or reranking model, and how it is run
// (docs/embedding-models.md): read from its config's architecture, a
// sentence-transformers folder (modules.json, 1_Pooling/config.json) or a
// GGUF's architecture and <arch>.pooling_type.
struct EmbeddingInfo {
  // The config's architecture is a pooling class (BertModel,
  // XLMRobertaModel, a decoder's bare *Model, *ForSequenceClassification),
  // or the GGUF declares a pooling type: what vLLM's `--runner auto` reads.
  bool by_architecture = false;
  // A sentence-transformers folder: modules.json names a Pooling module.
  bool by_folder = false;
  // Attention over the whole input both ways (an encoder: BERT, XLM-R):
  // no KV cache under any engine, every layer LayerKind::kNone.
  bool bidirectional = false;
  // A cross-encoder that scores pairs (a classification head, llama.cpp's
  // rank pooling).
  bool reranker = false;
  // "mean", "cls", "last", "rank" or "none" as the model states it; ""
  // when it states none.
  std::string pooling;

  bool any() const { return by_architecture || by_folder; }
  bool operator==(const EmbeddingInfo&) const = default;
};

struct ModelSpec {
  // config.json's model_type, verbatim ("" when absent); for a GGUF model,
  // its general.architecture, verbatim ("qwen3", "gpt-oss").
  std::string model_type;
  std::string family;      // memfit's slug for the layout it chose
  std::string layout;      // "standard", "sliding_window", "chunked", "mla", "hybrid", "ssm", "encoder"
  std::string cache_detail;  // geometry behind the layout ("8 kv heads x 128 head_dim")
  ModelGeometry geometry;
  std::vector<LayerCache> layers;  // one entry per layer, in order
  // Values memfit assumed because the config left them out ("gemma2:
  // sliding_window_pattern 2 (transformers default)"), for the report.
  std::vector<std::string> assumptions;
  QuantizationInfo quantization;
  MoeInfo moe;
  // The config describes towers beside the language model (vision_config,
  // audio_config, or a nested text config).
  bool multimodal = false;
  // Parameters counted from the config alone; 0 when geometry is missing.
  uint64_t analytical_params = 0;
  AnalyticalWeights analytical_weights;
  // Of those, the ones tensor parallelism keeps whole on every rank: norms
  // and MoE routers (vLLM's per-rank weights, vllm.h).
  uint64_t replicated_params = 0;
  // Their bytes at the widths the config's quantization stores them at
  // (price_analytical_weights over those blocks alone): norms and routers
  // at 16 bits, DeepSeek V4's float32 mixes and FP8 down-projections as
  // such. 0 when the config cannot be counted.
  uint64_t replicated_bytes = 0;
  // The convolution part of one recurrent layer's state_bytes, priced at
  // f32 (vLLM keeps it in the model's 16-bit dtype); 0 when none.
  uint64_t conv_state_bytes = 0;
  Mamba2Geometry mamba2;
  // The gated delta nets' widths; zero when the model has none.
  GatedDeltaGeometry gated_delta;
  // The LM head is the embedding (tie_word_embeddings, true when absent).
  bool tied_embeddings = true;
  // The context length the config declares (max_position_embeddings |
  // max_sequence_length | seq_length | n_positions | n_ctx), in tokens; 0
  // when it says none. Informational: a plot's default x range.
  uint64_t max_position_tokens = 0;
  // The model's RoPE scaling, read for the context the engines derive from
  // it (engines/shared/trained_context.h, docs/engines.md "The model's own
  // context"): a config's rope_scaling (rope_parameters in transformers 5;
  // model/config/rope_scaling.h), a GGUF's <arch>.rope.scaling.* keys
  // (model/gguf/config.cc). type "" when it has none.
  struct RopeScaling {
    std::string type;                      // "yarn", "linear", "dynamic", "llama3", ...
    double factor = 1.0;                   // "factor"; 1 when absent
    uint64_t original_max_positions = 0;   // its original_max_position_embeddings; 0: absent
    // The config's own original_max_position_embeddings, outside the rope
    // object (Phi-3's longrope); 0 when absent.
    uint64_t config_original_max_positions = 0;
    // The rope object names an mrope_section (multimodal RoPE: Qwen2-VL's
    // type "mrope"; Qwen3-VL's and Qwen3.5's rope_type "default"), which
    // vLLM's get_rope builds as MRotaryEmbedding.
    bool mrope = false;
    // The rotated share of head_dim: the rope object's
    // partial_rotary_factor, else the text config's; 1 when absent or
    // outside (0, 1] (get_rope: rotary_dim = int(head_size x factor)).
    double partial_rotary_factor = 1.0;
  } rope_scaling;
  // config.json only: len(vision_config.deepstack_visual_indexes), the
  // vision layers whose features Qwen3-VL adds into the first decoder
  // layers (DeepStack); 0 when the config has none.
  uint64_t deepstack_levels = 0;
  // An embedding or reranking model's traits; all false for a text generator.
  EmbeddingInfo embedding;
  // GGUF only: <arch>.nextn_predict_layers, the multi-token-prediction
  // blocks after the decoder layers; they are not in `layers`. llama.cpp's
  // KV cache still holds them for most architectures (docs/llamacpp-rules.md).
  uint64_t nextn_layers = 0;
  // config.json only: the multi-token-prediction layers it declares
  // (num_nextn_predict_layers: DeepSeek V3/V4, GLM-4.5; mtp_num_hidden_layers:
  // Qwen3-Next, Qwen3.5; mtp_transformer_layers: MiniMax). Not in `layers`
  // nor in any engine's weights: vLLM loads them only as a speculative
  // drafter (docs/engine-vllm.md, "MTP drafter weights"). 0 when none.
  uint64_t mtp_layers = 0;
  // The attention's q_proj also writes an output gate, one more head_dim a
  // head (attn_output_gate: Qwen3.5's configs, Qwen3-Next always).
  bool attention_output_gate = false;
  // The q/k/v projections carry biases, o_proj none (Qwen2's attention and
  // its MoE and vision-language text models': transformers'
  // Qwen2Attention). 2-byte vectors that split with the heads.
  bool qkv_bias = false;
  // The MLA widths; zero when the model has none.
  MlaGeometry mla;
  // DeepSeek V4's per-layer compressed attention; empty for other models.
  CompressedAttentionGeometry compressed_attention;
};

// Parses config.json text. Fails on text that is not a JSON object, on
// values of the wrong type, and on missing geometry (no layer count, no
// hidden size or head count where attention needs them). Non-standard
// literals that Python's json writes (Infinity, NaN) are accepted.
Result<ModelSpec> parse_model_config(std::string_view config_json);

struct GgufHeader;  // memfit/gguf.h

// The spec of a GGUF model from its first file's metadata
// (general.architecture and the "<arch>.*" keys), equal to what
// parse_model_config gives for the config.json of the same model: the same
// family, layers, geometry and MoE shape. Where llama.cpp hard-codes what
// the file does not carry (Gemma 3's one global layer in six, which layers
// of a hybrid are recurrent), its rule is applied and named in
// `assumptions`; where llama.cpp treats a model differently from its config
// (a Phi-3 or Mistral window it does not apply), llama.cpp's treatment
// wins, since that is what runs the file. docs/gguf.md has the mapping.
// multimodal is false (a projector is a file of its own) and quantization
// is empty (the tensors' own types size the weights). Fails, naming the
// key ("gguf metadata: 'qwen3.block_count' is missing"), on missing or
// mistyped geometry, counts past 32 bits and per-layer arrays whose length
// is not block_count.
Result<ModelSpec> model_spec_from_gguf(const GgufHeader& header);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MODEL_SPEC_H_
