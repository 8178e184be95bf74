// llama.cpp's request fields, declared once: each row's flags are
// llama.cpp's own (common/arg.cpp), its text read by the parsers of
// options.cc, placement_flags.cc and extras.cc.
#include "engines/llamacpp/fields.h"

#include <algorithm>
#include <cstddef>

#include "memfit/llamacpp.h"
#include "memfit/llamacpp_extras.h"
#include "memfit/llamacpp_placement.h"
#include "memfit/request.h"
#include "request/field_rows.h"
#include "request/field_text.h"

namespace memfit {
namespace {

using R = EstimateRequest;
using Placement = LlamaCppPlacementRequest;
using request::parse_decimal;
using request::parse_switch;
using request::parsed_field;
using request::text_as_is;

// A field's JSON name as a template argument ("n_cpu_moe").
template <size_t N>
struct FieldName {
  constexpr FieldName(const char (&name)[N]) { std::copy_n(name, N, text); }
  constexpr std::string_view view() const { return {text, N - 1}; }
  char text[N] = {};
};

// A placement row named `Name`: its text read by set_placement_field under
// that name (which names the field in its errors), given when the
// placement's `Member` holds a value (request::holds).
template <FieldName Name, auto Member>
constexpr RequestField placement_field(RequestField row) {
  row.name = Name.view();
  row.apply = [](R& r, std::string_view text) { return set_placement_field(r.llamacpp.placement, Name.view(), text); };
  row.given = [](const R& r) { return request::holds(r.llamacpp.placement.*Member); };
  return row;
}

// --cache-ram's MiB, its errors naming the field.
Result<int64_t> parse_cache_ram_mib(std::string_view text) { return parse_cache_ram("cache_ram", text); }

// The draft's -ngld: auto, all (nullopt) or a count.
Result<std::optional<uint64_t>> parse_draft_layers(std::string_view text) {
  Result<std::optional<uint64_t>> n = parse_n_gpu_layers(text);
  if (!n) return Error::usage("n_gpu_layers_draft", "expected auto, all or a count");
  return n;
}

// --pooling's text: one of llama-server's pooling types (common/arg.cpp).
Result<std::string> parse_pooling(std::string_view text) {
  for (std::string_view name : {"none", "mean", "cls", "last", "rank"}) {
    if (text == name) return std::string(name);
  }
  return Error::usage("pooling", "expected none, mean, cls, last or rank");
}

constexpr std::string_view kCacheTypes = "f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl";

constexpr RequestField kLlamaCppFields[] = {
    parsed_field<parse_decimal, &R::llamacpp, &LlamaCppRequest::ctx_size>(
    {.name = "ctx_size",
     .flags = "-c,--ctx-size",
     .engine = "llamacpp",
     .help = "context in tokens, 0 = the model's training context (default 0)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "0",
     .doc = "total context over all sequences; 0 = the model's training context"}),
    parsed_field<parse_decimal, &R::llamacpp, &LlamaCppRequest::parallel>(
    {.name = "parallel",
     .flags = "-np,--parallel",
     .engine = "llamacpp",
     .help = "sequences, -np (default 1)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .doc = "sequences (llama-server's slots), 1 to 256"}),
    parsed_field<parse_decimal, &R::llamacpp, &LlamaCppRequest::batch_size>(
    {.name = "batch_size",
     .flags = "-b,--batch-size",
     .engine = "llamacpp",
     .help = "logical batch (default 2048)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "2048",
     .min = 1,}),
    parsed_field<parse_decimal, &R::llamacpp, &LlamaCppRequest::ubatch_size>(
    {.name = "ubatch_size",
     .flags = "-ub,--ubatch-size",
     .engine = "llamacpp",
     .help = "physical batch, -ub (default 512)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "512",
     .min = 1,
     .doc = "physical batch: the compute graph's token count"}),
    parsed_field<parse_flash_attn, &R::llamacpp, &LlamaCppRequest::flash_attn>(
    {.name = "flash_attn",
     .flags = "-fa,--flash-attn",
     .engine = "llamacpp",
     .help = "on, off or auto (default), -fa",
     .type = FieldType::kChoice,
     .choices = "on|off|auto",
     .default_text = "auto",
     .doc = "flash attention; auto resolves to on (the CPU backend supports it)"}),
    parsed_field<parse_switch, &R::llamacpp, &LlamaCppRequest::swa_full>(
    {.name = "swa_full",
     .flags = "--swa-full",
     .engine = "llamacpp",
     .help = "full-size sliding-window caches",
     .type = FieldType::kFlag,
     .default_text = "false",}),
    parsed_field<parse_switch, &R::llamacpp, &LlamaCppRequest::kv_unified>(
    {.name = "kv_unified",
     .flags = "--kv-unified",
     .engine = "llamacpp",
     .help = "one KV stream for all sequences",
     .type = FieldType::kFlag,
     .default_text = "false",
     .doc = "one KV stream shared by all sequences"}),
    parsed_field<parse_switch, &R::llamacpp, &LlamaCppRequest::embedding>(
    {.name = "embedding",
     .flags = "--embedding,--embeddings",
     .engine = "llamacpp",
     .help = "serve embeddings: no logits sampled, every batch token an output",
     .type = FieldType::kFlag,
     .default_text = "false",
     .doc = "llama-server's `--embedding`: every token of a batch is an output, so the output "
            "buffer holds `--batch-size` rows of logits and embeddings (before b5670 no logits, "
            "and no embeddings under pooling); an encoder (BERT) keeps no KV cache with or "
            "without it (docs/embedding-models.md)"}),
    parsed_field<parse_pooling, &R::llamacpp, &LlamaCppRequest::pooling>(
    {.name = "pooling",
     .flags = "--pooling",
     .engine = "llamacpp",
     .help = "none, mean, cls, last or rank (default: the model's own); needs --embedding",
     .type = FieldType::kChoice,
     .choices = "none|mean|cls|last|rank",
     .example = "mean",
     .doc = "how token states become one vector; mean pooling adds its n_ubatch x n_ubatch "
            "matrix to the compute buffer; refused without `embedding`"}),
    parsed_field<parse_switch, &R::llamacpp, &LlamaCppRequest::reranking>(
    {.name = "reranking",
     .flags = "--reranking,--rerank",
     .engine = "llamacpp",
     .help = "serve the reranking endpoint: --embedding with rank pooling",
     .type = FieldType::kFlag,
     .default_text = "false"}),
    parsed_field<parse_llamacpp_build, &R::llamacpp, &LlamaCppRequest::llamacpp_version>(
    {.name = "llamacpp_version",
     .flags = "--llamacpp-version",
     .engine = "llamacpp",
     .help = "the llama.cpp build priced, b6500, or release tag, v0.4.0 (default: the pinned "
             "release)",
     .type = FieldType::kText,
     .example = "b5000",
     .doc = "the build number (`b6500` or `6500`) or release tag (`v0.1.0` to `v0.4.0`, read "
            "as build 10335, the first tagged; `v0.5.0`, as b11300) whose rules price the "
            "estimate: older builds' sliding-window caches, streams, padding, an MLA layer's V "
            "tensor, -ngl placement, graph inputs, batch and early compute phases; from v0.5.0 "
            "the NextN blocks' cache, llama-server's unset context and ARM's Q1_0 repacking "
            "(docs/engine-llamacpp.md, \"Releases\"); default: the pinned release's rules "
            "(v0.4.0)"}),
    parsed_field<parse_repack_cpu, &R::llamacpp, &LlamaCppRequest::repack>(
    {.name = "repack",
     .flags = "--repack",
     .engine = "llamacpp",
     .help = "whose CPU repack kernels copy weights: auto (this host, default), none (--no-repack "
             "or GPU), x86-avx2, x86-avx512 or arm",
     .type = FieldType::kChoice,
     .choices = "auto|none|x86-avx2|x86-avx512|arm",
     .default_text = "auto",}),
    placement_field<"n_gpu_layers", &Placement::n_gpu_layers>(
    {.flags = "-ngl,--n-gpu-layers,--gpu-layers",
     .engine = "llamacpp",
     .help = "layers on the GPUs, -ngl: auto, all or N (blocks + 1 for the output layer; default "
             "all)",
     .type = FieldType::kText,
     .default_text = "all",
     .json = JsonForm::kScalar,
     .example = "41",
     .doc = "`auto`, `all` or N: blocks on the GPUs + 1 for the output layer "
            "(docs/llamacpp-rules.md, \"Memory per device\")",
     .gpu_setting = true}),
    placement_field<"n_cpu_moe", &Placement::n_cpu_moe>(
    {.flags = "-ncmoe,--n-cpu-moe",
     .engine = "llamacpp",
     .help = "keep the first N blocks' experts on the host, -ncmoe",
     .type = FieldType::kCount,
     .default_text = "0",
     .json = JsonForm::kScalar,
     .doc = "the first N blocks' routed experts stay on the host",
     .gpu_setting = true}),
    placement_field<"override_tensor", &Placement::override_tensor>(
    {.flags = "-ot,--override-tensor",
     .engine = "llamacpp",
     .help = "PATTERN=DEVICE (exps=CPU, CUDA0), -ot; repeatable",
     .type = FieldType::kList,
     .json_expects = "a rule PATTERN=DEVICE or an array of them",
     .example = "exps=CPU",
     .doc = "`PATTERN=DEVICE`: a regex over tensor names to `CPU` or a GPU (`CUDA0`); "
            "comma-separated or repeated; first match wins",
     .gpu_setting = true}),
    placement_field<"split_mode", &Placement::split_mode>(
    {.flags = "-sm,--split-mode",
     .engine = "llamacpp",
     .help = "none, layer (default) or row, -sm",
     .type = FieldType::kChoice,
     .choices = "none|layer|row",
     .default_text = "layer",
     .json = JsonForm::kScalar,
     .doc = "how blocks spread over the GPUs",
     .gpu_setting = true}),
    placement_field<"tensor_split", &Placement::tensor_split>(
    {.flags = "-ts,--tensor-split",
     .engine = "llamacpp",
     .help = "proportions per GPU, -ts 24,12 (default: free memory)",
     .type = FieldType::kText,
     .json = JsonForm::kScalar,
     .example = "24,12",
     .doc = "proportions per GPU, `a,b,...`; default: each GPU's free memory. llama.cpp reads "
            "one per GPU and none with `split_mode` `none`: more proportions than GPUs, or a "
            "split with `none`, is refused",
     .gpu_setting = true}),
    placement_field<"main_gpu", &Placement::main_gpu>(
    {.flags = "-mg,--main-gpu",
     .engine = "llamacpp",
     .help = "-mg (default 0)",
     .type = FieldType::kCount,
     .default_text = "0",
     .json = JsonForm::kScalar,
     .doc = "the GPU of `-sm none`; refused with `-sm layer`, which reads none",
     .gpu_setting = true}),
    placement_field<"no_mmap", &Placement::no_mmap>(
    {.flags = "--no-mmap",
     .engine = "llamacpp",
     .help = "host weights resident, not page cache",
     .type = FieldType::kFlag,
     .default_text = "false",
     .json = JsonForm::kScalar,
     .doc = "host weights resident rather than page cache"}),
    placement_field<"mlock", &Placement::mlock>(
    {.flags = "--mlock",
     .engine = "llamacpp",
     .help = "host weights locked: resident",
     .type = FieldType::kFlag,
     .default_text = "false",
     .json = JsonForm::kScalar}),
    placement_field<"no_kv_offload", &Placement::no_kv_offload>(
    {.flags = "-nkvo,--no-kv-offload",
     .engine = "llamacpp",
     .help = "every KV cache on the host, -nkvo",
     .type = FieldType::kFlag,
     .default_text = "false",
     .json = JsonForm::kScalar,
     .gpu_setting = true}),
    placement_field<"gpu_memory", &Placement::gpu_memory>(
    {.flags = "--gpu-memory",
     .engine = "llamacpp",
     .help = "the GPUs' free memory, 0=24GiB,1=12GiB (default: this machine's)",
     .type = FieldType::kText,
     .json = JsonForm::kScalar,
     .example = "0=24GiB,1=12GiB",
     .doc = "the GPUs' free memory, `0=24GiB,1=12GiB` or `24GiB,12GiB` (`CUDA0=24GiB`, `ROCm1=...`: "
            "a CUDA or ROCm device, whose quantized rows llama.cpp pads): a machine that is not "
            "this one; default: this machine's",
     .gpu_setting = true}),
    placement_field<"gpu_margin", &Placement::gpu_margin>(
    {.flags = "--gpu-margin",
     .engine = "llamacpp",
     .help = "left free on every GPU (default 1GiB)",
     .unit = "bytes",
     .type = FieldType::kSize,
     .default_text = "1GiB",
     .json = JsonForm::kScalar}),
    parsed_field<text_as_is, &R::llamacpp, &LlamaCppRequest::mmproj>(
    {.name = "mmproj",
     .flags = "--mmproj",
     .engine = "llamacpp",
     .help = "a multimodal projector GGUF: its weights and image-encoding buffer",
     .type = FieldType::kText,
     .example = "mmproj.gguf",
     .doc = "a multimodal projector GGUF: its weights (exact) and image-encoding compute buffer "
            "(modelled), a line of their own (docs/llamacpp-rules.md, \"Server extras\"); the "
            "service reads it only under its model roots"}),
    parsed_field<parse_switch, &R::llamacpp, &LlamaCppRequest::no_mmproj_offload>(
    {.name = "no_mmproj_offload",
     .flags = "--no-mmproj-offload",
     .engine = "llamacpp",
     .help = "the projector on the host",
     .type = FieldType::kFlag,
     .default_text = "false",
     .doc = "the projector on the host rather than the first GPU; refused without `mmproj`"}),
    parsed_field<text_as_is, &R::llamacpp, &LlamaCppRequest::lora>(
    {.name = "lora",
     .flags = "--lora",
     .engine = "llamacpp",
     .help = "a LoRA adapter GGUF (repeatable): its tensors next to the model's",
     .type = FieldType::kList,
     .json_expects = "a path or an array of paths",
     .example = "adapter.gguf",
     .doc = "a LoRA adapter GGUF (on the CLI also `--lora-scaled FILE SCALE`): its tensor pairs "
            "(exact), each on the device of the base tensor it adapts, a line per adapter and "
            "device; checked against the model as llama.cpp checks it (docs/llamacpp-rules.md, "
            "\"Server extras\"); the service reads it only under its model roots"}),
    parsed_field<parse_cache_ram_mib, &R::llamacpp, &LlamaCppRequest::cache_ram>(
    {.name = "cache_ram",
     .flags = "--cache-ram",
     .engine = "llamacpp",
     .help = "llama-server's host prompt cache in MiB (-1 no limit, 0 off; the server's default "
             "8192)",
     .unit = "MiB",
     .type = FieldType::kText,
     .json = JsonForm::kInteger,
     .json_expects = "an integer (MiB; -1 no limit, 0 off)",
     .example = "8192",
     .doc = "the server's host prompt cache in MiB, counted at its limit on the host; -1 no "
            "limit, 0 off; llama-server's default 8192, other runs keep none unless it is "
            "given"}),
    parsed_field<parse_decimal, &R::llamacpp, &LlamaCppRequest::ctx_checkpoints>(
    {.name = "ctx_checkpoints",
     .flags = "--ctx-checkpoints",
     .engine = "llamacpp",
     .help = "llama-server's context checkpoints per slot (0 off; the server's default 32)",
     .type = FieldType::kCount,
     .example = "32",
     .doc = "context checkpoints per slot of a recurrent, hybrid or sliding-window model, counted "
            "at the limit on the host; 0 off; llama-server's default 32, other runs keep none "
            "unless it is given"}),
    parsed_field<text_as_is, &R::llamacpp, &LlamaCppRequest::model_draft>(
    {.name = "model_draft",
     .flags = "-md,--model-draft",
     .engine = "llamacpp",
     .help = "a speculative-decoding draft GGUF: its weights, KV and compute, -md",
     .type = FieldType::kText,
     .example = "draft.gguf",
     .doc = "a speculative-decoding draft GGUF: its weights, KV and compute as lines per device, "
            "placed like the model (docs/llamacpp-rules.md, \"Server extras\")"}),
    parsed_field<parse_draft_layers, &R::llamacpp, &LlamaCppRequest::n_gpu_layers_draft>(
    {.name = "n_gpu_layers_draft",
     .flags = "-ngld,--gpu-layers-draft,--n-gpu-layers-draft",
     .engine = "llamacpp",
     .help = "the draft's layers on the GPUs, auto, all or N, -ngld (default all)",
     .type = FieldType::kText,
     .default_text = "all",
     .json = JsonForm::kScalar,
     .example = "all",
     .doc = "the draft's `-ngl`; this and the draft's cache types are refused without "
            "`model_draft`"}),
    parsed_field<parse_llamacpp_cache_type, &R::llamacpp, &LlamaCppRequest::cache_type_k_draft>(
    {.name = "cache_type_k_draft",
     .flags = "-ctkd,--cache-type-k-draft",
     .engine = "llamacpp",
     .help = "the draft's K cache type, -ctkd (f16)",
     .type = FieldType::kChoice,
     .choices = kCacheTypes,
     .default_text = "f16",}),
    parsed_field<parse_llamacpp_cache_type, &R::llamacpp, &LlamaCppRequest::cache_type_v_draft>(
    {.name = "cache_type_v_draft",
     .flags = "-ctvd,--cache-type-v-draft",
     .engine = "llamacpp",
     .help = "the draft's V cache type, -ctvd (f16)",
     .type = FieldType::kChoice,
     .choices = kCacheTypes,
     .default_text = "f16",}),
};

}  // namespace

std::span<const RequestField> llamacpp_fields() { return kLlamaCppFields; }

}  // namespace memfit
