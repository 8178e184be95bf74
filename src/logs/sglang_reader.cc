// The SGLang reader (docs/check-log.md, "SGLang"). Records are
// "[2025-05-01 10:00:00 TP0] ...", a rank's tagged "TP<n>". Sizes are
// bytes / 2^30 though the unit reads "GB" (python/sglang/srt: GB = 1024 *
// 1024 * 1024 in the memory pool; get_available_gpu_memory divides by
// 1 << 30). The figures:
//   Load weight end. type=..., avail mem=62.82 GB, mem usage=15.28 GB.     weights
//   KV Cache is allocated. #tokens: 407983, K size: 28.02 GB, V size: 28.02 GB
//                                                       token_pool, kv_cache (K + V)
//   KV Cache is allocated. #tokens: 383872, KV size: 19.36 GB       (MLA)
//   KV Cache is allocated. K size: 27.13 GB, V size: 27.13 GB.   (0.4.x: kv_cache;
//   max_total_num_tokens=444500, ...                   its token_pool is this line)
//   Capture cuda graph end. Time elapsed: 8.04 s. mem usage=0.80 GB.   cuda_graph
//   Capture cuda graph bs [1, 2, 4, ..., 160]    the largest batch captured, the
//                                             setting cuda_graph_bs_captured
//   Memory pool end. avail mem=40.03 GB        rank 0's free memory after its
//                                             pools, the setting free_after_pools
//   ... piecewise cuda graph is enabled ...   the setting piecewise_cuda_graph
//   Disable piecewise CUDA graph because ...  (True / False; server_args'
//                                             disable_piecewise_cuda_graph too)
//   Attention backend not specified. Use aiter backend by default.
//                                             the setting attention_backend
//   Capture piecewise CUDA graph end. ... mem usage=2.32 GB.   added to
//                                             cuda_graph (the setting
//                                             cuda_graph_parts says which)
// The backend is CUDA unless a line is a ROCm build's (aiter, ROCm, HIP,
// an AMD Instinct device: rocm_line) or a MUSA build's (Moore Threads:
// musa_line).
//   Mamba Cache is allocated. max_mamba_cache_size: 82, conv_state size: 0.13GB,
//     ssm_state size: 7.29GB                  recurrent (conv + ssm); the slots a
//                                             setting, mamba_cache_slots
// The load line's "avail mem" is the rank's free memory after the
// weights (LogDevice::free_bytes): with "mem usage" it is what SGLang's
// profile read before them. "Load weight begin. avail mem=78.81 GB" prints
// that figure itself (model_runner.py's load_model logs
// get_available_gpu_memory before it loads): rank 0's is the setting
// free_before_load, in bytes, for a log whose load line has no "mem
// usage" (0.4.x). A `python -m sglang.launch_server` command (the log's or
// the caller's) gives the settings the log did not print.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "logs/command_line.h"
#include "logs/log_reader.h"
#include "logs/python_literals.h"

