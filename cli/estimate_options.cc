#include "estimate_options.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <system_error>
#include <tuple>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

#include "commands.h"
#include "memfit/engine.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

// `value`, or its usage error about `field`.
template <typename T>
Result<T> named(std::string_view field, Result<T> value) {
  if (!value) return Error::usage(field, value.error().message());
  return value;
}

Result<std::optional<KvElement>> kv_option(std::string_view field, const std::string& text) {
  if (text.empty()) return std::optional<KvElement>();
  Result<KvElement> element = named(field, parse_kv_element(text));
  if (!element) return element.error();
  return std::optional<KvElement>(*element);
}

// "--cache-type-k" for the request field "cache_type_k".
// --engine's help, from the registry: every engine it holds, by name.
std::string engine_option_help() {
  std::string names = "auto (the model's default)";
  const std::vector<const EngineProfile*> engines = EngineRegistry::instance().all();
  for (size_t i = 0; i < engines.size(); ++i) {
    names += i + 1 == engines.size() ? " or " : ", ";
    names += engines[i]->name();
  }
  return "allocation rules: " + names + " (docs/engines.md)";
}

std::string flag_name(std::string_view field) {
  std::string flag = "--";
  for (char c : field) flag.push_back(c == '_' ? '-' : c);
  return flag;
}

}  // namespace

std::vector<std::string> with_llamacpp_short_flags(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "-np") a = "--parallel";
    else if (a == "-ub") a = "--ubatch-size";
    else if (a == "-ctk") a = "--cache-type-k";
    else if (a == "-ctv") a = "--cache-type-v";
    else if (a == "-fa") a = "--flash-attn";
    else if (a == "-ngl") a = "--n-gpu-layers";
    else if (a == "-ncmoe") a = "--n-cpu-moe";
    else if (a == "-ot") a = "--override-tensor";
    else if (a == "-sm") a = "--split-mode";
    else if (a == "-ts") a = "--tensor-split";
    else if (a == "-mg") a = "--main-gpu";
    else if (a == "-nkvo") a = "--no-kv-offload";
    else if (a == "-md") a = "--model-draft";
    else if (a == "-ngld") a = "--gpu-layers-draft";
    else if (a == "-ctkd") a = "--cache-type-k-draft";
    else if (a == "-ctvd") a = "--cache-type-v-draft";
    else if (a == "-cd") a = "--ctx-size-draft";
    args.emplace_back(a);
  }
  return args;
}

void add_llamacpp_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("-c,--ctx-size", o.ctx_size,
                     "llamacpp: context in tokens, 0 = the model's training context (default 0)");
  command.add_option("--parallel", o.parallel, "llamacpp: sequences, -np (default 1)");
  add_llamacpp_batch_options(command, o);
}

void add_llamacpp_placement_options(CLI::App& command, EstimateOptions& o) {
  // Each given flag is kept as (request field, text) and parsed by the
  // library's set_placement_field in to_request.
  auto text = [&o](std::string field) {
    return [&o, field](const std::string& value) { o.placement.emplace_back(field, value); };
  };
  auto on = [&o](std::string field) {
    return [&o, field](bool value) { o.placement.emplace_back(field, value ? "true" : "false"); };
  };
  command.add_option_function<std::string>("--n-gpu-layers,--gpu-layers", text("n_gpu_layers"),
                                           "llamacpp: layers on the GPUs, -ngl: auto, all or N "
                                           "(blocks + 1 for the output layer; default all)");
  command.add_option_function<std::string>("--n-cpu-moe", text("n_cpu_moe"),
                                           "llamacpp: keep the first N blocks' experts on the host, -ncmoe");
  command.add_option_function<std::string>("--override-tensor", text("override_tensor"),
                                           "llamacpp: PATTERN=DEVICE (exps=CPU, CUDA0), -ot; repeatable")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option_function<std::string>("--split-mode", text("split_mode"),
                                           "llamacpp: none, layer (default) or row, -sm");
  command.add_option_function<std::string>("--tensor-split", text("tensor_split"),
                                           "llamacpp: proportions per GPU, -ts 24,12 (default: free memory)");
  command.add_option_function<std::string>("--main-gpu", text("main_gpu"), "llamacpp: -mg (default 0)");
  command.add_flag_function("--no-mmap", on("no_mmap"), "llamacpp: host weights resident, not page cache");
  command.add_flag_function("--mlock", on("mlock"), "llamacpp: host weights locked: resident");
  command.add_flag_function("--no-kv-offload", on("no_kv_offload"), "llamacpp: every KV cache on the host, -nkvo");
  command.add_option_function<std::string>("--gpu-memory", text("gpu_memory"),
                                           "llamacpp: the GPUs' free memory, 0=24GiB,1=12GiB (default: "
                                           "this machine's)");
  command.add_option_function<std::string>("--gpu-margin", text("gpu_margin"),
                                           "llamacpp: left free on every GPU (default 1GiB)");
}

