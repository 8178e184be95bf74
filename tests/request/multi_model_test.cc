// run_models() over a fake GPU host: the per-device sums, the budget a
// device takes, vLLM's reserved fractions, and which model an error names
// (docs/multi-model.md).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "memfit/model_spec.h"
#include "memfit/multi_model.h"
#include "memfit/request_json.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;

// A Qwen3-0.6B-shaped spec with 2 GiB of weights: 28 layers, 8 KV heads of
// 128, hidden 1024; small enough that vLLM starts at a quarter of 24 GiB.
ModelSpec small_spec() {
  Result<ModelSpec> spec = parse_model_config(R"({
    "model_type": "qwen3", "num_hidden_layers": 28, "hidden_size": 1024,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "intermediate_size": 3072, "vocab_size": 151936, "max_position_embeddings": 40960})");
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

// One 24 GiB GPU, cuda:0, whose budget is `budget_bytes`; every name opens
// the same small model, but the name in open_error.
class FakeGpuContext : public RequestContext {
 public:
  explicit FakeGpuContext(uint64_t budget_bytes = 24 * kGiB) {
    model_.path = "/models/small";
    model_.has_config = true;
    model_.spec = small_spec();
    model_.weights.bytes = 2 * kGiB;
    model_.weights.source = WeightsSource::kSafetensorsHeader;
    host_.os = "linux";
    host_.ram_total_bytes = 64 * kGiB;
    host_.ram_available_bytes = 48 * kGiB;
    host_.budget_bytes = budget_bytes;
    host_.budget_source = BudgetSource::kGpu;
    host_.device = "cuda:0";
  }

  Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                  const OpenModelOptions&) override {
    if (name == failing_name) return Error("config.json: not JSON");
    return std::shared_ptr<const Model>(std::make_shared<Model>(model_));
  }
  const MlxcelSettings& settings() const override { return settings_; }
  const std::vector<std::string>& settings_warnings() const override { return warnings_; }
  Platform platform() const override { return Platform{}; }
  HostMemoryStatus host_memory(const DeviceSelector&, std::optional<uint64_t> limit) override {
    HostMemoryStatus status = host_;
    if (limit) apply_explicit_limit(status, *limit);
    return status;
  }

  std::string failing_name;

 private:
  Model model_;
  HostMemoryStatus host_;
  MlxcelSettings settings_;
  std::vector<std::string> warnings_;
};

// vLLM on a 24 GiB GPU without CUDA graphs: its peak is utilization x
// total exactly (docs/engine-vllm.md, "Terms, per rank").
EstimateRequest vllm_at(std::string model, double utilization) {
  EstimateRequest r;
  r.model = std::move(model);
  r.engine = "vllm";
  r.vllm.gpu_memory_total = 24 * kGiB;
  r.vllm.gpu_memory_utilization = utilization;
  r.vllm.enforce_eager = true;
  r.vllm.max_model_len = 4096;
  return r;
}

TEST(MultiModel, TwoVllmServersOnOneGpuAddTheirBytesAndFractions) {
  FakeGpuContext context;
  const std::vector<EstimateRequest> requests = {vllm_at("chat", 0.5), vllm_at("draft", 0.25)};
  Result<MultiModelRun> together = run_models(requests, context);
  ASSERT_TRUE(together.ok()) << together.error().message();
  ASSERT_EQ(together->runs.size(), 2u);
  // 0.5 x 24 GiB = 12 GiB = 12,884,901,888 B; 0.25 x 24 GiB = 6 GiB =
  // 6,442,450,944 B; together 19,327,352,832 B of the 24 GiB
  // (25,769,803,776 B) vLLM was given as the GPU's total.
  EXPECT_EQ(together->runs[0].vllm->total_bytes, 12884901888u);
  EXPECT_EQ(together->runs[1].vllm->total_bytes, 6442450944u);
  ASSERT_EQ(together->devices.size(), 1u);
  const SharedDevice& gpu = together->devices[0];
  EXPECT_EQ(gpu.device, "cuda:0");
  EXPECT_EQ(gpu.used_bytes, 19327352832u);
  EXPECT_EQ(gpu.budget_bytes, 25769803776u);
  EXPECT_DOUBLE_EQ(gpu.reserved_fraction, 0.75);  // 0.5 + 0.25
  ASSERT_EQ(gpu.models.size(), 2u);
  EXPECT_EQ(gpu.models[1].model, 1u);
  EXPECT_EQ(gpu.models[1].bytes, 6442450944u);
  EXPECT_EQ(*gpu.models[1].reserved_fraction, 0.25);
  EXPECT_TRUE(gpu.fits);
  EXPECT_TRUE(together->fits);
  EXPECT_TRUE(together->warnings.empty());
}

