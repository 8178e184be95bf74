// What llama.cpp's graph of a GGUF model reads beyond its ModelSpec, from
// the file's own keys and tensor shapes (Model::gguf): the compute replay
// (llamacpp/graph/mla.cc, recurrent.cc) builds another graph without them.
// docs/llamacpp-rules.md, "Compute buffers (replayed)". Private to the
// library.
#ifndef MEMFIT_ENGINES_LLAMACPP_GRAPH_FILE_FACTS_H_
#define MEMFIT_ENGINES_LLAMACPP_GRAPH_FILE_FACTS_H_

#include <cstdint>

#include "memfit/gguf.h"

namespace memfit::llamacpp::graph {

// GGUF deepseek2 with MLA only: the widths and routing llama.cpp's
// deepseek2 graph reads. `latent` is 0 for every other model.
struct MlaGraph {
  uint64_t q_lora_rank = 0;     // attn_q_a's outputs; 0: one Q projection
  uint64_t latent = 0;          // kv_lora_rank
  uint64_t rope = 0;            // rope.dimension_count
  uint64_t nope = 0;            // key_length_mla - rope
  uint64_t value = 0;           // value_length_mla
  uint64_t dense_layers = 0;    // leading_dense_block_count
  uint64_t expert_groups = 0;   // expert_group_count (0 or 1: none)
  uint64_t groups_used = 0;     // expert_group_used_count
  uint64_t gating = 0;          // as llama.cpp resolves it: 1 softmax, 2 sigmoid, else other
  bool weights_norm = false;    // expert_weights_norm
  bool weights_scaled = false;  // expert_weights_scale neither 0 nor 1
  bool selection_bias = false;  // exp_probs_b tensors
  bool other_graph = false;     // anything else that changes the graph (fused experts, clamps, ...)
};

struct FileFacts {
  MlaGraph mla;
  // granitehybrid: llama.cpp's switch for RoPE on the attention layers,
  // <arch>.rope.scaling.finetuned (true when absent; Granite 4.0 H files
  // are converted with false).
  bool attention_rope = true;
};

// The facts of the file whose first header is `header`, a model of
// `layers` decoder blocks (NextN blocks excluded). For general.architecture
// "deepseek2" with key_length_mla and value_length_mla (llama.cpp's MLA):
// the latent's and heads' widths, the leading dense blocks and the MoE
// routing; zero for any other file. Never fails: a key of an unexpected
// kind or a layout llama.cpp builds otherwise sets mla.other_graph, and the
// replay leaves the model to the phase model.
FileFacts file_facts(const GgufHeader& header, uint64_t layers);

}  // namespace memfit::llamacpp::graph

#endif  // MEMFIT_ENGINES_LLAMACPP_GRAPH_FILE_FACTS_H_
