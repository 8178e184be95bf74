// POST /v1/fit through Service::handle: the largest context that fits per
// KV mode and the totals along a context curve, against figures worked by
// hand for the bundled example (Qwen3-14B-MLX-4bit):
//
//   weights W = 8,307,783,680 B (the index's total_size)
//   KV per 256-token block, batch 1: fp16 40 x 2 x 8 x 128 x 2 x 256 =
//     41,943,040 B; int8 20,971,520 B
//   activation A (context >= 2048, batch 1) = 2 x 2048 x (5120 + 17408) x 2
//     + 151936 x 2 = 184,853,248 B
//   total = 1.2 x (W + KV) + A, budget B = 16 GiB = 17,179,869,184 B
//
//   fits when W + KV <= (B - A) / 1.2 = 14,162,513,280, so KV <= 5,854,729,600:
//     fp16 floor(5,854,729,600 / 41,943,040) = 139 blocks = 35,584 tokens
//     int8 floor(5,854,729,600 / 20,971,520) = 279 blocks = 71,424 tokens
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "service/service_fixture.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::error_code;
using testing::error_message;
using testing::kExampleModel;
using testing::kExamplesRoot;
using testing::make_service;

constexpr uint64_t k16GiB = 16ull << 30;

HttpResponse fit(Service& service, const json& body) {
  return service.handle("POST", "/v1/fit", body.dump());
}

