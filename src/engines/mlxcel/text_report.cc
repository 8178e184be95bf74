// The human-readable breakdown. Layout (columns aligned):
//
//   memfit 0.1.0 — ./models/qwen3-8b (qwen3, family qwen3, layout standard)
//   inputs: max_tokens 8192, batch 1, kv cache fp16
//
//   Weights                 15.26 GiB   safetensors_header
//   KV cache                 1.13 GiB   standard: 36 full_attention; ...
//   ...
//   Total                   20.01 GiB
//   Budget                  22.50 GiB   meminfo_available
//   FITS
#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"
#include "memfit/mlxcel_report.h"
#include "engines/shared/report_head.h"

namespace memfit {


namespace {

void row(std::string& out, std::string_view label, uint64_t bytes, std::string_view note = "") {
  out += fmt::format("  {:<22}{:>12}", label, format_bytes(bytes));
  if (!note.empty()) out += fmt::format("   {}", note);
  out += '\n';
}

std::string micros_text(uint64_t micros) {
  return fmt::format("{:.2f}", static_cast<double>(micros) / kMicrosPerUnit);
}

}  // namespace

std::string render_mlxcel_text(const Model& model, const MlxcelEstimate& e, const MemoryBudget& budget) {
  std::string out;
  const ModelSpec& spec = model.spec;
  out += report_text_head(model, "");
  out += fmt::format("inputs: max_tokens {}, batch {}, kv cache {}{}\n\n", e.inputs.max_tokens,
                     e.inputs.batch, to_string(e.inputs.kv_element),
                     e.inputs.quant.empty() ? "" : ", quant " + e.inputs.quant);
  std::string weights_note = std::string(to_string(model.weights.source));
  if (!model.weights.verified) weights_note += " (not verified)";
  row(out, "Weights", e.weights_bytes, weights_note);
  for (int c = 0; c < kWeightComponentCount; ++c) {
    uint64_t bytes = model.weights.component_bytes[c];
    if (bytes == 0 || bytes == e.weights_bytes) continue;
    row(out, fmt::format("  {}", to_string(static_cast<WeightComponent>(c))), bytes);
  }
  row(out, "KV cache", e.kv.total_bytes, e.kv.available ? "" : "unavailable");
  for (const KvGroup& g : e.kv.groups) {
    std::string label = fmt::format("  {} x{}", to_string(g.kind), g.layers);
    std::string note;
    if (g.window_tokens) note += fmt::format("window {} tokens; ", *g.window_tokens);
    if (g.bytes_per_token > 0) note += fmt::format("{} B/token", g.bytes_per_token);
    if (g.fixed_bytes > 0) {
      if (g.bytes_per_token > 0) note += "; ";
      note += fmt::format("{} fixed per sequence", format_bytes(g.fixed_bytes));
    }
    row(out, label, g.bytes, note);
  }
  row(out, "Allocator overhead", e.allocator_overhead_bytes,
      fmt::format("factor {}", micros_text(e.headroom_factor_micros)));
  row(out, "Activation reserve", e.activation_bytes);
  row(out, "Backend in-flight", e.backend_inflight_bytes);
  row(out, "Runtime headroom", e.headroom_bytes, "overhead + activation + in-flight");
  if (e.host_shadow_bytes > 0) {
    row(out, "Host shadow (RAM)", e.host_shadow_bytes,
        fmt::format("vs {} host RAM", format_bytes(e.ram_available_bytes)));
  }
  if (e.per_slot_overhead_bytes) {
    row(out, "Decode workspace/slot", *e.per_slot_overhead_bytes, "paged KV budget only");
  }
  out += fmt::format("  {:-<34}\n", "");
  row(out, "Total", e.total_bytes);
  row(out, "Budget", e.budget_bytes, to_string(budget.source));
  out += fmt::format("\nKV detail: {}\n", e.kv.detail);
  if (e.kv.available) {
    out += fmt::format("KV per token: {} B fp16, {} B int8 (unbounded layers)\n",
                       e.kv.unbounded_fp16_bytes_per_token, e.kv.unbounded_int8_bytes_per_token);
  }
  if (!spec.quantization.method.empty()) {
    const QuantizationInfo& q = spec.quantization;
    out += fmt::format("Quantization: {}", escape_untrusted(q.method));
    if (q.bits) out += fmt::format(", {} bits", q.bits);
    if (q.group_size) out += fmt::format(", group {}", q.group_size);
    if (!q.block_size.empty()) out += fmt::format(", block {}", fmt::join(q.block_size, "x"));
    out += " (header bytes are the truth)\n";
  }
  if (spec.moe.experts > 0) {
    out += fmt::format("MoE: {} experts, {} per token, {} shared (all experts are resident)\n",
                       spec.moe.experts, spec.moe.experts_per_token, spec.moe.shared_experts);
  }
  for (const std::string& a : spec.assumptions) out += fmt::format("assumed: {}\n", a);
  if (e.fits || e.total_bytes > e.budget_bytes) {
    out += report_verdict(e.fits, e.total_bytes, e.budget_bytes);
    if (!e.fits) out += fit_pointer_line(shown_model_name(model), "mlxcel", "max-tokens");
  } else {
    out += fmt::format("\nDOES NOT FIT: host shadow {} exceeds {} host RAM\n",
                       format_bytes(e.host_shadow_bytes), format_bytes(e.ram_available_bytes));
  }
  return out;
}

}  // namespace memfit
