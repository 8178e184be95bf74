// Fixed per-sequence state of the layers that keep no per-token KV:
// Mamba-style SSM layers, gated delta-net / lightning linear attention,
// short-convolution layers, RWKV time mixing. Sizes in bytes per layer per
// sequence.
//
// State dtype: float32 for convolution and recurrent state alike; a
// config's own mamba_ssm_cache_dtype / mamba_ssm_dtype of bfloat16 or
// float16 lowers the SSM part to 2 bytes. Convolution state keeps
// kernel - 1 columns. Why, runtime by runtime: docs/cache-layouts.md,
// "Recurrent state, per layer per sequence".
#ifndef MEMFIT_MODEL_CONFIG_RECURRENT_STATE_H_
#define MEMFIT_MODEL_CONFIG_RECURRENT_STATE_H_

#include <cstdint>
#include <string>

#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "model/config/field_reader.h"

namespace memfit {

struct RecurrentState {
  uint64_t bytes = 0;   // per layer per sequence
  uint64_t conv_bytes = 0;  // of which the convolution state (f32)
  std::string detail;   // "conv 3x5120 + ssm 5120x16, f32"
  Mamba2Geometry mamba2;  // a Mamba-2 mixer's widths (layers left 0); zero otherwise
  GatedDeltaGeometry gated_delta;  // a gated delta net's widths; zero otherwise
};

// The state of one layer of `kind` (kSsm, kLinearAttention, kConv) for the
// family in `reader`. `hidden` is the model width. Fails when a needed
// dimension is missing and has no default, or on overflow.
Result<RecurrentState> recurrent_state(LayerKind kind, FieldReader& reader, uint64_t hidden);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_RECURRENT_STATE_H_