namespace memfit::logs {
namespace {

std::span<const UnitMeaning> sglang_units() {
  static constexpr UnitMeaning kUnits[] = {{"GB", kGiB}, {"MB", kMiB}};
  return kUnits;
}

// The ranks a line's tag names: "[2026-05-07 13:39:14 DP1 TP1 EP1]"
// (run_scheduler_process's prefix: " DP{dp_rank}" when the scheduler has
// one, " TP{tp_rank}" past TP 1). nullopt for a line without both.
struct DpTag {
  uint64_t dp = 0, tp = 0;
};
std::optional<DpTag> dp_tag(std::string_view line) {
  const size_t close = line.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view tag = line.substr(0, close);
  std::optional<std::string_view> dp = after(tag, " DP");
  std::optional<std::string_view> tp = after(tag, " TP");
  std::optional<uint64_t> d = dp ? leading_count(*dp) : std::nullopt;
  std::optional<uint64_t> t = tp ? leading_count(*tp) : std::nullopt;
  if (!d || !t) return std::nullopt;
  return DpTag{*d, *t};
}

// DP attention from the tags alone, for a log that prints no server_args:
// under --enable-dp-attention the DP ranks split one TP group
// (compute_dp_attention_world_info, layers/dp_attention.py: attn_dp_rank =
// tp_rank // attn_tp_size), so every tag's DP is its TP // attn_tp_size
// and the TP ranks run on across the DP ranks ("DP1 TP1"); DP replicas
// without it each number their own TP group from 0 ("DP1 TP0"). When the
// tags of two or more DP ranks fit one attn_tp_size, the settings
// enable_dp_attention and dp_size = (largest TP / attn_tp_size) + 1.
void infer_dp_attention(std::span<const LogLine> lines, LogBuilder& out) {
  std::vector<DpTag> tags;
  uint64_t top_dp = 0, top_tp = 0;
  for (const LogLine& line : lines) {
    if (std::optional<DpTag> t = dp_tag(line.text)) {
      tags.push_back(*t);
      top_dp = std::max(top_dp, t->dp);
      top_tp = std::max(top_tp, t->tp);
    }
  }
  if (top_dp == 0) return;
  for (uint64_t attn_tp = 1; attn_tp <= top_tp; ++attn_tp) {
    const bool fits = std::all_of(tags.begin(), tags.end(),
                                  [attn_tp](const DpTag& t) { return t.dp == t.tp / attn_tp; });
    if (!fits) continue;
    out.setting("enable_dp_attention", "True");
    out.setting("dp_size", std::to_string(top_tp / attn_tp + 1));
    return;
  }
}

// The TP ranks the lines' tags name ("[... TP3]", or "[... DP1 TP3 EP3]"):
// the highest + 1, as the setting tp_ranks_seen. run_scheduler_process
// tags every scheduler's lines with its tp_rank, so a rank whose lines
// print no figure (an excerpt's "Capture cuda graph begin" alone) still
// shows the group's size; the pricer takes it when nothing prints the TP
// (sglang_pricer.cc). Under DP attention the TP ranks run on across the
// DP ranks, and DP replicas number their own TP group from 0: either way
// the highest TP rank + 1 is one TP group's size.
void infer_tp_ranks(std::span<const LogLine> lines, LogBuilder& out) {
  std::optional<uint64_t> top;
  for (const LogLine& line : lines) {
    const std::string_view text = line.text;
    const size_t close = text.find(']');
    if (close == std::string_view::npos) continue;
    std::optional<std::string_view> tp = after(text.substr(0, close), " TP");
    std::optional<uint64_t> rank = tp ? leading_count(*tp) : std::nullopt;
    if (rank && (!top || *rank > *top)) top = rank;
  }
  if (top) out.setting("tp_ranks_seen", std::to_string(*top + 1));
}

std::string rank_of(std::string_view line) {
  std::optional<uint64_t> rank;
  if (std::optional<std::string_view> tp = after(line, " TP")) rank = leading_count(*tp);
  return fmt::format("rank{}", rank.value_or(0));
}

void read_settings(std::string_view args, LogBuilder& out) {
  for (const auto& [key, value] : python_keyword_pairs(args)) {
    const std::string name = key == "model_path" ? "model"
                             : key == "tp_size"  ? "tensor_parallel"
                             : key == "context_length" ? "max_model_len"
                                                        : key;
    for (std::string_view known : {"model", "tensor_parallel", "max_model_len", "dtype",
                                   "kv_cache_dtype", "quantization", "mem_fraction_static",
                                   "chunked_prefill_size", "max_running_requests", "max_total_tokens", "page_size",
                                   "dp_size", "enable_dp_attention", "enable_dp_lm_head", "cuda_graph_max_bs",
                                   "attention_backend", "ep_size", "moe_a2a_backend", "enable_deepep_moe",
                                   "disaggregation_mode", "enable_hierarchical_cache"}) {
      if (name == known) out.setting(name, value);
    }
    // ServerArgs prints its fields once __post_init__ settled them: the
    // piecewise CUDA graphs as they run, disable_piecewise_cuda_graph from
    // sgl-project/sglang#16331, enable_piecewise_cuda_graph before it.
    if (name == "disable_piecewise_cuda_graph" && (value == "True" || value == "False")) {
      out.setting("piecewise_cuda_graph", value == "True" ? "False" : "True", true);
    }
    if (name == "enable_piecewise_cuda_graph" && (value == "True" || value == "False")) {
      out.setting("piecewise_cuda_graph", value, true);
    }
  }
}

// A hybrid SWA model's two pools (SWAKVPool): "Use sliding window memory
// pool. full_layer_tokens=375360, swa_layer_tokens=300288" (since
// sgl-project/sglang#18039's era, before the pools' own lines), or
// "SWAKVPool mem usage: 77.63 GB, swa size: 1496958, full size: 1496958"
// (after them). The full pool's tokens are SGLang's max_total_num_tokens:
// the rank's token_pool. Both counts become settings (swa_layer_tokens,
// full_layer_tokens), which tell a pool's "KV Cache is allocated" line
// from the other's by its #tokens.
void read_swa_pools(std::string_view text, const std::string& rank, uint64_t line, LogBuilder& out) {
  std::optional<std::string_view> full = after(text, "full_layer_tokens=");
  std::optional<std::string_view> swa = after(text, "swa_layer_tokens=");
  if (!full) full = after(text, "full size: ");
  if (!swa) swa = after(text, "swa size: ");
  if (!full || !swa) return;
  const std::optional<uint64_t> full_tokens = leading_count(*full);
  const std::optional<uint64_t> swa_tokens = leading_count(*swa);
  if (!full_tokens || !swa_tokens) return;
  out.setting("full_layer_tokens", std::to_string(*full_tokens));
  out.setting("swa_layer_tokens", std::to_string(*swa_tokens));
  out.count(rank, LogFigure::kTokenPool, *full_tokens, full->substr(0, full->find(',')), line);
}

// "#tokens: N, K size: a GB, V size: b GB" or "#tokens: N, KV size: c GB";
// 0.4.x printed the sizes alone ("K size: a GB, V size: b GB."). A hybrid
// SWA model (`swa_pools`: the log prints its pool split) prints one line a
// pool, summed; each line's tokens are kept as the figure's buffer
// ("#tokens 300288"), which the pricer matches against the split's
// swa_layer_tokens and full_layer_tokens, printed before or after it.
void read_kv_allocation(std::string_view rest, const std::string& rank, uint64_t line, bool swa_pools,
                        LogBuilder& out) {
  std::string pool;
  if (std::optional<std::string_view> count = after(rest, "#tokens: ")) {
    if (std::optional<uint64_t> tokens = leading_count(*count)) {
      out.count(rank, LogFigure::kTokenPool, *tokens, count->substr(0, count->find(',')), line);
      if (swa_pools) pool = fmt::format("#tokens {}", *tokens);
    }
  }
  for (std::string_view marker : {"K size: ", "V size: "}) {
    std::optional<std::string_view> size = after(rest, marker);
    if (!size || contains(rest, "KV size: ")) continue;
    if (std::optional<PrintedQuantity> q = leading_quantity(*size, sglang_units())) {
      // The pool named once a line (its K), not once a buffer.
      out.bytes(rank, LogFigure::kKvCache, *q, line, Merge::kSum, marker == "K size: " ? pool : std::string());
    }
  }
  if (std::optional<std::string_view> size = after(rest, "KV size: ")) {
    if (std::optional<PrintedQuantity> q = leading_quantity(*size, sglang_units())) {
      out.bytes(rank, LogFigure::kKvCache, *q, line, Merge::kFirst);
    }
  }
}

// "python -m sglang.launch_server --model-path M --tp 4 ..." (or "sglang
// serve --model-path M ..."): its flags
// under the names the server_args line gives them.
void read_command(std::string_view text, LogBuilder& out) {
  read_flags(text,
             {{{"--model-path", "--model"}, "model"},
              {{"--tp", "--tp-size", "--tensor-parallel-size"}, "tensor_parallel"},
              {{"--dp", "--dp-size", "--data-parallel-size"}, "dp_size"},
              {{"--context-length"}, "max_model_len"},
              {{"--mem-fraction-static"}, "mem_fraction_static"},
              {{"--kv-cache-dtype"}, "kv_cache_dtype"},
              {{"--chunked-prefill-size"}, "chunked_prefill_size"},
              {{"--max-running-requests"}, "max_running_requests"},
              {{"--max-total-tokens"}, "max_total_tokens"},
              {{"--page-size"}, "page_size"},
              {{"--cuda-graph-max-bs"}, "cuda_graph_max_bs"},
              {{"--attention-backend"}, "attention_backend"},
              {{"--ep-size", "--ep", "--expert-parallel-size"}, "ep_size"},
              {{"--moe-a2a-backend"}, "moe_a2a_backend"},
              {{"--disaggregation-mode"}, "disaggregation_mode"},
              // ktransformers' kt-kernel flags: the routed experts run on
              // the CPU, only --kt-num-gpu-experts of them on the GPU.
              {{"--kt-method"}, "kt_method"},
              {{"--kt-num-gpu-experts"}, "kt_num_gpu_experts"}},
             out);
  if (switch_on(text, {"--enable-dp-attention"})) out.setting("enable_dp_attention", "True");
  if (switch_on(text, {"--disable-piecewise-cuda-graph"})) out.setting("piecewise_cuda_graph", "False");
  if (switch_on(text, {"--enable-piecewise-cuda-graph"})) out.setting("piecewise_cuda_graph", "True");
  if (switch_on(text, {"--enable-dp-lm-head"})) out.setting("enable_dp_lm_head", "True");
  if (switch_on(text, {"--enable-deepep-moe"})) out.setting("enable_deepep_moe", "True");
  if (switch_on(text, {"--enable-hierarchical-cache"})) out.setting("enable_hierarchical_cache", "True");
}

// Whether a line runs the launcher: `python -m sglang.launch_server ...`,
// its script, or the `sglang serve` entry point of recent releases. A line
// that only names it is not a command: DeepGEMM's JIT warning ("Entering
// DeepGEMM JIT Pre-Compile session. ... It is recommended to run
// `sglang.compile_deep_gemm` with same args as `sglang.launch_server` ...
// For example: `python3 -m sglang.compile_deep_gemm --model
// deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code`", logged by the first
// rank of each node while the CUDA graphs are captured: sglang's
// python/sglang/srt/layers/deep_gemm_wrapper/compile_utils.py) quotes an
// example whose model and --tp are not the run's.
bool runs_launcher(std::string_view text) {
  return contains(text, "-m sglang.launch_server") || contains(text, "sglang/launch_server.py") ||
         contains(text, "sglang serve ");
}

// "Load weight end. ... avail mem=62.82 GB": the rank's free memory after
// its weights.
void read_free_after_load(std::string_view text, const std::string& rank, LogBuilder& out) {
  std::optional<std::string_view> avail = after(text, "avail mem=");
  if (!avail) return;
  std::optional<PrintedQuantity> q = leading_quantity(*avail, sglang_units());
  if (!q) return;
  if (LogDevice* device = out.device(rank); device != nullptr && !device->free_bytes) {
    device->free_bytes = q->scaled.value;
  }
}

// "Load weight begin. avail mem=78.81 GB": rank 0's free memory before its
// weights, in bytes (the setting free_before_load).
void read_free_before_load(std::string_view text, const std::string& rank, LogBuilder& out) {
  std::optional<std::string_view> avail = after(text, "avail mem=");
  if (!avail || rank != "rank0") return;
  if (std::optional<PrintedQuantity> q = leading_quantity(*avail, sglang_units())) {
    out.setting("free_before_load", std::to_string(q->scaled.value));
  }
}

// "Memory pool end. avail mem=40.03 GB": rank 0's free memory after its
// pools (init_memory_pool logs get_available_gpu_memory once the request
// table and the KV pools are allocated), in bytes: the setting
// free_after_pools. What SGLang leaves beside the pools is the free memory
// before the weights x (1 - --mem-fraction-static), so a log that prints
// no free memory before the weights still bounds its fraction with it
// (sglang_pricer.cc, pool_end_bounds).
void read_free_after_pools(std::string_view text, const std::string& rank, LogBuilder& out) {
  std::optional<std::string_view> avail = after(text, "avail mem=");
  if (!avail || rank != "rank0") return;
  if (std::optional<PrintedQuantity> q = leading_quantity(*avail, sglang_units())) {
    out.setting("free_after_pools", std::to_string(q->scaled.value));
  }
}

// "Attention backend not specified. Use aiter backend by default.":
// server_args.py's choice when --attention-backend is not given (an AMD
// GPU's aiter since sgl-project/sglang#20392), the setting
// attention_backend unless server_args named one. ServerArgs prints
// None for a backend left to the runner, which this line then replaces.
void read_default_attention_backend(std::string_view text, LogBuilder& out) {
  std::optional<std::string_view> use = after(text, "Attention backend not specified. Use ");
  if (!use) return;
  const size_t end = use->find(" backend by default");
  if (end == std::string_view::npos || end == 0 || end > 32) return;
  const std::string_view name = use->substr(0, end);
  const bool word = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!word) return;
  const LogSetting* given = out.find_setting("attention_backend");
  out.setting("attention_backend", name, given != nullptr && given->value == "None");
}

// "max_mamba_cache_size: 82, conv_state size: 0.13GB, ssm_state size:
// 7.29GB": the hybrid model's state pool (recurrent, conv + ssm) and its
// slots (mamba_cache_slots). A speculative run's intermediate caches,
// printed after them, are not read.
void read_mamba_allocation(std::string_view rest, const std::string& rank, uint64_t line,
                           LogBuilder& out) {
  if (std::optional<std::string_view> slots = after(rest, "max_mamba_cache_size: ")) {
    if (std::optional<uint64_t> n = leading_count(*slots); n && rank == "rank0") {
      out.setting("mamba_cache_slots", std::to_string(*n));
    }
  }
  for (std::string_view marker : {"conv_state size: ", "ssm_state size: "}) {
    std::optional<std::string_view> size = after(rest, marker);
    if (!size) continue;
    if (std::optional<PrintedQuantity> q = leading_quantity(*size, sglang_units())) {
      out.bytes(rank, LogFigure::kRecurrent, *q, line, Merge::kSum);
    }
  }
}

// "max_total_num_tokens=N": the setting, and the rank's token pool when
// its KV line printed no "#tokens" (0.4.x).
void read_total_tokens(std::string_view total, const std::string& rank, uint64_t line,
                       LogBuilder& out) {
  std::optional<uint64_t> n = leading_count(total);
  if (!n) return;
  out.setting("max_total_num_tokens", std::to_string(*n));
  // The chunked prefill the scheduler settled on (after
  // _handle_data_parallelism's division by DP): a diagnostic of the
  // computed fraction's input (sglang_pricer.cc), not the flag.
  if (std::optional<std::string_view> chunk = after(total, "chunked_prefill_size=")) {
    if (std::optional<uint64_t> tokens = leading_count(*chunk)) {
      out.setting("chunked_prefill_printed", std::to_string(*tokens));
    }
  }
  if (!out.has(rank, LogFigure::kTokenPool)) {
    out.count(rank, LogFigure::kTokenPool, *n, total.substr(0, total.find(',')), line);
  }
}

// "Capture cuda graph bs [1, 2, 4, 8, ..., 160]": the batch sizes the
// decode CUDA graphs are captured at (cuda_graph_runner.py logs
// get_batch_sizes_to_capture's list on rank 0 before it captures). Their
// largest is the setting cuda_graph_bs_captured: the graph batch the
// cuda_graph figure is priced at when server_args print no
// cuda_graph_max_bs (0.4.6 captured up to 160 on an 80 GB GPU, where the
// 0.5 default is 256). It is not the fraction's --cuda-graph-max-bs: the
// list is cut to the request pool's size after that was computed. A list
// whose last item is "..." ("[1, 2, 4, ...]", cut where it was copied)
// gives no largest batch.
void read_captured_batches(std::string_view list, LogBuilder& out) {
  const std::string_view body = list.substr(0, list.find(']'));
  std::optional<uint64_t> largest;
  bool cut = false;
  size_t at = 0;
  while (at < body.size()) {
    const size_t comma = body.find(',', at);
    std::string_view item = body.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    cut = item.starts_with("...") || item.starts_with("\u2026");
    if (std::optional<uint64_t> bs = leading_count(item); bs && (!largest || *bs > *largest)) largest = bs;
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  if (largest && !cut) out.setting("cuda_graph_bs_captured", std::to_string(*largest));
}

// "[2025-03-25 16:37:06 TP0] ...": the date SGLang's logger stamps on a
// line (the setting log_date, the first one seen), which dates the default
// --mem-fraction-static rule of a log that prints no server_args
// (sglang_pricer.cc).
void read_log_date(std::string_view text, LogBuilder& out) {
  const size_t open = text.find("[20");
  if (open == std::string_view::npos || text.size() < open + 12) return;
  const std::string_view date = text.substr(open + 1, 10);
  for (size_t i = 0; i < date.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? date[i] != '-' : (date[i] < '0' || date[i] > '9')) return;
  }
  if (text[open + 11] != ' ' && text[open + 11] != ']') return;
  out.setting("log_date", date);
}

// The MoE kernel gpt-oss's MXFP4 experts run on, which lays them out
// (plan.h, sglang_mxfp4_kernel): server_args.py's warning ("Detected SM100
// and MXFP4 quantization format for GPT-OSS model, enabling FlashInfer MXFP4
// MOE kernel."; "... enabling triton_kernels MOE kernel."; "... enabling
// Marlin MOE kernel.") or server_args' moe_runner_backend, as the setting
// mxfp4_backend (flashinfer, triton, marlin).
void read_mxfp4_kernel(std::string_view text, LogBuilder& out) {
  std::string_view kernel;
  if (contains(text, "enabling FlashInfer MXFP4 MOE kernel") ||
      contains(text, "moe_runner_backend='flashinfer_mxfp4'")) {
    kernel = "flashinfer";
  } else if (contains(text, "enabling triton_kernels MOE kernel") ||
             contains(text, "moe_runner_backend='triton_kernel'")) {
    kernel = "triton";
  } else if (contains(text, "enabling Marlin MOE kernel") || contains(text, "moe_runner_backend='marlin'")) {
    kernel = "marlin";
  }
  if (!kernel.empty()) out.setting("mxfp4_backend", kernel);
}

// `word` in `text` with no letter or digit on either side ("HIP" in
// "HIP_VISIBLE_DEVICES" or "on HIP", not in "SHIP").
bool contains_word(std::string_view text, std::string_view word) {
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !alnum(text[at - 1])) && (end == text.size() || !alnum(text[end]))) return true;
  }
  return false;
}