void add_llamacpp_batch_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("-b,--batch-size", o.batch_size, "llamacpp: logical batch (default 2048)");
  command.add_option("--ubatch-size", o.ubatch_size, "llamacpp: physical batch, -ub (default 512)");
  command.add_option("--flash-attn", o.flash_attn, "llamacpp: on, off or auto (default), -fa");
  command.add_flag("--swa-full", o.swa_full, "llamacpp: full-size sliding-window caches");
  command.add_flag("--kv-unified", o.kv_unified, "llamacpp: one KV stream for all sequences");
  command.add_option("--repack", o.repack,
                     "llamacpp: whose CPU repack kernels copy weights: auto (this host, default), "
                     "none (--no-repack or GPU), x86-avx2, x86-avx512 or arm");
  add_llamacpp_placement_options(command, o);
  command.add_option("--mmproj", o.mmproj,
                     "llamacpp: a multimodal projector GGUF: its weights and image-encoding buffer");
  command.add_flag("--no-mmproj-offload", o.no_mmproj_offload, "llamacpp: the projector on the host");
  command.add_option("--lora", o.lora, "llamacpp: a LoRA adapter GGUF (repeatable): its tensors next to the model's")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option("--lora-scaled", o.lora_scaled,
                     "llamacpp: FILE SCALE, a LoRA adapter with its scale (repeatable; the scale costs no memory)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option("--cache-ram", o.cache_ram,
                     "llamacpp: llama-server's host prompt cache in MiB (-1 no limit, 0 off; "
                     "the server's default 8192)");
  command.add_option("--ctx-checkpoints", o.ctx_checkpoints,
                     "llamacpp: llama-server's context checkpoints per slot (0 off; the server's default 32)");
  command.add_option("--model-draft", o.model_draft,
                     "llamacpp: a speculative-decoding draft GGUF: its weights, KV and compute, -md");
  command.add_option("--gpu-layers-draft,--n-gpu-layers-draft", o.n_gpu_layers_draft,
                     "llamacpp: the draft's layers on the GPUs, auto, all or N, -ngld (default all)");
  command.add_option("--cache-type-k-draft", o.cache_type_k_draft, "llamacpp: the draft's K cache type, -ctkd (f16)");
  command.add_option("--cache-type-v-draft", o.cache_type_v_draft, "llamacpp: the draft's V cache type, -ctvd (f16)");
  command.add_option("--ctx-size-draft", o.ctx_size_draft,
                     "llamacpp: not in the pinned llama.cpp (the draft's context is -c); refused");
}

void add_mlxlm_options(CLI::App& command, EstimateOptions& o, bool with_prompt_tokens) {
  if (with_prompt_tokens) {
    command.add_option("--prompt-tokens", o.prompt_tokens, "mlx-lm: prompt length (default 512)");
  }
  command.add_option("--prefill-step-size", o.prefill_step_size,
                     "mlx-lm: prompt tokens per prefill chunk (default 2048)");
  command.add_option("--kv-bits", o.kv_bits, "mlx-lm: quantized KV cache bits (default none)");
  command.add_option("--kv-group-size", o.kv_group_size,
                     "mlx-lm: quantized KV cache group size (default 64)");
  command.add_option("--max-kv-size", o.max_kv_size,
                     "mlx-lm: rotating KV cache of this many tokens (default unbounded)");
}

