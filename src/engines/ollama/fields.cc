// Ollama's request fields, declared once: its Modelfile/API parameters
// (num_ctx, num_gpu, num_batch) and its server's environment variables,
// each named as users write it in lower case (OLLAMA_NUM_PARALLEL is
// ollama_num_parallel). Their values live as text in
// EstimateRequest::engine_fields (docs/engine-ollama.md, "Fields").
#include "engines/ollama/fields.h"
#include "engines/ollama/releases.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "memfit/llamacpp_placement.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"
#include "request/field_text.h"

namespace memfit::ollama {
namespace {

using request::parse_decimal;
using request::parse_switch;

// The JSON names, each once: the rows and read_ollama_request use them.
constexpr std::string_view kNumCtx = "num_ctx";
constexpr std::string_view kNumGpu = "num_gpu";
constexpr std::string_view kNumBatch = "num_batch";
constexpr std::string_view kNumParallel = "ollama_num_parallel";
constexpr std::string_view kContextLength = "ollama_context_length";
constexpr std::string_view kFlashAttention = "ollama_flash_attention";
constexpr std::string_view kKvCacheType = "ollama_kv_cache_type";
constexpr std::string_view kGpuOverhead = "ollama_gpu_overhead";
constexpr std::string_view kSchedSpread = "ollama_sched_spread";
constexpr std::string_view kGpusFree = "ollama_gpus_free";
constexpr std::string_view kVersion = "ollama_version";
constexpr std::string_view kUseMmap = "use_mmap";
constexpr std::string_view kGpuArch = "ollama_gpu_arch";

// OLLAMA_KV_CACHE_TYPE's three types (llama.cpp's spellings).
Result<GgmlType> parse_kv_cache_type(std::string_view text) {
  if (text == "f16") return GgmlType::kF16;
  if (text == "q8_0") return GgmlType::kQ8_0;
  if (text == "q4_0") return GgmlType::kQ4_0;
  return Error::usage("", fmt::format("'{}': expected f16, q8_0 or q4_0", text));
}

// A GPU architecture as Ollama's discovery prints it: a ROCm ISA, "gfx"
// and 3 or 4 hex digits ("gfx1102", "gfx90a"), or a CUDA compute
// capability, digits, a dot, digits ("8.6").
Result<std::string> parse_gpu_arch(std::string_view text) {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.starts_with("gfx") && (text.size() == 6 || text.size() == 7) &&
      std::all_of(text.begin() + 3, text.end(), hex)) {
    return std::string(text);
  }
  const size_t dot = text.find('.');
  if (dot != std::string_view::npos && dot > 0 && dot + 1 < text.size() && text.size() <= 5 &&
      std::all_of(text.begin(), text.begin() + dot, digit) && std::all_of(text.begin() + dot + 1, text.end(), digit)) {
    return std::string(text);
  }
  return Error::usage("", fmt::format("'{}': expected a ROCm ISA (gfx1102) or a CUDA compute capability (8.6)",
                                      escape_untrusted(text)));
}

// OLLAMA_GPU_OVERHEAD: bytes as Ollama reads it, or a size with its unit.
Result<uint64_t> parse_overhead(std::string_view text) {
  Result<std::optional<uint64_t>> size = parse_memory_size(text, BareNumber::kBytes);
  if (!size) return size.error();
  return size->value_or(0);
}

// The text kept for a field: `Parse` must take it (its error as is).
template <auto Parse>
Result<std::string> checked(std::string_view text) {
  auto parsed = Parse(text);
  if (!parsed) return parsed.error();
  return std::string(text);
}

// A row whose value is kept as the text `Check` returns, under `*Name`.
template <auto Check, const std::string_view* Name>
constexpr RequestField text_field(RequestField row) {
  row.apply = [](EstimateRequest& r, std::string_view text) -> Status {
    Result<std::string> kept = Check(text);
    if (!kept) return kept.error();
    r.engine_fields.insert_or_assign(std::string(*Name), std::move(*kept));
    return Status::Ok();
  };
  row.given = [](const EstimateRequest& r) { return r.engine_fields.contains(*Name); };
  return row;
}

constexpr RequestField kOllamaFields[] = {
    text_field<checked<parse_decimal>, &kNumCtx>(
        {.name = kNumCtx,
         .flags = "--num-ctx",
         .engine = "ollama",
         .help = "Modelfile/API num_ctx: context per sequence (default: OLLAMA_CONTEXT_LENGTH, "
                 "else 4096, 32768 or 262144 by the GPUs' total memory)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .min = 1,
         .example = "8192",
         .doc = "the Modelfile's `PARAMETER num_ctx N` or the API's `options.num_ctx`: the "
                "context of one sequence; Ollama raises it to 4 and lowers it to the model's "
                "trained context; the cache holds num_ctx x OLLAMA_NUM_PARALLEL cells. Default: "
                "`ollama_context_length`, else the VRAM tier (docs/engine-ollama.md)"}),
    text_field<checked<parse_decimal>, &kNumGpu>(
        {.name = kNumGpu,
         .flags = "--num-gpu",
         .engine = "ollama",
         .help = "Modelfile/API num_gpu: layers on the GPUs, the output layer counted (default: "
                 "as many as Ollama's scheduler fits)",
         .unit = "layers",
         .type = FieldType::kCount,
         .default_text = "auto",
         .example = "2",
         .doc = "the Modelfile's `PARAMETER num_gpu N`: the layers offloaded (the blocks and "
                "the output layer); Ollama's scheduler still spreads them over the GPUs. "
                "Default -1: as many as fit",
         .gpu_setting = true}),
    text_field<checked<parse_decimal>, &kNumBatch>(
        {.name = kNumBatch,
         .flags = "--num-batch",
         .engine = "ollama",
         .help = "Modelfile/API num_batch: tokens per prompt step (default 512)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .default_text = "512",
         .min = 1,
         .example = "256",
         .doc = "the Modelfile's `PARAMETER num_batch N`: llama.cpp's ubatch, and its batch "
                "times OLLAMA_NUM_PARALLEL; lowered to num_ctx"}),
    text_field<checked<parse_decimal>, &kNumParallel>(
        {.name = kNumParallel,
         .flags = "--ollama-num-parallel",
         .engine = "ollama",
         .help = "OLLAMA_NUM_PARALLEL: sequences served at once; the cache holds num_ctx x this "
                 "(default 1)",
         .unit = "sequences",
         .type = FieldType::kCount,
         .default_text = "1",
         .min = 1,
         .max = 256,
         .example = "4",
         .doc = "the server's `OLLAMA_NUM_PARALLEL`: each of these sequences gets num_ctx "
                "cells (the KV cache is num_ctx x parallel); 1 for embedding models and the "
                "architectures Ollama runs one sequence at a time"}),
    text_field<checked<parse_decimal>, &kContextLength>(
        {.name = kContextLength,
         .flags = "--ollama-context-length",
         .engine = "ollama",
         .help = "OLLAMA_CONTEXT_LENGTH: the server's default num_ctx (default: by the GPUs' "
                 "total memory)",
         .unit = "tokens",
         .type = FieldType::kCount,
         .min = 1,
         .example = "16384",
         .doc = "the server's `OLLAMA_CONTEXT_LENGTH`: num_ctx for a model whose Modelfile and "
                "request give none; unset, the VRAM tier picks it"}),
    text_field<checked<parse_switch>, &kFlashAttention>(
        {.name = kFlashAttention,
         .flags = "--ollama-flash-attention",
         .engine = "ollama",
         .help = "OLLAMA_FLASH_ATTENTION: true or false (default: the model's own choice)",
         .type = FieldType::kFlag,
         .example = "false",
         .doc = "the server's `OLLAMA_FLASH_ATTENTION`: unset, llama.cpp's runner decides "
                "(auto) and Ollama's own engine enables it for the architectures it lists"}),
    text_field<checked<parse_kv_cache_type>, &kKvCacheType>(
        {.name = kKvCacheType,
         .flags = "--ollama-kv-cache-type",
         .engine = "ollama",
         .help = "OLLAMA_KV_CACHE_TYPE: f16 (default), q8_0 or q4_0; quantized only with flash "
                 "attention on",
         .type = FieldType::kChoice,
         .choices = "f16|q8_0|q4_0",
         .default_text = "f16",
         .example = "q8_0",
         .doc = "the server's `OLLAMA_KV_CACHE_TYPE`: the K and V cache type; a quantized type "
                "is ignored (f16, with a warning) unless flash attention is on"}),
    text_field<checked<parse_overhead>, &kGpuOverhead>(
        {.name = kGpuOverhead,
         .flags = "--ollama-gpu-overhead",
         .engine = "ollama",
         .help = "OLLAMA_GPU_OVERHEAD: memory kept free on every GPU (bytes, or e.g. 512MiB; "
                 "default 0)",
         .unit = "bytes",
         .type = FieldType::kSize,
         .default_text = "0",
         .json_expects = "a size such as \"512MiB\" or bytes",
         .example = "2GiB",
         .doc = "the server's `OLLAMA_GPU_OVERHEAD`: bytes the scheduler leaves free on each "
                "GPU besides its 457 MiB minimum; also taken off the total of the VRAM tier",
         .gpu_setting = true}),
    text_field<checked<parse_switch>, &kUseMmap>(
        {.name = kUseMmap,
         .flags = "--ollama-use-mmap",
         .engine = "ollama",
         .help = "the request's use_mmap option: false reads the weights into memory (default: "
                 "mapped with a GPU, read in on CPU alone)",
         .type = FieldType::kFlag,
         .example = "false",
         .doc = "the request's (or Modelfile's) `use_mmap`: false has the llama.cpp runner load "
                "without mmap (its load request's `UseMmap:false`), so the host's model buffer "
                "holds its own tensors, not the file's mapped range; unset, the server decides"}),
    text_field<checked<parse_switch>, &kSchedSpread>(
        {.name = kSchedSpread,
         .flags = "--ollama-sched-spread",
         .engine = "ollama",
         .help = "OLLAMA_SCHED_SPREAD: spread the layers over every GPU (default false: as few "
                 "GPUs as hold them)",
         .type = FieldType::kFlag,
         .default_text = "false",
         .doc = "the server's `OLLAMA_SCHED_SPREAD`: the scheduler balances the layers over "
                "all GPUs instead of packing them onto the fewest",
         .gpu_setting = true}),
    text_field<checked<parse_gpu_memory>, &kGpusFree>(
        {.name = kGpusFree,
         .flags = "--ollama-gpus-free",
         .engine = "ollama",
         .help = "each GPU's free memory as Ollama finds it, e.g. 0=22GiB,1=10GiB (default: the "
                 "GPUs of --gpu, else this machine's)",
         .type = FieldType::kText,
         .example = "0=8GiB,1=6GiB",
         .doc = "each GPU's free memory when Ollama loads the model (its log's `gpu memory ... "
                "free` lines), `0=22GiB,1=10GiB` or `22GiB,10GiB` (`CUDA0=22GiB`: a CUDA or ROCm "
                "device, whose quantized rows the runner's llama.cpp pads): the scheduler's input, "
                "and the total of the VRAM tier; not with `--gpu` or `--mac`",
         .gpu_setting = true}),
    text_field<checked<parse_gpu_arch>, &kGpuArch>(
        {.name = kGpuArch,
         .flags = "--ollama-gpu-arch",
         .engine = "ollama",
         .help = "the GPUs' architecture as Ollama's discovery prints it (compute=gfx1102, 8.6)",
         .type = FieldType::kText,
         .example = "gfx1102",
         .doc = "the architecture of the GPUs `ollama_gpus_free` gives, as the server's `inference "
                "compute` line prints it (`compute=gfx1102`, `8.6`): on an RDNA3 GPU (`gfx11xx`) the "
                "own engine's graph record of v0.12.4 to v0.13.2 holds its products' pool, on an NVIDIA "
                "Turing or Ampere GPU (`7.5` to `8.8`) that of v0.12.4 to v0.24.0 ggml-cuda's pool at "
                "flash attention's largest request (docs/engine-ollama.md, \"Ollama's own engine\"); not "
                "with `--gpu` or `--mac`",
         .gpu_setting = true}),
    text_field<checked<parse_ollama_release>, &kVersion>(
        {.name = kVersion,
         .flags = "--ollama-version",
         .engine = "ollama",
         .help = "the Ollama release whose rules decide, v0.1.0 to v0.24.0 or v0.30.0 to v0.32.15 "
                 "(default: the newest read, v0.32.15)",
         .type = FieldType::kText,
         .default_text = "v0.32.15",
         .example = "0.5.7",
         .doc = "the release tag (`0.5.7`, `v0.32.15`) whose rules decide: its defaults, which "
                "runner loads the architecture (llama-server from v0.30.0, its layers by llama.cpp's "
                "`--fit`) and the llama.cpp build it runs (one KV cache for every sequence before "
                "v0.11.5); docs/engine-ollama.md, \"Releases\""}),
};

// The text of `name` in `r`, parsed by `parse`; nullopt when not given.
template <typename T, typename Parse>
Result<std::optional<T>> read_one(const EstimateRequest& r, std::string_view name, Parse parse) {
  auto at = r.engine_fields.find(name);
  if (at == r.engine_fields.end()) return std::optional<T>();
  auto value = parse(at->second);
  if (!value) return Error::usage(name, value.error().message());
  return std::optional<T>(*value);
}

}  // namespace

