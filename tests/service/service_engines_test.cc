// GET /v1/engines: the engines and their request fields as the calculator
// page reads them, against schema/engines.schema.json and worked values.
#include <gtest/gtest.h>

#include <string>

#include "service/service_fixture.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::make_service;

TEST(ServiceEngines, ListsTheSixEnginesAndTheirFields) {
  auto service = make_service(std::vector<std::string>{});
  ASSERT_NE(service, nullptr);
  HttpResponse r = service->handle("GET", "/v1/engines", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  const json answer = body_json(r);
  ASSERT_EQ(answer["engines"].size(), 6u);
  std::vector<std::string> names;
  for (const json& engine : answer["engines"]) names.push_back(engine["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"mlxcel", "llamacpp", "mlx-lm", "vllm", "sglang", "ollama"}));
  // mlxcel owns no field; 32 llama.cpp's, 10 mlx-lm's, 20 vLLM's (the five LoRA ones and the two
  // Mamba state dtypes among them),
  // SGLang's 23 (4 of the hybrid models' state pool, attention_backend, enable_dp_lm_head, max_total_tokens,
  // disable_piecewise_cuda_graph, ep_size, moe_a2a_backend, disaggregation_mode and
  // enable_hierarchical_cache), 12 Ollama's; 18 common.
  EXPECT_EQ(answer["engines"][0]["fields"].size(), 0u);
  EXPECT_EQ(answer["engines"][1]["fields"].size(), 32u);  // llamacpp_version and embedding among them
  EXPECT_EQ(answer["engines"][2]["fields"].size(), 10u);  // the MLX buffer limits among them
  EXPECT_EQ(answer["engines"][2]["versions"]["field"], "mlx_lm_version");
  EXPECT_EQ(answer["engines"][3]["fields"].size(), 20u);  // runner, the LoRA ones and the Mamba dtypes among them
  EXPECT_EQ(answer["engines"][4]["fields"].size(), 23u);
  EXPECT_EQ(answer["engines"][4]["versions"]["field"], "sglang_version");
  EXPECT_EQ(answer["engines"][5]["fields"].size(), 13u);  // ollama_version, use_mmap and ollama_gpu_arch among them
  EXPECT_EQ(answer["engines"][5]["versions"]["field"], "ollama_version");
  EXPECT_EQ(answer["common_fields"].size(), 18u);  // gpu, mac, host_bandwidth_gb_s and confidence among them
  EXPECT_EQ(answer["engines"][0]["default_for"], "models that are not GGUF");
  EXPECT_EQ(answer["engines"][2]["default_for"], nullptr);
  // vLLM's utilization: a ratio with its default, no range in counts.
  const json& utilization = answer["engines"][3]["fields"][0];
  EXPECT_EQ(utilization["name"], "gpu_memory_utilization");
  EXPECT_EQ(utilization["type"], "ratio");
  EXPECT_EQ(utilization["default"], "0.92");  // the current line's (vllm#38284)
  EXPECT_EQ(utilization["min"], nullptr);
  // The engine field's choices are the names a request may give.
  const json& engine = answer["common_fields"][1];
  EXPECT_EQ(engine["name"], "engine");
  EXPECT_EQ(engine["choices"], json({"auto", "mlxcel", "llamacpp", "mlx-lm", "vllm", "sglang"}));
  EXPECT_EQ(answer["common_fields"][0]["required"], true);
  // Each field says whether it is a GPU setting, the page's GPU section:
  // vLLM's utilization is; llama.cpp's -ngl is, its --ctx-size is not; no
  // common field and none of mlx-lm's is.
  EXPECT_EQ(utilization["gpu_setting"], true);
  for (const json& field : answer["engines"][1]["fields"]) {
    if (field["name"] == "n_gpu_layers") {
      EXPECT_EQ(field["gpu_setting"], true);
    }
    if (field["name"] == "ctx_size") {
      EXPECT_EQ(field["gpu_setting"], false);
    }
  }
  for (const json& field : answer["engines"][2]["fields"]) EXPECT_EQ(field["gpu_setting"], false);
  for (const json& field : answer["common_fields"]) EXPECT_EQ(field["gpu_setting"], false);
}

TEST(ServiceEngines, AnswerMatchesItsSchema) {
  auto service = make_service(std::vector<std::string>{});
  ASSERT_NE(service, nullptr);
  TempDir dir;
  const std::string answer = dir.write_file("engines.json", service->handle("GET", "/v1/engines", "").body);
  testing::CommandResult check = testing::run_command(
      {"/usr/bin/env", "python3", "-c",
       "import json, sys, jsonschema\n"
       "schema = json.load(open(sys.argv[1]))\n"
       "jsonschema.Draft202012Validator.check_schema(schema)\n"
       "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
       " cls=jsonschema.Draft202012Validator)\n",
       std::string(MEMFIT_SOURCE_DIR) + "/schema/engines.schema.json", answer});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST(ServiceEngines, OnlyGet) {
  auto service = make_service(std::vector<std::string>{});
  ASSERT_NE(service, nullptr);
  HttpResponse r = service->handle("POST", "/v1/engines", "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(testing::error_message(r), "/v1/engines accepts GET, not 'POST'");
}

}  // namespace
}  // namespace memfit