void add_vllm_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("--gpu-memory-utilization", o.gpu_memory_utilization,
                     "vllm: fraction of the GPU's total memory vLLM may use (default 0.9)")
      ->check(CLI::Range(0.0, 1.0));
  command.add_option("--gpu-memory-total", o.gpu_memory_total,
                     "vllm: the GPU's total memory, e.g. 80GiB (default: the GPU found)");
  command.add_option("--gpu-name", o.gpu_name,
                     "vllm: the GPU's name as nvidia-smi prints it, e.g. \"NVIDIA H100 80GB HBM3\", "
                     "for another machine's GPU (default: the GPU found); picks the batch defaults "
                     "and the MLA block size");
  command.add_option("--kv-cache-memory,--kv-cache-memory-bytes", o.kv_cache_memory,
                     "vllm: KV cache size per GPU (bytes or e.g. 16GiB); skips the profile");
  command.add_option("--block-size", o.block_size, "vllm: tokens per KV block (default 16)");
  command.add_option("--kv-cache-dtype", o.kv_cache_dtype, "vllm: auto (default) or fp8");
  command.add_option("--max-model-len", o.max_model_len,
                     "vllm: context per request (default: the config's)");
  command.add_option("--max-num-seqs", o.max_num_seqs,
                     "vllm: sequences per step (default: 1024 on a GPU of 70 GiB or more that "
                     "is not an A100, else 256)");
  command.add_option("--max-num-batched-tokens", o.max_num_batched_tokens,
                     "vllm: tokens per step, the profiled batch (default: 8192 on a GPU of 70 "
                     "GiB or more that is not an A100, else 2048)");
  command.add_option("--num-speculative-tokens", o.num_speculative_tokens,
                     "vllm: speculative tokens per step (MTP / draft; default 0)");
  command.add_flag("--enforce-eager", o.enforce_eager, "vllm: no CUDA graphs");
  command.add_option("--vllm-version", o.vllm_version,
                     "vllm: the release whose KV accounting to price, X.Y[.Z]: 0.7 (the V1 engine) "
                     "or 0.11 to 0.20 (default: the current line)");
}

void add_request_options(CLI::App& command, EstimateOptions& o) {
  command
      .add_option_function<uint64_t>(
          "--max-tokens",
          [&o](uint64_t tokens) {
            o.max_tokens = tokens;
            o.max_tokens_given = true;
          },
          "context length in tokens (default 8192; with llamacpp, --ctx-size)")
      ->check(CLI::PositiveNumber);
  command.add_option("--batch", o.batch, "sequences decoded together (default 1)")
      ->check(CLI::PositiveNumber);
}

void add_parallel_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("--tensor-parallel,--tensor-parallel-size", o.tensor_parallel,
                     "tensor-parallel ranks (default 1); ranks > 1 add a per-device plan")
      ->check(CLI::PositiveNumber);
  command.add_option("--pipeline-parallel", o.pipeline_parallel,
                     "pipeline-parallel stages (default 1)")
      ->check(CLI::PositiveNumber);
  command.add_option("--parallel-engine", o.parallel_engine,
                     "whose sharding rules the plan follows: vllm (default) or mlx");
}

void add_model_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("-m,--model", o.model, "model folder, .safetensors or .gguf file, or a Hugging Face name "
                     "org/name[@revision][:QUANT]: the local HF cache (HF_HUB_CACHE), else the Hub")->required();
  command.add_option("--kv-cache-mode", o.kv_cache_mode, "KV cache element type: fp16 or int8");
  command.add_option("--cache-type-k", o.cache_type_k,
                     "K cache type: fp16 or int8; with --engine llamacpp f32, f16, bf16, q8_0, "
                     "q4_0, q4_1, q5_0, q5_1 or iq4_nl, -ctk");
  command.add_option("--cache-type-v", o.cache_type_v, "V cache type, as --cache-type-k, -ctv");
  command.add_option("--quant", o.quant, "intended weight mode label: fp16, int8 or int4");
  command.add_option("--backend", o.backend, "auto, rocm, metal, cuda or cpu");
  command.add_option("--memory-limit", o.memory_limit,
                     "memory budget, e.g. 48GB (binary units); overrides MEMFIT_MEMORY_LIMIT");
  command.add_option("--device", o.device, "budget device: auto, cpu, cuda:N or rocm:N");
  command.add_option("--engine", o.engine, engine_option_help());
  command.add_flag("--json", o.json, "print one JSON object on stdout");
  command.add_option("--revision", o.revision,
                     "Hugging Face name: the branch, tag or commit (default main, or the name's @)");
  command.add_option("--file", o.file, "Hugging Face name: a file inside the repo (a .gguf)");
  command.add_option("--token", o.token,
                     "Hugging Face token (default HF_TOKEN, else the HF CLI's token file)");
  command.add_option("--timeout", o.timeout_seconds,
                     "seconds each request to the Hub may take (default 30)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{86400}));
  command.add_flag("--offline", o.offline,
                   "read only local paths and caches, never the Hub (as HF_HUB_OFFLINE=1)");
}

