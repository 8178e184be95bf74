// One forward pass of an mlx-lm model as MLX encodes it, op by op, replayed
// against MLX's command-buffer rules (mlxlm/mlx_runahead.h) to find what
// the buffers in flight hold at once. The op list is a model of mlx-lm's
// decoder layer (modelled, not read from a trace); docs/engine-mlxlm.md,
// "Run-ahead", lists the ops and the mlx-lm sources they follow.
#ifndef MEMFIT_ENGINES_MLXLM_FORWARD_H_
#define MEMFIT_ENGINES_MLXLM_FORWARD_H_

#include <cstdint>
#include <vector>

#include "engines/mlxlm/mlx_runahead.h"
#include "engines/mlxlm/split_k.h"
#include "memfit/model_spec.h"

namespace memfit {

// One layer's cache during this pass (layers in spec order; 0 for layers
// without K/V).
struct MlxLmLayerPass {
  uint64_t cache_bytes = 0;  // K + V (or latent) as stored after this pass's update
  uint64_t old_bytes = 0;    // the buffer a regrow replaced (held until its buffer completes)
};

struct MlxLmPass {
  uint64_t tokens = 0;            // the chunk's tokens x batch
  uint64_t attention_bytes = 0;   // one fused / MLA attention transient (x batch)
  uint64_t scores_bytes = 0;      // unfused: the score matrix (x batch); 0 when fused
  uint64_t scores_elements = 0;   // unfused: its elements, and the mask's (n x keys x batch)
  uint64_t mask_elements = 0;
  uint64_t logits_bytes = 0;      // the LM head's output; 0: no LM head in this pass
  // Weight elements per parameter, in 1/1024ths (MLX counts a packed uint32
  // word as one element).
  uint64_t weight_elements_per_kparam = 0;
  // The MLX behind the projections: their split-K scratch (split_k.h).
  MlxMatmulRules matmul;
};

// The largest sum the buffers in flight hold during the pass (bytes,
// saturating). `layers` has one entry per spec layer.
uint64_t mlxlm_forward_peak(const ModelSpec& spec, const MlxLmPass& pass,
                            const std::vector<MlxLmLayerPass>& layers,
                            const MlxBufferLimits& limits);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_FORWARD_H_
