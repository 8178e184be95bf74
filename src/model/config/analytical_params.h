// Parameters from config alone, for folders with no weight files: the
// matrices and vectors a config implies (embeddings, attention, MLP or
// routed experts, norms), so that a declared quantization can be priced per
// matrix. A modelled figure, labelled analytical_config in the report;
// header bytes always win.
#ifndef MEMFIT_MODEL_CONFIG_ANALYTICAL_PARAMS_H_
#define MEMFIT_MODEL_CONFIG_ANALYTICAL_PARAMS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "memfit/model_spec.h"
#include "model/config/field_reader.h"

namespace memfit {

// What a block of parameters is, as quantization schemes tell them apart.
enum class ParamRole {
  kEmbedding,      // token embeddings
  kLmHead,         // an untied output projection
  kAttention,      // q/k/v/o projections (MLA's low-rank ones included)
  kMlp,            // a dense MLP's gate/up/down projections
  kExperts,        // routed experts' projections
  kSharedExperts,  // always-active experts' projections
  kRouter,         // the MoE gate that scores experts
  kCompressor,     // DeepSeek V4's KV compressors and indexer weights_proj: linears its
                   // FP8 checkpoint keeps at 16 bits, whole on every vLLM rank
  kMixer,          // SSM / linear-attention / conv in and out projections
  kNorm,           // norm weights (vectors)
  kVision,         // a multimodal config's vision tower and projector (kept unquantized)
};

// `copies` matrices of rows x cols, as a Linear or Embedding layer stores
// its weight: rows = output features, cols = input features, the dimension
// quantization groups run along. A vector (a norm) has rows == 1.
struct ParamBlock {
  ParamRole role = ParamRole::kNorm;
  // The module path below the decoder layer (or below the model for blocks
  // outside the layers), in Hugging Face spelling: "self_attn.q_proj",
  // "mlp.experts.gate_proj", "mlp.gate", "embed_tokens", "lm_head".
  std::string_view module;
  std::optional<uint64_t> layer;  // decoder layer index; nullopt outside the layers
  uint64_t rows = 0;
  uint64_t cols = 0;
  uint64_t copies = 1;
  // Bytes an element where the checkpoint stores the block at a fixed
  // width whatever the quantization or torch_dtype (DeepSeek V4's float32
  // sinks, compressor position biases and hyper-connection mixes, its
  // int32 hash-routing table): 4. 0: the quantization's or torch_dtype's.
  uint64_t element_bytes = 0;
};

// The config's parameter blocks; empty when the geometry is too incomplete
// to count (no layers or no hidden size) or a dimension overflows 64 bits.
// Counted per layer:
//   attention  q [heads x head_dim, hidden], k and v [kv_heads x head_dim,
//              hidden], o [hidden, heads x head_dim]; MLA: its low-rank
//              projections
//   MLP        gate and up [intermediate, hidden], down [hidden,
//              intermediate]; MoE layers: that per routed expert at
//              moe_intermediate, shared experts, a router [experts, hidden]
//              (the dense layers of an MoE config keep the dense MLP:
//              first_k_dense_replace, moe_layer_freq, decoder_sparse_step,
//              mlp_only_layers)
//   SSM        in [2 x d_inner, hidden] and out [hidden, d_inner]
//              projections (a Mamba-style estimate)
//   short conv LFM2's in [3 x hidden, hidden], depthwise conv [hidden,
//              conv_L_cache], out [hidden, hidden]
//   norms      2 x [hidden]; Gemma 2 and 3 two more around the MLP; Gemma 3
//              and LFM2 a query and a key norm [head_dim] on attention layers
// plus embeddings [vocab, hidden], an untied LM head of the same shape, a
// final norm and, for a Gemma 3 config with a vision_config, its SigLIP
// vision tower and projector (Gemma 4, Qwen3-VL / Qwen3.5 and Qwen2.5-VL:
// their vision towers too).
std::vector<ParamBlock> analytical_param_blocks(FieldReader& reader, const ModelSpec& spec);

// Whether a layer's attention gates its output through q_proj: Qwen3.5's
// configs say so (attn_output_gate), Qwen3-Next's always does.
bool gates_attention_output(FieldReader& reader);

// Parameters in `blocks`; saturates on overflow.
uint64_t count_parameters(const std::vector<ParamBlock>& blocks);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_ANALYTICAL_PARAMS_H_
