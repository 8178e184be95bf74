// vLLM's request fields, declared once, with vllm serve's defaults
// (vllm.h: VllmSettings) and its flags' names.
#include "engines/vllm/fields.h"

#include "memfit/memory_size.h"
#include "memfit/request.h"
#include "memfit/vllm.h"
#include "request/field_text.h"

namespace memfit {
namespace {

using R = EstimateRequest;
using Text = std::string_view;
using request::parse_decimal;
using request::parse_switch;
using request::store;

// A size ("80GiB", "80GB"); 0 or "none" is given as 0. A bare number is
// bytes only where vLLM's own flag counts bytes (--kv-cache-memory-bytes).
Status set_size(std::optional<uint64_t>& slot, Text text, BareNumber bare = BareNumber::kRefused) {
  Result<std::optional<uint64_t>> size = parse_memory_size(text, bare);
  if (!size) return size.error();
  slot = size->value_or(0);
  return Status::Ok();
}

constexpr RequestField kVllmFields[] = {
    {.name = "gpu_memory_utilization",
     .flags = "--gpu-memory-utilization",
     .engine = "vllm",
     .help = "fraction of the GPU's total memory vLLM may use (default 0.9)",
     .type = FieldType::kRatio,
     .default_text = "0.9",
     .apply = [](R& r, Text t) {
       return store(r.vllm.gpu_memory_utilization, request::parse_ratio(t, 0.0, 1.0));
     },
     .given = [](const R& r) { return r.vllm.gpu_memory_utilization.has_value(); },
     .json_expects = "a number in (0, 1]",
     .doc = "vLLM's `--gpu-memory-utilization`: the fraction of the GPU's total memory it may "
            "use, in (0, 1]"},
    {.name = "gpu_memory_total",
     .flags = "--gpu-memory-total",
     .engine = "vllm",
     .help = "the GPU's total memory, e.g. 81559MiB (default: the GPU found; --gpu NAME gives it "
             "from the hardware table)",
     .unit = "bytes",
     .type = FieldType::kSize,
     .apply = [](R& r, Text t) { return set_size(r.vllm.gpu_memory_total, t); },
     .given = [](const R& r) { return r.vllm.gpu_memory_total.has_value(); },
     .json_expects = "a size such as \"81559MiB\" or bytes",
     .example = "81559MiB",
     .doc = "the GPU's total memory, with its unit (`80GB` is 80 x 10^9 bytes, `80GiB` 80 x 2^30; "
            "an H100 80GB's driver reports 81559 MiB); default: the GPU found (`--device cuda:N` selects), else "
            "`--memory-limit` with a warning; when given, it is also the budget the rank's peak "
            "is checked against (`budget_source` `gpu_total_given`) unless `--memory-limit` is "
            "given"},
    {.name = "gpu_name",
     .flags = "--gpu-name",
     .engine = "vllm",
     .help = "the GPU's name as nvidia-smi prints it, e.g. \"NVIDIA H100 80GB HBM3\", for another "
             "machine's GPU (default: the GPU found); picks the batch defaults and the MLA block "
             "size",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) { return store(r.vllm.gpu_name, parse_gpu_name(t)); },
     .given = [](const R& r) { return r.vllm.gpu_name.has_value(); },
     .example = "NVIDIA H100 80GB HBM3",
     .doc = "the GPU's name, as `nvidia-smi` prints it; default: the GPU found (none when "
            "`--gpu-memory-total` is given, since that is another machine's GPU); when given, it "
            "wins over the probed name. The name picks the batch defaults below (A100; v0.7: "
            "H100, H200), the MLA block size (\"MLA block size\") and the platform (an AMD GPU's "
            "name: ROCm's load figure, \"ROCm\"). 1 to 128 printable ASCII characters, not all "
            "spaces; anything else is refused with one line. Given without `--gpu-memory-total` "
            "on a host whose GPU is another, the total stays this host's GPU's, with a warning"},
    {.name = "kv_cache_memory",
     .flags = "--kv-cache-memory,--kv-cache-memory-bytes",
     .engine = "vllm",
     .help = "KV cache size per GPU (bytes, as vLLM's flag, or e.g. 16GiB); skips the profile",
     .unit = "bytes",
     .type = FieldType::kSize,
     .apply = [](R& r, Text t) { return set_size(r.vllm.kv_cache_memory, t, BareNumber::kBytes); },
     .given = [](const R& r) { return r.vllm.kv_cache_memory.has_value(); },
     .json_expects = "a size such as \"80GiB\" or bytes",
     .example = "16GiB",
     .doc = "vLLM's `--kv-cache-memory-bytes`: the KV cache per GPU as given (vLLM then skips the "
            "profile and ignores the utilization); default none, sized by the utilization"},
    {.name = "block_size",
     .flags = "--block-size",
     .engine = "vllm",
     .help = "tokens per KV block (default 16)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "16",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.vllm.block_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.vllm.block_size.has_value(); }},
    {.name = "kv_cache_dtype",
     .flags = "--kv-cache-dtype",
     .engine = "vllm",
     .help = "auto (default) or fp8",
     .type = FieldType::kChoice,
     .choices = "auto|fp8|fp8_e4m3|fp8_e5m2",
     .default_text = "auto",
     .apply = [](R& r, Text t) { return store(r.vllm.kv_cache_fp8, parse_vllm_kv_cache_dtype(t)); },
     .given = [](const R& r) { return r.vllm.kv_cache_fp8.has_value(); },
     .doc = "vLLM's `--kv-cache-dtype`: `auto` (16-bit) or `fp8` (`fp8_e4m3`, `fp8_e5m2`)"},
    {.name = "max_model_len",
     .flags = "--max-model-len",
     .engine = "vllm",
     .help = "context per request (default: the config's)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.vllm.max_model_len, parse_decimal(t)); },
     .given = [](const R& r) { return r.vllm.max_model_len.has_value(); },
     .example = "32768",
     .doc = "context per request (or `--max-tokens`); default: the config's "
            "`max_position_embeddings`"},
    {.name = "max_num_seqs",
     .flags = "--max-num-seqs",
     .engine = "vllm",
     .help = "sequences per step (default: 1024 on a GPU of 70 GiB or more that is not an A100, "
             "else 256)",
     .type = FieldType::kCount,
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.vllm.max_num_seqs, parse_decimal(t)); },
     .given = [](const R& r) { return r.vllm.max_num_seqs.has_value(); },
     .example = "256",
     .doc = "sequences per step (or `--batch` other than 1); default: 1024 on a GPU of at least "
            "70 GiB whose name does not say A100, else 256; at most the batched tokens "
            "(`engine/arg_utils.py`, `get_batch_defaults`, `vllm serve`)"},
    {.name = "max_num_batched_tokens",
     .flags = "--max-num-batched-tokens",
     .engine = "vllm",
     .help = "tokens per step, the profiled batch (default: 8192 on a GPU of 70 GiB or more that "
             "is not an A100, else 2048)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.vllm.max_num_batched_tokens, parse_decimal(t)); },
     .given = [](const R& r) { return r.vllm.max_num_batched_tokens.has_value(); },
     .example = "8192",
     .doc = "tokens per step, the profiled batch; default: 8192 on a GPU of at least 70 GiB "
            "whose name does not say A100, else 2048 (same source; chunked prefill on, as for "
            "every generative model); an unknown GPU (only `--kv-cache-memory` given) takes the "
            "small pair"},
    {.name = "num_speculative_tokens",
     .flags = "--num-speculative-tokens",
     .engine = "vllm",
     .help = "speculative tokens per step (MTP / draft; default 0)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "0",
     .apply = [](R& r, Text t) { return store(r.vllm.num_speculative_tokens, parse_decimal(t)); },
     .given = [](const R& r) { return r.vllm.num_speculative_tokens.has_value(); },
     .doc = "`--speculative-config`'s `num_speculative_tokens` (MTP or a draft)"},
    {.name = "enforce_eager",
     .flags = "--enforce-eager",
     .engine = "vllm",
     .help = "no CUDA graphs",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return store(r.vllm.enforce_eager, parse_switch(t)); },
     .given = [](const R& r) { return r.vllm.enforce_eager.has_value(); },
     .doc = "vLLM's `--enforce-eager`: no CUDA graphs"},
    {.name = "vllm_version",
     .flags = "--vllm-version",
     .engine = "vllm",
     .help = "the release whose KV accounting to price, X.Y[.Z]: 0.7 (the V1 engine) or 0.11 to "
             "0.20 (default: the current line)",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) { return store(r.vllm.vllm_version, parse_vllm_version(t)); },
     .given = [](const R& r) { return r.vllm.vllm_version.has_value(); },
     .example = "0.11",
     .doc = "the release that runs, `X.Y` or `X.Y.Z`; default the current line (rules read at "
            "v0.11); `0.7` prices v0.7's V1 accounting, `0.11` to `0.20` the current line, any "
            "other release is refused (\"Older releases\")"},
};

}  // namespace

std::span<const RequestField> vllm_fields() { return kVllmFields; }

}  // namespace memfit