LocalRequestContext request_context(const EstimateOptions& o) {
  LocalRequestContext context(*make_process_environment());
  ModelNameOptions& names = context.model_names();
  if (!o.token.empty()) names.hub.token = o.token;
  if (o.timeout_seconds) names.hub.timeout_ms = *o.timeout_seconds * 1000;  // <= 86,400,000
  names.revision = o.revision;
  names.file = o.file;
  if (o.offline) names.hf_cache.offline = true;
#ifdef _WIN32
  const bool terminal = _isatty(_fileno(stderr));
#else
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
#endif
  if (terminal) {
    names.progress = [](size_t done, size_t total) {
      std::fprintf(stderr, "\rmemfit: reading headers: %zu/%zu shards%s", done, total,
                   done == total ? "\n" : "");
      std::fflush(stderr);
    };
  }
  return context;
}

Result<EstimateRequest> to_request(const EstimateOptions& o) {
  EstimateRequest r;
  r.model = o.model;
  if (o.max_tokens_given) r.max_tokens = o.max_tokens;
  r.batch = o.batch;
  Result<std::string> engine = named("engine", parse_engine(o.engine));
  if (!engine) return engine.error();
  r.engine = *engine;
  Result<std::optional<KvElement>> mode = kv_option("kv_cache_mode", o.kv_cache_mode);
  if (!mode) return mode.error();
  r.kv_cache_mode = *mode;
  for (auto [field, text] : {std::pair{"cache_type_k", &o.cache_type_k},
                             std::pair{"cache_type_v", &o.cache_type_v}}) {
    if (text->empty()) continue;
    if (Status set = set_cache_type(r, field, *text); !set) return set.error();
  }
  r.mlxlm = MlxLmRequest{o.prompt_tokens, o.prefill_step_size, o.kv_bits, o.kv_group_size,
                         o.max_kv_size};
  VllmRequest& v = r.vllm;
  v.gpu_memory_utilization = o.gpu_memory_utilization;
  for (auto [field, text, slot] : {std::tuple{"gpu_memory_total", &o.gpu_memory_total, &v.gpu_memory_total},
                                   std::tuple{"kv_cache_memory", &o.kv_cache_memory, &v.kv_cache_memory}}) {
    if (text->empty()) continue;
    Result<std::optional<uint64_t>> size = named(field, parse_memory_size(*text));
    if (!size) return size.error();
    *slot = size->value_or(0);
  }
  if (o.gpu_name) {
    Result<std::string> name = named("gpu_name", parse_gpu_name(*o.gpu_name));
    if (!name) return name.error();
    v.gpu_name = std::move(*name);
  }
  v.block_size = o.block_size;
  if (!o.kv_cache_dtype.empty()) {
    Result<bool> fp8 = named("kv_cache_dtype", parse_vllm_kv_cache_dtype(o.kv_cache_dtype));
    if (!fp8) return fp8.error();
    v.kv_cache_fp8 = *fp8;
  }
  v.max_model_len = o.max_model_len;
  v.max_num_seqs = o.max_num_seqs;
  v.max_num_batched_tokens = o.max_num_batched_tokens;
  v.num_speculative_tokens = o.num_speculative_tokens;
  if (o.enforce_eager) v.enforce_eager = true;
  if (!o.vllm_version.empty()) {
    Result<VllmRelease> release = named("vllm_version", parse_vllm_version(o.vllm_version));
    if (!release) return release.error();
    v.vllm_version = *release;
  }
  r.llamacpp.ctx_size = o.ctx_size;
  r.llamacpp.parallel = o.parallel;
  r.llamacpp.batch_size = o.batch_size;
  r.llamacpp.ubatch_size = o.ubatch_size;
  if (!o.flash_attn.empty()) {
    Result<FlashAttn> fa = named("flash_attn", parse_flash_attn(o.flash_attn));
    if (!fa) return fa.error();
    r.llamacpp.flash_attn = *fa;
  }
  for (const auto& [field, text] : o.placement) {
    if (Status set = set_placement_field(r.llamacpp.placement, field, text); !set) return set.error();
  }
  if (!o.mmproj.empty()) r.llamacpp.mmproj = o.mmproj;
  if (o.no_mmproj_offload) r.llamacpp.no_mmproj_offload = true;
  r.llamacpp.lora = o.lora;
  for (const auto& [file, scale] : o.lora_scaled) {
    // llama-server reads the scale with std::stof: a number it must be.
    double value = 0;
    const auto [end, ec] = std::from_chars(scale.data(), scale.data() + scale.size(), value);
    if (scale.empty() || ec != std::errc() || end != scale.data() + scale.size()) {
      return Error::usage("lora_scaled", fmt::format("takes FILE SCALE, a number; got {}", quote_untrusted(scale)));
    }
    r.llamacpp.lora.push_back(file);
  }
  if (o.cache_ram) {
    Result<int64_t> mib = parse_cache_ram("cache_ram", *o.cache_ram);
    if (!mib) return mib.error();
    r.llamacpp.cache_ram = *mib;
  }
  if (o.ctx_checkpoints) r.llamacpp.ctx_checkpoints = *o.ctx_checkpoints;
  if (o.ctx_size_draft) {
    return Error::usage("ctx_size_draft", "is not a flag of the pinned llama.cpp (v0.4.0): the draft's "
                                          "context is the main one's, -c");
  }
  if (!o.model_draft.empty()) r.llamacpp.model_draft = o.model_draft;
  if (o.n_gpu_layers_draft) {
    Result<std::optional<uint64_t>> n = parse_n_gpu_layers(*o.n_gpu_layers_draft);
    if (!n) return Error::usage("n_gpu_layers_draft", "expected auto, all or a count");
    r.llamacpp.n_gpu_layers_draft = *n;
  }
  for (auto [text, slot, field] : {std::tuple{&o.cache_type_k_draft, &r.llamacpp.cache_type_k_draft, "cache_type_k_draft"},
                                   std::tuple{&o.cache_type_v_draft, &r.llamacpp.cache_type_v_draft, "cache_type_v_draft"}}) {
    if (text->empty()) continue;
    Result<GgmlType> type = parse_llamacpp_cache_type(*text);
    if (!type) return Error::usage(field, type.error().message());
    *slot = *type;
  }
  if (o.swa_full) r.llamacpp.swa_full = true;
  if (o.kv_unified) r.llamacpp.kv_unified = true;
  if (!o.repack.empty()) {
    Result<RepackCpu> repack = named("repack", parse_repack_cpu(o.repack));
    if (!repack) return repack.error();
    r.llamacpp.repack = *repack;
  }
  if (!o.quant.empty()) {
    Result<std::string> quant = named("quant", parse_quant_label(o.quant));
    if (!quant) return quant.error();
    r.quant = std::move(*quant);
  }
  Result<std::optional<Backend>> backend = named("backend", parse_backend(o.backend));
  if (!backend) return backend.error();
  r.backend = *backend;
  Result<DeviceSelector> device = named("device", parse_device_selector(o.device));
  if (!device) return device.error();
  r.device = *device;
  Result<std::optional<uint64_t>> limit = named("memory_limit", parse_memory_size(o.memory_limit));
  if (!limit) return limit.error();
  r.memory_limit_bytes = *limit;
  Result<ParallelEngine> parallel_engine =
      named("parallel_engine", parse_parallel_engine(o.parallel_engine));
  if (!parallel_engine) return parallel_engine.error();
  r.parallel = ParallelConfig{o.tensor_parallel, o.pipeline_parallel, *parallel_engine};
  return r;
}

