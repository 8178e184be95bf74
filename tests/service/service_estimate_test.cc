// POST /v1/estimate through Service::handle: the figures, parity with
// `memfit inspect --json`, the model cache, and every refused body.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "engines/shared/weight_mode.h"
#include "memfit/environment.h"
#include "memfit/mlxcel_settings.h"
#include "service/service_fixture.h"
#include "support/run_command.h"

namespace memfit {
namespace {

// The file types --quant names under llamacpp (quantize_plan.h).
const std::string kGgufTypes =
    "F32, F16, BF16, Q8_0, Q6_K, Q5_1, Q5_K_M, Q5_0, Q5_K_S, Q4_1, Q4_K_M, Q4_0, Q4_K_S, "
    "IQ4_NL, IQ4_XS, MXFP4_MOE, Q3_K_L, Q3_K_M, IQ3_M, IQ3_S, Q3_K_S, Q2_K";

using nlohmann::json;
using testing::body_json;
using testing::error_code;
using testing::error_message;
using testing::kExampleModel;
using testing::kExamplesRoot;
using testing::make_service;

HttpResponse estimate(Service& service, const json& body) {
  return service.handle("POST", "/v1/estimate", body.dump());
}

TEST(ServiceEstimate, ExampleModelAtDefaults) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  json j = body_json(r);
  EXPECT_EQ(j["model"], kExampleModel);
  EXPECT_EQ(j["inputs"]["max_tokens"], 8192);
  EXPECT_EQ(j["inputs"]["batch"], 1);
  EXPECT_EQ(j["inputs"]["kv_cache_mode"], "fp16");
  // The hand-worked figures of the bundled example (README, inspect tests).
  EXPECT_EQ(j["total_bytes"], 11764806400u);
  EXPECT_EQ(j["kv_bytes_total"], 1342177280u);
  EXPECT_EQ(j["weights_bytes"].get<uint64_t>() + j["kv_bytes_total"].get<uint64_t>() +
                j["headroom_bytes"].get<uint64_t>(),
            j["total_bytes"].get<uint64_t>());
  // The fake host's 32 GiB budget.
  EXPECT_EQ(j["budget_bytes"], 32ull << 30);
  EXPECT_EQ(j["budget_source"], "meminfo_available");
  EXPECT_EQ(j["fits"], true);
}

TEST(ServiceEstimate, RequestFieldsReachTheEstimate) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel},
                                       {"max_tokens", 32768},
                                       {"batch", 2},
                                       {"kv_cache_mode", "int8"},
                                       {"quant", "int4"},
                                       {"memory_limit", "8GiB"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["inputs"]["max_tokens"], 32768);
  EXPECT_EQ(j["inputs"]["batch"], 2);
  EXPECT_EQ(j["inputs"]["kv_cache_mode"], "int8");
  EXPECT_EQ(j["inputs"]["quant"], "int4");
  // 4 x the context, 2 x the batch, half the width: 4 x the fp16 default KV.
  EXPECT_EQ(j["kv_bytes_total"], 4 * 1342177280ull);
  EXPECT_EQ(j["budget_bytes"], 8ull << 30);
  EXPECT_EQ(j["budget_source"], "explicit");
  EXPECT_EQ(j["fits"], false);
}

TEST(ServiceEstimate, MlxLmEngineAndItsFields) {
  // The same figures as `memfit preflight generate --engine mlx-lm
  // --prompt-tokens 2048 --max-tokens 128` (tests/cli/mlxlm_cli_test.cc):
  // weights + 2048 slots x 163,840 B + the run-ahead transient (the logits
  // and the buffers in flight before them).
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel}, {"engine", "mlx-lm"},
                                       {"prompt_tokens", 2048}, {"max_tokens", 128}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["engine"], "mlx-lm");
  EXPECT_EQ(j["mlxlm"]["kv_bytes"], 335544320u);
  EXPECT_EQ(j["total_bytes"], 8307783680u + 335544320u + 758798336u);
  HttpResponse fit = service->handle(
      "POST", "/v1/fit", json{{"model", kExampleModel}, {"engine", "mlx-lm"}}.dump());
  EXPECT_EQ(fit.status, 200) << fit.body;
  EXPECT_EQ(body_json(fit)["solve"], "max-tokens");
}

