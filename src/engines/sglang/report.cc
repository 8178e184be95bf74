// The sglang report. Text:
//
//   memfit V — PATH (engine sglang)
//   model_type T, family F, layout L
//   SGLang 0.5.20, one rank of TP 1 x DP 1 (1 GPU) of 80.00 GiB (81920 MiB)
//     mem-fraction-static 0.835 (computed by SGLang's rule)
//     weights ... startup ... KV pool ... req_to_token ... CUDA graphs ...
//   max_total_num_tokens N (B bytes per token), max_running_requests R
//   start: python -m sglang.launch_server --model-path PATH ...
//
//   FITS: ... / DOES NOT FIT: ...
#include "engines/sglang/report.h"

#include <fmt/format.h>

#include "engines/shared/report_head.h"
#include "engines/shared/shell_word.h"
#include "memfit/checked_math.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::sglang {
namespace {

using Json = nlohmann::ordered_json;


std::string fraction_text(double fraction) { return fmt::format("{:.3f}", fraction); }

}  // namespace

uint64_t budget_limit(const Plan& plan, const MemoryBudget& budget) {
  return budget.source == BudgetSource::kExplicit ? budget.budget_bytes : plan.settings.gpu_total_bytes;
}

bool plan_fits(const Plan& plan, const MemoryBudget& budget) {
  return plan.starts && plan.holds_context && plan.serves_request && plan.peak_bytes <= budget_limit(plan, budget);
}

std::string launch_command(const Model& model, const Plan& plan) {
  const Settings& s = plan.settings;
  std::string out = "python -m sglang.launch_server --model-path " +
                    shell_word(escape_untrusted(model.path, model.path.size()));
  out += fmt::format(" --tp {}", s.tensor_parallel);
  if (s.dp_size > 1) out += fmt::format(" --dp {}", s.dp_size);
  if (s.dp_attention) out += " --enable-dp-attention";
  if (s.dp_lm_head) out += " --enable-dp-lm-head";
  if (s.moe_a2a_backend != "none") out += " --moe-a2a-backend " + s.moe_a2a_backend;
  if (s.disaggregation_mode != "null") out += " --disaggregation-mode " + s.disaggregation_mode;
  if (s.hierarchical_cache) out += " --enable-hierarchical-cache";
  if (s.ep_size > 1 && s.moe_a2a_backend != "deepep" && s.moe_a2a_backend != "mooncake") {
    out += fmt::format(" --ep-size {}", s.ep_size);
  }
  out += " --mem-fraction-static " + fraction_text(plan.mem_fraction_static);
  out += fmt::format(" --context-length {}", s.context_length);
  if (s.max_running_requests) out += fmt::format(" --max-running-requests {}", *s.max_running_requests);
  if (s.max_total_tokens) out += fmt::format(" --max-total-tokens {}", *s.max_total_tokens);
  if (s.page_size != 1) out += fmt::format(" --page-size {}", s.page_size);
  if (s.kv_cache_dtype != "auto") out += " --kv-cache-dtype " + s.kv_cache_dtype;
  if (plan.state.bytes != 0) {
    if (s.state.max_mamba_cache_size) out += fmt::format(" --max-mamba-cache-size {}", *s.state.max_mamba_cache_size);
    if (s.state.mamba_full_memory_ratio != kMambaFullMemoryRatio) {
      out += fmt::format(" --mamba-full-memory-ratio {}", s.state.mamba_full_memory_ratio);
    }
    if (s.state.mamba_ssm_dtype != "float32") out += " --mamba-ssm-dtype " + s.state.mamba_ssm_dtype;
    if (s.state.disable_radix_cache) out += " --disable-radix-cache";
  }
  out += fmt::format(" --chunked-prefill-size {}", s.chunked_prefill_size.value_or(0));
  if (s.disable_piecewise_cuda_graph) out += " --disable-piecewise-cuda-graph";
  if (s.disable_cuda_graph) {
    out += " --disable-cuda-graph";
  } else {
    out += fmt::format(" --cuda-graph-max-bs {}", s.cuda_graph_max_bs.value_or(0));
  }
  return out;
}

