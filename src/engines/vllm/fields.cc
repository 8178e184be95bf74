// vLLM's request fields, declared once, with vllm serve's defaults
// (vllm.h: VllmSettings) and its flags' names.
#include "engines/vllm/fields.h"

#include <string>

#include "engines/vllm/parts.h"

#include "memfit/memory_size.h"
#include "memfit/request.h"
#include "memfit/vllm.h"
#include "request/field_rows.h"
#include "request/field_text.h"

namespace memfit {
namespace {

using R = EstimateRequest;
using request::parse_decimal;
using request::parse_switch;
using request::parsed_field;

// A fraction in (0, 1]: "0.9".
Result<double> parse_utilization(std::string_view text) { return request::parse_ratio(text, 0.0, 1.0); }

// A size with its unit ("80GiB", "80GB"); 0 or "none" is given as 0.
Result<uint64_t> parse_size_or_zero(std::string_view text) {
  Result<std::optional<uint64_t>> size = parse_memory_size(text);
  if (!size) return size.error();
  return size->value_or(0);
}

// A size; a bare number is bytes, as vLLM's --kv-cache-memory-bytes counts
// them. 0 or "none" is given as 0.
Result<uint64_t> parse_bytes_or_zero(std::string_view text) {
  Result<std::optional<uint64_t>> size = parse_memory_size(text, BareNumber::kBytes);
  if (!size) return size.error();
  return size->value_or(0);
}

// --runner's text.
Result<VllmRunner> parse_runner(std::string_view text) {
  if (text == "auto") return VllmRunner::kAuto;
  if (text == "generate") return VllmRunner::kGenerate;
  if (text == "pooling") return VllmRunner::kPooling;
  return Error::usage("runner", "expected auto, generate or pooling");
}

// A MambaDType flag's row: its text kept in engine_fields under `Name`
// (parts.h), as the request struct is the public API's.
template <const std::string_view& Name>
Status put_mamba_dtype(R& r, std::string_view text) {
  Result<std::string> dtype = parse_vllm_mamba_dtype(text);
  if (!dtype) return dtype.error();
  r.engine_fields.insert_or_assign(std::string(Name), std::move(*dtype));
  return Status::Ok();
}
template <const std::string_view& Name>
bool mamba_dtype_given(const R& r) {
  return r.engine_fields.contains(Name);
}

constexpr RequestField kVllmFields[] = {
    parsed_field<parse_utilization, &R::vllm, &VllmRequest::gpu_memory_utilization>(
    {.name = "gpu_memory_utilization",
     .flags = "--gpu-memory-utilization",
     .engine = "vllm",
     .help = "fraction of the GPU's total memory vLLM may use (default 0.92; 0.9 before vLLM "
             "0.21)",
     .type = FieldType::kRatio,
     .default_text = "0.92",
     .json_expects = "a number in (0, 1]",
     .doc = "vLLM's `--gpu-memory-utilization`: the fraction of the GPU's total memory it may "
            "use, in (0, 1]",
     .gpu_setting = true}),
    parsed_field<parse_size_or_zero, &R::vllm, &VllmRequest::gpu_memory_total>(
    {.name = "gpu_memory_total",
     .flags = "--gpu-memory-total",
     .engine = "vllm",
     .help = "the GPU's total memory, e.g. 81559MiB (default: the GPU found; --gpu NAME gives it "
             "from the hardware table)",
     .unit = "bytes",
     .type = FieldType::kSize,
     .json_expects = "a size such as \"81559MiB\" or bytes",
     .example = "81559MiB",
     .doc = "the GPU's total memory, with its unit (`80GB` is 80 x 10^9 bytes, `80GiB` 80 x 2^30; "
            "an H100 80GB's driver reports 81559 MiB); default: the GPU found (`--device cuda:N` selects), else "
            "`--memory-limit` with a warning; when given, it is also the budget the rank's peak "
            "is checked against (`budget_source` `gpu_total_given`) unless `--memory-limit` is "
            "given",
     .gpu_setting = true}),
    parsed_field<parse_gpu_name, &R::vllm, &VllmRequest::gpu_name>(
    {.name = "gpu_name",
     .flags = "--gpu-name",
     .engine = "vllm",
     .help = "the GPU's name as nvidia-smi prints it, e.g. \"NVIDIA H100 80GB HBM3\", for another "
             "machine's GPU (default: the GPU found); picks the batch defaults and the MLA block "
             "size",
     .type = FieldType::kText,
     .example = "NVIDIA H100 80GB HBM3",
     .doc = "the GPU's name, as `nvidia-smi` prints it; default: the GPU found (none when "
            "`--gpu-memory-total` is given, since that is another machine's GPU); when given, it "
            "wins over the probed name. The name picks the batch defaults below (A100; v0.7: "
            "H100, H200), the MLA block size (\"MLA block size\") and the platform (an AMD GPU's "
            "name: ROCm's load figure, \"ROCm\"). 1 to 128 printable ASCII characters, not all "
            "spaces; anything else is refused with one line. Given without `--gpu-memory-total` "
            "on a host whose GPU is another, the total stays this host's GPU's, with a warning",
     .gpu_setting = true}),
    parsed_field<parse_bytes_or_zero, &R::vllm, &VllmRequest::kv_cache_memory>(
    {.name = "kv_cache_memory",
     .flags = "--kv-cache-memory,--kv-cache-memory-bytes",
     .engine = "vllm",
     .help = "KV cache size per GPU (bytes, as vLLM's flag, or e.g. 16GiB); skips the profile",
     .unit = "bytes",
     .type = FieldType::kSize,
     .json_expects = "a size such as \"80GiB\" or bytes",
     .example = "16GiB",
     .doc = "vLLM's `--kv-cache-memory-bytes`: the KV cache per GPU as given (vLLM then skips the "
            "profile and ignores the utilization); default none, sized by the utilization",
     .gpu_setting = true}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::block_size>(
    {.name = "block_size",
     .flags = "--block-size",
     .engine = "vllm",
     .help = "tokens per KV block (default 16)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "16",
     .min = 1,}),
    parsed_field<parse_vllm_kv_cache_dtype, &R::vllm, &VllmRequest::kv_cache_fp8>(
    {.name = "kv_cache_dtype",
     .flags = "--kv-cache-dtype",
     .engine = "vllm",
     .help = "auto (default) or fp8",
     .type = FieldType::kChoice,
     .choices = "auto|fp8|fp8_e4m3|fp8_e5m2",
     .default_text = "auto",
     .doc = "vLLM's `--kv-cache-dtype`: `auto` (16-bit) or `fp8` (`fp8_e4m3`, `fp8_e5m2`)"}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::max_model_len>(
    {.name = "max_model_len",
     .flags = "--max-model-len",
     .engine = "vllm",
     .help = "context per request (default: the config's)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .min = 1,
     .example = "32768",
     .doc = "context per request (or `--max-tokens`); default: the config's "
            "`max_position_embeddings`"}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::max_num_seqs>(
    {.name = "max_num_seqs",
     .flags = "--max-num-seqs",
     .engine = "vllm",
     .help = "sequences per step (default: 1024 on a GPU of 70 GiB or more that is not an A100, "
             "else 256)",
     .type = FieldType::kCount,
     .min = 1,
     .example = "256",
     .doc = "sequences per step (or `--batch` other than 1); default: 1024 on a GPU of at least "
            "70 GiB whose name does not say A100, else 256; at most the batched tokens "
            "(`engine/arg_utils.py`, `get_batch_defaults`, `vllm serve`)"}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::max_num_batched_tokens>(
    {.name = "max_num_batched_tokens",
     .flags = "--max-num-batched-tokens",
     .engine = "vllm",
     .help = "tokens per step, the profiled batch (default: 8192 on a GPU of 70 GiB or more that "
             "is not an A100, else 2048)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .min = 1,
     .example = "8192",
     .doc = "tokens per step, the profiled batch; default: 8192 on a GPU of at least 70 GiB "
            "whose name does not say A100, else 2048 (same source; chunked prefill on, as for "
            "every generative model); an unknown GPU (only `--kv-cache-memory` given) takes the "
            "small pair"}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::num_speculative_tokens>(
    {.name = "num_speculative_tokens",
     .flags = "--num-speculative-tokens",
     .engine = "vllm",
     .help = "speculative tokens per step (MTP / draft; default 0)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "0",
     .doc = "`--speculative-config`'s `num_speculative_tokens` (MTP or a draft), priced as "
            "the extra state blocks a Mamba layer keeps per request; refused on a model without "
            "one (the draft's or MTP module's own weights and cache are not priced)"}),
    parsed_field<parse_switch, &R::vllm, &VllmRequest::enforce_eager>(
    {.name = "enforce_eager",
     .flags = "--enforce-eager",
     .engine = "vllm",
     .help = "no CUDA graphs",
     .type = FieldType::kFlag,
     .default_text = "false",
     .doc = "vLLM's `--enforce-eager`: no CUDA graphs"}),
    parsed_field<parse_runner, &R::vllm, &VllmRequest::runner>(
    {.name = "runner",
     .flags = "--runner",
     .engine = "vllm",
     .help = "auto (default), generate or pooling: the embedding and scoring runner",
     .type = FieldType::kChoice,
     .choices = "auto|generate|pooling",
     .default_text = "auto",
     .example = "pooling",
     .doc = "vLLM's `--runner` (it replaced `--task embed` in v0.10.1): `pooling` serves "
            "embeddings and scores, with no sampler and, for an encoder (BERT, XLM-R), no KV "
            "cache; `auto` picks it for a pooling architecture (docs/embedding-models.md)"}),
    parsed_field<parse_vllm_version, &R::vllm, &VllmRequest::vllm_version>(
    {.name = "vllm_version",
     .flags = "--vllm-version",
     .engine = "vllm",
     .help = "the release whose KV accounting to price, X.Y[.Z]: 0.7 (the V1 engine), 0.11 to "
             "0.20, or 0.21 to 0.32 (default: the current line)",
     .type = FieldType::kText,
     .example = "0.11",
     .doc = "the release that runs, `X.Y` or `X.Y.Z`; default the current line, 0.21 to 0.32 "
            "(the CUDA graphs' estimate subtracted from the KV memory, utilization 0.92); `0.7` "
            "prices v0.7's V1 accounting, `0.11` to `0.20` those releases' (the graphs past the "
            "utilization, 0.9), any other release is refused (\"Older releases\")"}),
    parsed_field<parse_switch, &R::vllm, &VllmRequest::enable_lora>(
    {.name = "enable_lora",
     .flags = "--enable-lora",
     .engine = "vllm",
     .help = "serve LoRA adapters: max_loras slots of max_lora_rank in every linear layer",
     .type = FieldType::kFlag,
     .default_text = "false",
     .doc = "vLLM's `--enable-lora`: every decoder linear layer allocates `max_loras` A and B "
            "slots of rank `max_lora_rank` when the model loads, priced in the weights (\"LoRA "
            "slots\"); attention and dense MLP layers only (a MoE, MLA, Mamba or gated-delta "
            "model is refused)"}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::max_loras>(
    {.name = "max_loras",
     .flags = "--max-loras",
     .engine = "vllm",
     .help = "LoRA adapters one batch may mix, the GPU slots (default 1; with enable_lora)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .doc = "vLLM's `--max-loras`: the adapters one batch may mix, each a slot in every LoRA "
            "layer; refused without `enable_lora` (vLLM builds no LoRA config without it)"}),
    parsed_field<parse_decimal, &R::vllm, &VllmRequest::max_lora_rank>(
    {.name = "max_lora_rank",
     .flags = "--max-lora-rank",
     .engine = "vllm",
     .help = "the slots' rank: 1, 8, 16 (default), 32, 64, 128, 256, 320 or 512",
     .type = FieldType::kCount,
     .default_text = "16",
     .min = 1,
     .doc = "vLLM's `--max-lora-rank`: the rank every slot is sized for, one of 1, 8, 16, 32, "
            "64, 128, 256, 320, 512 (`LoRAConfig`'s `MaxLoRARanks`; another is refused); refused "
            "without `enable_lora`"}),
    parsed_field<parse_vllm_lora_dtype, &R::vllm, &VllmRequest::lora_dtype>(
    {.name = "lora_dtype",
     .flags = "--lora-dtype",
     .engine = "vllm",
     .help = "auto (default: the model's dtype), float16 or bfloat16: 2 bytes an element each",
     .type = FieldType::kChoice,
     .choices = "auto|float16|bfloat16",
     .default_text = "auto",
     .doc = "vLLM's `--lora-dtype`: the slots' dtype, `auto` (the model's), `float16` or "
            "`bfloat16`; each is 2 bytes an element, as memfit prices vLLM's 16-bit models; "
            "refused without `enable_lora`"}),
    parsed_field<parse_switch, &R::vllm, &VllmRequest::fully_sharded_loras>(
    {.name = "fully_sharded_loras",
     .flags = "--fully-sharded-loras",
     .engine = "vllm",
     .help = "split the LoRA slots fully across the tensor parallel ranks",
     .type = FieldType::kFlag,
     .default_text = "false",
     .doc = "vLLM's `--fully-sharded-loras`: a column-parallel layer's A holds rank / TP rows "
            "and a row-parallel layer's B hidden / TP rows (TP must divide both); refused "
            "without `enable_lora`"}),
    {.name = kVllmMambaCacheDtypeField,
     .flags = "--mamba-cache-dtype",
     .engine = "vllm",
     .help = "the recurrent layers' state dtype: auto (default: the model's), float32, float16 "
             "or bfloat16",
     .type = FieldType::kChoice,
     .choices = "auto|float32|float16|bfloat16",
     .default_text = "auto",
     .apply = put_mamba_dtype<kVllmMambaCacheDtypeField>,
     .given = mamba_dtype_given<kVllmMambaCacheDtypeField>,
     .doc = "vLLM's `--mamba-cache-dtype`: the dtype of a Mamba, Mamba-2 or gated delta net "
            "layer's convolution state, of a lightning or short-convolution state, and of the "
            "SSM state while `mamba_ssm_cache_dtype` is `auto` and no config hook sets it; "
            "`auto` is the model's 16-bit dtype, `float32` 4 bytes an element (\"Recurrent "
            "state dtypes\"). `float16` from 0.13, `bfloat16` from 0.21; refused with "
            "`vllm_version` 0.7"},
    {.name = kVllmMambaSsmCacheDtypeField,
     .flags = "--mamba-ssm-cache-dtype",
     .engine = "vllm",
     .help = "the SSM / temporal state's dtype: auto (default: mamba_cache_dtype's, or the "
             "Nemotron-H / Qwen3.5 config's), float32, float16 or bfloat16",
     .type = FieldType::kChoice,
     .choices = "auto|float32|float16|bfloat16",
     .default_text = "auto",
     .apply = put_mamba_dtype<kVllmMambaSsmCacheDtypeField>,
     .given = mamba_dtype_given<kVllmMambaSsmCacheDtypeField>,
     .doc = "vLLM's `--mamba-ssm-cache-dtype`: the dtype of a Mamba-2 mixer's SSM state and a "
            "gated delta net's recurrent state; `auto` takes `mamba_cache_dtype`'s, except where "
            "Nemotron-H's (from 0.13) or Qwen3.5's config hook sets it from the config; a value "
            "given wins over the hooks (\"Recurrent state dtypes\"). `float16` from 0.13, "
            "`bfloat16` from 0.21; refused with `vllm_version` 0.7"},
};

}  // namespace

std::span<const RequestField> vllm_fields() { return kVllmFields; }

}  // namespace memfit
