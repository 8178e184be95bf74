// Weight quantization schemes for recommend-quant: what a checkpoint's
// weights would take if quantized, computed from its headers' tensor
// shapes (never from a parameter count).
//
// MLX affine quantization stores each quantizable matrix as `bits` per
// weight plus a scale and a bias per group of `group_size` weights along
// the last dimension, both in the matrix's float dtype (2 bytes; 4 for an
// F32 tensor in the headers):
//   bytes = ceil(elements x bits / 8) + ceil(elements / group_size) x 4
// (the arithmetic config-only weights of an MLX checkpoint use too).
// A matrix is quantizable when it is 2-D, named *.weight (embeddings
// included, norms excluded) and its last dimension is a multiple of the
// group size; every other tensor keeps its header bytes. A checkpoint that
// is already MLX-quantized (packed U32 weights with .scales and .biases)
// is sized from its logical shapes.
//
// The candidate list is a table of schemes so that GGUF types (Q8_0 ...
// Q2_K, with their real bits per weight) can join it.
#ifndef MEMFIT_QUANT_SCHEMES_H_
#define MEMFIT_QUANT_SCHEMES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/model.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct QuantScheme {
  std::string name;         // "as-is", "int8", "int4"
  bool as_is = false;       // the checkpoint's own bytes
  uint64_t bits = 16;       // per quantized weight
  uint64_t group_size = 64;
  // A mixed recipe's bits for one quantizable tensor, given its name
  // ("model.layers.3.mlp.down_proj.weight"); empty: `bits` for every one.
  // Only the headers' path reads it (candidate_weights_bytes).
  std::function<uint64_t(std::string_view tensor_name)> bits_of = {};
};

// as-is, int8 and int4 MLX affine schemes at `group_size`.
std::vector<QuantScheme> mlx_quant_schemes(uint64_t group_size = 64);

// The weights' bytes under `scheme`. `source` is the checkpoint's own
// quantization (from its config), used to unpack MLX-packed weights.
Result<uint64_t> quantized_weights_bytes(const std::vector<SafetensorsTensor>& tensors,
                                         const QuantScheme& scheme,
                                         const QuantizationInfo& source);

// The weights of `model` under `scheme`, as recommend-quant and plot price
// each candidate: the checkpoint's own bytes for as-is; else from
// `tensors` (its headers' tensor list: Model::tensors from open_model with
// keep_tensors) when there are any; else, for an index-only download, from
// the config's parameter count: ceil(params x bits / 8) + ceil(params /
// group_size) x 4. Fails when neither
// headers nor config geometry can size it, and on overflow.
Result<uint64_t> candidate_weights_bytes(const QuantScheme& scheme, const Model& model,
                                         const std::vector<SafetensorsTensor>& tensors);

// Whether quantizing to `scheme` would shrink the checkpoint: as-is always
// counts; otherwise scheme.bits must be below the checkpoint's own bits
// (its declared quantization, else 16).
bool shrinks_checkpoint(const QuantScheme& scheme, const ModelSpec& spec);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_QUANT_SCHEMES_H_