Json plan_to_json(const Model& model, const Plan& p, const MemoryBudget& budget, std::span<const Warning> warnings) {
  const Settings& s = p.settings;
  Json j = report_head(model, "sglang");
  j["sglang_version"] = s.release;
  j["gpu_total_bytes"] = s.gpu_total_bytes;
  j["gpu_mem_mib"] = p.gpu_mem_mib;
  j["tensor_parallel"] = s.tensor_parallel;
  j["dp_size"] = s.dp_size;
  j["enable_dp_attention"] = s.dp_attention;
  j["enable_dp_lm_head"] = s.dp_lm_head;
  j["gpus"] = s.tensor_parallel * s.dp_size;
  j["mem_fraction_static"] = p.mem_fraction_static;
  j["mem_fraction_computed"] = p.mem_fraction_computed;
  j["attention_backend"] = s.attention_backend;
  j["aiter_fraction_cut"] = p.aiter_fraction_cut;
  j["piecewise_cuda_graph"] = !p.piecewise_rule_date.empty();
  j["context_length"] = s.context_length;
  j["page_size"] = s.page_size;
  j["kv_cache_dtype"] = s.kv_cache_dtype;
  j["chunked_prefill_size"] = s.chunked_prefill_size.value_or(0);
  j["cuda_graph_max_bs"] = s.cuda_graph_max_bs.value_or(0);
  j["disable_cuda_graph"] = s.disable_cuda_graph;
  j["weights_bytes"] = p.weights_bytes;
  j["weights_exact"] = p.weights_exact;
  j["startup_bytes"] = p.startup_bytes;
  j["free_before_load_bytes"] = p.free_before_load_bytes;
  j["kv_bytes_per_token"] = p.cell.stored_bytes;  // what a token's entry occupies (NSA fp8: past the profiled cell)
  j["kv_bytes_per_token_full"] = p.cell.full_bytes;  // the full-attention layers' pool
  j["kv_bytes_per_token_swa"] = p.cell.swa_bytes;    // the sliding-window layers' pool
  j["kv_layout"] = p.cell.mla ? "mla" : (p.cell.swa_layers != 0 && p.cell.full_layers != 0 ? "swa_hybrid" : "mha");
  j["mamba_state_bytes_per_request"] = p.state.bytes;
  j["mamba_conv_state_bytes_per_request"] = p.state.conv_bytes;
  j["mamba_ssm_state_bytes_per_request"] = p.state.temporal_bytes;
  j["mamba_state_layers"] = p.state.layers;
  j["max_mamba_cache_size"] = p.state_pool.slots;
  j["mamba_pool_bytes"] = p.state_pool.bytes;
  j["mamba_pool_sized_by_ratio"] = p.state_pool.from_ratio;
  j["mamba_full_memory_ratio"] = s.state.mamba_full_memory_ratio;
  j["mamba_ssm_dtype"] = s.state.mamba_ssm_dtype;
  j["disable_radix_cache"] = s.state.disable_radix_cache;
  j["max_total_num_tokens"] = p.max_total_num_tokens;
  j["swa_tokens"] = p.swa_tokens;
  j["kv_pool_bytes"] = p.kv_pool_bytes;
  j["max_running_requests"] = p.max_running_requests;
  j["req_to_token_bytes"] = p.req_to_token_bytes;
  j["cuda_graph_bytes"] = p.cuda_graph_bytes;
  j["piecewise_cuda_graph_bytes"] = p.piecewise_cuda_graph_bytes;
  j["activation_bytes"] = p.activation_bytes;
  j["starts"] = p.starts;
  j["holds_context"] = p.holds_context;
  j["serves_request"] = p.serves_request;
  j["launch_command"] = launch_command(model, p);
  add_report_tail(j, model, budget, budget_limit(p, budget), p.peak_bytes, plan_fits(p, budget), warnings);
  return j;
}

