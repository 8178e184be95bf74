// mlxcel_estimate_to_json() (mlxcel's `inspect --json`) on an MlxcelEstimate filled by hand: keys
// in order, exact byte counts, nulls, warnings, and what one changed input changes.
//
// The hand-built estimate (as text_report_test.cc): 32 full-attention
// layers at 131,072 B/token x 4096 tokens = 536,870,912 B of KV; weights
// 3,758,096,384 (3.5 GiB); allocator 0.25 x 4 GiB = 1,073,741,824;
// activation 268,435,456; headroom 1,342,177,280; total
// 3,758,096,384 + 536,870,912 + 1,342,177,280 = 5,637,144,576; budget 8 GiB.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memfit/mlxcel_report.h"

namespace memfit {
namespace {

using ::testing::ElementsAre;
using Json = nlohmann::ordered_json;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

Model tiny_model() {
  Model m;
  m.path = "models/tiny";
  m.has_config = true;
  m.spec.model_type = "llama";
  m.spec.family = "llama";
  m.spec.layout = "standard";
  m.spec.assumptions = {"rope_theta 10000 (default)"};
  m.weights.bytes = 3 * kGiB + 512 * kMiB;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  m.weights.verified = true;
  return m;
}

MlxcelEstimate tiny_estimate() {
  MlxcelEstimate e;
  e.inputs.max_tokens = 4096;
  e.inputs.batch = 1;
  e.weights_bytes = 3 * kGiB + 512 * kMiB;
  e.kv.available = true;
  e.kv.total_bytes = 512 * kMiB;
  e.kv.rounded_tokens = 4096;
  e.kv.unbounded_fp16_bytes_per_token = 131072;
  e.kv.unbounded_int8_bytes_per_token = 65536;
  e.kv.groups = {KvGroup{LayerKind::kFullAttention, 32, std::nullopt, 131072, 0, 512 * kMiB}};
  e.kv.detail = "standard: 32 full_attention";
  e.allocator_overhead_bytes = kGiB;
  e.headroom_factor_micros = 1'250'000;
  e.activation_bytes = 256 * kMiB;
  e.headroom_bytes = kGiB + 256 * kMiB;
  e.ram_available_bytes = 16 * kGiB;
  e.budget_bytes = 8 * kGiB;
  e.total_bytes = 5 * kGiB + 256 * kMiB;
  e.fits = true;
  return e;
}

const MemoryBudget kBudget{8 * kGiB, 16 * kGiB, BudgetSource::kExplicit};

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST(MlxcelJsonReport, KeysInTheirDocumentedOrder) {
  Json j = mlxcel_estimate_to_json(tiny_model(), tiny_estimate(), kBudget, {});
  EXPECT_THAT(keys_of(j),
              ElementsAre("memfit_version", "model", "model_type", "family", "layout", "engine",
                          "inputs", "weights_bytes", "weights_source", "weights_verified",
                          "weights_components", "kv_bytes_per_token", "kv_bytes_total", "kv_detail",
                          "kv_layout", "per_slot_overhead_bytes", "allocator_overhead_bytes",
                          "activation_bytes", "headroom_bytes", "headroom_factor",
                          "backend_inflight_bytes", "host_shadow_bytes", "ram_available_bytes",
                          "host_shadow_fits", "budget_bytes", "budget_source", "total_bytes", "fits",
                          "quantization", "moe", "assumptions", "warnings"));
}

TEST(MlxcelJsonReport, ExactFiguresOfTheHandBuiltEstimate) {
  Json j = mlxcel_estimate_to_json(tiny_model(), tiny_estimate(), kBudget, {});
  EXPECT_EQ(j["engine"], "mlxcel");
  EXPECT_EQ(j["model"], "models/tiny");
  EXPECT_EQ(j["inputs"].dump(), R"({"max_tokens":4096,"batch":1,"kv_cache_mode":"fp16","quant":null})");
  EXPECT_EQ(j["weights_bytes"], 3758096384u);  // 3.5 x 2^30
  EXPECT_EQ(j["weights_source"], "safetensors_header");
  EXPECT_EQ(j["weights_verified"], true);
  EXPECT_TRUE(j["weights_components"].is_null());  // no split read
  EXPECT_EQ(j["kv_bytes_per_token"].dump(), R"({"fp16":131072,"int8":65536,"turbo4":null})");
  EXPECT_EQ(j["kv_bytes_total"], 536870912u);  // 131,072 x 4096
  EXPECT_EQ(j["kv_detail"], "standard: 32 full_attention");
  EXPECT_EQ(j["kv_layout"].dump(),
            R"([{"kind":"full_attention","layers":32,"window":null,"bytes_per_token":131072,)"
            R"("fixed_bytes":0,"bytes":536870912}])");
  EXPECT_TRUE(j["per_slot_overhead_bytes"].is_null());
  EXPECT_EQ(j["allocator_overhead_bytes"], 1073741824u);  // 0.25 x 4 GiB
  EXPECT_EQ(j["activation_bytes"], 268435456u);           // 256 MiB
  EXPECT_EQ(j["headroom_bytes"], 1342177280u);            // 1 GiB + 256 MiB
  EXPECT_TRUE(j["headroom_factor"].is_number_float());
  EXPECT_EQ(j["headroom_factor"].dump(), "1.25");
  EXPECT_EQ(j["backend_inflight_bytes"], 0u);
  EXPECT_EQ(j["host_shadow_bytes"], 0u);
  EXPECT_EQ(j["ram_available_bytes"], 17179869184u);  // 16 x 2^30
  EXPECT_EQ(j["host_shadow_fits"], true);
  EXPECT_EQ(j["budget_bytes"], 8589934592u);  // 8 x 2^30
  EXPECT_EQ(j["budget_source"], "explicit");
  EXPECT_EQ(j["total_bytes"], 5637144576u);  // 5.25 x 2^30
  EXPECT_EQ(j["fits"], true);
  EXPECT_TRUE(j["quantization"].is_null());
  EXPECT_TRUE(j["moe"].is_null());
  EXPECT_EQ(j["assumptions"].dump(), R"j(["rope_theta 10000 (default)"])j");
  EXPECT_EQ(j["warnings"].dump(), "[]");
  // The profile's invariant (docs/engine-mlxcel.md, "The terms"), on the
  // report's own numbers.
  EXPECT_EQ(j["weights_bytes"].get<uint64_t>() + j["kv_bytes_total"].get<uint64_t>() +
                j["headroom_bytes"].get<uint64_t>(),
            j["total_bytes"].get<uint64_t>());
}

TEST(MlxcelJsonReport, DoesNotFitAndZeroBudget) {
  MlxcelEstimate e = tiny_estimate();
  e.budget_bytes = 0;
  e.fits = false;
  Json j = mlxcel_estimate_to_json(tiny_model(), e, MemoryBudget{0, 0, BudgetSource::kUnavailable}, {});
  EXPECT_EQ(j["budget_bytes"], 0u);
  EXPECT_EQ(j["budget_source"], "unavailable");
  EXPECT_EQ(j["total_bytes"], 5637144576u);
  EXPECT_EQ(j["fits"], false);
}

TEST(MlxcelJsonReport, WarningsAreTheirTextsInOrder) {
  std::vector<Warning> warnings = {
      {WarningKind::kSettings, "MEMFIT_HEADROOM_FACTOR 'x' is not a number; using 1.20"},
      {WarningKind::kAvailableNow, "WARNING: memory available now is 2.00 GiB"}};
  Json j = mlxcel_estimate_to_json(tiny_model(), tiny_estimate(), kBudget, warnings);
  EXPECT_EQ(j["warnings"].dump(),
            R"(["MEMFIT_HEADROOM_FACTOR 'x' is not a number; using 1.20",)"
            R"("WARNING: memory available now is 2.00 GiB"])");
}

TEST(MlxcelJsonReport, HeadroomFactorIsExactToTheMillionth) {
  MlxcelEstimate e = tiny_estimate();
  e.headroom_factor_micros = 1'234'567;
  EXPECT_EQ(mlxcel_estimate_to_json(tiny_model(), e, kBudget, {})["headroom_factor"].dump(), "1.234567");
  e.headroom_factor_micros = 2'000'000;
  EXPECT_EQ(mlxcel_estimate_to_json(tiny_model(), e, kBudget, {})["headroom_factor"].dump(), "2.0");
}

TEST(MlxcelJsonReport, WindowsFixedStateAndDecodeWorkspace) {
  MlxcelEstimate e = tiny_estimate();
  e.inputs.kv_element = KvElement::kInt8;
  e.inputs.quant = "int4";
  e.per_slot_overhead_bytes = 17040384;  // 2 x 129 x 128 x 129 x 4
  e.kv.groups = {KvGroup{LayerKind::kSlidingWindow, 24, 1024, 49152, 0, 50331648},  // x 1024
                 KvGroup{LayerKind::kSsm, 8, std::nullopt, 0, 8 * kMiB, 8 * kMiB}};
  Json j = mlxcel_estimate_to_json(tiny_model(), e, kBudget, {});
  EXPECT_EQ(j["inputs"]["kv_cache_mode"], "int8");
  EXPECT_EQ(j["inputs"]["quant"], "int4");
  EXPECT_EQ(j["per_slot_overhead_bytes"], 17040384u);
  EXPECT_EQ(j["kv_layout"].dump(),
            R"([{"kind":"sliding_window","layers":24,"window":1024,"bytes_per_token":49152,)"
            R"("fixed_bytes":0,"bytes":50331648},)"
            R"({"kind":"ssm_state","layers":8,"window":null,"bytes_per_token":0,)"
            R"("fixed_bytes":8388608,"bytes":8388608}])");
}

TEST(MlxcelJsonReport, UnavailableKvHasNullRates) {
  MlxcelEstimate e = tiny_estimate();
  e.kv = KvCacheEstimate{};
  e.kv.detail = "unavailable: no model geometry";
  Json j = mlxcel_estimate_to_json(tiny_model(), e, kBudget, {});
  EXPECT_EQ(j["kv_bytes_per_token"].dump(), R"({"fp16":null,"int8":null,"turbo4":null})");
  EXPECT_EQ(j["kv_bytes_total"], 0u);
  EXPECT_EQ(j["kv_layout"].dump(), "[]");
}

TEST(MlxcelJsonReport, ComponentsQuantizationAndMoe) {
  Model m = tiny_model();
  m.weights.verified = false;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  m.weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)] = 3 * kGiB;
  m.weights.component_bytes[static_cast<int>(WeightComponent::kVisionTower)] = 512 * kMiB;
  m.spec.quantization.method = "mlx_affine";
  m.spec.quantization.bits = 4;
  m.spec.quantization.group_size = 64;
  m.spec.moe = MoeInfo{};
  m.spec.moe.experts = 128;
  m.spec.moe.experts_per_token = 8;
  Json j = mlxcel_estimate_to_json(m, tiny_estimate(), kBudget, {});
  EXPECT_EQ(j["weights_source"], "safetensors_index");
  EXPECT_EQ(j["weights_verified"], false);
  // Every component named, the empty ones 0: 3 x 2^30 and 2^29.
  EXPECT_EQ(j["weights_components"].dump(),
            R"({"language_model":3221225472,"vision_tower":536870912,"audio_tower":0,"projector":0})");
  EXPECT_EQ(j["quantization"].dump(),
            R"({"method":"mlx_affine","bits":4,"group_size":64,"block_size":[]})");
  EXPECT_EQ(j["moe"].dump(), R"({"experts":128,"experts_per_token":8,"shared_experts":0})");
  // FP8 with a block and no bits or group: nulls, the block as given.
  m.spec.quantization = QuantizationInfo{};
  m.spec.quantization.method = "fp8";
  m.spec.quantization.block_size = {128, 128};
  EXPECT_EQ(mlxcel_estimate_to_json(m, tiny_estimate(), kBudget, {})["quantization"].dump(),
            R"({"method":"fp8","bits":null,"group_size":null,"block_size":[128,128]})");
}

TEST(MlxcelJsonReport, HostShadowFields) {
  MlxcelEstimate e = tiny_estimate();
  e.host_shadow_bytes = 6 * kGiB;
  e.ram_available_bytes = 4 * kGiB;
  e.host_shadow_fits = false;
  e.fits = false;
  Json j = mlxcel_estimate_to_json(tiny_model(), e, kBudget, {});
  EXPECT_EQ(j["host_shadow_bytes"], 6442450944u);    // 6 x 2^30
  EXPECT_EQ(j["ram_available_bytes"], 4294967296u);  // 4 x 2^30
  EXPECT_EQ(j["host_shadow_fits"], false);
  EXPECT_EQ(j["fits"], false);
}

}  // namespace
}  // namespace memfit
