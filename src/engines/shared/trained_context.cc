// The past-the-trained-context warning (trained_context.h).
#include "engines/shared/trained_context.h"

#include <fmt/format.h>

namespace memfit {

uint64_t trained_context_tokens(const ModelSpec& spec) { return spec.max_position_tokens; }

void warn_past_trained_context(const ModelSpec& spec, uint64_t context_tokens,
                               std::string_view flag, std::vector<Warning>& warnings) {
  const uint64_t trained = trained_context_tokens(spec);
  if (trained == 0 || context_tokens <= trained) return;
  warnings.push_back(Warning{
      WarningKind::kRequest,
      fmt::format("{} {} is past the {} tokens this model was trained for (its config's "
                  "context): positions beyond them were never trained, so output degrades; "
                  "memory is priced for the context as given",
                  flag, context_tokens, trained)});
}

}  // namespace memfit
