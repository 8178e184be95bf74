// The per-layer cache plan of a model: which kind of cache each layer
// holds and how large, from the config's own description of its layers.
//
// Layer kinds are read, in this order of authority, from layer_types,
// layers_block_type, block_types, hybrid_override_pattern,
// attn_type_list, full_attn_idxs, attn_layer_period/offset,
// full_attention_interval, block_configs; pure SSM model types make every
// layer recurrent. Attention layers then hold an MLA latent when the config
// has kv_lora_rank, else K and V, windowed where the config's sliding
// window applies.
#ifndef MEMFIT_MODEL_CONFIG_LAYER_PLAN_H_
#define MEMFIT_MODEL_CONFIG_LAYER_PLAN_H_

#include <string>
#include <vector>

#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "model/config/field_reader.h"

namespace memfit {

struct LayerPlan {
  std::vector<LayerCache> layers;
  std::string layout;  // "standard", "sliding_window", "chunked", "mla", "hybrid", "ssm"
  std::string detail;  // geometry summary for kv_detail
  uint64_t conv_state_bytes = 0;  // the f32 convolution part of a recurrent layer's state
  Mamba2Geometry mamba2;  // the Mamba-2 mixers' widths and count; zero when none
  GatedDeltaGeometry gated_delta;  // the gated delta nets' widths; zero when none
};

// `geometry` must carry layers > 0 (and, for attention layers, kv_heads
// and head_dim > 0; the plan fails otherwise).
Result<LayerPlan> plan_layers(FieldReader& reader, const ModelGeometry& geometry);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_LAYER_PLAN_H_
