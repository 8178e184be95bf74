// The llama.cpp engine's report (llamacpp_report.h). Text layout:
//
//   memfit 0.1.0 — ./Qwen3-8B (engine llamacpp)
//   model_type qwen3, family qwen3, layout standard
//   inputs: n_ctx 4096 (1 x 4096 cells), n_seq 1, n_batch 2048, n_ubatch 512,
//           K f16, V f16, flash_attn auto (on), swa_full off, kv_unified off,
//           repack x86-avx2
//   (a llama-server run from b9460 adds " n_outputs_max 4," after n_ubatch)
//
//   Model                   17.01 GiB   exact (gguf_header)
//     Mapped weights        15.26 GiB   CPU_Mapped, the file's tensor range
//     Repacked copies        1.75 GiB   CPU_REPACK (x86-avx2)
//   Context                576.58 MiB   exact
//     KV cache             576.00 MiB   36 layers
//     Recurrent state           0 B
//     Output buffer        593.50 KiB
//   Compute                308.75 MiB   modelled, fewer than 5 CPU logs (2)
//                                       (the corpus's band: bands/error_bands.h)
//   Server extras          ...          (only with --mmproj, ...)
//     mmproj weights       ...          exact, on cuda:0, mmproj.gguf
//     LoRA adapter         ...          exact, on cuda:0, adapter.gguf
//   Confidence 95 %         ...         (only with --confidence)
//   Total                   ...
//   Budget                  ...         explicit
//
//   FITS: ... of ... (... to spare)
#include <algorithm>

#include <fmt/format.h>

#include "memfit/llamacpp_report.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "bands/error_bands.h"
#include "engines/llamacpp/parts.h"
#include "engines/shared/report_head.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

std::string_view on_off(bool on) { return on ? "on" : "off"; }

Json extras_json(const LlamaCppEstimate& e) {
  Json out = Json::array();
  for (const LlamaCppExtraLine& x : e.extras) {
    out.push_back({{"name", x.name},
                   {"file", escape_untrusted(x.file, x.file.size())},
                   {"device", x.device},
                   {"bytes", x.bytes},
                   {"figure", x.exact ? "exact" : "modelled"}});
  }
  return out;
}

Json devices_json(const LlamaCppEstimate& e) {
  Json out = Json::array();
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    out.push_back({{"device", d.device},
                   {"name", escape_untrusted(d.name)},
                   {"model_bytes", d.model_bytes},
                   {"context_bytes", d.context_bytes},
                   {"compute_bytes", d.compute_bytes},
                   {"extras_bytes", d.extras_bytes},
                   {"confidence_bytes", d.confidence_bytes},
                   {"total_bytes", d.total_bytes},
                   {"free_bytes", d.free_bytes},
                   {"usable_bytes", d.usable_bytes},
                   {"fits", d.fits},
                   {"short_bytes", d.short_bytes},
                   {"blocks", d.blocks},
                   {"output_layer", d.output_layer},
                   {"page_cache_bytes", d.page_cache_bytes}});
  }
  return out;
}

// The per-device table, when the plan has GPUs.
void devices_text(std::string& out, const LlamaCppEstimate& e) {
  const LlamaCppPlacementSettings& p = e.settings.placement;
  if (p.gpus.empty()) return;
  uint64_t blocks = 0;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) blocks += d.blocks;
  out += fmt::format("\nDevices: -ngl {} of {} (blocks + the output layer), split {}, GPU margin {}{}\n",
                     e.placement.n_gpu_layers, blocks + 1, to_string(p.split_mode),
                     format_bytes(p.gpu_margin_bytes), p.unified ? ", unified memory: one pool" : "");
  // The name column is as wide as the longest name (at least 20), so a
  // name as nvidia-smi prints it ("NVIDIA GeForce RTX 4090") is never cut.
  size_t name_width = 20;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    name_width = std::max(name_width, escape_untrusted(d.name, d.name.size()).size());
  }
  out += fmt::format("  {:<8} {:<{}} {:>6} {:>11} {:>11} {:>11} {:>11} {:>11}\n", "device", "name",
                     name_width, "blocks", "model", "context", "compute", "total", "usable");
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    out += fmt::format("  {:<8} {:<{}} {:>6} {:>11} {:>11} {:>11} {:>11} {:>11}  {}\n", d.device,
                       escape_untrusted(d.name, d.name.size()), name_width,
                       fmt::format("{}{}", d.blocks, d.output_layer ? "+o" : ""),
                       format_bytes(d.model_bytes), format_bytes(d.context_bytes),
                       format_bytes(d.compute_bytes), format_bytes(d.total_bytes),
                       format_bytes(d.usable_bytes),
                       d.fits ? "fits" : fmt::format("SHORT by {}", format_bytes(d.short_bytes)));
  }
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    if (d.extras_bytes > 0) {
      out += fmt::format("  {}'s total includes {} of server extras\n", d.device, format_bytes(d.extras_bytes));
    }
  }
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    if (d.confidence_bytes > 0) {
      out += fmt::format("  {}'s total includes {} of the {} % confidence margin\n", d.device,
                         format_bytes(d.confidence_bytes), e.bands.confidence);
    }
  }
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    if (d.page_cache_bytes > 0) {
      out += fmt::format("  {} of the host's model is mapped page cache the OS may drop "
                         "(--no-mmap or --mlock: resident)\n",
                         format_bytes(d.page_cache_bytes));
    }
  }
}

}  // namespace

