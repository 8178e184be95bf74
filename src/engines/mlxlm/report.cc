// The mlx-lm engine's report (mlxlm_report.h). Text layout:
//
//   memfit 0.1.0 — ./Llama-3.2-3B-Instruct-4bit (engine mlx-lm)
//   model_type llama, family llama, layout standard
//   inputs: --prompt-tokens 2048 --max-tokens 128 --batch-size 1
//           --prefill-step-size 2048 (1 chunk, the last 2048 tokens), KV fp16
//
//   Weights                 1.68 GiB   exact (safetensors_header)
//   KV cache              224.00 MiB   exact, 28 layers, 2304 slots at the end
//   Recurrent state            0 B     upper bound
//   Transient               1.33 GiB   modelled: held by the command buffers in flight, ...
//   of which the largest single ops:
//     Attention ...  MLP ...  Logits ...  Cache regrow ...
//   Peak                    ...        mx.get_peak_memory()
//   Budget                  ...
//   wired: mx.set_wired_limit(N); macOS: sudo sysctl iogpu.wired_limit_mb=M
//
//   FITS: ... of ... (... to spare)
#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/mlxlm_report.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "bands/error_bands.h"
#include "engines/shared/report_head.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

const MlxLmPhaseBytes& peak_of(const MlxLmEstimate& e) {
  switch (e.peak_phase) {
    case MlxLmPhase::kPrefillChunk:
      return e.prefill_chunk;
    case MlxLmPhase::kDecode:
      return e.decode;
    case MlxLmPhase::kLastChunk:
      break;
  }
  return e.last_chunk;
}

Json phase_json(const MlxLmPhaseBytes& p) {
  return {{"kv_bytes", p.kv_bytes},           {"attention_bytes", p.attention_bytes},
          {"mlp_bytes", p.mlp_bytes},         {"logits_bytes", p.logits_bytes},
          {"regrow_bytes", p.regrow_bytes},   {"transient_bytes", p.transient_bytes},
          {"total_bytes", p.total_bytes}};
}

std::string kv_type(const MlxLmSettings& s) {
  return s.kv_bits == 0 ? "fp16" : fmt::format("{}-bit, group {}", s.kv_bits, s.kv_group_size);
}

std::string set_wired_limit(const MlxLmEstimate& e) {
  return fmt::format("mx.set_wired_limit({})", e.wired_limit_mb << 20);
}
std::string sysctl(const MlxLmEstimate& e) {
  return fmt::format("sudo sysctl iogpu.wired_limit_mb={}", e.wired_limit_mb);
}

// "KV per token: 4096 B ..., one sequence; the cache grows in 256-token
// steps: 2304 slots for 2176 tokens" (docs/engine-mlxlm.md, "KV cache").
std::string kv_per_token_line(const MlxLmEstimate& e) {
  const MlxLmSettings& s = e.settings;
  std::string line = fmt::format("KV per token: {} B, one sequence ({} layers without a window)",
                                 e.kv_bytes_per_token, e.kv_layers - e.rotating_layers);
  if (e.kv_capacity_tokens != 0) {
    line += fmt::format("; KVCache grows in {}-token steps: {} slots for {} tokens",
                        kMlxLmCacheStep, e.kv_capacity_tokens, s.prompt_tokens + s.max_tokens);
  }
  return line + "\n";
}

}  // namespace

