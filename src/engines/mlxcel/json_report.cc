// The mlxcel profile's report as JSON (mlxcel_estimate_to_json, memfit/mlxcel_report.h):
// the fields every report starts with, then each term of estimate_mlxcel().
#include <fmt/format.h>

#include "memfit/mlxcel_report.h"
#include "engines/shared/report_head.h"

namespace memfit {

namespace {

using Json = nlohmann::ordered_json;

Json optional_bytes(const std::optional<uint64_t>& v) { return v ? Json(*v) : Json(nullptr); }

std::string micros_text(uint64_t micros) {
  return fmt::format("{}.{:06}", micros / kMicrosPerUnit, micros % kMicrosPerUnit);
}

}  // namespace

nlohmann::ordered_json mlxcel_estimate_to_json(const Model& model, const MlxcelEstimate& e,
                                               const MemoryBudget& budget,
                                               std::span<const Warning> warnings) {
  Json j = report_head(model, "mlxcel");  // the MLX runtime's own estimator
  j["inputs"] = {{"max_tokens", e.inputs.max_tokens},
                 {"batch", e.inputs.batch},
                 {"kv_cache_mode", std::string(to_string(e.inputs.kv_element))},
                 {"quant", e.inputs.quant.empty() ? Json(nullptr) : Json(e.inputs.quant)}};
  j["weights_bytes"] = e.weights_bytes;
  j["weights_source"] = std::string(to_string(model.weights.source));
  j["weights_verified"] = model.weights.verified;
  uint64_t split_total = 0;
  for (uint64_t b : model.weights.component_bytes) split_total += b;
  if (split_total > 0) {
    Json parts;
    for (int c = 0; c < kWeightComponentCount; ++c) {
      parts[std::string(to_string(static_cast<WeightComponent>(c)))] = model.weights.component_bytes[c];
    }
    j["weights_components"] = std::move(parts);
  } else {
    j["weights_components"] = nullptr;
  }
  if (e.kv.available) {
    j["kv_bytes_per_token"] = {{"fp16", e.kv.unbounded_fp16_bytes_per_token},
                               {"int8", e.kv.unbounded_int8_bytes_per_token},
                               {"turbo4", nullptr}};
  } else {
    j["kv_bytes_per_token"] = {{"fp16", nullptr}, {"int8", nullptr}, {"turbo4", nullptr}};
  }
  j["kv_bytes_total"] = e.kv.total_bytes;
  j["kv_detail"] = e.kv.detail;
  Json layout = Json::array();
  for (const KvGroup& g : e.kv.groups) {
    layout.push_back({{"kind", std::string(to_string(g.kind))},
                      {"layers", g.layers},
                      {"window", optional_bytes(g.window_tokens)},
                      {"bytes_per_token", g.bytes_per_token},
                      {"fixed_bytes", g.fixed_bytes},
                      {"bytes", g.bytes}});
  }
  j["kv_layout"] = std::move(layout);
  j["per_slot_overhead_bytes"] = optional_bytes(e.per_slot_overhead_bytes);
  j["allocator_overhead_bytes"] = e.allocator_overhead_bytes;
  j["activation_bytes"] = e.activation_bytes;
  j["headroom_bytes"] = e.headroom_bytes;
  // A JSON number, exact to the millionth the settings keep.
  j["headroom_factor"] = Json::parse(micros_text(e.headroom_factor_micros));
  j["backend_inflight_bytes"] = e.backend_inflight_bytes;
  j["host_shadow_bytes"] = e.host_shadow_bytes;
  j["ram_available_bytes"] = e.ram_available_bytes;
  j["host_shadow_fits"] = e.host_shadow_fits;
  add_report_budget(j, budget, e.budget_bytes, e.total_bytes, e.fits);
  const QuantizationInfo& q = model.spec.quantization;
  j["quantization"] = q.method.empty() ? Json(nullptr)
                                       : Json{{"method", q.method},
                                              {"bits", q.bits ? Json(q.bits) : Json(nullptr)},
                                              {"group_size", q.group_size ? Json(q.group_size)
                                                                          : Json(nullptr)},
                                              {"block_size", q.block_size}};
  const MoeInfo& moe = model.spec.moe;
  j["moe"] = moe.experts == 0 ? Json(nullptr)
                              : Json{{"experts", moe.experts},
                                     {"experts_per_token", moe.experts_per_token},
                                     {"shared_experts", moe.shared_experts}};
  add_report_tail(j, model, warnings);
  return j;
}

}  // namespace memfit
