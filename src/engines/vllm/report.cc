// The vLLM engine's report (vllm_report.h). Text layout:
//
//   memfit 0.1.0 — ./Meta-Llama-3.1-70B (engine vllm)
//   model_type llama, family llama, layout standard
//   inputs: --tensor-parallel-size 1 --max-model-len 2048 --max-num-seqs 256 ...
//   gpu: NVIDIA H100 80GB HBM3 (probed)
//
//   Weights per rank        67.72 GiB   modelled split (safetensors_index) ...
//   Activation peak          2.12 GiB   modelled, 8192 batched tokens
//   Non-torch                ...        modelled
//   CUDA graphs              ...        modelled
//   KV cache                 ...        utilization 0.98 x 79.65 GiB - the above
//   Peak per rank            ...        vLLM's own
//   Budget                   ...
//   KV: 1381 GPU blocks of 16 tokens, 22096 tokens; maximum concurrency for
//       2048 tokens per request: 10.79x
//   start: vllm serve ... ; or pinned: ... --kv-cache-memory-bytes N
//
//   FITS: ... of ... (... to spare)
#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm_report.h"

#include "engines/vllm/sparse_mla.h"
#include "bands/error_bands.h"
#include "engines/shared/report_head.h"
#include "engines/shared/shell_word.h"