std::span<const RequestField> fields() { return kOllamaFields; }

Result<OllamaRequest> read_ollama_request(const EstimateRequest& r) {
  OllamaRequest q;
  auto count = [&](std::string_view name, std::optional<uint64_t>& slot) -> Status {
    Result<std::optional<uint64_t>> v = read_one<uint64_t>(r, name, parse_decimal);
    if (!v) return v.error();
    slot = *v;
    return Status::Ok();
  };
  auto flag = [&](std::string_view name, std::optional<bool>& slot) -> Status {
    Result<std::optional<bool>> v = read_one<bool>(r, name, parse_switch);
    if (!v) return v.error();
    slot = *v;
    return Status::Ok();
  };
  for (Status s : {count(kNumCtx, q.num_ctx), count(kNumGpu, q.num_gpu),
                   count(kNumBatch, q.num_batch), count(kNumParallel, q.num_parallel),
                   count(kContextLength, q.context_length), flag(kFlashAttention, q.flash_attention),
                   flag(kUseMmap, q.use_mmap)}) {
    if (!s) return s.error();
  }
  Result<std::optional<GgmlType>> kv = read_one<GgmlType>(r, kKvCacheType, parse_kv_cache_type);
  if (!kv) return kv.error();
  q.kv_cache_type = *kv;
  Result<std::optional<uint64_t>> overhead = read_one<uint64_t>(r, kGpuOverhead, parse_overhead);
  if (!overhead) return overhead.error();
  q.gpu_overhead_bytes = overhead->value_or(0);
  std::optional<bool> spread;
  if (Status s = flag(kSchedSpread, spread); !s) return s.error();
  q.sched_spread = spread.value_or(false);
  Result<std::optional<std::vector<LlamaCppGpu>>> gpus =
      read_one<std::vector<LlamaCppGpu>>(r, kGpusFree, parse_gpu_memory);
  if (!gpus) return gpus.error();
  q.gpus_free = std::move(*gpus);
  Result<std::optional<std::string>> arch = read_one<std::string>(r, kGpuArch, parse_gpu_arch);
  if (!arch) return arch.error();
  q.gpu_arch = std::move(*arch);
  Result<std::optional<OllamaRelease>> release = read_one<OllamaRelease>(r, kVersion, parse_ollama_release);
  if (!release) return release.error();
  q.release = *release;
  return q;
}

}  // namespace memfit::ollama
