// The request fields every engine reads (request_field.h): the model, the
// engine, the KV widths, the budget and the parallel plan, declared once.
#include "memfit/host_memory.h"
#include "memfit/memory_size.h"
#include "memfit/parallel_plan.h"
#include "memfit/request.h"
#include "request/field_table.h"
#include "request/field_text.h"

namespace memfit::request {
namespace {

using R = EstimateRequest;
using Text = std::string_view;

constexpr RequestField kCommonFields[] = {
    {.name = "model",
     .flags = "-m,--model",
     .help = "model folder, .safetensors or .gguf file, or a Hugging Face name "
             "org/name[@revision][:QUANT]: the local HF cache (HF_HUB_CACHE), else the Hub",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) {
       r.model = std::string(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return !r.model.empty(); },
     .required = true,
     .example = "Qwen3-14B-MLX-4bit",
     .doc = "a model folder, `.safetensors` or `.gguf` file, or a Hugging Face name "
            "`org/name[@revision][:QUANT]` (docs/hub.md); the service takes a name under its "
            "model roots (docs/service.md, \"Security\")"},
    {.name = "engine",
     .flags = "--engine",
     // The CLI's help and GET /v1/engines list the registry's engines.
     .help = "allocation rules: auto (the model's default) or an engine's name (docs/engines.md)",
     .type = FieldType::kChoice,
     .choices = "auto|mlxcel|llamacpp|mlx-lm|vllm",
     .default_text = "auto",
     .apply = [](R& r, Text t) {
       Result<std::string> engine = parse_engine(t);
       if (!engine) return Status(engine.error());
       r.engine = std::move(*engine);
       return Status::Ok();
     },
     .given = [](const R& r) { return !r.engine.empty(); },
     .doc = "whose allocation rules price the request: `auto` is llamacpp for a GGUF model, "
            "mlxcel otherwise (docs/engines.md); `mlxlm` is `mlx-lm` too"},
    {.name = "kv_cache_mode",
     .flags = "--kv-cache-mode",
     .help = "KV cache element type: fp16 or int8",
     .type = FieldType::kChoice,
     .choices = "fp16|int8",
     .default_text = "fp16",
     .apply = [](R& r, Text t) { return store(r.kv_cache_mode, parse_kv_element(t)); },
     .given = [](const R& r) { return r.kv_cache_mode.has_value(); },
     .doc = "mlxcel's KV element type; the aliases `f16`, `bf16`, `float16`, `i8`, `q8`, `q8_0` "
            "too"},
    {.name = "cache_type_k",
     .flags = "-ctk,--cache-type-k",
     .help = "K cache type: fp16 or int8; with --engine llamacpp f32, f16, bf16, q8_0, q4_0, "
             "q4_1, q5_0, q5_1 or iq4_nl, -ctk",
     .type = FieldType::kChoice,
     .choices = "fp16|int8|f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl",
     .default_text = "f16",
     .apply = [](R& r, Text t) { return set_cache_type(r, "cache_type_k", t); },
     .given = [](const R& r) { return r.cache_type_k || r.llamacpp.cache_type_k; },
     .doc = "mlxcel: `fp16` or `int8`, with `cache_type_v` (when they differ the cache is sized "
            "at fp16, with a warning); llamacpp: llama.cpp's types, each alone "
            "(docs/engine-llamacpp.md); with the engine left to the model, every reading the "
            "name has"},
    {.name = "cache_type_v",
     .flags = "-ctv,--cache-type-v",
     .help = "V cache type, as --cache-type-k, -ctv",
     .type = FieldType::kChoice,
     .choices = "fp16|int8|f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl",
     .default_text = "f16",
     .apply = [](R& r, Text t) { return set_cache_type(r, "cache_type_v", t); },
     .given = [](const R& r) { return r.cache_type_v || r.llamacpp.cache_type_v; },
     .doc = "as `cache_type_k`; under llamacpp a quantized V needs flash attention"},
    {.name = "quant",
     .flags = "--quant",
     .help = "intended weight mode label: fp16, int8 or int4",
     .type = FieldType::kChoice,
     .choices = "fp16|int8|int4",
     .apply = [](R& r, Text t) {
       Result<std::string> label = parse_quant_label(t);
       if (!label) return Status(label.error());
       r.quant = std::move(*label);
       return Status::Ok();
     },
     .given = [](const R& r) { return !r.quant.empty(); },
     .doc = "a label only: header bytes are the truth"},
    {.name = "backend",
     .flags = "--backend",
     .help = "auto, rocm, metal, cuda or cpu",
     .type = FieldType::kChoice,
     .choices = "auto|rocm|metal|cuda|cpu",
     .default_text = "auto",
     .apply = [](R& r, Text t) {
       Result<std::optional<Backend>> backend = parse_backend(t);
       if (!backend) return Status(backend.error());
       r.backend = *backend;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.backend.has_value(); },
     .doc = "whose kernels' rules price the headroom; `auto`: this build's platform"},
    {.name = "memory_limit",
     .flags = "--memory-limit",
     .help = "memory budget, e.g. 48GB (binary units); overrides MEMFIT_MEMORY_LIMIT",
     .unit = "bytes",
     .type = FieldType::kSize,
     .apply = [](R& r, Text t) {
       Result<std::optional<uint64_t>> size = parse_memory_size(t);
       if (!size) return Status(size.error());
       r.memory_limit_bytes = *size;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.memory_limit_bytes.has_value(); },
     .json_expects = "a size such as \"48GB\" or bytes",
     .example = "48GiB",
     .doc = "the budget, `\"48GB\"` (binary units) or bytes; `0` or `\"none\"`: unset. Default: "
            "`MEMFIT_MEMORY_LIMIT`, else the host's (the service's: its `--memory-limit`)"},
    {.name = "device",
     .flags = "--device",
     .help = "budget device: auto, cpu, cuda:N or rocm:N",
     .type = FieldType::kText,
     .default_text = "auto",
     .apply = [](R& r, Text t) {
       Result<DeviceSelector> device = parse_device_selector(std::string(t));
       if (!device) return Status(device.error());
       r.device = *device;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.device.kind != DeviceSelector::Kind::kAuto; },
     .example = "cuda:0",
     .doc = "whose memory is the budget when no limit is given: `auto`, `cpu`, `cuda[:N]`, "
            "`rocm[:N]`"},
    {.name = "max_tokens",
     .flags = "--max-tokens",
     .help = "context length in tokens (default 8192; with llamacpp, --ctx-size)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "8192",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.max_tokens, parse_decimal(t)); },
     .given = [](const R& r) { return r.max_tokens.has_value(); },
     .doc = "the context length; llamacpp reads it as `ctx_size` and vllm as `max_model_len` when "
            "those are not given; under mlx-lm the tokens generated"},
    {.name = "batch",
     .flags = "--batch",
     .help = "sequences decoded together (default 1)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .apply = [](R& r, Text t) {
       Result<uint64_t> n = parse_decimal(t);
       if (!n) return Status(n.error());
       r.batch = *n;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.batch != 1; },
     .doc = "sequences decoded together; vllm reads one other than 1 as `max_num_seqs`"},
    {.name = "tensor_parallel",
     .flags = "--tensor-parallel,--tensor-parallel-size",
     .help = "tensor-parallel ranks (default 1); ranks > 1 add a per-device plan",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .apply = [](R& r, Text t) {
       Result<uint64_t> n = parse_decimal(t);
       if (!n) return Status(n.error());
       r.parallel.tensor_parallel = *n;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.parallel.tensor_parallel != 1; },
     .doc = "tensor-parallel ranks; more than one rank adds the per-rank plan (docs/parallel.md); "
            "vllm's `--tensor-parallel-size`, the report per rank"},
    {.name = "pipeline_parallel",
     .flags = "--pipeline-parallel",
     .help = "pipeline-parallel stages (default 1)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .apply = [](R& r, Text t) {
       Result<uint64_t> n = parse_decimal(t);
       if (!n) return Status(n.error());
       r.parallel.pipeline_parallel = *n;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.parallel.pipeline_parallel != 1; },
     .doc = "pipeline-parallel stages of the per-rank plan (docs/parallel.md)"},
    {.name = "parallel_engine",
     .flags = "--parallel-engine",
     .help = "whose sharding rules the plan follows: vllm (default) or mlx-lm",
     .type = FieldType::kChoice,
     .choices = "vllm|mlx-lm",
     .default_text = "vllm",
     .apply = [](R& r, Text t) {
       Result<ShardingRules> rules = parse_sharding_rules(t);
       if (!rules) return Status(rules.error());
       r.parallel.sharding = *rules;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.parallel.sharding != ShardingRules::kVllm; },
     .doc = "whose sharding rules the per-rank plan follows, by the engine's name as `engine` "
            "takes it (docs/parallel.md); `mlx`, the old spelling, is `mlx-lm`"},
};

}  // namespace

std::span<const RequestField> common_fields() { return kCommonFields; }

}  // namespace memfit::request