// "compare": true prices the request under every engine, one row each;
// mlx-lm's own fields make the others refuse it, and mlx-lm's row is the
// total above: 8,307,783,680 + 335,544,320 + 1,010,827,264.
TEST(ServiceEstimate, CompareListsEveryEngine) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel}, {"engine", "mlx-lm"},
                                       {"prompt_tokens", 2048}, {"max_tokens", 128},
                                       {"compare", true}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json rows = body_json(r)["compare"];
  ASSERT_EQ(rows.size(), 6u) << r.body;
  EXPECT_EQ(rows[0]["engine"], "mlxcel");
  EXPECT_EQ(rows[0]["priced"], false);
  EXPECT_EQ(rows[0]["refusal"], "prompt_tokens: is an mlx-lm setting: give engine mlx-lm");
  EXPECT_EQ(rows[2]["engine"], "mlx-lm");
  EXPECT_EQ(rows[2]["chosen"], true);
  EXPECT_EQ(rows[2]["total_bytes"], 8307783680u + 335544320u + 758798336u);
  HttpResponse bad = estimate(*service, {{"model", kExampleModel}, {"compare", "yes"}});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(error_message(bad), "compare: must be true or false");
}

// Several models (docs/multi-model.md): the example twice on the fake
// host's 32 GiB (34,359,738,368 B): 2 x 11,764,806,400 = 23,529,612,800 B.
TEST(ServiceEstimate, ModelsTogetherOnTheHostsBudget) {
  auto service = make_service({kExamplesRoot});
  const json two = json::array({{{"model", kExampleModel}}, {{"model", kExampleModel}}});
  HttpResponse r = estimate(*service, {{"models", two}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_json(r);
  EXPECT_EQ(j["models"][1]["model"], kExampleModel);
  EXPECT_EQ(j["models"][1]["total_bytes"], 11764806400u);
  EXPECT_EQ(j["devices"][0]["used_bytes"], 23529612800u);
  EXPECT_EQ(j["devices"][0]["budget_bytes"], 32ull << 30);
  EXPECT_EQ(j["fits"], true);

  HttpResponse compare = estimate(*service, {{"models", two}, {"compare", true}});
  EXPECT_EQ(compare.status, 400) << compare.body;
  EXPECT_EQ(error_message(compare), "compare: takes one model, not models");
  // A model the roots do not hold is refused as alone.
  HttpResponse missing =
      estimate(*service, {{"models", json::array({{{"model", kExampleModel}}, {{"model", "nope"}}})}});
  EXPECT_EQ(missing.status, estimate(*service, {{"model", "nope"}}).status) << missing.body;
  // A model's own field error says which model.
  HttpResponse bad = estimate(
      *service, {{"models", json::array({{{"model", kExampleModel}}, {{"model", kExampleModel}, {"batch", 0}}})}});
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_EQ(error_message(bad),
            std::string("batch: model 2 ('") + kExampleModel + "'): expected a positive integer, got 0");
}

TEST(ServiceEstimate, VllmEngineAndItsFields) {
  // Qwen3-14B with 1 GiB of KV given: a block is 40 layers x 2 x 16 x 8 x
  // 128 x 2 B = 2,621,440 B; 1,073,741,824 / 2,621,440 = 409 blocks, 6,544
  // tokens; 2,048 tokens a request: 128 blocks, 409 / 128 = 3.2x.
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel}, {"engine", "vllm"},
                                       {"kv_cache_memory", "1GiB"}, {"max_model_len", 2048},
                                       {"kv_cache_dtype", "auto"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["vllm"]["num_gpu_blocks"], 409);
  EXPECT_EQ(j["vllm"]["kv_tokens"], 6544);
  EXPECT_EQ(j["vllm"]["blocks_per_request"], 128);
  EXPECT_DOUBLE_EQ(j["vllm"]["max_concurrency"].get<double>(), 409.0 / 128.0);
  // /v1/fit: the largest --max-model-len those 409 blocks hold, one request
  // of 409 x 16 = 6,544 tokens.
  HttpResponse fit = service->handle(
      "POST", "/v1/fit",
      json{{"model", kExampleModel}, {"engine", "vllm"}, {"kv_cache_memory", "1GiB"},
           {"memory_limit", "64GiB"}}
          .dump());
  ASSERT_EQ(fit.status, 200) << fit.body;
  json f = body_json(fit);
  EXPECT_EQ(f["model"], kExampleModel);
  EXPECT_EQ(f["solve"], "max-model-len");
  EXPECT_EQ(f["value"], 6544);
  EXPECT_EQ(f["report"]["vllm"]["num_gpu_blocks"], 409);
  EXPECT_EQ(f["flags"][0], "--max-model-len");
  EXPECT_EQ(f["flags"][1], "6544");
  // No context curve under vllm.
  HttpResponse curve = service->handle(
      "POST", "/v1/fit",
      json{{"model", kExampleModel}, {"engine", "vllm"}, {"kv_cache_memory", "1GiB"},
           {"curve_tokens", {2048}}}
          .dump());
  EXPECT_EQ(curve.status, 400) << curve.body;
  EXPECT_EQ(error_message(curve), "curve_tokens: is a context curve of the mlxcel and llamacpp "
                                  "engines; vllm's fit has none");
  // Under mlxcel the vLLM solves are refused with one line.
  HttpResponse refused = service->handle(
      "POST", "/v1/fit", json{{"model", kExampleModel}, {"solve", "max-num-seqs"}}.dump());
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(error_message(refused),
            "solve: /v1/fit solves max-tokens under mlxcel; ctx-size and parallel are llamacpp's, "
            "max-model-len and max-num-seqs vllm's");
}

TEST(ServiceEstimate, ServiceMemoryLimitIsTheBudget) {
  auto service = make_service({kExamplesRoot}, 48ull << 30);
  json j = body_json(estimate(*service, {{"model", kExampleModel}}));
  EXPECT_EQ(j["budget_bytes"], 48ull << 30);
  EXPECT_EQ(j["budget_source"], "explicit");
  // The request's own limit wins.
  j = body_json(estimate(*service, {{"model", kExampleModel}, {"memory_limit", 1024}}));
  EXPECT_EQ(j["budget_bytes"], 1024);
}

TEST(ServiceEstimate, MixedCacheTypesAreSizedAtFp16WithAWarning) {
  auto service = make_service({kExamplesRoot});
  json j = body_json(estimate(
      *service, {{"model", kExampleModel}, {"cache_type_k", "q8_0"}, {"cache_type_v", "f16"}}));
  EXPECT_EQ(j["kv_bytes_total"], 1342177280u);
  // The request's warning first, then the model's (the index is unverified).
  ASSERT_EQ(j["warnings"].size(), 2u);
  EXPECT_EQ(j["warnings"][0],
            "the K and V cache types differ: the KV cache is sized at the wider type, fp16");
}

// The service and the CLI call the same library with the same inputs: every
// field agrees except the model name as given and the host's live
// ram_available_bytes.
TEST(ServiceEstimate, MatchesInspectJson) {
  ServiceOptions options;
  options.model_roots = {kExamplesRoot};
  std::vector<std::string> warnings;
  options.settings =
      mlxcel_settings_from_environment(MapEnvironment{{"MEMFIT_MEMORY_LIMIT", "48GB"}}, warnings);
  auto service = make_service(std::move(options));  // the real host, as the CLI sees it

  for (const auto& [args, body] : std::vector<std::pair<std::vector<std::string>, json>>{
           {{}, json::object()},
           {{"--max-tokens", "32768", "--batch", "3", "--kv-cache-mode", "int8", "--quant", "int4"},
            {{"max_tokens", 32768}, {"batch", 3}, {"kv_cache_mode", "int8"}, {"quant", "int4"}}},
           {{"--max-tokens", "100"}, {{"max_tokens", 100}}},
       }) {
    std::vector<std::string> argv = {"inspect", "--json", "-m",
                                     kExamplesRoot + "/" + kExampleModel};
    argv.insert(argv.end(), args.begin(), args.end());
    testing::CommandResult cli = testing::run_memfit(argv, {{"MEMFIT_MEMORY_LIMIT", "48GB"}});
    ASSERT_EQ(cli.exit_code, 0) << cli.err;
    json from_cli = json::parse(cli.out);

    json request = body;
    request["model"] = kExampleModel;
    HttpResponse r = estimate(*service, request);
    ASSERT_EQ(r.status, 200) << r.body;
    json from_service = body_json(r);

    for (json* j : {&from_cli, &from_service}) {
      j->erase("model");
      j->erase("ram_available_bytes");
    }
    EXPECT_EQ(from_service, from_cli) << "args: " << ::testing::PrintToString(args);
    EXPECT_EQ(from_service["budget_source"], "explicit");
  }
}

TEST(ServiceEstimate, OneCacheEntryPerRealPath) {
  auto service = make_service({kExamplesRoot});
  const std::string absolute = kExamplesRoot + "/" + kExampleModel;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(estimate(*service, {{"model", kExampleModel}}).status, 200);
    ASSERT_EQ(estimate(*service, {{"model", absolute}}).status, 200);
    ASSERT_EQ(estimate(*service, {{"model", std::string("./") + kExampleModel + "/"}}).status, 200);
  }
  const std::string metrics = service->handle("GET", "/metrics", "").body;
  EXPECT_NE(metrics.find("\nmemfit_cached_models 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nmemfit_model_opens_total 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("memfit_model_estimates_total{model=\"Qwen3-14B-MLX-4bit\"} 9\n"),
            std::string::npos)
      << metrics;
}

// The name as given, but a path under a root relative to it: no answer
// names a folder of the server (docs/service.md, "No server paths in
// answers"), not even one the client sent.
TEST(ServiceEstimate, EchoesTheModelNameAsGiven) {
  auto service = make_service({kExamplesRoot});
  EXPECT_EQ(body_json(estimate(*service, {{"model", "./" + std::string(kExampleModel)}}))["model"],
            "./" + std::string(kExampleModel));
  const std::string absolute = kExamplesRoot + "/" + kExampleModel;
  EXPECT_EQ(body_json(estimate(*service, {{"model", absolute}}))["model"], kExampleModel);
}

struct BadBody {
  std::string body;
  std::string message;
};

TEST(ServiceEstimate, MalformedBodiesAndWrongTypesAreBadRequests) {
  auto service = make_service({kExamplesRoot});
  const std::string m = std::string("\"model\":\"") + kExampleModel + "\"";
  const std::vector<BadBody> cases = {
      {"[1]", "request body must be a JSON object"},
      {"\"text\"", "request body must be a JSON object"},
      {"{\"max_tokens\":8192}", "model: required"},
      {"{\"model\":null}", "model: required"},
      {"{\"model\":5}", "model: expected a string, got 5"},
      {"{" + m + ",\"max_tokens\":\"abc\"}",
       "max_tokens: expected a positive integer, got \"abc\""},
      {"{" + m + ",\"max_tokens\":-1}", "max_tokens: expected a positive integer, got -1"},
      {"{" + m + ",\"max_tokens\":0}", "max_tokens: expected a positive integer, got 0"},
      {"{" + m + ",\"max_tokens\":1.5}", "max_tokens: expected a positive integer, got 1.5"},
      {"{" + m + ",\"max_tokens\":\"8192\"}",
       "max_tokens: expected a positive integer, got \"8192\""},
      {"{" + m + ",\"max_tokens\":1e30}", "max_tokens: expected a positive integer, got 1e+30"},
      {"{" + m + ",\"batch\":0}", "batch: expected a positive integer, got 0"},
      {"{" + m + ",\"batch\":true}", "batch: expected a positive integer, got true"},
      {"{" + m + ",\"kv_cache_mode\":\"fp8\"}",
       "kv_cache_mode: 'fp8': expected fp16 or int8"},
      {"{" + m + ",\"kv_cache_mode\":8}", "kv_cache_mode: expected a string, got 8"},
      {"{" + m + ",\"cache_type_k\":\"q8_0\"}", "cache_type_k: and cache_type_v go together: give both or neither"},
      {"{" + m + ",\"kv_cache_mode\":\"fp16\",\"cache_type_k\":\"q8_0\",\"cache_type_v\":\"q8_0\"}",
       "the KV cache mode disagrees with the K and V cache types"},
      {"{" + m + ",\"quant\":\"int3\"}",
       "quant: 'int3': expected " + std::string(kMlxWeightModesText) + ", or a GGUF file type (" +
           kGgufTypes + ")"},
      {"{" + m + ",\"backend\":\"tpu\"}",
       "backend: 'tpu': expected auto, rocm, metal, cuda or cpu"},
      {"{" + m + ",\"memory_limit\":[1]}",
       "memory_limit: expected a size such as \"48GiB\" or bytes, got [1]"},
      {"{" + m + ",\"max_token\":5}", "unknown field 'max_token'"},
      {"{" + m + ",\"model_path\":\"x\"}", "unknown field 'model_path'"},
  };
  for (const BadBody& c : cases) {
    HttpResponse r = service->handle("POST", "/v1/estimate", c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(error_code(r), "bad_request") << c.body;
    EXPECT_EQ(error_message(r), c.message) << c.body;
  }
}

TEST(ServiceEstimate, InvalidJsonNamesWhereItBroke) {
  auto service = make_service({kExamplesRoot});
  for (const std::string body : {"", "not json", "{\"model\":", "{\"model\":\"a\",}", "{} {}"}) {
    HttpResponse r = service->handle("POST", "/v1/estimate", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_EQ(error_code(r), "bad_request");
    EXPECT_EQ(
        error_message(r).rfind("request body is not valid JSON: parse error at line 1, column ", 0),
        0u)
        << error_message(r);
  }
}

TEST(ServiceEstimate, DeepNestingIsRefusedBeforeParsing) {
  auto service = make_service({kExamplesRoot});
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  HttpResponse r = service->handle("POST", "/v1/estimate", deep);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r), "request body nests deeper than 32 levels");
  // Brackets inside strings do not count.
  const std::string in_string = "{\"model\":\"" + std::string(100, '[') + "\"}";
  EXPECT_EQ(error_code(service->handle("POST", "/v1/estimate", in_string)), "model_not_found");
}

TEST(ServiceEstimate, BadMemoryLimitText) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel}, {"memory_limit", "lots"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_message(r).rfind("memory_limit: ", 0), 0u) << error_message(r);
}

TEST(ServiceEstimate, OverflowingInputsAreUnprocessable) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = estimate(*service, {{"model", kExampleModel},
                                       {"max_tokens", 18446744073709551615ull},
                                       {"batch", 18446744073709551615ull}});
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(error_code(r), "estimate_failed");
  EXPECT_EQ(error_message(r).rfind("'" + std::string(kExampleModel) + "': ", 0), 0u)
      << error_message(r);
}

}  // namespace
}  // namespace memfit
