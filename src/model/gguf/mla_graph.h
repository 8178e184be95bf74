// The facts llama.cpp's deepseek2 graph reads beyond the geometry
// (MlaGraphInfo in memfit/model_spec.h), from a GGUF header. Private to
// the library.
#ifndef MEMFIT_MODEL_GGUF_MLA_GRAPH_H_
#define MEMFIT_MODEL_GGUF_MLA_GRAPH_H_

#include <cstdint>

#include "memfit/gguf.h"
#include "memfit/model_spec.h"

namespace memfit {

// For general.architecture "deepseek2" with key_length_mla and
// value_length_mla (llama.cpp's MLA): the latent's and heads' widths, the
// leading dense blocks and the MoE routing of the `layers` decoder blocks
// (NextN blocks excluded). Everything zero for any other file. Never fails:
// a key of an unexpected kind or a layout llama.cpp builds otherwise sets
// other_graph, and the replay leaves the model to the phase model.
MlaGraphInfo gguf_mla_graph_info(const GgufHeader& header, uint64_t layers);

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_MLA_GRAPH_H_