TEST(ServiceFit, LargestContextPerKvModeAtSixteenGiB) {
  auto service = make_service({kExamplesRoot}, k16GiB);
  HttpResponse r = fit(*service, {{"model", kExampleModel}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  json j = body_json(r);
  EXPECT_EQ(j["model"], kExampleModel);
  EXPECT_EQ(j["batch"], 1);
  EXPECT_EQ(j["budget_bytes"], k16GiB);
  EXPECT_EQ(j["budget_source"], "explicit");
  EXPECT_EQ(j["max_tokens_ceiling"], 1u << 30);
  // The model's own context, for the page to cap at: max_position_embeddings
  // 40,960 and no rope_scaling.
  EXPECT_EQ(j["context_limit_tokens"], 40960);
  ASSERT_EQ(j["by_kv_mode"].size(), 2u);

  const json& fp16 = j["by_kv_mode"][0];
  EXPECT_EQ(fp16["kv_cache_mode"], "fp16");
  EXPECT_EQ(fp16["max_tokens"], 35584);
  EXPECT_EQ(fp16["capped"], false);
  // 139 blocks: W + KV = 8,307,783,680 + 5,830,082,560 = 14,137,866,240;
  // x 1.2 = 16,965,439,488; + A = 17,150,292,736.
  EXPECT_EQ(fp16["total_bytes"], 17150292736u);
  EXPECT_EQ(fp16["curve"], json::array());

  const json& int8 = j["by_kv_mode"][1];
  EXPECT_EQ(int8["kv_cache_mode"], "int8");
  EXPECT_EQ(int8["max_tokens"], 71424);
  EXPECT_EQ(int8["capped"], false);
  // 279 blocks: W + KV = 14,158,837,760; x 1.2 + A = 17,175,458,560.
  EXPECT_EQ(int8["total_bytes"], 17175458560u);
}

TEST(ServiceFit, CurvePointsAreTheEstimatesTotals) {
  auto service = make_service({kExamplesRoot}, k16GiB);
  HttpResponse r =
      fit(*service, {{"model", kExampleModel}, {"curve_tokens", {8192, 1, 35584, 35585}}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  // fp16, in the order asked:
  //   8192: the defaults' 11,764,806,400.
  //   1: one block; activation 2 x 1 x 22528 x 2 + 303,872 = 393,984;
  //      1.2 x (W + 41,943,040) + 393,984 = 10,020,066,048.
  //   35584 fits (above); 35585 takes a 140th block: 17,200,624,384 > B.
  const json expected_fp16 = json::array({
      {{"max_tokens", 8192}, {"total_bytes", 11764806400u}, {"fits", true}},
      {{"max_tokens", 1}, {"total_bytes", 10020066048u}, {"fits", true}},
      {{"max_tokens", 35584}, {"total_bytes", 17150292736u}, {"fits", true}},
      {{"max_tokens", 35585}, {"total_bytes", 17200624384u}, {"fits", false}},
  });
  EXPECT_EQ(j["by_kv_mode"][0]["curve"], expected_fp16);
  // int8 at 8192: 1.2 x (W + 671,088,640) + A = 10,959,500,032.
  EXPECT_EQ(j["by_kv_mode"][1]["curve"][0],
            (json{{"max_tokens", 8192}, {"total_bytes", 10959500032u}, {"fits", true}}));

  // Each point is what /v1/estimate answers for the same inputs.
  for (const json& mode : j["by_kv_mode"]) {
    for (const json& point : mode["curve"]) {
      HttpResponse e = service->handle("POST", "/v1/estimate",
                                       json{{"model", kExampleModel},
                                            {"max_tokens", point["max_tokens"]},
                                            {"kv_cache_mode", mode["kv_cache_mode"]}}
                                           .dump());
      ASSERT_EQ(e.status, 200) << e.body;
      EXPECT_EQ(body_json(e)["total_bytes"], point["total_bytes"]) << point;
      EXPECT_EQ(body_json(e)["fits"], point["fits"]) << point;
    }
  }
}

TEST(ServiceFit, BatchAndRequestBudgetReachTheSolver) {
  auto service = make_service({kExamplesRoot});  // the fake host's 32 GiB
  // Batch 2 at 16 GiB doubles KV per block (fp16 83,886,080 B) and the
  // activation (A = 369,706,496 B): W + KV <= (B - A) / 1.2 =
  // 14,008,468,906, KV <= 5,700,685,226: fp16 67 blocks = 17,152 tokens,
  // int8 135 blocks = 34,560 tokens.
  HttpResponse r =
      fit(*service, {{"model", kExampleModel}, {"batch", 2}, {"memory_limit", "16GiB"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["batch"], 2);
  EXPECT_EQ(j["budget_bytes"], k16GiB);
  EXPECT_EQ(j["by_kv_mode"][0]["max_tokens"], 17152);
  EXPECT_EQ(j["by_kv_mode"][1]["max_tokens"], 34560);

  // Without a limit the budget is the host's.
  json host = body_json(fit(*service, {{"model", kExampleModel}}));
  EXPECT_EQ(host["budget_bytes"], 32ull << 30);
  EXPECT_EQ(host["budget_source"], "meminfo_available");
}

TEST(ServiceFit, NothingFitsIsNull) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = fit(*service, {{"model", kExampleModel}, {"memory_limit", "4GiB"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = body_json(r);  // the loop below reads into it: it must outlive the loop
  for (const json& mode : body["by_kv_mode"]) {
    EXPECT_TRUE(mode["max_tokens"].is_null()) << mode;
    EXPECT_TRUE(mode["total_bytes"].is_null()) << mode;
    EXPECT_EQ(mode["capped"], false);
  }
}

TEST(ServiceFit, RefusedBodies) {
  auto service = make_service({kExamplesRoot});
  struct Case {
    json body;
    std::string message;
  };
  const std::string curve_expectation =
      "curve_tokens: expected an array of at most 256 integers from 1 to 1073741824, got ";
  for (const Case& c : std::vector<Case>{
           {json{{"batch", 1}}, "model: required"},
           {json{{"model", kExampleModel}, {"max_tokens", 8192}}, "unknown field 'max_tokens'"},
           {json{{"model", kExampleModel}, {"kv_cache_mode", "int8"}},
            "unknown field 'kv_cache_mode'"},
           {json{{"model", kExampleModel}, {"batch", 0}},
            "batch: expected a positive integer, got 0"},
           {json{{"model", kExampleModel}, {"curve_tokens", 8192}}, curve_expectation + "8192"},
           {json{{"model", kExampleModel}, {"curve_tokens", {1, 0}}}, curve_expectation + "0"},
           {json{{"model", kExampleModel}, {"curve_tokens", {"8192"}}},
            curve_expectation + "\"8192\""},
           {json{{"model", kExampleModel}, {"curve_tokens", {(1u << 30) + 1}}},
            curve_expectation + "1073741825"},
           {json{{"model", kExampleModel}, {"curve_tokens", std::vector<int>(257, 1)}},
            curve_expectation + "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1..."},
       }) {
    HttpResponse r = fit(*service, c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(error_code(r), "bad_request") << c.body;
    EXPECT_EQ(error_message(r), c.message) << c.body;
  }
  // 256 points is the most, and allowed.
  EXPECT_EQ(
      fit(*service, {{"model", kExampleModel}, {"curve_tokens", std::vector<int>(256, 1)}}).status,
      200);
  HttpResponse missing = fit(*service, {{"model", "no-such-model"}});
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(error_code(missing), "model_not_found");
  HttpResponse get = service->handle("GET", "/v1/fit", "");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(error_message(get), "/v1/fit accepts POST, not 'GET'");
}

// A llamacpp request (the GGUF model's default): fit's llamacpp object
// (llamacpp_fit.h) with "model" in front. Budgets are /v1/estimate's
// total at a known answer, so the figures hold whatever the compute model
// says. Qwen3-8B (tests/support/small_ggufs.h): f16 KV 147,456 B per cell.
class ServiceFitLlamaCpp : public ::testing::Test {
 protected:
  void SetUp() override { qwen3_8b_gguf().write(root_.file_path("qwen3-8b.gguf")); }

  json estimate(json body) {
    body["model"] = "qwen3-8b.gguf";
    HttpResponse r = service_->handle("POST", "/v1/estimate", body.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return body_json(r);
  }

  HttpResponse fit(json body) {
    body["model"] = "qwen3-8b.gguf";
    return service_->handle("POST", "/v1/fit", body.dump());
  }

  TempDir root_;
  std::unique_ptr<Service> service_ = make_service({root_.path()}, k16GiB);
};

TEST_F(ServiceFitLlamaCpp, LargestCtxSizePerCacheTypeAndTheServerFlags) {
  // 16,384 fits exactly; 16,385 pads to 16,640 cells.
  const uint64_t budget = estimate({{"ctx_size", 16384}})["total_bytes"];
  HttpResponse r = fit({{"memory_limit", budget}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_json(r);
  EXPECT_EQ(nlohmann::ordered_json::parse(r.body).begin().key(), "model");
  EXPECT_EQ(j["model"], "qwen3-8b.gguf");
  EXPECT_EQ(j["solve"], "ctx-size");
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["value"], 16384);
  EXPECT_EQ(j["cache_type"], "f16");
  EXPECT_EQ(j["capped"], false);
  EXPECT_EQ(j["budget_bytes"], budget);
  EXPECT_EQ(j["budget_source"], "explicit");
  EXPECT_EQ(j["flags"], json::array({"-c", "16384", "-np", "1"}));
  EXPECT_EQ(j["report"]["total_bytes"], budget);
  ASSERT_EQ(j["by_cache_type"].size(), 3u);
  EXPECT_EQ(j["by_cache_type"][0]["cache_type"], "f16");
  EXPECT_EQ(j["by_cache_type"][0]["value"], 16384);
  EXPECT_EQ(j["by_cache_type"][0]["capped"], false);
  // The row's speed, as the report gives it: no machine here, so unknown.
  EXPECT_EQ(j["by_cache_type"][0]["speed"]["unknown"], "give --gpu or --mac");
  EXPECT_EQ(j["by_cache_type"][1]["cache_type"], "q8_0");
  EXPECT_EQ(j["by_cache_type"][2]["cache_type"], "q4_0");
  EXPECT_FALSE(j["by_cache_type"][0].contains("curve"));
  EXPECT_GT(estimate({{"ctx_size", 16385}})["total_bytes"], budget);

  // The asked cache type is the answer.
  const uint64_t q8_budget =
      estimate({{"ctx_size", 16384}, {"cache_type_k", "q8_0"}, {"cache_type_v", "q8_0"}})["total_bytes"];
  const json q8 = body_json(fit({{"memory_limit", q8_budget}, {"cache_type_k", "q8_0"}, {"cache_type_v", "q8_0"}}));
  EXPECT_EQ(q8["cache_type"], "q8_0");
  EXPECT_EQ(q8["value"], 16384);
  EXPECT_EQ(q8["flags"], json::array({"-c", "16384", "-np", "1", "-ctk", "q8_0", "-ctv", "q8_0"}));
}

TEST_F(ServiceFitLlamaCpp, ParallelAtAContext) {
  // At the total of -c 16384 -np 4, 4 sequences fit; the answer is the
  // largest count whose estimate is within the budget.
  const uint64_t budget = estimate({{"ctx_size", 16384}, {"parallel", 4}})["total_bytes"];
  HttpResponse r = fit({{"solve", "slots"}, {"ctx_size", 16384}, {"memory_limit", budget}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_json(r);
  EXPECT_EQ(j["solve"], "parallel");
  ASSERT_TRUE(j["value"].is_number());
  const uint64_t n = j["value"];
  EXPECT_GE(n, 4u);
  EXPECT_EQ(j["report"]["inputs"]["n_seq"], n);
  EXPECT_EQ(j["report"]["total_bytes"], estimate({{"ctx_size", 16384}, {"parallel", n}})["total_bytes"]);
  EXPECT_LE(j["report"]["total_bytes"], budget);
  EXPECT_EQ(j["flags"], json::array({"-c", "16384", "-np", std::to_string(n)}));
}

TEST_F(ServiceFitLlamaCpp, CurvePointsAreTheEstimatesTotals) {
  const uint64_t budget = estimate({{"ctx_size", 16384}})["total_bytes"];
  HttpResponse r = fit({{"memory_limit", budget}, {"curve_tokens", {16384, 16385, 1}}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_json(r);
  const json& f16 = j["by_cache_type"][0]["curve"];
  ASSERT_EQ(f16.size(), 3u);
  EXPECT_EQ(f16[0], (json{{"ctx_size", 16384}, {"total_bytes", budget}, {"fits", true}}));
  EXPECT_EQ(f16[1]["ctx_size"], 16385);
  EXPECT_EQ(f16[1]["fits"], false);
  // Each point is /v1/estimate's total at that --ctx-size and the row's type.
  for (const json& row : j["by_cache_type"]) {
    ASSERT_EQ(row["curve"].size(), 3u) << row;
    for (const json& point : row["curve"]) {
      const json e = estimate({{"ctx_size", point["ctx_size"]},
                               {"cache_type_k", row["cache_type"]},
                               {"cache_type_v", row["cache_type"]},
                               {"memory_limit", budget}});
      EXPECT_EQ(e["total_bytes"], point["total_bytes"]) << row["cache_type"] << point;
      EXPECT_EQ(e["fits"], point["fits"]) << row["cache_type"] << point;
    }
  }
}

TEST_F(ServiceFitLlamaCpp, RefusedBodies) {
  struct Case {
    json body;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {json{{"solve", "batch"}},
            "solve: batch is an mlxcel solve; llamacpp solves ctx-size (or max-tokens), "
            "parallel (or slots), gpu-layers and n-cpu-moe"},
           {json{{"solve", "parallel"}, {"ctx_size", 4096}, {"curve_tokens", {1}}},
            "curve_tokens: is a --ctx-size curve: give it with solve ctx-size"},
           {json{{"ctx_size", 4096}}, "ctx_size: is what solving ctx-size finds: leave it out"},
           {json{{"solve", "parallel"}, {"parallel", 2}},
            "parallel: is what solving parallel finds: leave it out"},
           {json{{"solve", 3}}, "solve: expected a string, got 3"},
           {json{{"max_tokens", 8192}}, "unknown field 'max_tokens'"},
       }) {
    HttpResponse r = fit(c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(error_code(r), "bad_request") << c.body;
    EXPECT_EQ(error_message(r), c.message) << c.body;
  }
}

TEST(ServiceFit, LlamaCppFieldsAreRefusedUnderMlxcel) {
  auto service = make_service({kExamplesRoot}, k16GiB);
  struct Case {
    json body;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {json{{"model", kExampleModel}, {"solve", "parallel"}},
            "solve: /v1/fit solves max-tokens under mlxcel; ctx-size and parallel are llamacpp's, "
            "max-model-len and max-num-seqs vllm's"},
           {json{{"model", kExampleModel}, {"cache_type_k", "int8"}, {"cache_type_v", "int8"}},
            "cache_type_k: /v1/fit answers for every KV mode under mlxcel (by_kv_mode); cache "
            "types are read under llamacpp"},
           {json{{"model", kExampleModel}, {"ctx_size", 4096}},
            "ctx_size: is a llama.cpp setting: give engine llamacpp"},
       }) {
    HttpResponse r = fit(*service, c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(error_message(r), c.message) << c.body;
  }
  // solve max-tokens is what mlxcel answers anyway: the same body.
  EXPECT_EQ(fit(*service, {{"model", kExampleModel}, {"solve", "max-tokens"}}).body,
            fit(*service, {{"model", kExampleModel}}).body);
}

// "command": "recommend-quant": the engine's recommend_quant hook, as
// memfit recommend-quant --json answers it. Under mlx-lm on the 4-bit
// example: 4-bit is not smaller than the checkpoint, the as-is row is
// /v1/estimate's peak for the same request.
TEST(ServiceFit, RecommendQuantUnderMlxLm) {
  auto service = make_service({kExamplesRoot}, k16GiB);
  const json request = {{"model", kExampleModel}, {"engine", "mlx-lm"},
                        {"prompt_tokens", 2048}, {"max_tokens", 128}};
  json body = request;
  body["command"] = "recommend-quant";
  body["bits"] = {4, 3};
  body["group_size"] = 64;
  HttpResponse r = fit(*service, body);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = body_json(r);
  EXPECT_EQ(j["model"], kExampleModel);
  EXPECT_EQ(j["engine"], "mlx-lm");
  ASSERT_EQ(j["candidates"].size(), 3u);
  EXPECT_EQ(j["candidates"][1]["mode"], "4-bit g64");
  EXPECT_EQ(j["candidates"][1]["smaller_than_source"], false);
  EXPECT_EQ(j["candidates"][2]["mode"], "3-bit g64");
  EXPECT_EQ(j["candidates"][2]["smaller_than_source"], true);
  EXPECT_EQ(j["recommended"], "as-is");
  HttpResponse e = service->handle("POST", "/v1/estimate", request.dump());
  ASSERT_EQ(e.status, 200) << e.body;
  EXPECT_EQ(j["candidates"][0]["total_bytes"], body_json(e)["total_bytes"]);

  json plot = {{"model", kExampleModel}, {"command", "plot"}};
  HttpResponse bad = fit(*service, plot);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(error_message(bad).rfind("command: expected fit or recommend-quant, got ", 0), 0u)
      << error_message(bad);
}

}  // namespace
}  // namespace memfit
