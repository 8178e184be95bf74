// A vLLM log priced by the vllm profile (docs/engine-vllm.md): the
// engine's config (tensor parallel, max_model_len, the KV dtype, enforce
// eager), the non-default args (gpu_memory_utilization, max_num_seqs, ...)
// and the release it printed, whose accounting prices it. The GPU's total
// is the profiling line's (V0) or the caller's; without it the KV cache
// capacity is priced from the printed available KV memory, which then is
// an input and not compared.
#include <algorithm>
#include <cmath>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "logs/vllm_online_bnb.h"
#include "logs/vllm_online_fp8.h"
#include "logs/log_pricer.h"
#include "engines/shared/gpu_class.h"
#include "engines/shared/tp_rank_weights.h"
#include "engines/vllm/parts.h"
#include "logs/log_targets.h"
#include "logs/log_text.h"
#include "memfit/checked_math.h"
#include "memfit/hardware.h"
#include "memfit/memory_size.h"
#include "memfit/model_spec.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm.h"
#include "model/config/config_document.h"
#include "model/config/family.h"

namespace memfit::logs {
namespace {

// The figure of the first rank that prints it: rank 0's, else (a log cut
// before the engine's own lines, whose workers are rank1, rank2, ...) the
// first worker's. Every rank of one run profiles the same GPU model.
const PrintedFigure* first_rank_figure(const RuntimeLog& log, LogFigure figure) {
  for (const LogDevice& d : log.devices) {
    if (!d.id.starts_with("rank")) continue;
    for (const PrintedFigure& f : log.figures) {
      if (f.figure == figure && f.device == d.id) return &f;
    }
  }
  return nullptr;
}

// The weight quantization a vLLM log names as its family: the method less
// the kernel it runs on ("awq_marlin" -> "awq", "gptq_marlin" -> "gptq");
// "" when the log names none ("None"). moe_wna16 serves AWQ or GPTQ MoE
// checkpoints (vllm/model_executor/layers/quantization/moe_wna16.py).
std::string served_quantization(const RuntimeLog& log) {
  const LogSetting* q = log.setting("quantization");
  if (q == nullptr) return "";
  std::string method = q->value;
  std::erase(method, '\'');
  for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (method.empty() || method == "none") return "";
  if (method.ends_with("_marlin")) method.resize(method.size() - 7);
  if (method == "compressed_tensors") method = "compressed-tensors";
  return method;
}

// The config's quant_method a vLLM method name stands for, when vLLM names
// a checkpoint's format after the model that reads it: a deepseek_v4
// checkpoint declares quant_method "fp8", and vLLM's ModelConfig rewrites
// it to "deepseek_v4_fp8" for model_type "deepseek_v4", the name of
// DeepseekV4FP8Config (get_name(), whose override_quantization_method takes
// that checkpoint; vllm-project/vllm, vllm/config/model.py and
// model_executor/layers/quantization, the v0.2x line); gpt-oss's MXFP4
// checkpoint is read the same way as "gpt_oss_mxfp4" (the same overrides
// list). The method the log prints otherwise.
std::string_view checkpoint_method(std::string_view served) {
  if (served == "deepseek_v4_fp8") return "fp8";
  if (served == "gpt_oss_mxfp4") return "mxfp4";
  return served;
}

// The config at the dtype the log serves it: `--dtype auto` downcasts a
// float32 config to 16 bits (vLLM's ModelConfig dtype resolution: bfloat16
// where the platform supports it, else float16), and the engine's config
// line prints what it chose ("dtype=torch.bfloat16", the reader's
// served_dtype). Config pricing reads the width of the unquantized weights
// from torch_dtype (model/config/analytical_weights.cc), so a float32
// config the log serves at 16 bits gets the served dtype in its
// torch_dtype and dtype fields, at the top and in a nested text config;
// `notes` says so. The config as given otherwise.
Result<std::string> served_dtype_config(const RuntimeLog& log, const std::string& config_json,
                                        std::vector<std::string>& notes) {
  const LogSetting* served = log.setting("served_dtype");
  if (served == nullptr) return config_json;
  const std::string_view width = served->value == "torch.bfloat16" ? "bfloat16"
                                 : served->value == "torch.float16" ? "float16"
                                                                    : "";
  if (width.empty()) return config_json;
  Result<ConfigDocument> doc = ConfigDocument::parse(config_json);
  if (!doc) return doc.error();
  std::string declared = doc->string_field("torch_dtype");
  if (declared.empty()) declared = doc->string_field("dtype");
  if (declared != "float32") return config_json;
  nlohmann::json top = doc->top();
  auto set = [&](nlohmann::json& object) {
    object["torch_dtype"] = width;
    if (object.contains("dtype")) object["dtype"] = width;
  };
  set(top);
  if (!doc->text_key().empty() && top.contains(doc->text_key()) && top[doc->text_key()].is_object()) {
    set(top[doc->text_key()]);
  }
  notes.push_back(fmt::format("the config declares float32 and the log serves it as {} (--dtype auto): "
                              "its unquantized weights are priced at 16 bits",
                              served->value));
  return top.dump();
}

// Why the config given beside the log prices another checkpoint than the
// one the log served: the log names a weight quantization the config does
// not declare (a base model's config given for an AWQ, GPTQ or
// compressed-tensors repo; vLLM's online --quantization fp8 or
// bitsandbytes of a 16-bit checkpoint is priced as the FP8 or NF4 one it
// makes, run_config). "" when they agree or the log
// names none. A method vLLM names by its variant agrees with the config's
// family ("modelopt_fp4" serves quant_method "modelopt"), and so does one
// named after the model that reads the format (checkpoint_method).
std::string quantization_mismatch(const RuntimeLog& log, const QuantizationInfo& declared) {
  const std::string served = served_quantization(log);
  if (served.empty() || served == declared.method) return "";
  if (!declared.method.empty() && served.starts_with(declared.method + "_")) return "";
  if (served == "moe_wna16" && (declared.method == "awq" || declared.method == "gptq")) return "";
  if (!declared.method.empty() && checkpoint_method(served) == declared.method) return "";
  return fmt::format("the log serves {} weights and the model priced declares {}: memfit would "
                     "price another checkpoint; give the served checkpoint's config.json or -m",
                     escape_untrusted(served),
                     declared.method.empty() ? "no quantization" : escape_untrusted(declared.method));
}

// The ranks whose figures the log prints.
uint64_t rank_count(const RuntimeLog& log) {
  uint64_t ranks = 0;
  for (const LogDevice& d : log.devices) ranks += d.id.starts_with("rank") ? 1 : 0;
  return ranks;
}

// The release the log prints, as X.Y.Z ("0.10.1.1" -> 0.10.1,
// "0.6.3.post1" -> 0.6.3); nullopt when it prints none or none that parses.
std::optional<VllmRelease> printed_release(const RuntimeLog& log) {
  std::string_view text = log.version;
  size_t end = 0, parts = 0;
  while (end < text.size() && parts < 3) {
    size_t digits = end;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == end) break;
    ++parts;
    end = digits;
    if (parts < 3 && end + 1 < text.size() && text[end] == '.') ++end;
  }
  if (end > 0 && text[end - 1] == '.') --end;
  Result<VllmRelease> release = parse_vllm_version(text.substr(0, end));
  if (!release) return std::nullopt;
  return *release;
}

// The release whose accounting prices a log whose own release memfit does
// not model (0.8 to 0.10, before 0.7, a V0 log of 0.7) or which prints
// none: 0.11 to 0.20's, the graphs captured past the utilization, unless
// the log's worker says it subtracted their estimate (the line 0.21 on
// prints beside its KV memory whenever it profiled the graphs:
// vllm_reader.cc's cuda_graph_estimate), which is the current line's.
// A release after the newest read is priced by the current line's.
constexpr VllmRelease kBeforeGraphsRelease{0, 20, 0, false};
std::optional<VllmRelease> stand_in_release(const RuntimeLog& log) {
  const LogSetting* graphs = log.setting("cuda_graph_estimate");
  if (graphs != nullptr && graphs->value == "on") return std::nullopt;
  return kBeforeGraphsRelease;
}

// The release as X.Y.Z, when memfit models its accounting; else the
// stand-in's (stand_in_release) with a note.
std::optional<VllmRelease> release_of(const RuntimeLog& log, std::vector<std::string>& notes) {
  const std::optional<VllmRelease> stand_in = stand_in_release(log);
  const std::string_view whose =
      stand_in ? "0.11 to 0.20's accounting (the CUDA graphs past the utilization)"
               : "the current line's accounting (its worker subtracted the CUDA graphs' estimate)";
  if (log.version.empty()) {
    notes.push_back(fmt::format("vLLM's version is not in the log: {} prices it", whose));
    return stand_in;
  }
  const std::optional<VllmRelease> release = printed_release(log);
  // memfit's v0.7 accounting is that release's V1 worker (VLLM_USE_V1=1).
  // A V0 log of v0.7 ran V0's worker instead: determine_num_available_blocks
  // (vllm/worker/worker.py) profiles under memory_profiling, the KV memory
  // being the budget less the weights, the non-torch memory and the
  // activation peak, as its summary prints them, and its profile_run
  // (_dummy_run, vllm/worker/model_runner.py) runs max_num_seqs sequences
  // whose sampler computes the logits of each one's last token only: 0.11
  // to 0.20's accounting, not V1's logits over every batched token.
  const LogSetting* engine = log.setting("engine");
  if (release && engine != nullptr && engine->value == "V0") {
    const Result<VllmAccounting> accounting = vllm_accounting(*release);
    if (accounting && *accounting == VllmAccounting::kV07) {
      notes.push_back(fmt::format("vLLM {}'s V0 engine (its lines show it): its worker's memory_profiling "
                                  "and the last-token logits of its sampled sequences, {}, price it "
                                  "(memfit's v0.7 accounting is that release's V1 worker)",
                                  escape_untrusted(log.version), whose));
      return stand_in;
    }
  }
  if (release && vllm_accounting(*release)) return *release;
  if (release && (release->major > 0 || release->minor > kVllmNewestMinor)) {
    notes.push_back(fmt::format("vLLM {}: memfit has not read that release; the current line's "
                                "accounting prices it", escape_untrusted(log.version)));
    return std::nullopt;
  }
  notes.push_back(fmt::format("vLLM {}: memfit does not model that release's accounting; {} prices it",
                              escape_untrusted(log.version), whose));
  return stand_in;
}

// The form of the log's "GPU KV cache size" line: as its records show it
// (the reader's kv_tokens_form, logs/vllm_tokens_form.cc), else the
// printing release's (vllm_tokens_form), else the stand-in's.
VllmTokensForm printed_tokens_form(const RuntimeLog& log) {
  if (const LogSetting* form = log.setting("kv_tokens_form")) {
    return form->value == "concurrency_x_len" ? VllmTokensForm::kConcurrencyTimesLen
                                              : VllmTokensForm::kBlocksPerGroup;
  }
  const std::optional<VllmRelease> printed = printed_release(log);
  return vllm_tokens_form(printed ? printed : stand_in_release(log));
}

// vLLM's V0 engine (a log whose lines are its own: vllm_reader.cc)
// profiled max_num_batched_tokens tokens in one forward pass, and without
// chunked prefill that is max(max_model_len, 2048)
// (SchedulerConfig.__post_init__, vllm/config.py, v0.6.x); V0 turned
// chunked prefill on by default only past 32,768 tokens (EngineArgs,
// vllm/engine/arg_utils.py: use_long_context = max_model_len > 32768).
// The current line's defaults (2048 or 8192) would profile a smaller pass.
constexpr uint64_t kV0LongContextTokens = 32768, kV0MinBatchedTokens = 2048;
void apply_v0_batch_default(const RuntimeLog& log, VllmRequest& q, std::vector<std::string>& notes) {
  const LogSetting* engine = log.setting("engine");
  if (engine == nullptr || engine->value != "V0" || q.max_num_batched_tokens || !q.max_model_len ||
      *q.max_model_len > kV0LongContextTokens) {
    return;
  }
  q.max_num_batched_tokens = std::max(*q.max_model_len, kV0MinBatchedTokens);
  notes.push_back(fmt::format("vLLM's V0 engine (its lines show it): max_num_batched_tokens {} = "
                              "max(max_model_len, 2048), its default without chunked prefill, "
                              "which it turned on by default only past 32,768 tokens",
                              *q.max_num_batched_tokens));
}

// V0's own default of max_num_seqs was 256 (EngineArgs, vllm/engine/
// arg_utils.py, v0.6.x: `max_num_seqs: int = 256`), and its profile run
// sampled that many rows; the current line's default is larger (1024 on a
// large GPU). vllm#10511's V0 log prints the activation peak this gives,
// 1.26 GiB for Llama-3-8B at 8,192 batched tokens.
constexpr uint64_t kV0DefaultMaxNumSeqs = 256;
void apply_v0_seqs_default(const RuntimeLog& log, VllmRequest& q, std::vector<std::string>& notes) {
  const LogSetting* engine = log.setting("engine");
  if (engine == nullptr || engine->value != "V0" || q.max_num_seqs) return;
  q.max_num_seqs = kV0DefaultMaxNumSeqs;
  notes.push_back("vLLM's V0 engine (its lines show it): max_num_seqs 256, its default");
}

// The batch settings a log names nowhere but in its compilation config and
// CUDA-graph lines (vllm_reader.cc, read_graph_settings), where its args
// and config set neither:
// - max_num_batched_tokens is the largest compile-range endpoint, exactly
//   (VllmConfig._set_compile_ranges, vllm/config/vllm.py);
// - max_num_seqs is only bounded by the FULL graphs' largest size L: under
//   FULL_AND_PIECEWISE or FULL_DECODE_ONLY the FULL graphs are the uniform
//   decode batches, the capture sizes from 1 to max_num_seqs (x 1 + the
//   drafted tokens; gpu_model_runner.py capture_model, cudagraph_dispatcher.py),
//   so with no drafter L <= max_num_seqs < the next capture size. A log that
//   sets no max_num_seqs ran vLLM's default, 256 or 1,024
//   (engine/arg_utils.py, get_batch_defaults); it is taken when exactly
//   one of the two lies in that bound, else nothing is.
// vLLM 0.27.1's souspilot log: "compile_ranges_endpoints': [2048]" and
// "FULL=35 (largest=256)" over sizes [..., 256, 272, ...]: 2,048 batched
// tokens and 256 <= max_num_seqs < 272, so 256.
struct GraphLineBatch {
  std::optional<uint64_t> batched_tokens;
  std::optional<uint64_t> seqs;
  uint64_t seqs_from = 0;   // the FULL graphs' largest size
  uint64_t seqs_below = 0;  // the capture size after it
};
GraphLineBatch graph_line_batch(const RuntimeLog& log) {
  GraphLineBatch b;
  b.batched_tokens = count_setting(log, "compile_range_end");
  const std::optional<uint64_t> largest = count_setting(log, "full_graph_largest");
  const LogSetting* mode = log.setting("cudagraph_mode");
  const LogSetting* sizes = log.setting("cudagraph_capture_sizes");
  const LogSetting* drafter = log.setting("speculative_config");
  if (!largest || mode == nullptr || sizes == nullptr) return b;
  if (mode->value != "FULL_AND_PIECEWISE" && mode->value != "FULL_DECODE_ONLY") return b;
  if (drafter != nullptr && drafter->value != "None") return b;
  std::optional<uint64_t> next;
  std::string_view rest = sizes->value;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::optional<uint64_t> size = parse_count(rest.substr(0, comma));
    if (size && *size > *largest && (!next || *size < *next)) next = size;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (!next) return b;  // the largest size of all: no upper bound
  const auto within = [&](uint64_t seqs) { return *largest <= seqs && seqs < *next; };
  if (within(kVllmSmallGpuSeqs) != within(kVllmLargeGpuSeqs)) {
    b.seqs = within(kVllmSmallGpuSeqs) ? kVllmSmallGpuSeqs : kVllmLargeGpuSeqs;
    b.seqs_from = *largest;
    b.seqs_below = *next;
  }
  return b;
}

void apply_graph_line_settings(const RuntimeLog& log, VllmRequest& q, std::vector<std::string>& notes) {
  const GraphLineBatch b = graph_line_batch(log);
  if (!q.max_num_batched_tokens && b.batched_tokens) {
    q.max_num_batched_tokens = b.batched_tokens;
    notes.push_back(fmt::format("max_num_batched_tokens {}: read from the config line, the largest of its "
                                "compile_ranges_endpoints, which vLLM sets to it",
                                *b.batched_tokens));
  }
  if (!q.max_num_seqs && b.seqs) {
    q.max_num_seqs = b.seqs;
    notes.push_back(fmt::format("max_num_seqs {}: read from the CUDA-graph line, whose FULL decode graphs "
                                "(largest={}) bound it to {} to {}, and of vLLM's defaults (256, 1024) "
                                "only {} lies there",
                                *b.seqs, b.seqs_from, b.seqs_from, b.seqs_below - 1, *b.seqs));
  }
}

// --mamba-cache-dtype and --mamba-ssm-cache-dtype as the non-default args,
// the Namespace or the command print them ("'mamba_ssm_cache_dtype':
// 'float32'"), into the request's engine_fields as their fields keep them
// (parts.h). A log that prints "auto" or neither gives nothing.
Status apply_mamba_dtypes(const RuntimeLog& log, EstimateRequest& r) {
  for (std::string_view field : {kVllmMambaCacheDtypeField, kVllmMambaSsmCacheDtypeField}) {
    const LogSetting* setting = log.setting(field);
    if (setting == nullptr) continue;
    Result<std::string> dtype = parse_vllm_mamba_dtype(setting->value);
    if (!dtype) return Error::usage(field, dtype.error().message());
    if (*dtype != "auto") r.engine_fields.insert_or_assign(std::string(field), std::move(*dtype));
  }
  return Status::Ok();
}

Status apply_settings(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  VllmRequest& q = r.vllm;
  // The printed setting wins; else the ranks the log's lines show, from
  // every line a rank prefixed (the processes), not only the ranks that
  // kept a figure in an excerpt.
  if (auto tp = count_setting(log, "tensor_parallel")) {
    r.parallel.tensor_parallel = *tp;
  } else if (uint64_t ranks = std::max(rank_count(log), count_setting(log, "ranks_seen").value_or(0)); ranks > 1) {
    r.parallel.tensor_parallel = ranks;  // the config line is cut: one rank per worker
    notes.push_back(fmt::format("tensor parallel {}: the ranks the log's lines show (give --command with "
                                "--tensor-parallel-size when it shows part of them)", ranks));
  }
  if (auto pp = count_setting(log, "pipeline_parallel")) r.parallel.pipeline_parallel = *pp;
  q.max_model_len = count_setting(log, "max_model_len");
  q.max_num_seqs = count_setting(log, "max_num_seqs");
  q.max_num_batched_tokens = count_setting(log, "max_num_batched_tokens");
  q.block_size = count_setting(log, "block_size");
  apply_graph_line_settings(log, q, notes);
  apply_v0_batch_default(log, q, notes);
  apply_v0_seqs_default(log, q, notes);
  if (const LogSetting* u = log.setting("gpu_memory_utilization")) {
    // Python prints a float's shortest repr ("0.8938626454842437" in the
    // Hugging Face cookbook's 0.8.2 Namespace line); the fraction is used as
    // a double, so decimals past the ninth (under 1e-9) are dropped.
    std::string_view text = u->value;
    if (size_t dot = text.find('.'); dot != std::string_view::npos && text.size() > dot + 10) {
      text = text.substr(0, dot + 10);
    }
    Result<PrintedDecimal> number = parse_printed_decimal(text);
    if (!number) return Error::usage("gpu_memory_utilization", number.error().message());
    q.gpu_memory_utilization = to_double(*number);
  }
  if (const LogSetting* dtype = log.setting("kv_cache_dtype")) {
    Result<bool> fp8 = parse_vllm_kv_cache_dtype(dtype->value);
    if (!fp8) return Error::usage("kv_cache_dtype", fp8.error().message());
    q.kv_cache_fp8 = *fp8;
  }
  if (Status bad = apply_mamba_dtypes(log, r); !bad) return bad.error();
  if (const LogSetting* eager = log.setting("enforce_eager")) q.enforce_eager = eager->value == "True";
  // LoRA (lora.h): "enable_lora': True" in the non-default args or the
  // Namespace; off ("enable_lora=False", None), the slots' shape the
  // Namespace prints counts for nothing, as in vLLM.
  const LogSetting* lora = log.setting("enable_lora");
  if (lora == nullptr || lora->value != "True") return Status::Ok();
  q.enable_lora = true;
  q.max_loras = count_setting(log, "max_loras");
  q.max_lora_rank = count_setting(log, "max_lora_rank");
  if (const LogSetting* dtype = log.setting("lora_dtype")) {
    // A resolved config may print the torch dtype ("torch.bfloat16").
    std::string_view text = dtype->value;
    if (text.starts_with("torch.")) text.remove_prefix(6);
    Result<std::string> parsed = parse_vllm_lora_dtype(text);
    if (!parsed) return Error::usage("lora_dtype", parsed.error().message());
    q.lora_dtype = *parsed;
  }
  if (const LogSetting* sharded = log.setting("fully_sharded_loras")) {
    q.fully_sharded_loras = sharded->value == "True";
  }
  return Status::Ok();
}

// Why a pipeline-parallel run is not priced, in one line. The vllm
// profile prices tensor parallelism only; under pipeline parallelism each
// stage loads its own run of layers (vLLM's get_pp_indices,
// vllm/distributed/utils.py: num_hidden_layers / pp each, one more to each
// of the remainder's stages counting back from the one before the last;
// DeepSeek-V3's 61 layers at PP 2 are [31, 30]), so a rank's weights and
// KV depend on its stage (and a Ray worker, named by its pid, does not
// say which stage it is).
std::string pipeline_refusal(const RuntimeLog& log, uint64_t pp, uint64_t tp) {
  std::vector<std::string> weights;
  for (const PrintedFigure& f : log.figures) {
    if (f.figure != LogFigure::kWeights) continue;
    std::string text = escape_untrusted(f.text);
    if (std::find(weights.begin(), weights.end(), text) == weights.end()) weights.push_back(text);
  }
  std::string seen;
  if (weights.size() > 1) {
    seen = fmt::format(" (its ranks print {} weights: {}, one per stage)", weights.size(),
                       fmt::join(weights, " and "));
  }
  return fmt::format("pipeline parallel {} x tensor parallel {}: the vllm profile prices tensor "
                     "parallelism only, and each pipeline stage loads its own layers{}",
                     pp, tp, seen);
}

// Each pipeline stage's KV memory, as one of its workers printed it
// ("Available KV cache memory"): vLLM numbers its workers stage by stage,
// rank = stage x TP + TP rank (parallel_state.py); nullopt for a stage
// none of whose workers printed it.
std::vector<std::optional<uint64_t>> stage_kv_bytes(const RuntimeLog& log, uint64_t pp, uint64_t tp) {
  std::vector<std::optional<uint64_t>> stages(pp);
  for (const PrintedFigure& f : log.figures) {
    if (f.figure != LogFigure::kKvCacheAvailable || !f.device.starts_with("rank")) continue;
    const std::optional<uint64_t> rank = parse_count(f.device.substr(4));
    if (!rank || *rank / tp >= pp || stages[*rank / tp]) continue;
    stages[*rank / tp] = f.value;
  }
  return stages;
}

// Whether the log's V1 engine printed each worker's own KV capacity
// before giving every worker the fewest blocks (the first "GPU KV cache
// size" / "Maximum concurrency" pair then is rank 0's, stage 0's over its
// own layers): through the v0.10 line, get_kv_cache_config reported each
// worker's config as it made it and unify_kv_cache_configs lowered the
// blocks afterwards (v1/engine/core.py, _initialize_kv_caches);
// vllm#25164 (opened 2025-09-18, after v0.10.2) moved the report after
// the unification, so later releases print the engine's blocks. A log of
// v0.10.1 over TP 4 x PP 2 (NVIDIA's GH200 benchmark) prints stage 0's
// four pairs, then stage 1's smaller four. False when the version is not
// printed or not read, and for V0, whose executor took the fewest blocks
// of any worker before printing them (determine_num_available_blocks).
bool reports_each_worker(const RuntimeLog& log) {
  if (const LogSetting* engine = log.setting("engine"); engine != nullptr && engine->value == "V0") {
    return false;
  }
  // X.Y.Z first: a build without a release ("0.1.dev7548+gbaba038",
  // setuptools-scm's fallback) names none.
  std::string_view text = log.version;
  if (text.starts_with("v")) text.remove_prefix(1);
  uint64_t numbers[3] = {};
  for (size_t i = 0; i < 3; ++i) {
    const size_t end = text.find_first_not_of("0123456789");
    const std::optional<uint64_t> n = end == 0 ? std::nullopt : leading_count(text);
    if (!n) return false;
    numbers[i] = *n;
    if (i == 2) break;
    if (end == std::string_view::npos || text[end] != '.') return false;
    text.remove_prefix(end + 1);
  }
  return numbers[0] == 0 && numbers[1] <= 10;
}

// The weights one rank of each pipeline stage holds (vllm_rank_weights
// over the stage's layers, vllm_pipeline_stages), stage 0 first.
Result<std::vector<uint64_t>> stage_weights(const RuntimeLog& log, const Model& model,
                                            const VllmSettings& settings, uint64_t pp, uint64_t tp) {
  Result<std::vector<PipelineStage>> stages = vllm_pipeline_stages(model.spec.layers.size(), pp);
  if (!stages) return stages.error();
  std::optional<Mxfp4Kernel> kernel;
  if (const LogSetting* named = log.setting("mxfp4_backend")) kernel = parse_mxfp4_kernel(named->value);
  std::vector<uint64_t> bytes;
  for (const PipelineStage& stage : *stages) {
    Result<VllmWeights> w =
        vllm_rank_weights(model, model.tensors, tp, kernel.value_or(vllm_mxfp4_kernel(settings)), stage);
    if (!w) return w.error();
    bytes.push_back(w->bytes);
  }
  return bytes;
}

// The GPU's total: the caller's, else the first rank's profiling line's
// (V0; a log cut before rank 0's lines has its workers').
std::optional<uint64_t> gpu_total(const RuntimeLog& log, const LogCheckOptions& options) {
  if (options.gpu_memory_total) return options.gpu_memory_total;
  for (const LogDevice& d : log.devices) {
    if (d.id.starts_with("rank") && d.total_bytes) return d.total_bytes;
  }
  return std::nullopt;
}

// Whether the log prints a KV count its printed available KV memory prices
// exactly (kv_tokens, kv_blocks, concurrency: vllm/v1/core/kv_cache_utils.py
// derives each from that memory, _report_kv_cache_config).
bool prints_kv_count(const RuntimeLog& log) {
  return std::any_of(log.figures.begin(), log.figures.end(), [](const PrintedFigure& f) {
    return f.figure == LogFigure::kKvTokens || f.figure == LogFigure::kKvBlocks ||
           f.figure == LogFigure::kConcurrency;
  });
}

// The total the hardware table gives the GPU named beside the log
// (--gpu-name: a sidecar's first device; docs/hardware.md), in bytes; 0
// when no name is given or the table has no such GPU.
uint64_t named_gpu_total(const LogCheckOptions& options) {
  if (options.gpu_name.empty()) return 0;
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return 0;
  Result<const GpuSpec*> gpu = find_gpu(**table, options.gpu_name);
  return gpu ? (*gpu)->memory_bytes() : 0;
}

// The total the KV capacity is priced from: the one given or printed, else
// the named GPU's (named_gpu_total) unless the log prints a KV count with
// its available KV memory, which then prices that count exactly (request);
// nullopt when there is none.
std::optional<uint64_t> capacity_total(const RuntimeLog& log, const LogCheckOptions& options) {
  if (std::optional<uint64_t> total = gpu_total(log, options)) return total;
  if (prints_kv_count(log) && first_rank_figure(log, LogFigure::kKvCacheAvailable) != nullptr) {
    return std::nullopt;
  }
  const uint64_t named = named_gpu_total(options);
  return named ? std::optional<uint64_t>(named) : std::nullopt;
}

// vLLM's batch defaults follow the device's total memory (get_batch_defaults,
// engine/arg_utils.py: 8,192 batched tokens and 1,024 sequences from 70 GiB
// on a GPU that is not an A100), which a log priced from its printed KV
// memory does not give. The named GPU's table total says which; without
// one, the rank's printed weights and KV memory, which the device holds,
// are a floor of it. Settings the log prints are kept.
void apply_device_batch_defaults(const RuntimeLog& log, const LogCheckOptions& options,
                                 const PrintedFigure& kv, VllmRequest& q,
                                 std::vector<std::string>& notes) {
  if (q.max_num_batched_tokens && q.max_num_seqs) return;
  if (classify_gpu(options.gpu_name) == GpuClass::kAmpereA100) return;
  uint64_t floor_bytes = named_gpu_total(options);
  if (floor_bytes == 0) {
    const PrintedFigure* weights = first_rank_figure(log, LogFigure::kWeights);
    floor_bytes = (CheckedBytes(kv.value) + (weights != nullptr ? weights->value : 0)).saturated();
  }
  if (floor_bytes < kVllmLargeGpuBytes) return;
  if (!q.max_num_batched_tokens) q.max_num_batched_tokens = kVllmLargeGpuBatchedTokens;
  if (!q.max_num_seqs) q.max_num_seqs = kVllmLargeGpuSeqs;
  notes.push_back(fmt::format("the GPU holds at least {} B (its table total, else the printed weights "
                              "and KV memory): vLLM's defaults for a GPU of 70 GiB or more, {} "
                              "batched tokens and {} sequences, unless the log sets them",
                              floor_bytes, *q.max_num_batched_tokens, *q.max_num_seqs));
}

// A GPU total that stands in when neither the total nor the KV memory is
// known: the weights do not depend on it; the KV figures are then left
// unpriced (compare).
constexpr uint64_t kStandInGpuBytes = 80ull << 30;

// What the log leaves out, or memfit leaves unpriced, that a row missing
// its target (weights 1 %, KV capacity 5 %: docs/validation-logs.md,
// "Targets") hangs on, said on that row.
// A profile term the log printed ("Actual usage is ...", or V0's worker
// summary), in bytes (vllm_reader.cc keeps it in GiB as printed); nullopt
// when not printed.
std::optional<uint64_t> printed_term(const RuntimeLog& log, std::string_view name) {
  const LogSetting* s = log.setting(name);
  if (s == nullptr) return std::nullopt;
  Result<PrintedDecimal> d = parse_printed_decimal(s->value);
  if (!d) return std::nullopt;
  return static_cast<uint64_t>(std::llround(to_double(*d) * static_cast<double>(1ull << 30)));
}

// Why a printed non-torch figure is not memfit's constant. memory_profiling's
// non_torch_increase (vllm/utils, MemorySnapshot) is the device's used
// memory less torch's reserved bytes, grown since the snapshot the worker
// takes in init_device. V0 (vllm/worker/worker.py) and V1 until
// vllm-project/vllm#25359 (September 2025) take it before
// init_worker_distributed_environment, later V1 after it (#45517, June
// 2026, describes that order as the current one). So it holds the CUDA
// kernels the profile loads and, under TP, the NCCL and custom all-reduce
// buffers set up after the snapshot: they differ with the GPU, its links
// and the release, which memfit does not model. memfit's 144 MiB (+420 MiB
// under TP) are llm-d's v0.11 H100 runs' (docs/engine-vllm.md).
constexpr std::string_view kNonTorchCause =
    "vLLM's non-torch memory is what the device holds outside torch's allocator beyond the "
    "snapshot the worker takes in init_device (before the distributed init in V0 and in V1 until "
    "vllm#25359, after it since): the kernels the profile loads and, under TP, the NCCL and "
    "custom all-reduce buffers set up after the snapshot, which differ with the GPU, its links and "
    "the release; memfit's 144 MiB (+420 MiB under TP) are llm-d's v0.11 H100 runs' "
    "(docs/engine-vllm.md, \"Non-torch memory as printed\")";

// The printed non-torch figure is more than 32 MiB from memfit's: three
// hundredths of a GiB, past the print's rounding (half a hundredth, 5.4
// MiB) and a row's KV memory moves with it byte for byte.
bool non_torch_off(const RuntimeLog& log, const VllmEstimate& e) {
  const std::optional<uint64_t> printed = printed_term(log, "non_torch_gib");
  if (!printed) return false;
  const uint64_t diff =
      *printed > e.non_torch_bytes ? *printed - e.non_torch_bytes : e.non_torch_bytes - *printed;
  return diff > (32ull << 20);
}

// A KV capacity row that misses 5 % on a log that printed the profile's
// terms (v0.11 on, the "Actual usage is ..." line; V0, its worker's
// summary, "non_torch_memory takes ...; PyTorch activation peak memory
// takes ...", vllm/worker/worker.py): vLLM's KV memory is the
// requested memory less the weights, the peak activation, the non-torch
// memory and, since v0.21, the CUDA graphs' estimate (v1/worker/
// gpu_worker.py, determine_available_memory), so the terms memfit models
// otherwise than printed are what the row hangs on. "" when none is
// printed or none is more than 64 MiB from memfit's (a hundredth of a GiB,
// the printed precision, is 10.7 MiB).
// The printed peak activation is under memfit's by more than 64 MiB where
// memfit's is the dummy sampler run's (above the forward pass) and the log
// prints no max_num_seqs: the profile samples one row a sequence
// (min(max_num_seqs, batched tokens); V0's _dummy_run, V1's
// _dummy_sampler_run), so a run given fewer sequences than memfit's default
// samples fewer rows and prints a smaller peak. The sentence saying so, ""
// otherwise.
std::string sampler_rows_note(const RuntimeLog& log, const ModelSpec& spec, const VllmEstimate& e) {
  const std::optional<uint64_t> printed = printed_term(log, "peak_activation_gib");
  if (!printed || *printed + (64ull << 20) >= e.activation_bytes) return "";
  if (count_setting(log, "max_num_seqs") || graph_line_batch(log).seqs) return "";
  const uint64_t forward = vllm_profile_forward_bytes(spec, e.settings);
  if (forward >= e.activation_bytes) return "";
  return fmt::format("memfit's peak is the dummy sampler run over {} rows, its default max_num_seqs, "
                     "which the log does not print (the forward pass alone is {}): a run given fewer "
                     "sequences samples fewer rows",
                     std::min(e.settings.max_num_seqs, e.settings.max_num_batched_tokens),
                     format_bytes(forward));
}

std::string profile_terms_note(const RuntimeLog& log, const ModelSpec& spec, const VllmEstimate& e) {
  struct Term {
    std::string_view setting, label;
    uint64_t memfit;
  };
  const Term terms[] = {{"peak_activation_gib", "peak activation", e.activation_bytes},
                        {"non_torch_gib", "non-torch memory", e.non_torch_bytes},
                        {"cuda_graph_gib", "CUDA graphs", e.cuda_graph_bytes}};
  std::vector<std::string> parts;
  bool off = false;
  for (const Term& t : terms) {
    const std::optional<uint64_t> printed = printed_term(log, t.setting);
    if (!printed) continue;
    const uint64_t diff = *printed > t.memfit ? *printed - t.memfit : t.memfit - *printed;
    off = off || diff > (64ull << 20);
    parts.push_back(fmt::format("{} {} (memfit {})", t.label, format_bytes(*printed),
                                format_bytes(t.memfit)));
  }
  if (parts.empty() || !off) return "";
  std::string note = fmt::format("the run's profile printed {}: the KV memory is the budget less "
                                 "the weights and these",
                                 fmt::join(parts, ", "));
  if (std::string rows = sampler_rows_note(log, spec, e); !rows.empty()) note += "; " + rows;
  if (non_torch_off(log, e)) note += fmt::format("; {}", kNonTorchCause);
  return note;
}

// A KV capacity row within its target whose log printed a non-torch figure
// off memfit's: the row says what that term holds and why memfit's
// constant is not the run's. "" when not printed or not off.
std::string non_torch_note(const RuntimeLog& log, const VllmEstimate& e) {
  if (!non_torch_off(log, e)) return "";
  const uint64_t printed = *printed_term(log, "non_torch_gib");
  return fmt::format("the run's profile printed non-torch memory {} (memfit {}); {}",
                     format_bytes(printed), format_bytes(e.non_torch_bytes), kNonTorchCause);
}

// An MXFP4 checkpoint's KV row that misses 5 % on a log that names no
// MoE kernel and prints no load figure: vLLM lays the experts out by the
// kernel it picks (get_mxfp4_backend, quantization/mxfp4.py: Marlin on
// Hopper where triton_kernels is not importable, as vllm#23278's v0.10.1
// run shows; Triton where it is, #33155's v0.14.1), and the two differ by
// the padding docs/engine-vllm.md ("MXFP4 experts") works. The note gives
// the other kernel's weights; "" when it does not apply.
std::string mxfp4_kernel_note(const RuntimeLog& log, const Model& model, const VllmEstimate& e,
                              const FigureCheck& c) {
  if (model.spec.quantization.method != "mxfp4" || log.setting("mxfp4_backend") != nullptr ||
      first_rank_figure(log, LogFigure::kWeights) != nullptr || !c.memfit || c.printed.value == 0) {
    return "";
  }
  const Mxfp4Kernel priced = vllm_mxfp4_kernel(e.settings);
  const Mxfp4Kernel other = priced == Mxfp4Kernel::kMarlin ? Mxfp4Kernel::kTriton : Mxfp4Kernel::kMarlin;
  Result<VllmWeights> mine = vllm_rank_weights(model, model.tensors, e.settings.tensor_parallel, priced);
  Result<VllmWeights> theirs = vllm_rank_weights(model, model.tensors, e.settings.tensor_parallel, other);
  if (!mine || !theirs) return "";
  return fmt::format("the log names no MXFP4 kernel and prints no load figure: memfit lays the "
                     "experts out for {} ({} a rank), {}'s layout holds {}",
                     to_string(priced), format_bytes(mine->bytes), to_string(other),
                     format_bytes(theirs->bytes));
}

void add_unknown_run_note(const RuntimeLog& log, const ModelSpec& spec, const VllmEstimate& e,
                          FigureCheck& c) {
  if (!c.memfit || c.printed.value == 0 || !c.note.empty()) return;
  const double ratio = static_cast<double>(*c.memfit) / static_cast<double>(c.printed.value);
  const LogFigure f = c.printed.figure;
  const bool capacity = f == LogFigure::kKvCacheAvailable || f == LogFigure::kKvTokens ||
                        f == LogFigure::kKvBlocks;
  // The row's own target (log_targets.h): weights within 1 %, the KV
  // capacity within 5 %; the notes below say why a row misses it.
  const std::optional<FigureTarget> target = figure_target("vllm", f, 0);
  if (!target) return;
  const bool misses = ratio < target->low || ratio > target->high;
  const bool weights = f == LogFigure::kWeights;
  // DeepSeek V4's cache is priced by the v0.22-v0.23 line's grouping
  // (engines/vllm/compressed_kv.cc); vLLM 0.31's dev build prints half the
  // concurrency that rule gives, by a later rule not yet read.
  if (misses && (f == LogFigure::kKvTokens || f == LogFigure::kKvBlocks) &&
      !spec.compressed_attention.compress_ratios.empty()) {
    c.note = "DeepSeek V4's KV cache is priced as vLLM's v0.22-v0.23 line groups and sizes "
             "it (docs/engine-vllm.md, \"DeepSeek V4\"); a later release does it another way, "
             "not yet read";
    return;
  }
  // DeepSeek V4's weights are its own tensors (model/config/
  // deepseek_v4_params.h); what its forward pass takes at the profile run
  // is not: its sparse attention's prefill workspace and top-k buffers, the
  // hyper-connections' four residual streams.
  if (misses && f == LogFigure::kKvCacheAvailable && !spec.compressed_attention.compress_ratios.empty()) {
    c.note = "DeepSeek V4's profile run (its sparse attention's prefill workspace and top-k "
             "buffers, the hyper-connections' four residual streams) is not priced: the KV "
             "memory left is over the print by it (docs/engine-vllm.md, \"Rows off target\")";
    return;
  }
  // A model type memfit has no rules for (model_loader.cc warns so): its
  // weights and cache come from the config's generic geometry, which
  // DeepSeek V4's compressed and indexed attention, for one, is not.
  if (misses && !spec.model_type.empty() && !is_known_model_type(spec.model_type)) {
    c.note = fmt::format("model_type {} is not one memfit knows: the config's generic geometry "
                         "sizes its weights and KV cache, not the model's own layers",
                         escape_untrusted(spec.model_type));
    return;
  }
  // On ROCm an FP8 checkpoint's linear weights are rewritten after the
  // load (quantization/utils/fp8_utils.py: normalize_e4m3fn_to_e4m3fnuz on
  // MI300-class GPUs, _maybe_pad_fp8_weight under VLLM_ROCM_FP8_PADDING),
  // and ROCm's figure is the device's used memory (docs/engine-vllm.md,
  // "ROCm"): what that leaves reserved is not modelled.
  if (weights && ratio < target->low && e.settings.rocm && spec.quantization.method == "fp8") {
    c.note = "an FP8 checkpoint on ROCm: vLLM rewrites its weights after the load (the e4m3fnuz "
             "normalisation, VLLM_ROCM_FP8_PADDING) and ROCm's figure counts the device's used "
             "memory; what that leaves reserved is not modelled";
    return;
  }
  // Where the ROCm load does not explain it:
  // vllm/v1/worker/gpu_model_runner.py, load_model: with a speculative
  // config the drafter (an MTP module: the config's own extra layers) is
  // loaded inside the same DeviceMemoryProfiler as the model ("Loading
  // drafter model..." precedes "Model loading took"), so its weights are
  // in the printed figure; without one vLLM skips them (qwen3_5.py,
  // deepseek_v2.py load_weights). memfit's weights from the config's
  // geometry (analytical_params.cc) do not count them.
  // The engine's config line names the drafter ("speculative_config=None"
  // when it serves none, v0.10 on): a run without one loads no MTP layer.
  const LogSetting* drafter = log.setting("speculative_config");
  if (weights && misses && spec.mtp_layers > 0 && drafter != nullptr && drafter->value == "None") {
    c.note = fmt::format("the run serves no drafter (speculative_config=None), so the config's {} "
                         "multi-token-prediction layer{} not loaded; the rest of the gap is not "
                         "traced (docs/engine-vllm.md, \"MTP drafter weights\")",
                         spec.mtp_layers, spec.mtp_layers == 1 ? " is" : "s are");
    return;
  }
  if (weights && ratio < target->low && spec.mtp_layers > 0 && !e.weights.exact) {
    c.note = fmt::format("the config declares {} multi-token-prediction layer{}, which memfit's "
                         "weights from its geometry leave out: a run serving them as its drafter (--speculative-config "
                         "method mtp) loads them inside the printed weights, and the log does not "
                         "show whether this one did",
                         spec.mtp_layers, spec.mtp_layers == 1 ? "" : "s");
    return;
  }
  if (capacity && misses) {
    if (std::string why = profile_terms_note(log, spec, e); !why.empty()) {
      c.note = std::move(why);
      return;
    }
  }
  if (capacity && !misses) {
    if (std::string why = non_torch_note(log, e); !why.empty()) {
      c.note = std::move(why);
      return;
    }
  }
  if (capacity && misses && !count_setting(log, "max_num_seqs") &&
      !count_setting(log, "max_num_batched_tokens") && !graph_line_batch(log).batched_tokens &&
      !graph_line_batch(log).seqs) {
    c.input_gap = "max_num_seqs";
    c.note = "the log prints neither max_num_seqs nor max_num_batched_tokens (no settings line): "
             "memfit profiles the release's defaults, and the KV capacity is what the profile "
             "run leaves";
  }
  // The split was inferred (apply_settings): the ranks whose lines the log
  // holds are a floor on the tensor-parallel size, and an excerpt, a Ray
  // worker on another node or a pipeline stage may print none.
  if (weights && misses && !count_setting(log, "tensor_parallel") &&
      std::max(rank_count(log), count_setting(log, "ranks_seen").value_or(0)) > 1) {
    c.input_gap = "tensor_parallel_size";
    c.note = "the log prints no tensor-parallel size: memfit splits the weights by the ranks its "
             "lines show, a floor (give --command with --tensor-parallel-size)";
    return;
  }
  // ROCm's load figure is the device's used memory (docs/engine-vllm.md,
  // "ROCm"): memfit adds two modelled terms, the allocator's segments past
  // the parameters (packed without holes) and a fixed runtime; a print
  // under the tensors and those terms says one of them is too large there.
  if (weights && ratio > target->high && e.settings.rocm &&
      e.weights.rocm_allocator_bytes + e.weights.rocm_runtime_bytes > 0) {
    c.note = fmt::format("ROCm's load figure counts the device's used memory: memfit adds the "
                         "caching allocator's segments past the parameters ({}, packed without "
                         "holes) and the HIP runtime ({}), modelled on other discrete GPUs; the "
                         "print leaves less past the tensors, which of the two is smaller here is "
                         "not traced (docs/engine-vllm.md, \"Rows off target\")",
                         format_bytes(e.weights.rocm_allocator_bytes),
                         format_bytes(e.weights.rocm_runtime_bytes));
    return;
  }
  // The V2 model runner (vllm/v1/worker/gpu/model_runner.py, the default
  // from v0.29) measures the same block as the V1 runner; its 0.30 and
  // 0.31 prints on Qwen2.5-1.5B hold about 100 MB past the tensors that no
  // rule read accounts for (docs/engine-vllm.md, "Model loading took"
  // under V2: what was ruled out, with its bytes).
  const LogSetting* runner = log.setting("model_runner");
  if (weights && ratio < target->low && !e.settings.rocm && runner != nullptr &&
      runner->value == "v2") {
    c.note = "the V2 model runner's load figure holds more than memfit's tensors here, by a cause "
             "not traced; on vLLM 0.30 and 0.31's Qwen2.5-1.5B runs the allocator's rounding, "
             "reserved bytes, the runner's own buffers, the attention and cuBLAS workspaces and "
             "the rope cache were read and ruled out (docs/engine-vllm.md, \"Model loading "
             "took\" under V2)";
    return;
  }
  // rotary_embedding/__init__.py (get_rope): a rope that names an
  // mrope_section is MRotaryEmbedding's, 4 x the rows (mrope.py); memfit
  // prices it from the config, and a Qwen3-VL config copy without
  // rope_scaling (the published ones name [24, 20, 20]) leaves it out. The
  // deepstack buffers are priced (add_deepstack in engines/vllm/estimate.cc).
  if (weights && ratio < target->low && spec.model_type.starts_with("qwen3_vl") &&
      !spec.rope_scaling.mrope) {
    c.note = "the config copy declares no rope_scaling, where Qwen3-VL's published configs name an "
             "mrope_section, for which vLLM builds MRotaryEmbedding's 4 x the rotary rows in the "
             "load figure; memfit prices the rope the config declares (docs/engine-vllm.md, \"Rows "
             "off target\")";
    return;
  }
  // vllm/model_executor/models/gemma3.py: a local rotary embedding (base
  // rope_local_base_freq) beside the global one, each with its cos/sin
  // cache in the weights' memory; memfit's weights count both
  // (engines/shared/rope_cache.h), and what is left is not traced.
  if (weights && misses && spec.model_type.starts_with("gemma3")) {
    c.note = "memfit's weights count Gemma 3's two rotary caches (the local and the global base); "
             "the rest of the gap is not traced";
  }
}

// The KV capacity the log's first printed pair stands for: stage 0's own
// (reports_each_worker) from its KV memory over its layers, else the
// engine's, the fewest blocks of every stage (vllm_pipeline_capacity,
// which needs every stage's memory).
Result<VllmCapacity> printed_pipeline_capacity(const RuntimeLog& log, const Model& model,
                                               const VllmSettings& settings, uint64_t pp, uint64_t tp) {
  const std::vector<std::optional<uint64_t>> stages = stage_kv_bytes(log, pp, tp);
  if (reports_each_worker(log)) {
    if (!stages.front()) return Error::usage("stage 0's KV memory is not in the log");
    Result<std::vector<PipelineStage>> split = vllm_pipeline_stages(model.spec.layers.size(), pp);
    if (!split) return split.error();
    const uint64_t first[] = {*stages.front()};
    ModelSpec stage0 = model.spec;
    stage0.layers.resize(split->front().layers.end);
    return vllm_pipeline_capacity(stage0, settings, first);
  }
  std::vector<uint64_t> bytes;
  for (const std::optional<uint64_t>& stage : stages) {
    if (!stage) return Error::usage("not every stage's KV memory is in the log");
    bytes.push_back(*stage);
  }
  return vllm_pipeline_capacity(model.spec, settings, bytes);
}

// A rank's weights under pipeline parallelism: its stage's
// (stage_weights), priced where every stage's are within the print's
// rounding of each other, since then the stage need not be known (a Ray
// worker, named by its pid and node, does not say which stage it is);
// else not priced, the stages' weights said.
void compare_pipeline_weights(const std::vector<uint64_t>& stages, FigureCheck& c) {
  const auto [low, high] = std::minmax_element(stages.begin(), stages.end());
  if (*high - *low <= c.printed.band) {
    c.memfit = *high, c.basis = FigureBasis::kModelled;
    return;
  }
  std::vector<std::string> each;
  for (uint64_t b : stages) each.push_back(format_bytes(b));
  c.note = fmt::format("the log does not say which pipeline stage this rank is; memfit's stages hold "
                       "{} a rank", fmt::join(each, ", "));
}

// A pipeline-parallel log: each rank's weights by its stage, the blocks,
// tokens and concurrency as the engine printed them
// (printed_pipeline_capacity); the KV memory itself is an input.
void compare_pipeline(const RuntimeLog& log, const Model& model, const VllmEstimate& e, uint64_t pp,
                      std::vector<FigureCheck>& figures) {
  const uint64_t tp = count_setting(log, "tensor_parallel").value_or(1);
  Result<VllmCapacity> blocks = printed_pipeline_capacity(log, model, e.settings, pp, tp);
  Result<std::vector<uint64_t>> weights = stage_weights(log, model, e.settings, pp, tp);
  for (FigureCheck& c : figures) {
    switch (c.printed.figure) {
      case LogFigure::kWeights:
        if (!weights) {
          c.note = escape_untrusted(weights.error().message());
          break;
        }
        compare_pipeline_weights(*weights, c);
        break;
      case LogFigure::kKvTokens:
      case LogFigure::kKvBlocks:
      case LogFigure::kConcurrency:
        if (!blocks) {
          c.note = escape_untrusted(blocks.error().message());
          break;
        }
        c.basis = FigureBasis::kExact;
        if (c.printed.figure == LogFigure::kKvTokens) c.memfit = blocks->kv_tokens;
        if (c.printed.figure == LogFigure::kKvBlocks) c.memfit = blocks->num_blocks;
        if (c.printed.figure == LogFigure::kConcurrency) c.memfit_ratio = blocks->max_concurrency;
        break;
      case LogFigure::kKvCacheAvailable:
        c.note = "the input the stage's KV capacity is priced from";
        break;
      default:
        c.note = pipeline_refusal(log, pp, tp);
        break;
    }
  }
}

class VllmPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "vllm"; }

  // A 16-bit config served with --quantization fp8 is the FP8 checkpoint
  // vLLM makes of it at load (logs/vllm_online_fp8.h); with
  // --quantization bitsandbytes, the NF4 one (logs/vllm_online_bnb.h). A
  // float32 config is first set to the dtype the log serves it at
  // (served_dtype_config).
  Result<std::string> run_config(const RuntimeLog& log, const LogCheckOptions& options,
                                 std::vector<std::string>& notes) const override {
    Result<std::string> config = served_dtype_config(log, options.config_json, notes);
    if (!config) return config;
    const std::string served = served_quantization(log);
    if (served == "fp8") return online_fp8_config(*config, notes);
    if (served == "bitsandbytes") {
      return online_bnb_config(*config, online_bnb_nested_absmax(printed_release(log)), notes);
    }
    return config;
  }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
                                  std::vector<std::string>& notes) const override {
    EstimateRequest r;
    r.engine = "vllm";
    if (Status s = apply_settings(log, r, notes); !s) return s.error();
    if (const uint64_t pp = r.parallel.pipeline_parallel; pp > 1) {
      // The weights and KV blocks are priced stage by stage (compare); the
      // profile runs as tensor parallelism over the whole model for the
      // settings, from stage 0's KV memory where it is printed.
      notes.push_back(fmt::format(
          "pipeline parallel {} x tensor parallel {}: each rank's weights are its stage's layers "
          "(get_pp_indices), the KV capacity {}", pp, r.parallel.tensor_parallel,
          reports_each_worker(log) ? "printed first is stage 0's over its own layers (the release "
                                     "prints each worker's before unifying)"
                                   : "the fewest blocks of every stage's printed KV memory over its "
                                     "own layers"));
      r.parallel.pipeline_parallel = 1;
      if (std::optional<uint64_t> first = stage_kv_bytes(log, pp, r.parallel.tensor_parallel).front()) {
        r.vllm.kv_cache_memory = *first;
      }
    }
    r.vllm.vllm_version = release_of(log, notes);
    // vLLM checks max_model_len against the served config's derived length
    // when it builds its config (ModelConfig, _get_and_verify_max_len),
    // before it loads anything: a log that prints a figure ran past it.
    if (!log.figures.empty() && r.vllm.max_model_len) {
      r.engine_fields.insert_or_assign(std::string(kVllmLogStartedMaxModelLen), "1");
    }
    // The MXFP4 kernel the log names (vllm_reader.cc: mxfp4_backend) lays
    // out the experts (engines/vllm/parts.h).
    if (const LogSetting* kernel = log.setting("mxfp4_backend")) {
      r.engine_fields.insert_or_assign(std::string(kVllmLogMxfp4Kernel), kernel->value);
    }
    // A ROCm log whose GPU has no name (vllm_reader.cc reads the platform
    // from its lines): vLLM's load figure there is the device's used memory.
    if (log.backend == "ROCm") r.engine_fields.insert_or_assign(std::string(kVllmLogPlatform), "rocm");
    // Whether the worker subtracted the CUDA graphs' estimate, as its line
    // says (vllm_reader.cc), whatever the release's default.
    if (const LogSetting* graphs = log.setting("cuda_graph_estimate")) {
      r.engine_fields.insert_or_assign(std::string(kVllmLogCudaGraphEstimate), graphs->value);
    }
    // The V2 model runner, when the worker says so (vllm_reader.cc).
    if (const LogSetting* runner = log.setting("model_runner")) {
      r.engine_fields.insert_or_assign(std::string(kVllmLogModelRunner), runner->value);
    }
    // FlashInfer's top-k/top-p kernel, when the worker says it selected it.
    if (const LogSetting* sampler = log.setting("top_k_top_p_sampler")) {
      r.engine_fields.insert_or_assign(std::string(kVllmLogSampler), sampler->value);
    }
    // V0's engine, when the log's lines are its own (vllm_reader.cc): its
    // model runs eagerly, which the profile's forward under TP shows.
    if (const LogSetting* engine = log.setting("engine"); engine != nullptr && engine->value == "V0") {
      r.engine_fields.insert_or_assign(std::string(kVllmLogEngine), "v0");
    }
    if (!options.gpu_name.empty()) r.vllm.gpu_name = options.gpu_name;
    if (std::optional<uint64_t> total = capacity_total(log, options)) {
      r.vllm.gpu_memory_total = *total;
      if (!gpu_total(log, options)) {
        notes.push_back(fmt::format("the GPU's total memory is not in the log: the hardware table's for "
                                    "'{}', {} B (docs/hardware.md), prices the available KV memory",
                                    escape_untrusted(options.gpu_name), *total));
      }
      return r;
    }
    if (const PrintedFigure* kv = first_rank_figure(log, LogFigure::kKvCacheAvailable)) {
      r.vllm.kv_cache_memory = kv->value;
      apply_device_batch_defaults(log, options, *kv, r.vllm, notes);
      notes.push_back("the GPU's total memory is not in the log: the KV capacity is priced from "
                      "the printed available KV memory (give --gpu-memory-total to price that too)");
    } else {
      r.vllm.gpu_memory_total = kStandInGpuBytes;
      notes.push_back("neither the GPU's total memory nor the KV memory is in the log: the weights "
                      "are priced, the KV capacity is not (give --gpu-memory-total)");
    }
    return r;
  }

  void compare(const RuntimeLog& log, const LogCheckOptions& options, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override {
    const VllmEstimate& e = *run.vllm;
    if (std::string why = quantization_mismatch(log, run.model->spec.quantization); !why.empty()) {
      for (FigureCheck& c : figures) c.note = why;
      return;
    }
    const bool capacity_known = e.kv_given || capacity_total(log, options).has_value();
    // The count from a given KV memory is exact only where memfit knows the
    // model's cache layout (is_known_model_type).
    const std::string& type = run.model->spec.model_type;
    const bool layout_known = type.empty() || is_known_model_type(type);
    const FigureBasis capacity =
        e.kv_given && layout_known ? FigureBasis::kExact : FigureBasis::kModelled;
    if (const std::optional<uint64_t> pp = count_setting(log, "pipeline_parallel"); pp && *pp > 1) {
      compare_pipeline(log, *run.model, e, *pp, figures);
      return;
    }
    for (FigureCheck& c : figures) {
      if (!capacity_known && c.printed.figure != LogFigure::kWeights) {
        c.note = "the GPU's total memory is not known: give --gpu-memory-total";
        continue;
      }
      switch (c.printed.figure) {
        case LogFigure::kWeights:
          c.memfit = e.weights.bytes;
          c.basis = e.weights.exact ? FigureBasis::kExact : FigureBasis::kModelled;
          break;
        case LogFigure::kKvCacheAvailable:
          if (e.kv_given) {
            c.note = "the input the KV capacity is priced from";
            break;
          }
          c.memfit = e.kv_cache_bytes, c.basis = FigureBasis::kModelled;
          if (e.kv_cache_bytes == 0 && c.printed.value > 0) {
            // The run started with KV memory where memfit's weights and
            // profile fill the budget: its weights are what is off.
            c.note = fmt::format("memfit leaves no KV memory: its weights, {} a rank, and its profile "
                                 "fill the budget the run had KV memory left in",
                                 format_bytes(e.weights.bytes));
          }
          break;
        case LogFigure::kKvTokens:
          // In the form the log printed (printed_tokens_form), also where
          // the release's accounting is not modelled (0.10, 0.21 on).
          c.memfit = vllm_kv_tokens(e.layout, e.num_blocks, e.settings.max_model_len,
                                    printed_tokens_form(log));
          c.basis = capacity;
          break;
        case LogFigure::kKvBlocks:
          c.memfit = e.num_blocks, c.basis = capacity;
          break;
        case LogFigure::kConcurrency:
          c.memfit_ratio = e.max_concurrency, c.basis = capacity;
          break;
        case LogFigure::kCudaGraph:
          c.memfit = e.cuda_graph_bytes, c.basis = FigureBasis::kModelled;
          break;
        default:
          break;
      }
      if (c.note.empty() && c.printed.figure == LogFigure::kKvCacheAvailable && c.memfit &&
          c.printed.value > 0) {
        const double ratio = static_cast<double>(*c.memfit) / static_cast<double>(c.printed.value);
        const std::optional<FigureTarget> target = figure_target("vllm", c.printed.figure, 0);
        if (target && (ratio < target->low || ratio > target->high)) {
          c.note = mxfp4_kernel_note(log, *run.model, e, c);
        }
      }
      add_unknown_run_note(log, run.model->spec, e, c);
    }
  }
};

}  // namespace

const LogPricer& vllm_log_pricer() {
  static const VllmPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
