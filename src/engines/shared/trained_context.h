// The model's own limit on context: the context its config declares
// (ModelSpec::max_position_tokens: max_position_embeddings and its
// aliases, a GGUF's <arch>.context_length, llama.cpp's n_ctx_train), the
// warning every engine gives past it. vLLM's refusal of a longer
// --max-model-len is its own rule (engines/vllm/profile.cc).
//
// RoPE scaling is not yet considered: a config whose rope_scaling extends
// the declared context (yarn, linear) is judged by the declared one.
#ifndef MEMFIT_ENGINES_SHARED_TRAINED_CONTEXT_H_
#define MEMFIT_ENGINES_SHARED_TRAINED_CONTEXT_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "memfit/model_spec.h"
#include "memfit/warning.h"

namespace memfit {

// The context `spec` was trained for, in tokens; 0 when it declares none.
uint64_t trained_context_tokens(const ModelSpec& spec);

// Adds a kRequest warning to `warnings` when `context_tokens`, as `flag`
// gives it ("--ctx-size"), exceeds trained_context_tokens(spec); nothing
// when it does not or the model declares no context. The figures still
// price the context as given.
void warn_past_trained_context(const ModelSpec& spec, uint64_t context_tokens,
                               std::string_view flag, std::vector<Warning>& warnings);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_TRAINED_CONTEXT_H_
