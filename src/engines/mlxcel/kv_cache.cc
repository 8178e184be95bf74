// KV cache sizing: group the per-layer plan by cache shape and price each
// group at the requested context and batch (see kv_cache.h for the rule).
#include "memfit/kv_cache.h"

#include <fmt/format.h>

#include "memfit/checked_math.h"

namespace memfit {

std::string_view to_string(KvElement element) {
  return element == KvElement::kInt8 ? "int8" : "fp16";
}

uint64_t element_bytes(KvElement element) { return element == KvElement::kInt8 ? 1 : 2; }

uint64_t every_layer_kv_bytes_per_token(const ModelSpec& spec, KvElement element) {
  CheckedBytes elems = 0;
  for (const LayerCache& layer : spec.layers) elems += CheckedBytes(layer.elems_per_token);
  return (elems * element_bytes(element)).saturated();
}

namespace {

// Groups consecutive-or-not layers with equal cache shape, in order of
// first appearance.
std::vector<std::pair<LayerCache, uint64_t>> group_layers(const std::vector<LayerCache>& layers) {
  std::vector<std::pair<LayerCache, uint64_t>> groups;
  for (const LayerCache& layer : layers) {
    bool placed = false;
    for (auto& [shape, count] : groups) {
      if (shape == layer) {
        ++count;
        placed = true;
        break;
      }
    }
    if (!placed) groups.emplace_back(layer, 1);
  }
  return groups;
}

std::string group_summary(const KvGroup& g) {
  std::string text = fmt::format("{} {}", g.layers, to_string(g.kind));
  if (g.window_tokens) text += fmt::format(" (window {})", *g.window_tokens);
  return text;
}

}  // namespace

Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, uint64_t tokens, uint64_t batch,
                                          KvElement element) {
  KvCacheEstimate out;
  out.available = !spec.layers.empty();
  CheckedBytes rounded = round_up(tokens, kKvBlockTokens);
  if (!rounded.value()) return Error::overflow(fmt::format("context of {} tokens overflows", tokens));
  out.rounded_tokens = *rounded.value();
  if (!out.available) {
    out.detail = "unavailable: no model geometry";
    return out;
  }
  const uint64_t width = element_bytes(element);
  CheckedBytes total = 0;
  CheckedBytes per_token_elems = 0;  // unbounded layers only
  std::vector<std::string> parts;
  for (const auto& [shape, count] : group_layers(spec.layers)) {
    KvGroup g;
    g.kind = shape.kind;
    g.layers = count;
    if (shape.window_tokens > 0) g.window_tokens = shape.window_tokens;
    CheckedBytes group_elems = CheckedBytes(shape.elems_per_token) * count;
    CheckedBytes per_token = group_elems * width;
    CheckedBytes fixed = CheckedBytes(shape.state_bytes) * count;
    CheckedBytes kept = rounded;
    if (shape.window_tokens > 0) {
      CheckedBytes window = round_up(shape.window_tokens, kKvBlockTokens);
      if (window.saturated() < kept.saturated()) kept = window;
    } else {
      per_token_elems += group_elems;
    }
    CheckedBytes bytes = per_token * kept * batch + fixed * batch;
    if (!bytes.value() || !per_token.value() || !fixed.value()) {
      return Error::overflow("KV cache size overflows 64 bits");
    }
    g.bytes_per_token = *per_token.value();
    g.fixed_bytes = *fixed.value();
    g.bytes = *bytes.value();
    total += bytes;
    parts.push_back(group_summary(g));
    out.groups.push_back(g);
  }
  CheckedBytes fp16 = per_token_elems * 2;
  if (!total.value() || !fp16.value()) return Error::overflow("KV cache size overflows 64 bits");
  out.total_bytes = *total.value();
  out.unbounded_fp16_bytes_per_token = *fp16.value();
  out.unbounded_int8_bytes_per_token = *per_token_elems.value();
  out.detail = fmt::format("{}: {}; {}; {} cache, ctx {} -> {} tokens, batch {}", spec.layout,
                           fmt::join(parts, " + "), spec.cache_detail, to_string(element), tokens,
                           out.rounded_tokens, batch);
  return out;
}

}  // namespace memfit
