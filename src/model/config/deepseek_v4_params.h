// DeepSeek V4's parameters from its config alone (model_type deepseek_v4:
// DeepSeek-V4-Flash, -Pro), for config-only weights: its attention is not
// MLA's nor GQA's, and its layers carry KV compressors, a lightning indexer,
// hyper-connection mixes and hash-routed MoE layers that the generic count
// (analytical_params.h) does not know. Private to the library.
#ifndef MEMFIT_MODEL_CONFIG_DEEPSEEK_V4_PARAMS_H_
#define MEMFIT_MODEL_CONFIG_DEEPSEEK_V4_PARAMS_H_

#include <vector>

#include "memfit/model_spec.h"
#include "model/config/analytical_params.h"
#include "model/config/field_reader.h"

namespace memfit {

// The checkpoint's tensors as blocks, in its own spelling ("attn.wq_b",
// "attn.compressor.wkv", "ffn.experts.w1"), for a spec whose
// compressed_attention is set (one compress ratio a decoder layer). With
// h hidden, q q_lora_rank, n heads of d (head_dim), g o_groups of o
// (o_lora_rank), i moe_intermediate_size, E routed experts, c hc_mult and
// m = (2 + c) x c, per decoder layer:
//   attention   wq_a [q, h], wkv [d, h] (FP8); wq_b [n x d, q], wo_a
//               [g x o, n x d / g], wo_b [h, g x o] (FP8); q_norm q, kv_norm
//               d; attn_sink n (F32)
//   ratio r > 1 compressor wkv, wgate [k x d, h] (BF16), ape [r, k x d]
//               (F32), norm d; k = 2 at r = 4 (overlapping windows), else 1
//   ratio 4     the indexer: wq_b [heads x dim, q] (FP8), weights_proj
//               [heads, h] (BF16) and its own compressor at index_head_dim
//               (k = 2)
//   mixes       hc_attn and hc_ffn: fn [m, c x h], base m, scale 3 (F32)
//   MoE         gate [E, h] (BF16); the first num_hash_layers layers a
//               tid2eid [vocab, top-k] (int32), the others a gate bias E
//               (F32); E experts w1, w3 [i, h] and w2 [h, i]; the shared
//               experts likewise; attn_norm, ffn_norm h
// and outside them embed and head [vocab, h], norm h, hc_head fn [c, c x
// h], base c, scale 1 (F32). The MTP layers (num_nextn_predict_layers)
// are left out: vLLM loads them only with a speculative config. Shapes and
// types: the checkpoint's headers as DeepSeek's inference/model.py names
// them (DeepSeek-V4-Flash: 43 layers, 145.3 GiB without its MTP layer).
// Empty when the geometry is incomplete or a dimension overflows.
std::vector<ParamBlock> deepseek_v4_param_blocks(FieldReader& reader, const ModelSpec& spec);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_DEEPSEEK_V4_PARAMS_H_