TEST(MultiModel, VllmFractionsPastOneDoNotFitWhateverTheBytes) {
  // A 48 GiB limit holds 0.5 x 24 + 0.75 x 24 = 30 GiB (32,212,254,720 B),
  // but the two servers reserve 1.25 of the GPU: the second cannot start.
  FakeGpuContext context;
  std::vector<EstimateRequest> requests = {vllm_at("chat", 0.5), vllm_at("draft", 0.75)};
  for (EstimateRequest& r : requests) r.memory_limit_bytes = 48 * kGiB;
  Result<MultiModelRun> together = run_models(requests, context);
  ASSERT_TRUE(together.ok()) << together.error().message();
  const SharedDevice& gpu = together->devices[0];
  EXPECT_EQ(gpu.used_bytes, 32212254720u);
  EXPECT_EQ(gpu.budget_bytes, 48 * kGiB);
  EXPECT_DOUBLE_EQ(gpu.reserved_fraction, 1.25);
  EXPECT_FALSE(gpu.fits);
  EXPECT_FALSE(together->fits);
  ASSERT_EQ(together->warnings.size(), 1u);
  EXPECT_EQ(together->warnings[0].text,
            "cuda:0: the fractions the models reserve add to 1.25 (model 1: gpu_memory_utilization "
            "0.5, model 2: gpu_memory_utilization 0.75); give each its own, adding to at most 1");
}

TEST(MultiModel, VllmGivenItsKvMemoryReservesNoFraction) {
  FakeGpuContext context;
  std::vector<EstimateRequest> requests = {vllm_at("chat", 0.9), vllm_at("draft", 0.9)};
  requests[1].vllm.kv_cache_memory = 1 * kGiB;
  Result<MultiModelRun> together = run_models(requests, context);
  ASSERT_TRUE(together.ok()) << together.error().message();
  const SharedDevice& gpu = together->devices[0];
  EXPECT_DOUBLE_EQ(gpu.reserved_fraction, 0.9);
  EXPECT_FALSE(gpu.models[1].reserved_fraction.has_value());
  // 0.9 x 24 GiB = 23,192,823,398.4, floored, and the draft's weights, KV
  // and activations on top: more than the 24 GiB.
  EXPECT_EQ(gpu.used_bytes, together->runs[0].vllm->total_bytes + together->runs[1].vllm->total_bytes);
  EXPECT_FALSE(gpu.fits);
}

TEST(MultiModel, EachModelIsPricedAsAloneAndTheDeviceTakesTheSmallestBudget) {
  // The GPU's free 20 GiB is mlxcel's budget; vLLM's is the 24 GiB total
  // it is given. The device holds 20 GiB (21,474,836,480 B).
  FakeGpuContext context(20 * kGiB);
  EstimateRequest embedder;
  embedder.model = "embedder";
  embedder.engine = "mlxcel";
  embedder.max_tokens = 512;
  const std::vector<EstimateRequest> requests = {vllm_at("chat", 0.5), embedder};
  Result<MultiModelRun> together = run_models(requests, context);
  ASSERT_TRUE(together.ok()) << together.error().message();
  Result<EstimateRun> alone = run(embedder, context);
  ASSERT_TRUE(alone.ok()) << alone.error().message();
  const SharedDevice& gpu = together->devices[0];
  EXPECT_EQ(gpu.budget_bytes, 21474836480u);
  // 12 GiB (12,884,901,888 B) of vLLM and the embedder's own total.
  EXPECT_EQ(gpu.used_bytes, 12884901888u + alone->estimate.total_bytes);
  EXPECT_EQ(together->runs[1].estimate.total_bytes, alone->estimate.total_bytes);
  EXPECT_EQ(gpu.reserved_fraction, 0.5);
  EXPECT_EQ(gpu.fits, gpu.used_bytes <= 21474836480u);

  const nlohmann::ordered_json j = multi_run_to_json(*together);
  EXPECT_EQ(j["models"][0]["model"], "chat");
  EXPECT_EQ(j["models"][1]["engine"], "mlxcel");
  EXPECT_EQ(j["devices"][0]["models"][1]["bytes"], alone->estimate.total_bytes);
  EXPECT_EQ(j["devices"][0]["models"][1]["reserved_fraction"], nullptr);
  EXPECT_EQ(j["devices"][0]["used_bytes"], gpu.used_bytes);
  EXPECT_EQ(j["fits"], together->fits);
}