std::string render_plan_text(const Model& model, const Plan& p, const MemoryBudget& budget) {
  const Settings& s = p.settings;
  std::string out = report_text_head(model, "sglang");
  out += fmt::format("SGLang {}, one rank of TP {} x DP {} ({} GPUs) of {} ({} MiB)\n", s.release,
                     s.tensor_parallel, s.dp_size, s.tensor_parallel * s.dp_size,
                     format_bytes(s.gpu_total_bytes), p.gpu_mem_mib);
  out += fmt::format("  mem-fraction-static {} ({})\n", fraction_text(p.mem_fraction_static),
                     !p.mem_fraction_computed         ? "given"
                     : p.piecewise_rule_date.empty()  ? "computed by SGLang's rule for this GPU"
                                                      : "computed by SGLang's rule for this GPU, with the "
                                                        "piecewise CUDA graphs' reserve");
  report_row(out, "weights", p.weights_bytes, p.weights_exact ? "per rank, from the headers" : "per rank, modelled");
  report_row(out, "startup", p.startup_bytes, "CUDA context and buffers (modelled)");
  if (p.state.bytes != 0) {
    report_row(out, "state pool", p.state_pool.bytes,
               fmt::format("{} slots x {} B ({})", p.state_pool.slots, p.state.bytes,
                           p.state_pool.from_ratio
                               ? fmt::format("mamba-full-memory-ratio {}", s.state.mamba_full_memory_ratio)
                               : std::string("given")));
  }
  report_row(out, "KV pool", p.kv_pool_bytes,
             fmt::format("{} tokens x {} B", p.max_total_num_tokens, p.cell.bytes));
  report_row(out, "req_to_token", p.req_to_token_bytes,
             fmt::format("{} requests x {} tokens", p.max_running_requests, s.context_length));
  report_row(out, "CUDA graphs", p.cuda_graph_bytes, "2 MiB per batch (modelled)");
  if (p.piecewise_cuda_graph_bytes != 0) {
    report_row(out, "piecewise graphs", p.piecewise_cuda_graph_bytes, "SGLang's reserve for them (modelled)");
  }
  report_row(out, "activations", p.activation_bytes, "one prefill chunk (modelled)");
  out += fmt::format("max_total_num_tokens {}", p.max_total_num_tokens);
  if (p.swa_tokens != 0) out += fmt::format(" (sliding-window layers: {})", p.swa_tokens);
  out += fmt::format(", max_running_requests {}\n", p.max_running_requests);
  out += fmt::format("KV per token: {} B per rank\n", p.cell.bytes);
  if (p.state.bytes != 0) {
    // As SGLang's MambaPool logs it ("Mamba Cache is allocated."), GB = 2^30 B.
    const double gb = static_cast<double>(kGiB);
    out += fmt::format("Mamba Cache: max_mamba_cache_size: {}, conv_state size: {:.2f}GB, ssm_state "
                       "size: {:.2f}GB ({} state layers, {} requests at most)\n",
                       p.state_pool.slots, static_cast<double>(p.state_pool.slots) * p.state.conv_bytes / gb,
                       static_cast<double>(p.state_pool.slots) * p.state.temporal_bytes / gb, p.state.layers,
                       p.state_pool.slots / p.state_pool.slots_per_request);
  }
  out += "start: " + launch_command(model, p) + "\n";
  const bool fits = plan_fits(p, budget);
  const uint64_t limit = budget_limit(p, budget);
  if (fits || p.peak_bytes > limit) {
    out += report_verdict(fits, p.peak_bytes, limit);
  } else {
    // Within the budget but SGLang would not serve the context: say why.
    if (!p.starts) {
      out += "\nDOES NOT FIT: SGLang refuses to start: the weights leave no KV pool at this "
             "mem-fraction-static\n";
    } else if (!p.holds_context) {
      out += fmt::format("\nDOES NOT FIT: the KV pool holds {} tokens, less than one request of {}\n",
                         p.max_total_num_tokens, s.context_length);
    } else {
      out += fmt::format("\nDOES NOT FIT: the state pool's {} slots serve no request ({} a request)\n",
                         p.state_pool.slots, p.state_pool.slots_per_request);
    }
  }
  if (!fits) out += fit_pointer_line(shown_model_name(model), "sglang", "context-length");
  return out;
}

}  // namespace memfit::sglang
