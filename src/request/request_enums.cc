// The request's enumerations as users spell them (request.h). One list of
// names per enumeration, shared by the CLI's flags, the JSON request and
// the C API.
#include <fmt/format.h>

#include "engines/llamacpp/quantize_plan.h"
#include "engines/shared/weight_mode.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

Error expected(std::string_view text, std::string_view names) {
  return Error::usage(fmt::format("{}: expected {}", quote_untrusted(text), names));
}

}  // namespace

std::string_view LlamaCppRequest::first_given() const {
  if (ctx_size) return "ctx_size";
  if (parallel) return "parallel";
  if (batch_size) return "batch_size";
  if (ubatch_size) return "ubatch_size";
  if (flash_attn) return "flash_attn";
  if (swa_full) return "swa_full";
  if (kv_unified) return "kv_unified";
  if (embedding) return "embedding";
  if (pooling) return "pooling";
  if (reranking) return "reranking";
  if (llamacpp_version) return "llamacpp_version";
  if (repack) return "repack";
  if (mmproj) return "mmproj";
  if (no_mmproj_offload) return "no_mmproj_offload";
  if (!lora.empty()) return "lora";
  if (cache_ram) return "cache_ram";
  if (ctx_checkpoints) return "ctx_checkpoints";
  if (model_draft) return "model_draft";
  if (n_gpu_layers_draft) return "n_gpu_layers_draft";
  if (cache_type_k_draft) return "cache_type_k_draft";
  if (cache_type_v_draft) return "cache_type_v_draft";
  return placement.first_given();
}

std::string_view VllmRequest::first_given() const {
  if (gpu_memory_utilization) return "gpu_memory_utilization";
  if (gpu_memory_total) return "gpu_memory_total";
  if (gpu_name) return "gpu_name";
  if (kv_cache_memory) return "kv_cache_memory";
  if (block_size) return "block_size";
  if (kv_cache_fp8) return "kv_cache_dtype";
  if (max_model_len) return "max_model_len";
  if (max_num_seqs) return "max_num_seqs";
  if (max_num_batched_tokens) return "max_num_batched_tokens";
  if (num_speculative_tokens) return "num_speculative_tokens";
  if (enforce_eager) return "enforce_eager";
  if (vllm_version) return "vllm_version";
  if (runner) return "runner";
  if (enable_lora) return "enable_lora";
  if (max_loras) return "max_loras";
  if (max_lora_rank) return "max_lora_rank";
  if (lora_dtype) return "lora_dtype";
  if (fully_sharded_loras) return "fully_sharded_loras";
  return "";
}

Result<bool> parse_vllm_kv_cache_dtype(std::string_view text) {
  if (text == "auto") return false;
  if (text == "fp8" || text == "fp8_e4m3" || text == "fp8_e5m2") return true;
  return expected(text, "auto, fp8, fp8_e4m3 or fp8_e5m2");
}

Result<std::string> parse_vllm_lora_dtype(std::string_view text) {
  if (text == "auto" || text == "float16" || text == "bfloat16") return std::string(text);
  return expected(text, "auto, float16 or bfloat16");
}

std::string_view MlxLmRequest::first_given() const {
  if (prompt_tokens) return "prompt_tokens";
  if (prefill_step_size) return "prefill_step_size";
  if (kv_bits) return "kv_bits";
  if (kv_group_size) return "kv_group_size";
  if (max_kv_size) return "max_kv_size";
  if (mlx_lm_version) return "mlx_lm_version";
  if (mlx_version) return "mlx_version";
  if (mlx_chip) return "mlx_chip";
  if (mlx_max_ops_per_buffer) return "mlx_max_ops_per_buffer";
  if (mlx_max_mb_per_buffer) return "mlx_max_mb_per_buffer";
  return "";
}

Status set_cache_type(EstimateRequest& r, std::string_view field, std::string_view text) {
  const bool k = field == "cache_type_k";
  std::optional<GgmlType>& ggml = k ? r.llamacpp.cache_type_k : r.llamacpp.cache_type_v;
  std::optional<KvElement>& element = k ? r.cache_type_k : r.cache_type_v;
  if (r.engine == "llamacpp") {
    Result<GgmlType> type = parse_llamacpp_cache_type(text);
    if (!type) return Error::usage(field, type.error().message());
    ggml = *type;
    return Status::Ok();
  }
  Result<KvElement> as_element = parse_kv_element(text);
  if (r.engine == "mlxcel") {
    if (!as_element) return Error::usage(field, as_element.error().message());
    element = *as_element;
    return Status::Ok();
  }
  // The engine follows from the model, not known yet: keep every reading
  // the text has; resolve_engine() takes the engine's own.
  Result<GgmlType> as_ggml = parse_llamacpp_cache_type(text);
  if (!as_element && !as_ggml) {
    return Error::usage(field, fmt::format("{}: expected fp16 or int8 (mlxcel), or f32, f16, bf16, "
                                           "q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl (llamacpp)",
                                           quote_untrusted(text)));
  }
  if (as_element) element = *as_element;
  if (as_ggml) ggml = *as_ggml;
  return Status::Ok();
}

Result<KvElement> parse_kv_element(std::string_view text) {
  if (text == "fp16" || text == "f16" || text == "bf16" || text == "float16") {
    return KvElement::kFp16;
  }
  if (text == "int8" || text == "i8" || text == "q8" || text == "q8_0") return KvElement::kInt8;
  return expected(text, "fp16 or int8");
}

Result<std::optional<Backend>> parse_backend(std::string_view text) {
  if (text == "auto") return std::optional<Backend>();
  if (text == "rocm") return std::optional<Backend>(Backend::kRocm);
  if (text == "metal") return std::optional<Backend>(Backend::kMetal);
  if (text == "cuda") return std::optional<Backend>(Backend::kCuda);
  if (text == "cpu") return std::optional<Backend>(Backend::kCpu);
  return expected(text, "auto, rocm, metal, cuda or cpu");
}

Result<std::string> parse_engine(std::string_view text) {
  if (text == "auto") return std::string();
  Result<const EngineProfile*> engine = EngineRegistry::instance().parse(text);
  if (!engine) return engine.error();
  return std::string((*engine)->name());
}

Result<std::string> parse_quant_label(std::string_view text) {
  // An MLX weight mode (mlxcel, mlx-lm), by its canonical name.
  if (std::optional<MlxWeightMode> mode = parse_mlx_weight_mode(text)) return mode->name;
  // A GGUF file type (llamacpp), by its canonical name.
  if (const llamacpp::GgufFileType* type = llamacpp::find_gguf_file_type(text)) {
    return std::string(type->name);
  }
  return expected(text, std::string(kMlxWeightModesText) + ", or a GGUF file type (" +
                            llamacpp::gguf_file_type_names() + ")");
}

}  // namespace memfit