TEST(MultiModel, ErrorsSayWhichModel) {
  FakeGpuContext context;
  std::vector<EstimateRequest> requests = {vllm_at("chat", 0.5), vllm_at("draft", 0.25)};
  requests[1].max_tokens = 0;
  Result<MultiModelRun> together = run_models(requests, context);
  ASSERT_FALSE(together.ok());
  EXPECT_EQ(together.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(together.error().field(), "max_tokens");
  EXPECT_EQ(together.error().message(), "max_tokens: model 2 ('draft'): must be at least 1");

  requests[1].max_tokens.reset();
  context.failing_name = "draft";
  together = run_models(requests, context);
  ASSERT_FALSE(together.ok());
  EXPECT_EQ(together.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(together.error().message(), "model 2 ('draft'): config.json: not JSON");
}

TEST(MultiModel, PerRankPlansAndOneModelAreRefused) {
  FakeGpuContext context;
  std::vector<EstimateRequest> requests = {vllm_at("chat", 0.5), vllm_at("draft", 0.25)};
  requests[0].parallel.tensor_parallel = 2;
  Result<MultiModelRun> together = run_models(requests, context);
  ASSERT_FALSE(together.ok());
  EXPECT_EQ(together.error().field(), "tensor_parallel");
  EXPECT_EQ(together.error().message(),
            "tensor_parallel: model 1 ('chat'): a model on several devices is priced alone; with "
            "other models each takes one device");

  requests.pop_back();
  requests[0].parallel.tensor_parallel = 1;
  together = run_models(requests, context);
  ASSERT_FALSE(together.ok());
  EXPECT_EQ(together.error().message(), "models: names 1 models; together takes 2 to 16");
}

TEST(MultiModelJson, SharedFieldsApplyToEachModelAndItsOwnReplaceThem) {
  Result<std::optional<std::vector<ModelBody>>> bodies = split_model_bodies(
      R"({"memory_limit": "24GiB", "max_tokens": 4096,
          "models": [{"model": "a"}, {"model": "b", "max_tokens": 8192}]})");
  ASSERT_TRUE(bodies.ok()) << bodies.error().message();
  ASSERT_TRUE(bodies->has_value());
  ASSERT_EQ((*bodies)->size(), 2u);
  EXPECT_EQ((**bodies)[1].model, "b");
  Result<EstimateRequest> a = parse_estimate_request_json((**bodies)[0].body);
  Result<EstimateRequest> b = parse_estimate_request_json((**bodies)[1].body);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->model, "a");
  EXPECT_EQ(*a->max_tokens, 4096u);
  EXPECT_EQ(*a->memory_limit_bytes, 24 * kGiB);
  EXPECT_EQ(b->model, "b");
  EXPECT_EQ(*b->max_tokens, 8192u);
  EXPECT_EQ(*b->memory_limit_bytes, 24 * kGiB);
}

TEST(MultiModelJson, OneModelRequestHasNoModelsAndBadListsAreRefused) {
  Result<std::optional<std::vector<ModelBody>>> one = split_model_bodies(R"({"model": "a"})");
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->has_value());
  for (const char* body : {R"({"models": [{"model": "a"}]})", R"({"models": "a"})",
                           R"({"models": [{"model": "a"}, 7]})"}) {
    SCOPED_TRACE(body);
    Result<std::optional<std::vector<ModelBody>>> bad = split_model_bodies(body);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind(), ErrorKind::kUsage);
    EXPECT_EQ(bad.error().field(), "models");
  }
  EXPECT_EQ(split_model_bodies(R"({"models": "a"})").error().message(),
            "models: expected an array of 2 to 16 request objects, got \"a\"");
}

}  // namespace
}  // namespace memfit