Result<PreparedRequest> prepare_estimate(const EstimateOptions& o,
                                         const PrepareOptions& prepare_options) {
  Result<EstimateRequest> request = to_request(o);
  if (!request) return request.error();
  LocalRequestContext context = request_context(o);
  return prepare(*request, context, prepare_options);
}

Result<EstimateRun> run_estimate(const EstimateOptions& o) {
  Result<EstimateRequest> request = to_request(o);
  if (!request) return request.error();
  LocalRequestContext context = request_context(o);
  return run(*request, context);
}

Warning no_headers_warning() {
  return Warning{WarningKind::kModel,
                 "no *.safetensors headers to read: quantized sizes are estimated from the "
                 "config's parameter count"};
}

int report_error(const Error& error, std::string_view command) {
  std::string line = "memfit: ";
  if (!command.empty()) line += std::string(command) + ": ";
  if (error.kind() == ErrorKind::kUsage && !error.field().empty()) {
    line += flag_name(error.field()) + ": " + std::string(error.detail());
  } else {
    line += error.message();
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  return error.kind() == ErrorKind::kUsage ? kExitUsage : kExitError;
}

nlohmann::ordered_json warnings_json(const std::vector<Warning>& warnings) {
  nlohmann::ordered_json texts = nlohmann::ordered_json::array();
  for (const Warning& w : warnings) texts.push_back(w.text);
  return texts;
}

void print_warnings(const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) {
    std::fprintf(stderr, w.kind == WarningKind::kAvailableNow ? "%s\n" : "memfit: warning: %s\n",
                 w.text.c_str());
  }
}

}  // namespace memfit::cli
