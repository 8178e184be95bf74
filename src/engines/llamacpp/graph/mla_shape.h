// The geometry both of llama.cpp's deepseek2 graphs read (the absorbed
// MLA graph, llamacpp/graph/mla.cc, and the decompressed one of the builds
// before #12801, llamacpp/graph/deepseek2_legacy.cc): the model's widths,
// its MLA widths, the routed experts and the cache's cells, filled and
// checked once. Private to the library.
#ifndef MEMFIT_ENGINES_LLAMACPP_GRAPH_MLA_SHAPE_H_
#define MEMFIT_ENGINES_LLAMACPP_GRAPH_MLA_SHAPE_H_

#include <cstdint>

#include "engines/llamacpp/graph/builders.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp::graph {

struct MlaShape {
  uint64_t layers = 0;
  uint64_t dense_layers = 0;  // leading blocks with a dense FFN
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t q_lora = 0;        // 0: one Q projection (attn_q)
  uint64_t latent = 0;        // kv_lora_rank
  uint64_t rope = 0;          // the key's and query's roped part
  uint64_t nope = 0;          // their unroped part
  uint64_t value = 0;         // V head width (after wv_b, or wkv_b's V part)
  uint64_t ffn = 0;           // dense FFN width
  uint64_t shared_ffn = 0;    // shared experts' width, all together
  uint64_t vocab = 0;
  uint64_t n_kv = 0;          // cells per stream
  // The routed experts: hidden and the widths filled here, the gating
  // (sigmoid, selection_bias, weights_norm, weights_scaled) and `fused`
  // left to the builder, which reads them from the file.
  MoeShape moe;
};

// The shape of `spec`'s graph with the MLA widths `mla` (the file's own
// keys, or the spec's) over a cache of c.n_ctx_seq cells a stream; the
// leading dense blocks capped at the layers. Never fails: a field out of
// range is caught by mla_shape_in_bounds.
MlaShape mla_shape(const ModelSpec& spec, const MlaGeometry& mla, const LlamaCppContext& c);

// More than the tensors either builder makes: about 70 a layer and 2 per
// expert used, the inputs and output.
uint64_t mla_tensor_bound(const MlaShape& s);

// Whether a builder may build `s`: every width it multiplies nonzero and
// below kMaxFactor (the products of heads it forms too, so no tensor's
// bytes overflow), the vocabulary below kMaxVocab, the dense FFN and the
// experts sane where a block reads them, the tensors below kMaxTensors.
bool mla_shape_in_bounds(const MlaShape& s);

}  // namespace memfit::llamacpp::graph

#endif  // MEMFIT_ENGINES_LLAMACPP_GRAPH_MLA_SHAPE_H_