// A line only a ROCm build of SGLang prints, which makes the log's backend
// ROCm (the reader's default is CUDA): the aiter attention or MoE backend
// (AMD's AITER kernels: "Use aiter backend by default", "AITER ..."),
// "ROCm" or rocm in a path or an image tag, "HIP" as a word (is_hip, "on
// HIP"), HIP_VISIBLE_DEVICES, an AMD Instinct device (MI300X, MI325X,
// MI355X, ...) or its gfx target. server_args' line names flags of every
// platform (enable_aiter_allreduce_fusion=False on a CUDA run): only a
// backend set to aiter counts there.
bool rocm_line(std::string_view text) {
  if (contains(text, "ServerArgs(")) return contains(text, "_backend='aiter'");
  for (std::string_view marker : {"ROCm", "rocm", "AMD Instinct", "gfx942", "gfx950", "HIP_VISIBLE_DEVICES"}) {
    if (contains(text, marker)) return true;
  }
  for (std::string_view word : {"aiter", "AITER", "HIP", "MI300X", "MI300A", "MI308X", "MI325X", "MI350X",
                                "MI355X"}) {
    if (contains_word(text, word)) return true;
  }
  return false;
}

// A line only SGLang's MUSA port (Moore Threads GPUs) prints, which makes
// the log's backend MUSA: server_args' device='musa', the MUSA runtime or
// its Python package (torch_musa, torchada, "musa:0", "MUSA" as a word,
// MUSA_VISIBLE_DEVICES), its collective library MCCL ("sglang is using
// mccl==..."), Moore Threads or an MTT GPU's name (MTT S4000, MTT_S5000).
bool musa_line(std::string_view text) {
  if (contains(text, "ServerArgs(")) return contains(text, "device='musa'");
  for (std::string_view marker : {"MUSA_VISIBLE_DEVICES", "torch_musa", "torchada", "Moore Threads", "mthreads",
                                  "MTT S", "MTT_S", "using mccl"}) {
    if (contains(text, marker)) return true;
  }
  return contains_word(text, "MUSA") || contains_word(text, "musa");
}

