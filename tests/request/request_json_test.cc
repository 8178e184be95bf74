// The JSON form of a request (request_json.h): every field, its defaults,
// and one-line usage errors naming the field.
#include <gtest/gtest.h>

#include <string>

#include "memfit/request_json.h"

namespace memfit {
namespace {

EstimateRequest parsed(std::string_view body) {
  Result<EstimateRequest> r = parse_estimate_request_json(body);
  EXPECT_TRUE(r.ok()) << r.error().message();
  return r.ok() ? *r : EstimateRequest{};
}

Error refused(std::string_view body) {
  Result<EstimateRequest> r = parse_estimate_request_json(body);
  EXPECT_FALSE(r.ok()) << body;
  return r.ok() ? Error("accepted") : r.error();
}

TEST(RequestJson, DefaultsWhenOnlyTheModelIsGiven) {
  EstimateRequest r = parsed(R"({"model": "m"})");
  EXPECT_EQ(r.model, "m");
  EXPECT_FALSE(r.max_tokens.has_value());  // 8192 under mlxcel; --ctx-size 0 under llamacpp
  EXPECT_EQ(r.batch, 1u);
  EXPECT_FALSE(r.kv_cache_mode || r.cache_type_k || r.cache_type_v);
  EXPECT_EQ(r.quant, "");
  EXPECT_FALSE(r.backend.has_value());
  EXPECT_EQ(r.device.kind, DeviceSelector::Kind::kAuto);
  EXPECT_FALSE(r.memory_limit_bytes.has_value());
  EXPECT_EQ(r.parallel.tensor_parallel, 1u);
  EXPECT_EQ(r.parallel.pipeline_parallel, 1u);
  EXPECT_EQ(r.parallel.sharding, ShardingRules::kVllm);
  EXPECT_EQ(r.engine, "");
}

TEST(RequestJson, EveryField) {
  EstimateRequest r = parsed(R"({
    "model": "m", "max_tokens": 32768, "batch": 4, "kv_cache_mode": "q8_0",
    "cache_type_k": "i8", "cache_type_v": "int8", "quant": "int4", "backend": "rocm",
    "device": "cuda:1", "memory_limit": "1.5G", "tensor_parallel": 2,
    "pipeline_parallel": 3, "parallel_engine": "mlx-lm", "engine": "mlxcel"})");
  EXPECT_EQ(r.max_tokens, 32768u);
  EXPECT_EQ(r.batch, 4u);
  EXPECT_EQ(r.kv_cache_mode, KvElement::kInt8);
  EXPECT_EQ(r.cache_type_k, KvElement::kInt8);
  EXPECT_EQ(r.cache_type_v, KvElement::kInt8);
  EXPECT_EQ(r.quant, "int4");
  EXPECT_EQ(r.backend, Backend::kRocm);
  EXPECT_EQ(r.device.kind, DeviceSelector::Kind::kCuda);
  EXPECT_EQ(r.device.index, 1);
  // 1.5 x 2^30 = 1,610,612,736.
  EXPECT_EQ(r.memory_limit_bytes, 1'610'612'736u);
  EXPECT_EQ(r.parallel.tensor_parallel, 2u);
  EXPECT_EQ(r.parallel.pipeline_parallel, 3u);
  EXPECT_EQ(r.parallel.sharding, ShardingRules::kMlxLm);
  EXPECT_EQ(r.engine, "mlxcel");
}

TEST(RequestJson, ParallelEngineTakesTheEnginesNamesAndTheOldMlx) {
  // The registry's names and aliases (ignoring case), and "mlx", the
  // spelling before the field took the engines' names.
  for (const char* text : {"mlx-lm", "mlxlm", "mlx_lm", "MLX-LM", "mlx"}) {
    EXPECT_EQ(parsed(std::string(R"({"model": "m", "parallel_engine": ")") + text + R"("})")
                  .parallel.sharding,
              ShardingRules::kMlxLm)
        << text;
  }
  EXPECT_EQ(parsed(R"({"model": "m", "parallel_engine": "vLLM"})").parallel.sharding,
            ShardingRules::kVllm);
  EXPECT_EQ(to_string(ShardingRules::kMlxLm), "mlx-lm");
  EXPECT_EQ(to_string(ShardingRules::kVllm), "vllm");
  // An engine with no sharding rules of its own is refused like any text.
  EXPECT_EQ(refused(R"({"model": "m", "parallel_engine": "llamacpp"})").message(),
            "parallel_engine: 'llamacpp': expected vllm or mlx-lm");
}

TEST(RequestJson, NullIsAbsentAndAZeroLimitIsUnset) {
  EstimateRequest r = parsed(R"({"model": "m", "max_tokens": null, "memory_limit": 0})");
  EXPECT_FALSE(r.max_tokens.has_value());
  EXPECT_FALSE(r.memory_limit_bytes.has_value());
  r = parsed(R"({"model": "m", "memory_limit": "none"})");
  EXPECT_FALSE(r.memory_limit_bytes.has_value());
  r = parsed(R"({"model": "m", "memory_limit": 1024})");
  EXPECT_EQ(r.memory_limit_bytes, 1024u);
}

TEST(RequestJson, ErrorsNameTheFieldOnOneLine) {
  Error e = refused(R"({"model": "m", "max_tokens": "8192"})");
  EXPECT_EQ(e.kind(), ErrorKind::kUsage);
  EXPECT_EQ(e.field(), "max_tokens");
  EXPECT_EQ(e.message(), "max_tokens: expected a positive integer, got \"8192\"");
  EXPECT_EQ(e.detail(), "expected a positive integer, got \"8192\"");

  e = refused(R"({"model": "m", "tensor_parallel": 0})");
  EXPECT_EQ(e.message(), "tensor_parallel: expected a positive integer, got 0");
  e = refused(R"({"model": "m", "device": "gpu0"})");
  EXPECT_EQ(e.message(), "device: 'gpu0': expected auto, cpu, cuda[:N] or rocm[:N]");
  e = refused(R"({"model": "m", "parallel_engine": "deepspeed"})");
  EXPECT_EQ(e.message(), "parallel_engine: 'deepspeed': expected vllm or mlx-lm");
  e = refused(R"({"model": "m", "memory_limit": true})");
  EXPECT_EQ(e.message(), "memory_limit: expected a size such as \"48GiB\" or bytes, got true");
  e = refused(R"({"max_tokens": 5})");
  EXPECT_EQ(e.message(), "model: required");
  e = refused(R"([1, 2])");
  EXPECT_EQ(e.message(), "request body must be a JSON object");
  EXPECT_EQ(e.field(), "");
}

TEST(RequestJson, UntrustedTextIsEscaped) {
  // An unknown field's name with a newline and an escape byte: quoted and
  // escaped, never raw.
  Error e = refused("{\"model\":\"a\",\"cbched_tok\\ns\\u001b[2J\":6}");
  EXPECT_EQ(e.message(), "unknown field 'cbched_tok\\ns\\x1b[2J'");
  e = refused("{\"model\":\"a\",\"backend\":\"cu\\nda\"}");
  EXPECT_EQ(e.message(), "backend: 'cu\\nda': expected auto, rocm, metal, cuda or cpu");
  e = refused("{\"model\":\"a\",\"max_tokens\":\"\\u007f\\n\"}");
  EXPECT_EQ(e.message(), "max_tokens: expected a positive integer, got \"\\u007f\\n\"");
  e = refused("{\"model\":\"a\",\"memory_limit\":\"5\\nGB\"}");
  EXPECT_EQ(e.message(),
            "memory_limit: memory size '5\\nGB': expected a number and its unit: B, KB, MB, GB, "
            "TB (10^3 ...), KiB, MiB, GiB, TiB (2^10 ...)");
}

TEST(RequestJson, ErrorToJson) {
  EXPECT_EQ(error_to_json(Error::usage("batch", "must be at least 1")).dump(),
            R"({"kind":"usage","message":"batch: must be at least 1","field":"batch"})");
  EXPECT_EQ(error_to_json(Error::overflow("x overflows")).dump(),
            R"({"kind":"overflow","message":"x overflows"})");
  EXPECT_EQ(error_to_json(Error("no such file")).dump(),
            R"({"kind":"input","message":"no such file"})");
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

TEST(RequestJson, LlamaCppFieldsAndCacheTypesReadForTheEngine) {
  Result<EstimateRequest> r = parse_estimate_request_json(R"({
    "model": "m", "engine": "llamacpp", "ctx_size": 0, "parallel": 4, "batch_size": 1024,
    "ubatch_size": 128, "cache_type_k": "iq4_nl", "cache_type_v": "q5_1",
    "flash_attn": "off", "swa_full": true, "kv_unified": false, "repack": "arm"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->engine, "llamacpp");
  EXPECT_EQ(r->llamacpp.ctx_size, 0u);
  EXPECT_EQ(r->llamacpp.parallel, 4u);
  EXPECT_EQ(r->llamacpp.batch_size, 1024u);
  EXPECT_EQ(r->llamacpp.ubatch_size, 128u);
  EXPECT_EQ(r->llamacpp.cache_type_k, GgmlType::kIQ4_NL);
  EXPECT_EQ(r->llamacpp.cache_type_v, GgmlType::kQ5_1);
  EXPECT_FALSE(r->cache_type_k.has_value());
  EXPECT_EQ(r->llamacpp.flash_attn, FlashAttn::kOff);
  EXPECT_EQ(r->llamacpp.swa_full, true);
  EXPECT_EQ(r->llamacpp.kv_unified, false);
  EXPECT_EQ(r->llamacpp.repack, RepackCpu::kArm);
  EXPECT_EQ(r->llamacpp.first_given(), "ctx_size");
}

TEST(RequestJson, MlxLmFields) {
  Result<EstimateRequest> r = parse_estimate_request_json(R"({
    "model": "m", "engine": "mlxlm", "prompt_tokens": 2048, "max_tokens": 128, "batch": 4,
    "prefill_step_size": 512, "kv_bits": 4, "kv_group_size": 32, "max_kv_size": 4096})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->engine, "mlx-lm");
  EXPECT_EQ(r->mlxlm.prompt_tokens, 2048u);
  EXPECT_EQ(r->max_tokens, 128u);
  EXPECT_EQ(r->batch, 4u);
  EXPECT_EQ(r->mlxlm.prefill_step_size, 512u);
  EXPECT_EQ(r->mlxlm.kv_bits, 4u);
  EXPECT_EQ(r->mlxlm.kv_group_size, 32u);
  EXPECT_EQ(r->mlxlm.max_kv_size, 4096u);
  Result<EstimateRequest> zero = parse_estimate_request_json(R"({"model": "m", "prompt_tokens": 0})");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().field(), "prompt_tokens");
}

TEST(RequestJson, VllmFields) {
  Result<EstimateRequest> r = parse_estimate_request_json(R"({
    "model": "m", "engine": "vllm", "tensor_parallel": 4, "gpu_memory_utilization": 0.95,
    "gpu_memory_total": "80GiB", "kv_cache_memory": 17179869184, "block_size": 32,
    "kv_cache_dtype": "fp8", "max_model_len": 32768, "max_num_seqs": 64,
    "max_num_batched_tokens": 4096, "num_speculative_tokens": 0, "enforce_eager": true,
    "vllm_version": "0.7.3"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->engine, "vllm");
  EXPECT_EQ(r->parallel.tensor_parallel, 4u);
  EXPECT_EQ(r->vllm.gpu_memory_utilization, 0.95);
  EXPECT_EQ(r->vllm.gpu_memory_total, 80ull << 30);
  EXPECT_EQ(r->vllm.kv_cache_memory, 16ull << 30);
  EXPECT_EQ(r->vllm.block_size, 32u);
  EXPECT_EQ(r->vllm.kv_cache_fp8, true);
  EXPECT_EQ(r->vllm.max_model_len, 32768u);
  EXPECT_EQ(r->vllm.max_num_seqs, 64u);
  EXPECT_EQ(r->vllm.max_num_batched_tokens, 4096u);
  EXPECT_EQ(r->vllm.num_speculative_tokens, 0u);
  EXPECT_EQ(r->vllm.enforce_eager, true);
  ASSERT_TRUE(r->vllm.vllm_version.has_value());
  EXPECT_EQ(to_string(*r->vllm.vllm_version), "0.7.3");
  EXPECT_EQ(r->vllm.first_given(), "gpu_memory_utilization");
  Result<EstimateRequest> version = parse_estimate_request_json(R"({"model": "m", "vllm_version": "seven"})");
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().field(), "vllm_version");
  EXPECT_EQ(version.error().message(),
            "vllm_version: 'seven': expected a release X.Y or X.Y.Z, e.g. 0.7 or 0.11.0");
  Result<EstimateRequest> alone = parse_estimate_request_json(R"({"model": "m", "vllm_version": "0.7"})");
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->vllm.first_given(), "vllm_version");
  Result<EstimateRequest> over = parse_estimate_request_json(R"({"model": "m", "gpu_memory_utilization": 1.5})");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().field(), "gpu_memory_utilization");
  Result<EstimateRequest> dtype = parse_estimate_request_json(R"({"model": "m", "kv_cache_dtype": "int4"})");
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.error().field(), "kv_cache_dtype");
}

