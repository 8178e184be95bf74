// The model's context limit under each engine's rule, and the warning past
// it (trained_context.h).
#include "engines/shared/trained_context.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "model/config/rope_scaling.h"

namespace memfit {
namespace {

// vLLM leaves these types' context as declared: llama3 and longrope (su)
// configs already declare the extended context.
bool scales_context(const ModelSpec& spec) {
  const std::string& type = spec.rope_scaling.type;
  if (type.empty() || rope_type_declares_its_context(type)) return false;
  // Gemma 3 declares its context already scaled (vLLM's note).
  return spec.model_type.find("gemma3") == std::string::npos;
}

uint64_t scaled_tokens(uint64_t base, double factor) {
  const double tokens = std::floor(static_cast<double>(base) * factor);
  if (!(tokens < 18446744073709551616.0)) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(tokens);
}

}  // namespace

TrainedContext declared_context(const ModelSpec& spec) {
  return {spec.max_position_tokens, "its config's context"};
}

TrainedContext rope_scaled_context(const ModelSpec& spec) {
  if (!scales_context(spec)) return {spec.max_position_tokens, "its config's context"};
  const ModelSpec::RopeScaling& rope = spec.rope_scaling;
  const bool yarn = rope.type == "yarn";
  if (!yarn && rope.factor == 1.0) return {spec.max_position_tokens, "its config's context"};
  const uint64_t base = yarn && rope.original_max_positions != 0 ? rope.original_max_positions
                                                                 : spec.max_position_tokens;
  if (base == 0) return {0, "its config's context"};
  return {scaled_tokens(base, rope.factor),
          fmt::format("its config's rope scaling: {}{} x {} factor {}", yarn ? "original " : "",
                      base, rope.type, rope.factor)};
}

uint64_t vllm_default_max_model_len(const ModelSpec& spec) {
  const ModelSpec::RopeScaling& rope = spec.rope_scaling;
  const bool longrope = rope.type == "longrope" || rope.type == "su";
  if (longrope && rope.config_original_max_positions != 0) {
    return rope.config_original_max_positions;
  }
  return rope_scaled_context(spec).tokens;
}

void warn_past_trained_context(const TrainedContext& limit, uint64_t context_tokens,
                               std::string_view flag, std::vector<Warning>& warnings) {
  if (limit.tokens == 0 || context_tokens <= limit.tokens) return;
  warnings.push_back(Warning{
      WarningKind::kRequest,
      fmt::format("{} {} is past the {} tokens this model was trained for ({}): positions "
                  "beyond them were never trained, so output degrades; memory is priced for "
                  "the context as given",
                  flag, context_tokens, limit.tokens, limit.basis)});
}

}  // namespace memfit
