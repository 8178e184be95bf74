// read_rope_scaling (rope_scaling.h).
#include "model/config/rope_scaling.h"

#include <cmath>
#include <vector>

namespace memfit {
namespace {

using Json = nlohmann::json;

// The largest factor read; real configs give 2 to 64.
constexpr double kMaxRopeFactor = 1e6;

// The rope object of `scope`: its rope_scaling, else rope_parameters;
// nullptr when neither is an object.
const Json* rope_object(const Json& scope) {
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    auto it = scope.find(key);
    if (it != scope.end() && it->is_object()) return &*it;
  }
  return nullptr;
}

std::string type_of(const Json& entry) {
  for (const char* key : {"rope_type", "type"}) {
    auto it = entry.find(key);
    if (it != entry.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

// A transformers 5 rope_parameters keyed by layer type: every value an
// object, none of the keys a rope field.
bool keyed_by_layer_type(const Json& rope) {
  if (rope.empty() || rope.contains("rope_type") || rope.contains("type")) return false;
  for (const auto& [key, value] : rope.items()) {
    if (!value.is_object()) return false;
  }
  return true;
}

// `scope`'s partial_rotary_factor into `out` when it is a number in (0, 1].
void read_partial_rotary_factor(const Json& scope, ModelSpec::RopeScaling& out) {
  auto it = scope.find("partial_rotary_factor");
  if (it == scope.end() || !it->is_number()) return;
  const double f = it->get<double>();
  if (std::isfinite(f) && f > 0 && f <= 1) out.partial_rotary_factor = f;
}

// Folds one entry into `out` as vLLM's loop does: a scaling type replaces
// the type, and its factor (when it states one) and original length.
void fold(const Json& entry, ModelSpec::RopeScaling& out) {
  if (entry.contains("mrope_section")) out.mrope = true;
  read_partial_rotary_factor(entry, out);
  std::string type = type_of(entry);
  // "default" (plain RoPE) states no factor: it leaves the scaling folded
  // so far as it is.
  if (type.empty() || type == "default" || rope_type_declares_its_context(type)) {
    if (out.type.empty()) out.type = std::move(type);
    return;
  }
  out.type = std::move(type);
  auto factor = entry.find("factor");
  if (factor != entry.end() && factor->is_number()) {
    const double f = factor->get<double>();
    if (std::isfinite(f) && f > 0 && f <= kMaxRopeFactor) out.factor = f;
  }
  auto original = entry.find("original_max_position_embeddings");
  if (original != entry.end() && original->is_number_unsigned()) {
    out.original_max_positions = original->get<uint64_t>();
  }
}

}  // namespace

bool rope_type_declares_its_context(std::string_view type) {
  return type == "llama3" || type == "longrope" || type == "su";
}

ModelSpec::RopeScaling read_rope_scaling(const ConfigDocument& doc) {
  ModelSpec::RopeScaling out;
  // The config's own original_max_position_embeddings (Phi-3's longrope
  // keeps it at the top of the text config): vLLM's default length for
  // longrope.
  for (const Json* scope : {&doc.text(), &doc.top()}) {
    auto it = scope->find("original_max_position_embeddings");
    if (out.config_original_max_positions == 0 && it != scope->end() &&
        it->is_number_unsigned()) {
      out.config_original_max_positions = it->get<uint64_t>();
    }
  }
  // The text config's own factor (Qwen3-Next, Qwen3.5 beside their rope
  // object); one inside the rope object overrides it (fold).
  read_partial_rotary_factor(doc.text(), out);
  const Json* rope = rope_object(doc.text());
  if (rope == nullptr) rope = rope_object(doc.top());
  if (rope == nullptr) return out;
  if (!keyed_by_layer_type(*rope)) {
    fold(*rope, out);
    return out;
  }
  for (const auto& [layer_type, entry] : rope->items()) fold(entry, out);
  return out;
}

}  // namespace memfit
