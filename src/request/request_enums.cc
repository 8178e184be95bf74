// The request's enumerations as users spell them (request.h). One list of
// names per enumeration, shared by the CLI's flags, the JSON request and
// the C API.
#include <fmt/format.h>

#include "memfit/request.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

Error expected(std::string_view text, std::string_view names) {
  return Error::usage(fmt::format("{}: expected {}", quote_untrusted(text), names));
}

}  // namespace

std::string_view to_string(Engine engine) {
  switch (engine) {
    case Engine::kMlxcel:
      return "mlxcel";
    case Engine::kLlamaCpp:
      return "llamacpp";
  }
  return "mlxcel";
}

Engine default_engine(const Model& /*model*/) { return Engine::kMlxcel; }

std::string_view LlamaCppRequest::first_given() const {
  if (ctx_size) return "ctx_size";
  if (parallel) return "parallel";
  if (batch_size) return "batch_size";
  if (ubatch_size) return "ubatch_size";
  if (cache_type_k) return "cache_type_k";
  if (cache_type_v) return "cache_type_v";
  if (flash_attn) return "flash_attn";
  if (swa_full) return "swa_full";
  if (kv_unified) return "kv_unified";
  if (repack) return "repack";
  return "";
}

Status set_cache_type(EstimateRequest& r, std::string_view field, std::string_view text) {
  const bool k = field == "cache_type_k";
  if (r.engine == Engine::kLlamaCpp) {
    Result<GgmlType> type = parse_llamacpp_cache_type(text);
    if (!type) return Error::usage(field, type.error().message());
    (k ? r.llamacpp.cache_type_k : r.llamacpp.cache_type_v) = *type;
    return Status::Ok();
  }
  Result<KvElement> element = parse_kv_element(text);
  if (!element) return Error::usage(field, element.error().message());
  (k ? r.cache_type_k : r.cache_type_v) = *element;
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

Result<std::optional<Engine>> parse_engine(std::string_view text) {
  if (text == "auto") return std::optional<Engine>();
  if (text == "mlxcel") return std::optional<Engine>(Engine::kMlxcel);
  if (text == "llamacpp") return std::optional<Engine>(Engine::kLlamaCpp);
  return expected(text, "auto, mlxcel or llamacpp (the mlx-lm and vLLM profiles are not built yet)");
}

Result<std::string> parse_quant_label(std::string_view text) {
  if (text == "fp16" || text == "int8" || text == "int4") return std::string(text);
  return expected(text, "fp16, int8 or int4");
}

}  // namespace memfit