nlohmann::ordered_json mlxlm_estimate_to_json(const Model& model, const MlxLmEstimate& e,
                                              const MemoryBudget& budget,
                                              std::span<const Warning> warnings) {
  const MlxLmSettings& s = e.settings;
  Json j = report_head(model, "mlx-lm");
  j["inputs"] = {{"prompt_tokens", s.prompt_tokens},
                 {"max_tokens", s.max_tokens},
                 {"batch", s.batch},
                 {"prefill_step_size", s.prefill_step_size},
                 {"kv_bits", s.kv_bits == 0 ? Json(nullptr) : Json(s.kv_bits)},
                 {"kv_group_size", s.kv_group_size},
                 {"max_kv_size", s.max_kv_size == 0 ? Json(nullptr) : Json(s.max_kv_size)},
                 {"full_chunks", e.full_chunks},
                 {"last_chunk_tokens", e.last_chunk_tokens}};
  j["weights_bytes"] = e.weights_bytes;
  j["weights_source"] = std::string(to_string(model.weights.source));
  j["weights_verified"] = model.weights.verified;
  j["kv_bytes_per_token"] = e.kv_bytes_per_token;
  j["mlxlm"] = {{"peak_phase", std::string(to_string(e.peak_phase))},
                {"weights_bytes", e.weights_bytes},
                {"kv_bytes", e.kv_bytes},
                {"kv_layers", e.kv_layers},
                {"rotating_layers", e.rotating_layers},
                {"kv_capacity_tokens", e.kv_capacity_tokens},
                {"kv_bytes_per_token", e.kv_bytes_per_token},
                {"recurrent_bytes", e.recurrent_bytes},
                {"recurrent_layers", e.recurrent_layers},
                {"transient_bytes", e.transient_bytes},
                {"fused_attention", e.fused_attention},
                {"command_buffers",
                 {{"max_ops", s.buffers.max_ops},
                  {"max_mega_elements", s.buffers.max_mega_elements},
                  {"max_in_flight", s.buffers.max_active},
                  {"inputs_counted", s.buffers.distinct_inputs ? "distinct" : "every"}}},
                {"phases",
                 {{"prefill_chunk", e.full_chunks == 0 ? Json(nullptr) : phase_json(e.prefill_chunk)},
                  {"last_chunk", phase_json(e.last_chunk)},
                  {"decode", phase_json(e.decode)}}},
                {"figures",
                 {{"weights_bytes", e.weights_exact ? "exact" : "estimated"},
                  {"kv_bytes", "exact"},
                  {"recurrent_bytes", "upper_bound"},
                  {"transient_bytes", "modelled"}}},
                {"wired",
                 {{"limit_bytes", e.wired_limit_mb << 20},
                  {"limit_mb", e.wired_limit_mb},
                  {"set_wired_limit", set_wired_limit(e)},
                  {"sysctl", sysctl(e)}}}};
  j["mlxlm"]["peak_bytes"] = e.peak_bytes;
  add_report_bands(j, e.bands);
  add_report_tail(j, model, budget, e.budget_bytes, e.total_bytes, e.fits, warnings);
  return j;
}

std::string render_mlxlm_text(const Model& model, const MlxLmEstimate& e,
                              const MemoryBudget& budget) {
  const MlxLmSettings& s = e.settings;
  const ModelSpec& spec = model.spec;
  std::string out;
  out += report_text_head(model, "mlx-lm");
  out += fmt::format("inputs: --prompt-tokens {} --max-tokens {} --batch-size {}\n",
                     s.prompt_tokens, s.max_tokens, s.batch);
  out += fmt::format("        --prefill-step-size {} ({} full chunk{}, then {} tokens), KV {}",
                     s.prefill_step_size, e.full_chunks, e.full_chunks == 1 ? "" : "s",
                     e.last_chunk_tokens, kv_type(s));
  if (s.max_kv_size != 0) out += fmt::format(", --max-kv-size {}", s.max_kv_size);
  out += "\n\n";
  const MlxLmPhaseBytes& p = peak_of(e);
  report_row(out, "Weights", e.weights_bytes,
      fmt::format("{} ({})", e.weights_exact ? "exact" : "estimated", to_string(model.weights.source)));
  std::string kv_note = fmt::format("exact, {} layers", e.kv_layers);
  if (e.kv_capacity_tokens != 0) kv_note += fmt::format(", {} slots at the end", e.kv_capacity_tokens);
  if (e.rotating_layers != 0) kv_note += fmt::format(", {} rotating", e.rotating_layers);
  report_row(out, "KV cache", e.kv_bytes, kv_note);
  report_row(out, "Recurrent state", e.recurrent_bytes,
      e.recurrent_layers ? fmt::format("upper bound, {} layers", e.recurrent_layers) : "");
  report_row(out, "Transient", e.transient_bytes,
      fmt::format("modelled: held by the command buffers in flight, at the {}", e.peak_phase == MlxLmPhase::kDecode ? "last decode step"
                                          : e.peak_phase == MlxLmPhase::kLastChunk
                                              ? "last prefill chunk"
                                              : "last full prefill chunk"));
  out += "  of which the largest single ops:\n";
  report_row(out, "  Attention", p.attention_bytes, e.fused_attention ? "fused SDPA" : "");
  report_row(out, "  MLP", p.mlp_bytes);
  report_row(out, "  Logits", p.logits_bytes);
  report_row(out, "  Cache regrow", p.regrow_bytes, "the largest layer's old buffer");
  report_row(out, "Peak", e.peak_bytes, with_band("mx.get_peak_memory(), modelled", e.bands, "peak"));
  if (e.bands.confidence != 0) {
    report_row(out, fmt::format("Confidence {} %", e.bands.confidence), e.bands.margin_bytes,
               confidence_note(e.bands));
    report_row(out, "Total", e.total_bytes);
  }
  report_row(out, "Budget", e.budget_bytes, to_string(budget.source));
  if (e.kv_bytes_per_token != 0) out += kv_per_token_line(e);
  for (const std::string& a : spec.assumptions) out += fmt::format("assumed: {}\n", a);
  out += fmt::format("wired: {}; macOS: {}{}\n", set_wired_limit(e), sysctl(e),
                     e.fits ? "" : " (over the budget: no wired limit makes it fit)");
  out += report_verdict(e.fits, e.total_bytes, e.budget_bytes);
  return out;
}

}  // namespace memfit
