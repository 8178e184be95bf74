// The JSON request (request_json.h): each field read through Fields and
// the request's own parsers, so the names and aliases are the CLI's.
#include "memfit/request_json.h"

#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "request/request_fields.h"

namespace memfit {
namespace request {
namespace {

// A string field parsed by `parse` (a request.h parser); its usage error
// gets the field's name.
template <typename T, typename Parse>
Result<std::optional<T>> parsed(Fields& fields, std::string_view key, Parse parse) {
  Result<std::optional<std::string>> text = fields.string(key);
  if (!text) return text.error();
  if (!*text) return std::optional<T>();
  auto value = parse(**text);
  if (!value) return Error::usage(key, value.error().message());
  return std::optional<T>(std::move(*value));
}

Status read_memory_limit(Fields& fields, EstimateRequest& request) {
  const Json* v = fields.find("memory_limit");
  if (v == nullptr) return Status::Ok();
  if (v->is_number_unsigned()) {
    const uint64_t bytes = v->get<uint64_t>();
    if (bytes > 0) request.memory_limit_bytes = bytes;
    return Status::Ok();
  }
  if (!v->is_string()) return expected("memory_limit", "a size such as \"48GB\" or bytes", *v);
  Result<std::optional<uint64_t>> size = parse_memory_size(v->get_ref<const std::string&>());
  if (!size) return Error::usage("memory_limit", size.error().message());
  request.memory_limit_bytes = *size;
  return Status::Ok();
}

Status read_parallel(Fields& fields, EstimateRequest& request) {
  Result<std::optional<uint64_t>> tp = fields.count("tensor_parallel", 1);
  if (!tp) return tp.error();
  Result<std::optional<uint64_t>> pp = fields.count("pipeline_parallel", 1);
  if (!pp) return pp.error();
  Result<std::optional<ParallelEngine>> engine =
      parsed<ParallelEngine>(fields, "parallel_engine", parse_parallel_engine);
  if (!engine) return engine.error();
  request.parallel.tensor_parallel = tp->value_or(1);
  request.parallel.pipeline_parallel = pp->value_or(1);
  request.parallel.engine = engine->value_or(ParallelEngine::kVllm);
  return Status::Ok();
}

}  // namespace

Status read_kv_fields(Fields& fields, EstimateRequest& request) {
  Result<std::optional<KvElement>> mode = parsed<KvElement>(fields, "kv_cache_mode", parse_kv_element);
  if (!mode) return mode.error();
  request.kv_cache_mode = *mode;
  for (std::string_view key : {"cache_type_k", "cache_type_v"}) {
    Result<std::optional<std::string>> text = fields.string(key);
    if (!text) return text.error();
    if (!*text) continue;
    if (Status set = set_cache_type(request, key, **text); !set) return set.error();
  }
  return Status::Ok();
}

Status read_llamacpp_fields(Fields& fields, EstimateRequest& request) {
  LlamaCppRequest& q = request.llamacpp;
  for (auto [key, slot, min] : {std::tuple{"ctx_size", &q.ctx_size, uint64_t{0}},
                                std::tuple{"parallel", &q.parallel, uint64_t{1}},
                                std::tuple{"batch_size", &q.batch_size, uint64_t{1}},
                                std::tuple{"ubatch_size", &q.ubatch_size, uint64_t{1}}}) {
    Result<std::optional<uint64_t>> n = fields.count(key, min);
    if (!n) return n.error();
    *slot = *n;
  }
  Result<std::optional<FlashAttn>> fa = parsed<FlashAttn>(fields, "flash_attn", parse_flash_attn);
  if (!fa) return fa.error();
  q.flash_attn = *fa;
  Result<std::optional<RepackCpu>> repack = parsed<RepackCpu>(fields, "repack", parse_repack_cpu);
  if (!repack) return repack.error();
  q.repack = *repack;
  // cache_ram: MiB as a JSON integer, -1 for no limit.
  if (const Json* v = fields.find("cache_ram"); v != nullptr) {
    if (!v->is_number_integer()) return Error::usage("cache_ram", "takes an integer (MiB; -1 no limit, 0 off)");
    const std::string text = v->is_number_unsigned() ? std::to_string(v->get<uint64_t>())
                                                     : std::to_string(v->get<int64_t>());
    Result<int64_t> mib = parse_cache_ram("cache_ram", text);
    if (!mib) return mib.error();
    q.cache_ram = *mib;
  }
  Result<std::optional<uint64_t>> checkpoints = fields.count("ctx_checkpoints", 0);
  if (!checkpoints) return checkpoints.error();
  q.ctx_checkpoints = *checkpoints;
  Result<std::optional<std::string>> draft = fields.string("model_draft");
  if (!draft) return draft.error();
  q.model_draft = *draft;
  if (const Json* v = fields.find("n_gpu_layers_draft"); v != nullptr) {
    const std::string text = v->is_string() ? v->get<std::string>()
                             : v->is_number_unsigned() ? std::to_string(v->get<uint64_t>())
                                                       : std::string();
    Result<std::optional<uint64_t>> n = parse_n_gpu_layers(text);
    if (!n) return Error::usage("n_gpu_layers_draft", "expected auto, all or a count");
    q.n_gpu_layers_draft = *n;
  }
  for (auto [key, slot] : {std::pair{"cache_type_k_draft", &q.cache_type_k_draft},
                           std::pair{"cache_type_v_draft", &q.cache_type_v_draft}}) {
    Result<std::optional<GgmlType>> type = parsed<GgmlType>(fields, key, parse_llamacpp_cache_type);
    if (!type) return type.error();
    *slot = *type;
  }
  Result<std::optional<std::string>> mmproj = fields.string("mmproj");
  if (!mmproj) return mmproj.error();
  q.mmproj = *mmproj;
  // lora: a path or an array of paths (--lora, repeatable).
  if (const Json* v = fields.find("lora"); v != nullptr) {
    if (v->is_string()) {
      q.lora.push_back(v->get<std::string>());
    } else if (v->is_array()) {
      for (const Json& item : *v) {
        if (!item.is_string()) return expected("lora", "a path or an array of paths", *v);
        q.lora.push_back(item.get<std::string>());
      }
    } else {
      return expected("lora", "a path or an array of paths", *v);
    }
  }
  for (auto [key, slot] : {std::pair{"swa_full", &q.swa_full}, std::pair{"kv_unified", &q.kv_unified},
                           std::pair{"no_mmproj_offload", &q.no_mmproj_offload}}) {
    Result<std::optional<bool>> b = fields.boolean(key);
    if (!b) return b.error();
    *slot = *b;
  }
  // The placement fields: strings as the flags take them ("auto",
  // "exps=CPU", "24,12", "0=24GiB"), counts and switches as JSON integers
  // and booleans.
  for (std::string_view key : {"n_gpu_layers", "n_cpu_moe", "override_tensor", "split_mode",
                               "tensor_split", "main_gpu", "no_mmap", "mlock", "no_kv_offload",
                               "gpu_memory", "gpu_margin"}) {
    const Json* v = fields.find(key);
    if (v == nullptr) continue;
    std::string text;
    if (v->is_string()) {
      text = v->get<std::string>();
    } else if (v->is_number_unsigned()) {
      text = std::to_string(v->get<uint64_t>());
    } else if (v->is_boolean()) {
      text = v->get<bool>() ? "true" : "false";
    } else {
      return expected(key, "a string, a count or a boolean", *v);
    }
    if (Status set = set_placement_field(q.placement, key, text); !set) return set.error();
  }
  return Status::Ok();
}

Status read_mlxlm_fields(Fields& fields, EstimateRequest& request) {
  MlxLmRequest& q = request.mlxlm;
  for (auto [key, slot, min] : {std::tuple{"prompt_tokens", &q.prompt_tokens, uint64_t{1}},
                                std::tuple{"prefill_step_size", &q.prefill_step_size, uint64_t{1}},
                                std::tuple{"kv_bits", &q.kv_bits, uint64_t{1}},
                                std::tuple{"kv_group_size", &q.kv_group_size, uint64_t{1}},
                                std::tuple{"max_kv_size", &q.max_kv_size, uint64_t{1}}}) {
    Result<std::optional<uint64_t>> n = fields.count(key, min);
    if (!n) return n.error();
    *slot = *n;
  }
  return Status::Ok();
}

Status read_vllm_fields(Fields& fields, EstimateRequest& request) {
  VllmRequest& q = request.vllm;
  if (const Json* v = fields.find("gpu_memory_utilization"); v != nullptr) {
    if (!v->is_number() || !(v->get<double>() > 0.0 && v->get<double>() <= 1.0)) {
      return expected("gpu_memory_utilization", "a number in (0, 1]", *v);
    }
    q.gpu_memory_utilization = v->get<double>();
  }
  for (auto [key, slot] : {std::pair{"gpu_memory_total", &q.gpu_memory_total},
                           std::pair{"kv_cache_memory", &q.kv_cache_memory}}) {
    const Json* v = fields.find(key);
    if (v == nullptr) continue;
    if (v->is_number_unsigned()) {
      *slot = v->get<uint64_t>();
      continue;
    }
    if (!v->is_string()) return expected(key, "a size such as \"80GiB\" or bytes", *v);
    Result<std::optional<uint64_t>> size = parse_memory_size(v->get_ref<const std::string&>());
    if (!size) return Error::usage(key, size.error().message());
    *slot = size->value_or(0);
  }
  for (auto [key, slot, min] :
       {std::tuple{"block_size", &q.block_size, uint64_t{1}},
        std::tuple{"max_model_len", &q.max_model_len, uint64_t{1}},
        std::tuple{"max_num_seqs", &q.max_num_seqs, uint64_t{1}},
        std::tuple{"max_num_batched_tokens", &q.max_num_batched_tokens, uint64_t{1}},
        std::tuple{"num_speculative_tokens", &q.num_speculative_tokens, uint64_t{0}}}) {
    Result<std::optional<uint64_t>> n = fields.count(key, min);
    if (!n) return n.error();
    *slot = *n;
  }
  Result<std::optional<bool>> fp8 = parsed<bool>(fields, "kv_cache_dtype", parse_vllm_kv_cache_dtype);
  if (!fp8) return fp8.error();
  q.kv_cache_fp8 = *fp8;
  Result<std::optional<bool>> eager = fields.boolean("enforce_eager");
  if (!eager) return eager.error();
  q.enforce_eager = *eager;
  Result<std::optional<std::string>> gpu_name = parsed<std::string>(fields, "gpu_name", parse_gpu_name);
  if (!gpu_name) return gpu_name.error();
  q.gpu_name = std::move(*gpu_name);
  Result<std::optional<VllmRelease>> release = parsed<VllmRelease>(fields, "vllm_version", parse_vllm_version);
  if (!release) return release.error();
  q.vllm_version = *release;
  return Status::Ok();
}

Status read_sizing_fields(Fields& fields, EstimateRequest& request) {
  Result<std::optional<std::string>> model = fields.string("model");
  if (!model) return model.error();
  if (!*model) return Error::usage("model", "required");
  request.model = std::move(**model);

  Result<std::optional<uint64_t>> batch = fields.count("batch", 1);
  if (!batch) return batch.error();
  request.batch = batch->value_or(request.batch);

  Result<std::optional<std::string>> quant = parsed<std::string>(fields, "quant", parse_quant_label);
  if (!quant) return quant.error();
  request.quant = quant->value_or("");

  Result<std::optional<std::optional<Backend>>> backend =
      parsed<std::optional<Backend>>(fields, "backend", parse_backend);
  if (!backend) return backend.error();
  request.backend = backend->value_or(std::nullopt);

  Result<std::optional<DeviceSelector>> device =
      parsed<DeviceSelector>(fields, "device", [](const std::string& text) {
        return parse_device_selector(text);
      });
  if (!device) return device.error();
  request.device = device->value_or(DeviceSelector{});

  Result<std::optional<std::string>> engine = parsed<std::string>(fields, "engine", parse_engine);
  if (!engine) return engine.error();
  request.engine = engine->value_or("");

  if (Status limit = read_memory_limit(fields, request); !limit) return limit.error();
  return read_parallel(fields, request);
}

}  // namespace request

Result<EstimateRequest> parse_estimate_request_json(std::string_view body) {
  Result<request::Json> json = request::parse_object(body);
  if (!json) return json.error();
  request::Fields fields(*json);
  EstimateRequest r;
  if (Status sizing = request::read_sizing_fields(fields, r); !sizing) return sizing.error();
  Result<std::optional<uint64_t>> max_tokens = fields.count("max_tokens", 1);
  if (!max_tokens) return max_tokens.error();
  r.max_tokens = *max_tokens;
  if (Status kv = request::read_kv_fields(fields, r); !kv) return kv.error();
  if (Status llama = request::read_llamacpp_fields(fields, r); !llama) return llama.error();
  if (Status mlx = request::read_mlxlm_fields(fields, r); !mlx) return mlx.error();
  if (Status vllm = request::read_vllm_fields(fields, r); !vllm) return vllm.error();
  if (Status rest = fields.no_others(); !rest) return rest.error();
  return r;
}

nlohmann::ordered_json error_to_json(const Error& error) {
  nlohmann::ordered_json j = {{"kind", std::string(to_string(error.kind()))},
                              {"message", error.message()}};
  if (!error.field().empty()) j["field"] = error.field();
  return j;
}

}  // namespace memfit
