// Family slugs: memfit's name for the architecture whose layout it chose.
#ifndef MEMFIT_MODEL_CONFIG_FAMILY_H_
#define MEMFIT_MODEL_CONFIG_FAMILY_H_

#include <string>
#include <string_view>

namespace memfit {

// The family of a config's model_type: the text variant's suffix dropped
// ("gemma3_text" -> "gemma3"), Qwen3.5's dense and MoE variants joined
// ("qwen3_5"), the rest as given; "unknown" when empty.
std::string family_slug(std::string_view model_type);

// Families served from a paged KV pool, which reserve a paged-decode
// workspace per slot.
bool is_paged_family(std::string_view family);

// True for the model types whose cache layout memfit has been checked
// against: their configs and the runtimes that serve them.
bool is_known_model_type(std::string_view model_type);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_FAMILY_H_
