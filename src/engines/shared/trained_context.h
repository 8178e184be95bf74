// The model's own limit on context, as each engine derives it from the
// model (docs/engines.md "The model's own context"):
//   - llama.cpp: n_ctx_train, the GGUF's <arch>.context_length (for a
//     config model, the max_position_embeddings convert_hf_to_gguf writes
//     there); rope scaling does not change it.
//   - vLLM: the derived max_model_len, the config's context scaled by its
//     rope_scaling (rope_scaled_context()); mlxcel and mlx-lm take the same
//     figure, the context the config's own RoPE scaling reaches.
// Past the limit every engine warns; vLLM refuses to start
// (engines/vllm/profile.cc).
#ifndef MEMFIT_ENGINES_SHARED_TRAINED_CONTEXT_H_
#define MEMFIT_ENGINES_SHARED_TRAINED_CONTEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/model_spec.h"
#include "memfit/warning.h"

namespace memfit {

// A model's context limit under one engine's rule: `tokens` (0 when the
// model declares none) and how it was found, for messages ("its config's
// context", "its config's rope scaling: original 32768 x yarn factor 4").
struct TrainedContext {
  uint64_t tokens = 0;
  std::string basis;
};

// llama.cpp's rule: the declared context (ModelSpec::max_position_tokens,
// a GGUF's context_length), rope scaling not considered.
TrainedContext declared_context(const ModelSpec& spec);

// vLLM's rule (ModelConfig's derived max_model_len): the declared context,
// scaled when the config's rope_scaling type is neither llama3, longrope
// nor su and the model_type does not contain "gemma3": by its factor
// (1 when absent); a yarn type scales original_max_position_embeddings
// instead of the declared context. The product is truncated to whole
// tokens; saturates at UINT64_MAX.
TrainedContext rope_scaled_context(const ModelSpec& spec);

// vLLM's max_model_len when --max-model-len is not given: the derived
// length (rope_scaled_context), except that a longrope (or su) config
// starts at its own original_max_position_embeddings when it has one
// (Phi-3.5-mini: 4,096, not 131,072). 0 when the model declares no
// context.
uint64_t vllm_default_max_model_len(const ModelSpec& spec);

// Adds a kRequest warning to `warnings` when `context_tokens`, as `flag`
// gives it ("--ctx-size"), exceeds `limit`; nothing when it does not or
// the limit is 0. The figures still price the context as given.
void warn_past_trained_context(const TrainedContext& limit, uint64_t context_tokens,
                               std::string_view flag, std::vector<Warning>& warnings);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_TRAINED_CONTEXT_H_