nlohmann::ordered_json llamacpp_estimate_to_json(const Model& model, const LlamaCppEstimate& e,
                                                 const MemoryBudget& budget,
                                                 std::span<const Warning> warnings) {
  const LlamaCppSettings& s = e.settings;
  const LlamaCppContext& c = e.context;
  Json j = report_head(model, "llamacpp");
  j["inputs"] = {{"ctx_size", s.ctx_size},
                 {"n_ctx", c.n_ctx},
                 {"n_ctx_seq", c.n_ctx_seq},
                 {"n_seq", c.n_seq},
                 {"streams", c.streams},
                 {"n_batch", c.n_batch},
                 {"n_ubatch", c.n_ubatch},
                 {"swa_cells", c.swa_cells == 0 ? Json(nullptr) : Json(c.swa_cells)},
                 {"cache_type_k", std::string(ggml_type_traits(s.cache_type_k).name)},
                 {"cache_type_v", std::string(ggml_type_traits(s.cache_type_v).name)},
                 {"flash_attn", std::string(to_string(s.flash_attn))},
                 {"flash_attn_resolved", c.flash_attn},
                 {"swa_full", s.swa_full},
                 {"kv_unified", s.kv_unified},
                 {"repack", std::string(to_string(e.repack))}};
  if (llamacpp::reserved_output_rows(c) < std::min(c.n_ctx, c.n_ubatch)) {  // only then, as below
    j["inputs"]["n_outputs_max"] = c.n_outputs_max;
  }
  if (s.embedding) {  // only then: a generation report's inputs are as they were
    const std::string_view pooling = llamacpp::pooling_of(model.spec, s);
    j["inputs"]["embedding"] = true;
    j["inputs"]["pooling"] = pooling.empty() ? Json(nullptr) : Json(std::string(pooling));
  }
  j["weights_bytes"] = e.mapped_bytes;
  j["weights_source"] = std::string(to_string(model.weights.source));
  j["weights_verified"] = model.weights.verified;
  j["kv_bytes_per_token"] = e.kv_bytes_per_token;
  j["llamacpp"] = {{"model_bytes", e.model_bytes},
                   {"mapped_bytes", e.mapped_bytes},
                   {"repack_bytes", e.repack_modelled ? Json(e.repack_bytes) : Json(nullptr)},
                   {"context_bytes", e.context_bytes},
                   {"compute_bytes", e.compute_bytes},
                   {"context",
                    {{"kv_bytes", e.kv_bytes},
                     {"k_bytes", e.k_bytes},
                     {"v_bytes", e.v_bytes},
                     {"kv_layers", e.kv_layers},
                     {"kv_bytes_per_token", e.kv_bytes_per_token},
                     {"recurrent_bytes", e.recurrent_bytes},
                     {"recurrent_layers", e.recurrent_layers},
                     {"output_bytes", e.output_bytes}}},
                   {"extras_bytes", e.extras_bytes},
                   {"extras", extras_json(e)},
                   {"devices", devices_json(e)},
                   {"figures",
                    {{"model_bytes", e.model_bytes_exact ? "exact" : "estimated"},
                     {"context_bytes", "exact"},
                     {"compute_bytes", e.compute_replayed ? "replayed" : "modelled"}}}};
  add_report_bands(j, e.bands);
  add_report_tail(j, model, budget, e.budget_bytes, e.total_bytes, e.fits, warnings);
  return j;
}