// The setting cuda_graph_parts: the captures the cuda_graph figure sums,
// "decode", "piecewise" or "decode+piecewise".
void add_graph_part(LogBuilder& out, std::string_view part) {
  const LogSetting* parts = out.find_setting("cuda_graph_parts");
  if (parts == nullptr) {
    out.setting("cuda_graph_parts", part);
    return;
  }
  if (parts->value.find(part) != std::string::npos) return;
  out.setting("cuda_graph_parts", parts->value + "+" + std::string(part), true);
}

void read_line(const LogLine& line, bool swa_pools, std::set<std::string>& piecewise_ranks, LogBuilder& out) {
  const std::string_view text = line.text;
  const std::string rank = rank_of(text);
  read_log_date(text, out);
  read_mxfp4_kernel(text, out);
  if (rocm_line(text)) out.set_backend("ROCm");
  if (musa_line(text)) out.set_backend("MUSA");
  const auto mem_usage = [&](LogFigure figure) {
    if (std::optional<std::string_view> usage = after(text, "mem usage=")) {
      if (std::optional<PrintedQuantity> q = leading_quantity(*usage, sglang_units())) {
        out.bytes(rank, figure, *q, line.number, Merge::kFirst);
      }
    }
  };
  if (contains(text, "Load weight begin.")) read_free_before_load(text, rank, out);
  if (contains(text, "Load weight end.")) {
    mem_usage(LogFigure::kWeights);
    read_free_after_load(text, rank, out);
  }
  // The launcher, or the `sglang serve` entry point of recent releases.
  if (runs_launcher(text)) read_command(text, out);
  if (contains(text, "Memory pool end.")) read_free_after_pools(text, rank, out);
  read_default_attention_backend(text, out);
  // server_args.py's lines that say the piecewise (prefill) CUDA graphs are
  // on: "CUTLASS backend is disabled when piecewise cuda graph is enabled
  // ..." (a B200's), "Piecewise CUDA graph is enabled, use MLA for
  // prefill." (DeepSeek's): the setting piecewise_cuda_graph, which dates
  // their reserve in the default fraction (sglang_pricer.cc).
  // cuda_graph_runner's "Capture piecewise CUDA graph begin." (recent
  // releases) says so too.
  if (contains(text, "piecewise cuda graph is enabled") || contains(text, "Piecewise CUDA graph is enabled")) {
    out.setting("piecewise_cuda_graph", "True");
  }
  if (contains(text, "Capture piecewise CUDA graph begin") || contains(text, "Capture piecewise CUDA graph end")) {
    out.setting("piecewise_cuda_graph", "True", true);
  }
  // "Disable piecewise CUDA graph because --disable-piecewise-cuda-graph is
  // set" (server_args.py): off. The hierarchical cache ("Allocating 15.58
  // GB host memory for hierarchical KV cache.") turns them off too
  // (_handle_piecewise_cuda_graph, from sgl-project/sglang#16331), unless a
  // capture line says otherwise.
  if (contains(text, "Disable piecewise CUDA graph because")) out.setting("piecewise_cuda_graph", "False", true);
  if (contains(text, "host memory for hierarchical KV cache")) {
    out.setting("piecewise_cuda_graph", "False");
    out.setting("enable_hierarchical_cache", "True");
  }
  // _handle_pd_disaggregation's warnings name the server's role
  // (server_args.py since sgl-project/sglang#4654): "KV cache is forced as
  // chunk cache for decode server", "Cuda graph is disabled for prefill
  // server ...": the setting disaggregation_mode.
  if (contains(text, "chunk cache for decode server")) out.setting("disaggregation_mode", "decode");
  if (contains(text, "Cuda graph is disabled for prefill server")) out.setting("disaggregation_mode", "prefill");
  // The decode graphs' capture, then the piecewise (prefill) graphs'
  // ("Capture piecewise CUDA graph end. Time elapsed: 17.62 s. mem
  // usage=2.32 GB.", piecewise_cuda_graph_runner.py): one cuda_graph figure,
  // their sum, priced by the reserves of both (sglang_pricer.cc); the
  // setting cuda_graph_parts says which it holds.
  if (contains(text, "Capture cuda graph end.")) {
    mem_usage(LogFigure::kCudaGraph);
    add_graph_part(out, "decode");
  }
  if (contains(text, "Capture piecewise CUDA graph end.")) {
    if (std::optional<std::string_view> usage = after(text, "mem usage=")) {
      if (std::optional<PrintedQuantity> q = leading_quantity(*usage, sglang_units())) {
        // Once a rank: a second engine start's line is not added again.
        if (!piecewise_ranks.contains(rank)) out.bytes(rank, LogFigure::kCudaGraph, *q, line.number, Merge::kSum);
        piecewise_ranks.insert(rank);
        add_graph_part(out, "piecewise");
      }
    }
  }
  if (auto batches = after(text, "Capture cuda graph bs [")) read_captured_batches(*batches, out);
  if (contains(text, "Use sliding window memory pool.") || contains(text, "SWAKVPool mem usage")) {
    read_swa_pools(text, rank, line.number, out);
  }
  if (auto kv = after(text, "KV Cache is allocated.")) {
    read_kv_allocation(*kv, rank, line.number, swa_pools, out);
  }
  if (auto mamba = after(text, "Mamba Cache is allocated.")) {
    read_mamba_allocation(*mamba, rank, line.number, out);
  }
  if (auto args = after(text, "server_args=ServerArgs(")) read_settings(*args, out);
  if (auto total = after(text, "max_total_num_tokens=")) read_total_tokens(*total, rank, line.number, out);
  if (auto version = after(text, "sglang==")) out.set_version(version->substr(0, version->find(' ')));
}

class SglangReader final : public LogReader {
 public:
  std::string_view runtime() const override { return "sglang"; }
  bool recognises(std::span<const LogLine> lines) const override {
    for (std::string_view marker : {"Load weight end.", "KV Cache is allocated.",
                                    "max_total_num_tokens=", "server_args=ServerArgs("}) {
      if (any_line_contains(lines, marker)) return true;
    }
    return false;
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    const bool swa_pools = any_line_contains(lines, "Use sliding window memory pool.") ||
                           any_line_contains(lines, "SWAKVPool mem usage");
    std::set<std::string> piecewise_ranks;
    for (const LogLine& line : lines) read_line(line, swa_pools, piecewise_ranks, out);
    infer_dp_attention(lines, out);
    infer_tp_ranks(lines, out);
    out.set_backend("CUDA");  // unless a line was ROCm's or MUSA's (rocm_line, musa_line)
    if (const LogSetting* model = out.find_setting("model")) out.model().name = model->value;
    out.order_devices();
  }
};

}  // namespace

const LogReader& sglang_log_reader() {
  static const SglangReader reader;
  return reader;
}

}  // namespace memfit::logs