namespace memfit {
namespace {

// Whether pinning the KV cache for max_num_seqs requests asks for more
// than the KV cache this GPU leaves, or than the one given (kv_cache_bytes).
bool pinned_past_gpu(const VllmEstimate& e) {
  return e.kv_cache_memory_for_seqs > e.kv_cache_bytes;
}

// `vllm serve` with --kv-cache-memory-bytes for max_num_seqs requests of
// max_model_len; past the GPU (pinned_past_gpu), for the most that fit
// instead, --max-num-seqs lowered to match: (blocks per request x
// max_num_seqs_fit + 1 null block) x block bytes. "" when not one fits.
std::string pinned_command(const std::string& model, const VllmEstimate& e) {
  if (!pinned_past_gpu(e)) return vllm_serve_command(model, e, e.kv_cache_memory_for_seqs);
  if (e.max_num_seqs_fit == 0) return "";
  VllmEstimate fewer = e;
  fewer.settings.max_num_seqs = e.max_num_seqs_fit;
  const uint64_t kv_bytes = ((CheckedBytes(e.layout.blocks_per_request) * e.max_num_seqs_fit + 1) *
                             e.layout.bytes_per_block)
                                .saturated();
  return vllm_serve_command(model, fewer, kv_bytes);
}

using Json = nlohmann::ordered_json;

std::string weights_note(const Model& model, const VllmEstimate& e) {
  const char* how = e.weights.exact              ? "exact"
                    : e.weights.from_tensor_list ? "split from the tensor list"
                                                 : "modelled split";
  std::string note = fmt::format("{} ({}), rope cache {}", how, to_string(model.weights.source),
                                 format_bytes(e.weights.rope_cache_bytes));
  if (e.weights.padding_bytes != 0) {
    note += fmt::format(", MXFP4 experts' kernel layout {}", format_bytes(e.weights.padding_bytes));
  }
  if (e.weights.lora_bytes != 0) {
    note += fmt::format(", LoRA slots {} ({} x rank {})", format_bytes(e.weights.lora_bytes),
                        e.settings.lora.max_loras, e.settings.lora.max_lora_rank);
  }
  if (e.settings.rocm && e.weights.rocm_runtime_bytes != 0) {
    note += fmt::format("; ROCm's load figure: + allocator {}", format_bytes(e.weights.rocm_allocator_bytes));
    if (e.weights.rocm_padding_bytes != 0) {
      note += fmt::format(", expert padding {}", format_bytes(e.weights.rocm_padding_bytes));
    }
    note += fmt::format(", runtime {} (modelled)", format_bytes(e.weights.rocm_runtime_bytes));
  }
  return note;
}

// Where the GPU's name came from: "given" (--gpu-name), "probed", null
// (none: a GPU total given alone, or no GPU found).
nlohmann::ordered_json gpu_name_source(const VllmSettings& s) {
  if (s.gpu_name.empty()) return nullptr;
  return s.gpu_name_given ? "given" : "probed";
}

// The settings the estimate used, as the report's "inputs".
Json inputs_json(const VllmSettings& s) {
  Json j = {{"tensor_parallel", s.tensor_parallel},
            {"gpu_memory_utilization", s.gpu_memory_utilization},
            {"gpu_memory_total", s.gpu_memory_total == 0 ? Json(nullptr) : Json(s.gpu_memory_total)},
            {"gpu_name", s.gpu_name.empty() ? Json(nullptr) : Json(s.gpu_name)},
            {"gpu_name_source", gpu_name_source(s)},
            {"kv_cache_memory", s.kv_cache_memory ? Json(*s.kv_cache_memory) : Json(nullptr)},
            {"block_size", s.block_size},
            {"kv_cache_dtype", s.kv_cache_fp8 ? "fp8" : "auto"},
            {"max_model_len", s.max_model_len},
            {"max_num_seqs", s.max_num_seqs},
            {"max_num_batched_tokens", s.max_num_batched_tokens},
            {"num_speculative_tokens", s.num_speculative_tokens},
            {"enforce_eager", s.enforce_eager},
            {"vllm_version", s.release ? Json(to_string(*s.release)) : Json(nullptr)}};
  // Only under the pooling runner: a generation report's inputs are as they were.
  if (s.runner == VllmRunner::kPooling) j["runner"] = "pooling";
  // Only when given: a report without them is as it was.
  if (s.mamba_cache_dtype != "auto") j["mamba_cache_dtype"] = s.mamba_cache_dtype;
  if (s.mamba_ssm_cache_dtype != "auto") j["mamba_ssm_cache_dtype"] = s.mamba_ssm_cache_dtype;
  // Only with LoRA on: a report without it is as it was.
  if (s.lora.enabled) {
    j["enable_lora"] = true;
    j["max_loras"] = s.lora.max_loras;
    j["max_lora_rank"] = s.lora.max_lora_rank;
    j["lora_dtype"] = s.lora.dtype;
    j["fully_sharded_loras"] = s.lora.fully_sharded;
  }
  return j;
}

Json groups_json(const VllmKvLayout& layout) {
  Json groups = Json::array();
  for (const VllmGroup& g : layout.groups) {
    groups.push_back({{"kind", std::string(to_string(g.kind))},
                      {"layers", g.layers},
                      {"window", g.window == 0 ? Json(nullptr) : Json(g.window)},
                      {"block_size", g.block_size},
                      {"blocks_per_request", g.blocks_per_request}});
  }
  return groups;
}

// The report's "vllm" object: every term, the KV layout and capacity, and
// the commands.
Json vllm_json(const Model& model, const VllmEstimate& e) {
  const VllmSettings& s = e.settings;
  const std::string name = model.path;
  const bool rocm_terms = e.weights.rocm_runtime_bytes != 0;
  // The graphs' count, as the estimate priced them.
  const VllmCudaGraphCounts& graphs = e.cuda_graphs;
  Json v = {{"weights_bytes", e.weights.bytes},
            {"rope_cache_bytes", e.weights.rope_cache_bytes},
            {"platform", s.rocm ? "rocm" : "cuda"},
            {"rocm_allocator_bytes", e.weights.rocm_allocator_bytes},
            {"rocm_padding_bytes", e.weights.rocm_padding_bytes},
            {"rocm_runtime_bytes", e.weights.rocm_runtime_bytes},
            {"activation_bytes", e.activation_bytes},
            {"non_torch_bytes", e.non_torch_bytes},
            {"cuda_context_bytes", e.cuda_context_bytes},
            {"cuda_graph_bytes", e.cuda_graph_bytes},
            {"cuda_graphs_subtracted", e.cuda_graphs_subtracted},
            {"cuda_graphs",
             {{"piecewise", graphs.piecewise},
              {"full", graphs.full},
              {"largest_tokens", graphs.largest_tokens}}},
            {"accounting", std::string(to_string(e.accounting))},
            {"gpu_memory_total", s.gpu_memory_total},
            {"requested_bytes", e.requested_bytes},
            {"kv_cache_bytes", e.kv_cache_bytes},
            {"page_size_bytes", e.layout.page_size_bytes},
            {"attention_block_size", e.layout.attention_block_size},
            {"group_size", e.layout.group_size},
            {"groups", groups_json(e.layout)},
            {"num_gpu_blocks", e.num_blocks},
            {"kv_tokens", e.kv_tokens},
            {"max_concurrency", e.max_concurrency},
            {"blocks_per_request", e.layout.blocks_per_request},
            {"max_model_len_fit", e.max_model_len_fit},
            {"max_num_seqs_fit", e.max_num_seqs_fit},
            {"kv_cache_memory_for_max_num_seqs", e.kv_cache_memory_for_seqs},
            {"starts", e.starts},
            {"figures",
             {{"weights_bytes", e.weights.exact && !rocm_terms ? "exact" : "modelled"},
              {"activation_bytes", "modelled"},
              {"non_torch_bytes", "modelled"},
              {"cuda_context_bytes", "modelled"},
              {"cuda_graph_bytes", "modelled"},
              {"kv_cache_bytes", e.kv_given ? "exact" : "modelled"},
              {"num_gpu_blocks", e.kv_given ? "exact" : "modelled"}}},
            {"command", vllm_serve_command(name, e)},
            {"command_kv_cache_memory", pinned_command(name, e)}};
  if (const std::optional<VllmSparseMla> sparse = vllm_sparse_mla(model.spec, s)) {
    v["sparse_mla"] = {{"block_size", sparse->block_size},
                       {"mla_token_bytes", sparse->mla_token_bytes},
                       {"indexer_token_bytes", sparse->indexer_token_bytes},
                       {"bytes_per_block", e.layout.bytes_per_block}};
  }
  if (s.lora.enabled) v["lora_bytes"] = e.weights.lora_bytes;  // inside weights_bytes
  return v;
}

// The text's input lines: the flags, the GPU, the platform and the
// accounting, then a blank line.
std::string text_inputs(const VllmSettings& s, const VllmEstimate& e) {
  std::string out;
  out += fmt::format("inputs: --tensor-parallel-size {} --max-model-len {} --max-num-seqs {}\n",
                     s.tensor_parallel, s.max_model_len, s.max_num_seqs);
  out += fmt::format("        --max-num-batched-tokens {} --block-size {} --kv-cache-dtype {}\n",
                     s.max_num_batched_tokens, s.block_size, s.kv_cache_fp8 ? "fp8" : "auto");
  if (!s.gpu_name.empty()) {  // the name picks the batch defaults and MLA's blocks
    out += fmt::format("gpu: {} ({})\n", escape_untrusted(s.gpu_name),
                       s.gpu_name_given ? "given" : "probed");
  }
  if (s.rocm) {
    out += "platform: ROCm (the load figure is the device's used memory, not PyTorch's allocated)\n";
  }
  if (s.release) {  // the default (the current line) says nothing
    out += fmt::format("accounting: vLLM {}: {}\n", to_string(*s.release),
                       e.accounting == VllmAccounting::kV07    ? "the V1 engine's own of v0.7"
                       : e.accounting == VllmAccounting::kV011 ? "0.11 to 0.20's (read at v0.11)"
                                                               : "the current line's (0.21 to 0.32)");
  }
  out += "\n";
  return out;
}

// The text's rows: each term, the peak and the budget.
void text_rows(std::string& out, const Model& model, const VllmEstimate& e,
               const MemoryBudget& budget) {
  const VllmSettings& s = e.settings;
  report_row(out, "Weights per rank", e.weights.bytes, with_band(weights_note(model, e), e.bands, "weights"));
  if (e.accounting == VllmAccounting::kV07) {
    report_row(out, "Activation peak", e.activation_bytes,
        fmt::format("modelled, v0.7: logits of all {} batched tokens, input buffers",
                    s.max_num_batched_tokens));
  } else if (s.runner == VllmRunner::kPooling) {
    report_row(out, "Activation peak", e.activation_bytes,
        fmt::format("modelled, {} batched tokens, pooled: no sampler", s.max_num_batched_tokens));
  } else {
    report_row(out, "Activation peak", e.activation_bytes,
        fmt::format("modelled, {} batched tokens, {} sampled rows", s.max_num_batched_tokens,
                    s.max_num_seqs));
  }
  report_row(out, "Non-torch", e.non_torch_bytes, "modelled");
  if (e.accounting == VllmAccounting::kV07) {
    report_row(out, "CUDA context", e.cuda_context_bytes, "modelled, v0.7 counts it as non-torch");
  }
  if (e.layout.groups.empty() && model.spec.embedding.bidirectional) {
    report_row(out, "KV cache", 0, "none: an encoder (embedding model) keeps no KV cache");
  } else if (e.kv_given) {
    report_row(out, "KV cache", e.kv_cache_bytes, "given (--kv-cache-memory-bytes): blocks exact");
  } else {
    report_row(out, "KV cache", e.kv_cache_bytes,
        with_band(fmt::format("{} x {} GPU total, less the above{} (modelled)",
                              s.gpu_memory_utilization, format_bytes(s.gpu_memory_total),
                              e.cuda_graphs_subtracted ? " and the CUDA graphs" : ""),
                  e.bands, "kv_cache_available"));
  }
  const VllmCudaGraphCounts& plan = e.cuda_graphs;
  const std::string graphs =
      plan.piecewise + plan.full == 0
          ? std::string("modelled")
          : fmt::format("modelled, {} + {} graphs up to {} tokens", plan.piecewise, plan.full,
                        plan.largest_tokens);
  report_row(out, "CUDA graphs", e.cuda_graph_bytes,
             s.enforce_eager ? "none (--enforce-eager)"
             : with_band(graphs + (e.cuda_graphs_subtracted ? ", its estimate subtracted from the KV cache"
                                                            : ", captured past the utilization"),
                         e.bands, "cuda_graph"));
  if (e.bands.confidence != 0) {
    report_row(out, fmt::format("Confidence {} %", e.bands.confidence), e.bands.margin_bytes,
               confidence_note(e.bands) +
                   (e.bands.margin_bytes != 0 ? "; the weights' margin is held before the KV cache" : ""));
  }
  report_row(out, "Peak per rank", e.total_bytes, "vLLM's own");
  report_row(out, "Budget", e.budget_bytes, to_string(budget.source));
}

// One token's share of a block across all layers, per rank: a block's
// bytes over its tokens, rounded up; 0 for an attention-free model.
uint64_t kv_bytes_per_token(const VllmEstimate& e) {
  if (e.layout.attention_block_size == 0) return 0;
  const uint64_t size = e.layout.attention_block_size;
  return e.layout.bytes_per_block / size + (e.layout.bytes_per_block % size != 0 ? 1 : 0);
}

// The KV lines: blocks, pages and tokens, the block size's reason, and the
// concurrency. Nothing for an attention-free model.
void text_kv(std::string& out, const ModelSpec& spec, const VllmEstimate& e) {
  const VllmSettings& s = e.settings;
  if (e.layout.groups.empty()) return;
  out += fmt::format("KV: {} GPU blocks, page {} x {} layers per block ({} group{}); {} tokens\n",
                     e.num_blocks, format_bytes(e.layout.page_size_bytes), e.layout.group_size,
                     e.layout.groups.size(), e.layout.groups.size() == 1 ? "" : "s", e.kv_tokens);
  if (const std::optional<VllmSparseMla> sparse = vllm_sparse_mla(spec, s)) {
    out += fmt::format("    sparse MLA: {}-token blocks; a token costs {} B of MLA cache{} and {} B "
                       "of indexer keys on each layer\n",
                       sparse->block_size, sparse->mla_token_bytes,
                       s.kv_cache_fp8 ? " (fp8_ds_mla)" : "", sparse->indexer_token_bytes);
  } else if (e.layout.request_unit_bytes != 0) {
    out += fmt::format("    DeepSeek V4: {}-token blocks of compressed rows and indexer keys beside "
                       "the windows and compressor states (docs/engine-vllm.md, \"DeepSeek V4\"); "
                       "tokens = concurrency x max_model_len\n",
                       e.layout.attention_block_size);
  } else if (e.layout.attention_block_size != s.block_size && !e.layout.hybrid_mamba) {
    out += fmt::format("    MLA: {}-token blocks, as vLLM's MLA backend on the {} forces them\n",
                       e.layout.attention_block_size, escape_untrusted(s.gpu_name));
  }
  out += fmt::format("    maximum concurrency for {} tokens per request: {:.2f}x; longest request "
                     "that fits: {} tokens\n",
                     s.max_model_len, e.max_concurrency, e.max_model_len_fit);
  if (kv_bytes_per_token(e) != 0) {
    out += fmt::format("KV per token: {} B per rank (a {}-token block is {} across all layers)\n",
                       kv_bytes_per_token(e), e.layout.attention_block_size,
                       format_bytes(e.layout.bytes_per_block));
  }
}

// The commands to start vLLM with, as estimated and pinned to the KV
// cache max_num_seqs requests need, or, when that is more than the GPU
// leaves, the most requests that fit (no size past the device is ever
// suggested).
void text_commands(std::string& out, const Model& model, const VllmEstimate& e) {
  const VllmSettings& s = e.settings;
  out += fmt::format("start: {}\n", vllm_serve_command(model.path, e));
  if (e.layout.groups.empty()) return;  // no KV cache to pin (an encoder)
  if (!pinned_past_gpu(e)) {
    out += fmt::format("or, for {} requests of {} tokens: {}\n", s.max_num_seqs, s.max_model_len,
                       pinned_command(model.path, e));
    return;
  }
  out += fmt::format("({} requests of {} tokens need {} of KV cache, more than the {} {}: at most "
                     "{} such requests fit)\n",
                     s.max_num_seqs, s.max_model_len, format_bytes(e.kv_cache_memory_for_seqs),
                     format_bytes(e.kv_cache_bytes),
                     e.kv_given ? "given (--kv-cache-memory-bytes)" : "left on this GPU",
                     e.max_num_seqs_fit);
  if (e.max_num_seqs_fit != 0) {
    out += fmt::format("or, for {} requests of {} tokens: {}\n", e.max_num_seqs_fit,
                       s.max_model_len, pinned_command(model.path, e));
  }
}

}  // namespace

std::vector<std::string> vllm_serve_flags(const VllmEstimate& e, uint64_t kv_memory) {
  const VllmSettings& s = e.settings;
  std::vector<std::string> flags;
  auto add = [&flags](std::string flag, std::string value = "") {
    flags.push_back(std::move(flag));
    if (!value.empty()) flags.push_back(std::move(value));
  };
  if (s.tensor_parallel != 1) add("--tensor-parallel-size", std::to_string(s.tensor_parallel));
  add("--max-model-len", std::to_string(s.max_model_len));
  add("--max-num-seqs", std::to_string(s.max_num_seqs));
  add("--max-num-batched-tokens", std::to_string(s.max_num_batched_tokens));
  if (s.block_size != 16) add("--block-size", std::to_string(s.block_size));
  if (s.kv_cache_fp8) add("--kv-cache-dtype", "fp8");
  if (s.mamba_cache_dtype != "auto") add("--mamba-cache-dtype", s.mamba_cache_dtype);
  if (s.mamba_ssm_cache_dtype != "auto") add("--mamba-ssm-cache-dtype", s.mamba_ssm_cache_dtype);
  if (s.enforce_eager) add("--enforce-eager");
  if (s.runner == VllmRunner::kPooling) add("--runner", "pooling");
  if (s.lora.enabled) {
    add("--enable-lora");
    if (s.lora.max_loras != 1) add("--max-loras", std::to_string(s.lora.max_loras));
    if (s.lora.max_lora_rank != 16) add("--max-lora-rank", std::to_string(s.lora.max_lora_rank));
    if (s.lora.dtype != "auto") add("--lora-dtype", s.lora.dtype);
    if (s.lora.fully_sharded) add("--fully-sharded-loras");
  }
  if (kv_memory != 0) {
    add("--kv-cache-memory-bytes", std::to_string(kv_memory));
  } else if (s.kv_cache_memory) {
    add("--kv-cache-memory-bytes", std::to_string(*s.kv_cache_memory));
  } else {
    add("--gpu-memory-utilization", fmt::format("{}", s.gpu_memory_utilization));
  }
  return flags;
}

std::string vllm_serve_command(const std::string& model, const VllmEstimate& e, uint64_t kv_memory) {
  // Pasteable: a control byte shown escaped, then quoted for the shell
  // when it holds a space or another special character.
  std::string line =
      fmt::format("vllm serve {}", shell_word(escape_untrusted(model, model.size())));
  for (const std::string& flag : vllm_serve_flags(e, kv_memory)) line += " " + flag;
  return line;
}

nlohmann::ordered_json vllm_estimate_to_json(const Model& model, const VllmEstimate& e,
                                             const MemoryBudget& budget,
                                             std::span<const Warning> warnings) {
  Json j = report_head(model, "vllm");
  j["inputs"] = inputs_json(e.settings);
  j["weights_bytes"] = e.weights.bytes;
  j["weights_source"] = std::string(to_string(model.weights.source));
  j["weights_verified"] = model.weights.verified;
  j["kv_bytes_per_token"] = kv_bytes_per_token(e);
  j["vllm"] = vllm_json(model, e);
  add_report_bands(j, e.bands);
  add_report_tail(j, model, budget, e.budget_bytes, e.total_bytes, e.fits, warnings);
  return j;
}

std::string render_vllm_text(const Model& model, const VllmEstimate& e, const MemoryBudget& budget) {
  const VllmSettings& s = e.settings;
  std::string out;
  out += report_text_head(model, "vllm");
  out += text_inputs(s, e);
  text_rows(out, model, e, budget);
  for (const std::string& a : model.spec.assumptions) out += fmt::format("assumed: {}\n", a);
  text_kv(out, model.spec, e);
  text_commands(out, model, e);
  if (!e.starts) {
    out += fmt::format("\nvLLM WOULD NOT START: no request of {} tokens fits its KV cache\n",
                       s.max_model_len);
  } else {
    out += report_verdict(e.fits, e.total_bytes, e.budget_bytes);
  }
  if (!e.starts || !e.fits) out += fit_pointer_line(shown_model_name(model), "vllm", "max-model-len");
  return out;
}

}  // namespace memfit
