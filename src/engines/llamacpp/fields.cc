// llama.cpp's request fields, declared once: each row's flags are
// llama.cpp's own (common/arg.cpp), its text read by the parsers of
// options.cc, placement_flags.cc and extras.cc.
#include "engines/llamacpp/fields.h"

#include "memfit/llamacpp.h"
#include "memfit/llamacpp_extras.h"
#include "memfit/llamacpp_placement.h"
#include "memfit/request.h"
#include "request/field_text.h"

namespace memfit {
namespace {

using R = EstimateRequest;
using Text = std::string_view;
using request::parse_decimal;
using request::parse_switch;
using request::store;

// A placement field, read by set_placement_field under its JSON name.
Status placement(R& r, Text field, Text text) {
  return set_placement_field(r.llamacpp.placement, field, text);
}

constexpr std::string_view kCacheTypes = "f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl";

constexpr RequestField kLlamaCppFields[] = {
    {.name = "ctx_size",
     .flags = "-c,--ctx-size",
     .engine = "llamacpp",
     .help = "context in tokens, 0 = the model's training context (default 0)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "0",
     .apply = [](R& r, Text t) { return store(r.llamacpp.ctx_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.llamacpp.ctx_size.has_value(); },
     .doc = "total context over all sequences; 0 = the model's training context"},
    {.name = "parallel",
     .flags = "-np,--parallel",
     .engine = "llamacpp",
     .help = "sequences, -np (default 1)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.llamacpp.parallel, parse_decimal(t)); },
     .given = [](const R& r) { return r.llamacpp.parallel.has_value(); },
     .doc = "sequences (llama-server's slots), 1 to 256"},
    {.name = "batch_size",
     .flags = "-b,--batch-size",
     .engine = "llamacpp",
     .help = "logical batch (default 2048)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "2048",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.llamacpp.batch_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.llamacpp.batch_size.has_value(); }},
    {.name = "ubatch_size",
     .flags = "-ub,--ubatch-size",
     .engine = "llamacpp",
     .help = "physical batch, -ub (default 512)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "512",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.llamacpp.ubatch_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.llamacpp.ubatch_size.has_value(); },
     .doc = "physical batch: the compute graph's token count"},
    {.name = "flash_attn",
     .flags = "-fa,--flash-attn",
     .engine = "llamacpp",
     .help = "on, off or auto (default), -fa",
     .type = FieldType::kChoice,
     .choices = "on|off|auto",
     .default_text = "auto",
     .apply = [](R& r, Text t) { return store(r.llamacpp.flash_attn, parse_flash_attn(t)); },
     .given = [](const R& r) { return r.llamacpp.flash_attn.has_value(); },
     .doc = "flash attention; auto resolves to on (the CPU backend supports it)"},
    {.name = "swa_full",
     .flags = "--swa-full",
     .engine = "llamacpp",
     .help = "full-size sliding-window caches",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return store(r.llamacpp.swa_full, parse_switch(t)); },
     .given = [](const R& r) { return r.llamacpp.swa_full.has_value(); }},
    {.name = "kv_unified",
     .flags = "--kv-unified",
     .engine = "llamacpp",
     .help = "one KV stream for all sequences",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return store(r.llamacpp.kv_unified, parse_switch(t)); },
     .given = [](const R& r) { return r.llamacpp.kv_unified.has_value(); },
     .doc = "one KV stream shared by all sequences"},
    {.name = "repack",
     .flags = "--repack",
     .engine = "llamacpp",
     .help = "whose CPU repack kernels copy weights: auto (this host, default), none (--no-repack "
             "or GPU), x86-avx2, x86-avx512 or arm",
     .type = FieldType::kChoice,
     .choices = "auto|none|x86-avx2|x86-avx512|arm",
     .default_text = "auto",
     .apply = [](R& r, Text t) { return store(r.llamacpp.repack, parse_repack_cpu(t)); },
     .given = [](const R& r) { return r.llamacpp.repack.has_value(); }},
    {.name = "n_gpu_layers",
     .flags = "-ngl,--n-gpu-layers,--gpu-layers",
     .engine = "llamacpp",
     .help = "layers on the GPUs, -ngl: auto, all or N (blocks + 1 for the output layer; default "
             "all)",
     .type = FieldType::kText,
     .default_text = "all",
     .apply = [](R& r, Text t) { return placement(r, "n_gpu_layers", t); },
     .given = [](const R& r) { return r.llamacpp.placement.n_gpu_layers.has_value(); },
     .json = JsonForm::kScalar,
     .example = "41",
     .doc = "`auto`, `all` or N: blocks on the GPUs + 1 for the output layer "
            "(docs/llamacpp-rules.md, \"Memory per device\")"},
    {.name = "n_cpu_moe",
     .flags = "-ncmoe,--n-cpu-moe",
     .engine = "llamacpp",
     .help = "keep the first N blocks' experts on the host, -ncmoe",
     .type = FieldType::kCount,
     .default_text = "0",
     .apply = [](R& r, Text t) { return placement(r, "n_cpu_moe", t); },
     .given = [](const R& r) { return r.llamacpp.placement.n_cpu_moe.has_value(); },
     .json = JsonForm::kScalar,
     .doc = "the first N blocks' routed experts stay on the host"},
    {.name = "override_tensor",
     .flags = "-ot,--override-tensor",
     .engine = "llamacpp",
     .help = "PATTERN=DEVICE (exps=CPU, CUDA0), -ot; repeatable",
     .type = FieldType::kList,
     .apply = [](R& r, Text t) { return placement(r, "override_tensor", t); },
     .given = [](const R& r) { return !r.llamacpp.placement.override_tensor.empty(); },
     .json_expects = "a rule PATTERN=DEVICE or an array of them",
     .example = "exps=CPU",
     .doc = "`PATTERN=DEVICE`: a regex over tensor names to `CPU` or a GPU (`CUDA0`); "
            "comma-separated or repeated; first match wins"},
    {.name = "split_mode",
     .flags = "-sm,--split-mode",
     .engine = "llamacpp",
     .help = "none, layer (default) or row, -sm",
     .type = FieldType::kChoice,
     .choices = "none|layer|row",
     .default_text = "layer",
     .apply = [](R& r, Text t) { return placement(r, "split_mode", t); },
     .given = [](const R& r) { return r.llamacpp.placement.split_mode.has_value(); },
     .json = JsonForm::kScalar,
     .doc = "how blocks spread over the GPUs"},
    {.name = "tensor_split",
     .flags = "-ts,--tensor-split",
     .engine = "llamacpp",
     .help = "proportions per GPU, -ts 24,12 (default: free memory)",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) { return placement(r, "tensor_split", t); },
     .given = [](const R& r) { return !r.llamacpp.placement.tensor_split.empty(); },
     .json = JsonForm::kScalar,
     .example = "24,12",
     .doc = "proportions per GPU, `a,b,...`; default: each GPU's free memory"},
    {.name = "main_gpu",
     .flags = "-mg,--main-gpu",
     .engine = "llamacpp",
     .help = "-mg (default 0)",
     .type = FieldType::kCount,
     .default_text = "0",
     .apply = [](R& r, Text t) { return placement(r, "main_gpu", t); },
     .given = [](const R& r) { return r.llamacpp.placement.main_gpu.has_value(); },
     .json = JsonForm::kScalar,
     .doc = "the GPU of `-sm none`"},
    {.name = "no_mmap",
     .flags = "--no-mmap",
     .engine = "llamacpp",
     .help = "host weights resident, not page cache",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return placement(r, "no_mmap", t); },
     .given = [](const R& r) { return r.llamacpp.placement.no_mmap.has_value(); },
     .json = JsonForm::kScalar,
     .doc = "host weights resident rather than page cache"},
    {.name = "mlock",
     .flags = "--mlock",
     .engine = "llamacpp",
     .help = "host weights locked: resident",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return placement(r, "mlock", t); },
     .given = [](const R& r) { return r.llamacpp.placement.mlock.has_value(); },
     .json = JsonForm::kScalar},
    {.name = "no_kv_offload",
     .flags = "-nkvo,--no-kv-offload",
     .engine = "llamacpp",
     .help = "every KV cache on the host, -nkvo",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return placement(r, "no_kv_offload", t); },
     .given = [](const R& r) { return r.llamacpp.placement.no_kv_offload.has_value(); },
     .json = JsonForm::kScalar},
    {.name = "gpu_memory",
     .flags = "--gpu-memory",
     .engine = "llamacpp",
     .help = "the GPUs' free memory, 0=24GiB,1=12GiB (default: this machine's)",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) { return placement(r, "gpu_memory", t); },
     .given = [](const R& r) { return r.llamacpp.placement.gpu_memory.has_value(); },
     .json = JsonForm::kScalar,
     .example = "0=24GiB,1=12GiB",
     .doc = "the GPUs' free memory, `0=24GiB,1=12GiB` or `24GiB,12GiB`: a machine that is not "
            "this one; default: this machine's"},
    {.name = "gpu_margin",
     .flags = "--gpu-margin",
     .engine = "llamacpp",
     .help = "left free on every GPU (default 1GiB)",
     .unit = "bytes",
     .type = FieldType::kSize,
     .default_text = "1GiB",
     .apply = [](R& r, Text t) { return placement(r, "gpu_margin", t); },
     .given = [](const R& r) { return r.llamacpp.placement.gpu_margin.has_value(); },
     .json = JsonForm::kScalar},
    {.name = "mmproj",
     .flags = "--mmproj",
     .engine = "llamacpp",
     .help = "a multimodal projector GGUF: its weights and image-encoding buffer",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) {
       r.llamacpp.mmproj = std::string(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return r.llamacpp.mmproj.has_value(); },
     .example = "mmproj.gguf",
     .doc = "a multimodal projector GGUF: its weights (exact) and image-encoding compute buffer "
            "(modelled), a line of their own (docs/llamacpp-rules.md, \"Server extras\"); the "
            "service reads it only under its model roots"},
    {.name = "no_mmproj_offload",
     .flags = "--no-mmproj-offload",
     .engine = "llamacpp",
     .help = "the projector on the host",
     .type = FieldType::kFlag,
     .default_text = "false",
     .apply = [](R& r, Text t) { return store(r.llamacpp.no_mmproj_offload, parse_switch(t)); },
     .given = [](const R& r) { return r.llamacpp.no_mmproj_offload.has_value(); },
     .doc = "the projector on the host rather than the first GPU"},
    {.name = "lora",
     .flags = "--lora",
     .engine = "llamacpp",
     .help = "a LoRA adapter GGUF (repeatable): its tensors next to the model's",
     .type = FieldType::kList,
     .apply = [](R& r, Text t) {
       r.llamacpp.lora.emplace_back(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return !r.llamacpp.lora.empty(); },
     .json_expects = "a path or an array of paths",
     .example = "adapter.gguf",
     .doc = "a LoRA adapter GGUF (on the CLI also `--lora-scaled FILE SCALE`): its tensor pairs "
            "(exact), each on the device of the base tensor it adapts, a line per adapter and "
            "device; checked against the model as llama.cpp checks it (docs/llamacpp-rules.md, "
            "\"Server extras\"); the service reads it only under its model roots"},
    {.name = "cache_ram",
     .flags = "--cache-ram",
     .engine = "llamacpp",
     .help = "llama-server's host prompt cache in MiB (-1 no limit, 0 off; the server's default "
             "8192)",
     .unit = "MiB",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) { return store(r.llamacpp.cache_ram, parse_cache_ram("cache_ram", t)); },
     .given = [](const R& r) { return r.llamacpp.cache_ram.has_value(); },
     .json = JsonForm::kInteger,
     .json_expects = "an integer (MiB; -1 no limit, 0 off)",
     .example = "8192",
     .doc = "the server's host prompt cache in MiB, counted at its limit on the host; -1 no "
            "limit, 0 off; llama-server's default 8192, other runs keep none unless it is "
            "given"},
    {.name = "ctx_checkpoints",
     .flags = "--ctx-checkpoints",
     .engine = "llamacpp",
     .help = "llama-server's context checkpoints per slot (0 off; the server's default 32)",
     .type = FieldType::kCount,
     .apply = [](R& r, Text t) { return store(r.llamacpp.ctx_checkpoints, parse_decimal(t)); },
     .given = [](const R& r) { return r.llamacpp.ctx_checkpoints.has_value(); },
     .example = "32",
     .doc = "context checkpoints per slot of a recurrent, hybrid or sliding-window model, counted "
            "at the limit on the host; 0 off; llama-server's default 32, other runs keep none "
            "unless it is given"},
    {.name = "model_draft",
     .flags = "-md,--model-draft",
     .engine = "llamacpp",
     .help = "a speculative-decoding draft GGUF: its weights, KV and compute, -md",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) {
       r.llamacpp.model_draft = std::string(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return r.llamacpp.model_draft.has_value(); },
     .example = "draft.gguf",
     .doc = "a speculative-decoding draft GGUF: its weights, KV and compute as lines per device, "
            "placed like the model (docs/llamacpp-rules.md, \"Server extras\")"},
    {.name = "n_gpu_layers_draft",
     .flags = "-ngld,--gpu-layers-draft,--n-gpu-layers-draft",
     .engine = "llamacpp",
     .help = "the draft's layers on the GPUs, auto, all or N, -ngld (default all)",
     .type = FieldType::kText,
     .default_text = "all",
     .apply = [](R& r, Text t) {
       Result<std::optional<uint64_t>> n = parse_n_gpu_layers(t);
       if (!n) return Status(Error::usage("n_gpu_layers_draft", "expected auto, all or a count"));
       r.llamacpp.n_gpu_layers_draft = *n;
       return Status::Ok();
     },
     .given = [](const R& r) { return r.llamacpp.n_gpu_layers_draft.has_value(); },
     .json = JsonForm::kScalar,
     .example = "all",
     .doc = "the draft's `-ngl`"},
    {.name = "cache_type_k_draft",
     .flags = "-ctkd,--cache-type-k-draft",
     .engine = "llamacpp",
     .help = "the draft's K cache type, -ctkd (f16)",
     .type = FieldType::kChoice,
     .choices = kCacheTypes,
     .default_text = "f16",
     .apply = [](R& r, Text t) {
       return store(r.llamacpp.cache_type_k_draft, parse_llamacpp_cache_type(t));
     },
     .given = [](const R& r) { return r.llamacpp.cache_type_k_draft.has_value(); }},
    {.name = "cache_type_v_draft",
     .flags = "-ctvd,--cache-type-v-draft",
     .engine = "llamacpp",
     .help = "the draft's V cache type, -ctvd (f16)",
     .type = FieldType::kChoice,
     .choices = kCacheTypes,
     .default_text = "f16",
     .apply = [](R& r, Text t) {
       return store(r.llamacpp.cache_type_v_draft, parse_llamacpp_cache_type(t));
     },
     .given = [](const R& r) { return r.llamacpp.cache_type_v_draft.has_value(); }},
};

}  // namespace

std::span<const RequestField> llamacpp_fields() { return kLlamaCppFields; }

}  // namespace memfit