std::string render_llamacpp_text(const Model& model, const LlamaCppEstimate& e,
                                 const MemoryBudget& budget) {
  const LlamaCppSettings& s = e.settings;
  const LlamaCppContext& c = e.context;
  const ModelSpec& spec = model.spec;
  std::string out;
  out += report_text_head(model, "llamacpp");
  // n_outputs_max only where it caps the prompt graph's rows (llama-server
  // from #23861): a library run's report is as it was.
  const bool outputs_capped = llamacpp::reserved_output_rows(c) < std::min(c.n_ctx, c.n_ubatch);
  out += fmt::format("inputs: n_ctx {} ({} x {} cells), n_seq {}, n_batch {}, n_ubatch {},{}\n", c.n_ctx,
                     c.streams, c.n_ctx_seq, c.n_seq, c.n_batch, c.n_ubatch,
                     outputs_capped ? fmt::format(" n_outputs_max {},", c.n_outputs_max) : "");
  out += fmt::format("        K {}, V {}, flash_attn {} ({}), swa_full {}, kv_unified {},\n",
                     ggml_type_traits(s.cache_type_k).name, ggml_type_traits(s.cache_type_v).name,
                     to_string(s.flash_attn), on_off(c.flash_attn), on_off(s.swa_full),
                     on_off(s.kv_unified));
  out += fmt::format("        repack {}\n\n", to_string(e.repack));
  // A GGUF header's bytes not read but worked out: --quant's file type.
  const bool quantized_here =
      model.weights.source == WeightsSource::kGgufHeader && !model.weights.verified;
  std::string model_note = with_band(
      quantized_here ? std::string("as the file llama-quantize would write for --quant")
                     : fmt::format("{} ({})", e.model_bytes_exact ? "exact" : "estimated",
                                   to_string(model.weights.source)),
      e.bands, "model");
  report_row(out, "Model", e.model_bytes, model_note);
  report_row(out, "  Mapped weights", e.mapped_bytes,
      e.settings.placement.gpus.empty() ? "CPU_Mapped, the file's tensor range"
                                        : "the file's tensors, over the devices below");
  if (!e.repack_modelled) {
    out += fmt::format("  {:<22}{:>12}   not modelled: no GGUF tensor list\n", "  Repacked copies", "?");
  } else if (e.repack != RepackCpu::kNone) {
    report_row(out, "  Repacked copies", e.repack_bytes, fmt::format("CPU_REPACK ({})", to_string(e.repack)));
  }
  report_row(out, "Context", e.context_bytes, "exact");
  std::string kv_note = fmt::format("{} layers", e.kv_layers);
  if (c.swa_cells != 0) kv_note += fmt::format(", SWA {} cells per stream", c.swa_cells);
  report_row(out, "  KV cache", e.kv_bytes, kv_note);
  report_row(out, "  Recurrent state", e.recurrent_bytes,
      e.recurrent_layers ? fmt::format("{} layers", e.recurrent_layers) : "");
  if (s.embedding) {
    report_row(out, "  Output buffer", e.output_bytes,
        fmt::format("logits and embeddings for {} batch tokens", std::max(c.n_batch, c.n_seq)));
  } else {
    const bool embd = llamacpp::keeps_output_embeddings(model.spec, s);  // Ollama's runner
    report_row(out, "  Output buffer", e.output_bytes,
        fmt::format("logits{} for {} sequence{}", embd ? " and embeddings" : "", c.n_seq, c.n_seq == 1 ? "" : "s"));
  }
  report_row(out, "Compute", e.compute_bytes,
             e.compute_replayed ? "replayed: llama.cpp's allocator over its graph"
                                : with_band("modelled", e.bands, "compute"));
  if (!e.extras.empty()) {
    report_row(out, "Server extras", e.extras_bytes);
    for (const LlamaCppExtraLine& x : e.extras) {
      std::string note = fmt::format("{}, on {}", x.exact ? "exact" : "modelled", x.device);
      if (!x.file.empty()) note += ", " + escape_untrusted(x.file, x.file.size());
      report_row(out, "  " + x.name, x.bytes, note);
    }
  }
  if (e.bands.confidence != 0) {
    report_row(out, fmt::format("Confidence {} %", e.bands.confidence), e.bands.margin_bytes,
               confidence_note(e.bands));
  }
  report_row(out, "Total", e.total_bytes);
  report_row(out, "Budget", e.budget_bytes, to_string(budget.source));
  if (e.kv_bytes_per_token != 0) {
    out += fmt::format("KV per token: {} B (K {} + V {}, the layers that grow with the context)\n",
                       e.kv_bytes_per_token, ggml_type_traits(s.cache_type_k).name,
                       ggml_type_traits(s.cache_type_v).name);
  }
  devices_text(out, e);
  for (const std::string& a : spec.assumptions) out += fmt::format("assumed: {}\n", a);
  if (!e.settings.placement.gpus.empty()) {
    const LlamaCppDeviceUsage* worst = nullptr;
    for (const LlamaCppDeviceUsage& d : e.placement.devices) {
      if (!d.fits && (worst == nullptr || d.short_bytes > worst->short_bytes)) worst = &d;
    }
    if (worst == nullptr) {
      out += fmt::format("\nFITS: every device, {} in all\n", format_bytes(e.total_bytes));
    } else {
      out += fmt::format("\nDOES NOT FIT: {} is {} short", worst->device, format_bytes(worst->short_bytes));
      for (const LlamaCppDeviceUsage& d : e.placement.devices) {
        if (!d.fits && &d != worst) out += fmt::format(", {} {} short", d.device, format_bytes(d.short_bytes));
      }
      out += "\n";
      // Experts move by GGUF tensor name (n-cpu-moe), else whole layers.
      const bool experts = spec.moe.experts != 0 && !model.tensors.empty();
      out += fit_pointer_line(shown_model_name(model), "llamacpp", experts ? "n-cpu-moe" : "gpu-layers");
    }
  } else {
    out += report_verdict(e.fits, e.total_bytes, e.budget_bytes);
    if (!e.fits) out += fit_pointer_line(shown_model_name(model), "llamacpp", "ctx-size");
  }
  return out;
}

}  // namespace memfit