TEST(RequestJson, VllmGpuNameIsAPrintableString) {
  Result<EstimateRequest> r = parse_estimate_request_json(
      R"({"model": "m", "engine": "vllm", "gpu_name": "NVIDIA H100 80GB HBM3"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->vllm.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->vllm.first_given(), "gpu_name");
  Result<EstimateRequest> absent = parse_estimate_request_json(R"({"model": "m", "gpu_name": null})");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->vllm.gpu_name.has_value());
  auto error = [](const char* body) {
    Result<EstimateRequest> q = parse_estimate_request_json(body);
    if (q.ok()) return std::string("accepted");
    EXPECT_EQ(q.error().field(), "gpu_name");
    return q.error().message();
  };
  EXPECT_EQ(error(R"({"model": "m", "gpu_name": ""})"),
            "gpu_name: '': expected a GPU's name as nvidia-smi prints it, e.g. \"NVIDIA H100 80GB "
            "HBM3\" (1 to 128 printable ASCII characters)");
  EXPECT_EQ(error(R"({"model": "m", "gpu_name": "H100\u001b[31m"})"),
            "gpu_name: 'H100\\x1b[31m': expected a GPU's name as nvidia-smi prints it, e.g. "
            "\"NVIDIA H100 80GB HBM3\" (1 to 128 printable ASCII characters)");
  EXPECT_EQ(error(R"({"model": "m", "gpu_name": 100})"), "gpu_name: expected a string, got 100");
}

TEST(RequestJson, LlamaCppFieldErrorsNameTheirField) {
  auto error = [](const char* body) {
    Result<EstimateRequest> r = parse_estimate_request_json(body);
    return r.ok() ? std::string("accepted") : r.error().message();
  };
  // With the engine left to the model, a cache type is kept if either
  // engine reads it (prepare() refuses q4_0 for a model that resolves to
  // mlxcel: front_ends_agree_test.cc); one neither reads is refused here.
  Result<EstimateRequest> either =
      parse_estimate_request_json(R"({"model": "m", "cache_type_k": "q4_0", "cache_type_v": "q8_0"})");
  ASSERT_TRUE(either.ok()) << either.error().message();
  EXPECT_EQ(either->llamacpp.cache_type_k, GgmlType::kQ4_0);
  EXPECT_FALSE(either->cache_type_k.has_value());
  EXPECT_EQ(either->llamacpp.cache_type_v, GgmlType::kQ8_0);
  EXPECT_EQ(either->cache_type_v, KvElement::kInt8);
  EXPECT_EQ(error(R"({"model": "m", "cache_type_k": "q4_K"})"),
            "cache_type_k: 'q4_K': expected fp16 or int8 (mlxcel), or f32, f16, bf16, q8_0, "
            "q4_0, q4_1, q5_0, q5_1 or iq4_nl (llamacpp)");
  EXPECT_EQ(error(R"({"model": "m", "engine": "mlxcel", "cache_type_k": "q4_0"})"),
            "cache_type_k: 'q4_0': expected fp16 or int8");
  EXPECT_EQ(error(R"({"model": "m", "engine": "llamacpp", "cache_type_v": "int8"})"),
            "cache_type_v: 'int8': expected f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl");
  EXPECT_EQ(error(R"({"model": "m", "parallel": 0})"), "parallel: expected a positive integer, got 0");
  EXPECT_EQ(error(R"({"model": "m", "flash_attn": "yes"})"),
            "flash_attn: 'yes': expected on, off or auto");
  EXPECT_EQ(error(R"({"model": "m", "swa_full": 1})"), "swa_full: expected true or false, got 1");
  EXPECT_EQ(error(R"({"model": "m", "repack": "amx"})"),
            "repack: 'amx': expected auto, none, x86-avx2, x86-avx512 or arm");
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

TEST(RequestJsonPlacement, TheFlagsAsFieldsOfTheSameNames) {
  Result<EstimateRequest> r = parse_estimate_request_json(
      R"({"model": "m.gguf", "n_gpu_layers": 41, "n_cpu_moe": 12, "override_tensor": "exps=CPU",
          "split_mode": "row", "tensor_split": "24,12", "main_gpu": 1, "no_mmap": true,
          "gpu_memory": "0=24GiB,1=12GiB", "gpu_margin": "512MiB"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  const LlamaCppPlacementRequest& p = r->llamacpp.placement;
  EXPECT_EQ(**p.n_gpu_layers, 41u);
  EXPECT_EQ(*p.n_cpu_moe, 12u);
  ASSERT_EQ(p.override_tensor.size(), 1u);
  EXPECT_EQ(p.override_tensor[0].pattern, "exps");
  EXPECT_EQ(*p.split_mode, SplitMode::kRow);
  EXPECT_EQ(p.tensor_split, (std::vector<double>{24, 12}));
  EXPECT_EQ(*p.main_gpu, 1u);
  EXPECT_TRUE(*p.no_mmap);
  ASSERT_EQ(p.gpu_memory->size(), 2u);
  EXPECT_EQ((*p.gpu_memory)[1].free_bytes, 12ull << 30);
  EXPECT_EQ(*p.gpu_margin, 512ull << 20);
  EXPECT_EQ(r->llamacpp.first_given(), "n_gpu_layers");

  r = parse_estimate_request_json(R"({"model": "m.gguf", "n_gpu_layers": "some"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field(), "n_gpu_layers");
  r = parse_estimate_request_json(R"({"model": "m.gguf", "tensor_split": [1, 2]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message().rfind("tensor_split: expected", 0), 0u) << r.error().message();
}

}  // namespace
}  // namespace memfit
