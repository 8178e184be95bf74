// The speed bounds (memfit/speed.h) worked by hand.
#include <gtest/gtest.h>

#include "memfit/speed.h"

namespace memfit {
namespace {

// Llama 3 8B as data/speed/models.tsv has it: 8,029,995,008 parameters, 32
// layers, 32 x 128 query width, 8 x 128 KV width.
SpeedModelShape llama3_8b(uint64_t weight_bytes) {
  SpeedModelShape s;
  s.weight_bytes = weight_bytes;
  s.params = 8'029'995'008;
  s.active_params = 8'029'995'008;
  s.n_layers = 32;
  s.attention_width = 4096;
  s.kv_width = 1024;
  return s;
}

TEST(SpeedBounds, KvBytesPerTokenIsKAndVOfEveryLayer) {
  // 2 (K and V) x 32 layers x 1024 x 2 bytes (F16) = 131,072 bytes.
  EXPECT_EQ(llama3_8b(0).kv_bytes_per_token(), 131'072u);
}

TEST(SpeedBounds, DecodeReadsWeightsAndCacheAtBandwidth) {
  // An RTX 4090 (1008 GB/s) reading Q4_K_M's 4.58 GiB = 4,917,737,553
  // bytes (458 x 2^30 / 100, rounded down) plus 64 tokens of cache (64 x
  // 131,072 = 8,388,608): 4,926,126,161 bytes; 1008e9 / 4,926,126,161 =
  // 204.623 tokens a second.
  const DeviceTokenBytes part{{"rtx4090", 1008, 165.2}, 4'917'737'553, 131'072u * 64};
  Result<double> bound = decode_bound_tokens_per_second({&part, 1});
  ASSERT_TRUE(bound.ok());
  EXPECT_NEAR(*bound, 1008e9 / 4'926'126'161.0, 1e-9);
  EXPECT_NEAR(*bound, 204.623, 0.001);
}

TEST(SpeedBounds, OffloadedLayersAddTheHostsTime) {
  // 10 GB on a 1000 GB/s GPU (10 ms) and 2 GB on 50 GB/s host memory (40
  // ms): 50 ms a token, 20 tokens a second; all 12 GB on the GPU would be
  // 83.3.
  const DeviceTokenBytes parts[] = {{{"gpu", 1000, 100}, 10'000'000'000, 0},
                                    {{"host", 50, 0}, 2'000'000'000, 0}};
  Result<double> bound = decode_bound_tokens_per_second(parts);
  ASSERT_TRUE(bound.ok());
  EXPECT_NEAR(*bound, 20.0, 1e-9);
}

TEST(SpeedBounds, DecodeRefusesAPartWithoutBandwidth) {
  const DeviceTokenBytes part{{"arc-a770", 0, 0}, 1000, 0};
  Result<double> bound = decode_bound_tokens_per_second({&part, 1});
  ASSERT_FALSE(bound.ok());
  EXPECT_EQ(bound.error().message(), "decode speed: device arc-a770 has no memory bandwidth figure");
  EXPECT_FALSE(decode_bound_tokens_per_second({}).ok());
}

TEST(SpeedBounds, MixtureOfExpertsReadsOnlyTheActiveShare) {
  // Qwen3-30B-A3B: 3,352,821,760 of 30,531,911,680 parameters a token; of
  // 17.28 GiB = 18,554,258,718 bytes that is 18,554,258,718 x 3,352,821,760
  // / 30,531,911,680 = 2,037,511,539 bytes (rounded down).
  SpeedModelShape s;
  s.weight_bytes = 18'554'258'718;
  s.params = 30'531'911'680;
  s.active_params = 3'352'821'760;
  EXPECT_EQ(s.active_weight_bytes(), 2'037'511'539u);
  s.active_params = s.params;
  EXPECT_EQ(s.active_weight_bytes(), 18'554'258'718u);
}

TEST(SpeedBounds, KnownExpertsAreReadAtTheirOwnWidth) {
  // gpt-oss-20b in its 11.27 GiB file (12,101,070,356 bytes): 20,907,786,240
  // parameters, 4,186,275,840 a token; its routed experts are 24 x 32 x 3 x
  // 2880 x 2880 = 19,110,297,600 parameters in MXFP4, 17 bytes a block of
  // 32: 19,110,297,600 / 32 x 17 = 10,152,345,600 bytes. Shared: 12,101,070,356
  // - 10,152,345,600 = 1,948,724,756 bytes, read whole. Active experts:
  // 4,186,275,840 - (20,907,786,240 - 19,110,297,600) = 2,388,787,200
  // parameters, 10,152,345,600 x 2,388,787,200 / 19,110,297,600 =
  // 1,269,043,200 bytes. A token: 1,948,724,756 + 1,269,043,200 =
  // 3,217,767,956 bytes, where the share rule reads 12,101,070,356 x
  // 4,186,275,840 / 20,907,786,240 = 2,422,945,111.
  SpeedModelShape s;
  s.weight_bytes = 12'101'070'356;
  s.params = 20'907'786'240;
  s.active_params = 4'186'275'840;
  EXPECT_EQ(s.active_weight_bytes(), 2'422'945'111u);
  s.expert_params = 19'110'297'600;
  s.expert_weight_bytes = 10'152'345'600;
  EXPECT_EQ(s.active_weight_bytes(), 3'217'767'956u);
  // Expert bytes beyond the file, or shared parameters beyond the active
  // ones, are not a consistent split: the share rule stands.
  s.expert_weight_bytes = s.weight_bytes + 1;
  EXPECT_EQ(s.active_weight_bytes(), 2'422'945'111u);
  s.expert_weight_bytes = 10'152'345'600;
  s.expert_params = 10'000'000'000;  // shared 10.9 B > 4.19 B active
  EXPECT_EQ(s.active_weight_bytes(), 2'422'945'111u);
}

TEST(SpeedBounds, PrefillIsTwoFlopsAParameterPlusAttention) {
  // pp512 averages a context of 256: 2 x 8,029,995,008 = 16,059,990,016
  // plus 4 x 32 x 256 x 4096 = 134,217,728: 16,194,207,744 FLOPs a token.
  const SpeedModelShape s = llama3_8b(0);
  EXPECT_DOUBLE_EQ(prefill_flops_per_token(s, 256), 16'194'207'744.0);
  // At an RTX 4090's 165.2 TFLOPS: 165.2e12 / 16,194,207,744 = 10,201.2.
  const DeviceThroughput rtx4090{"rtx4090", 1008, 165.2, 660.6};
  Result<double> bound = prefill_bound_tokens_per_second(s, 256, rtx4090, ComputePeak::kFp16);
  ASSERT_TRUE(bound.ok());
  EXPECT_NEAR(*bound, 10'201.2, 0.1);
  EXPECT_FALSE(
      prefill_bound_tokens_per_second(s, 256, {"m5-16gb", 153, 0, 0}, ComputePeak::kFp16).ok());
}

// Qwen3-30B-A3B as data/speed/models.tsv and moe-experts.tsv have it: of
// 3,352,821,760 active parameters, 3,352,821,760 - (30,531,911,680 -
// 28,991,029,248) = 1,811,939,328 are routed experts' (8 of 128: 1/16 of
// 28,991,029,248).
SpeedModelShape qwen3_30b_a3b() {
  SpeedModelShape s;
  s.params = 30'531'911'680;
  s.active_params = 3'352'821'760;
  s.expert_params = 28'991'029'248;
  s.n_layers = 48;
  s.attention_width = 4096;
  s.kv_width = 512;
  return s;
}

TEST(SpeedBounds, ExpertProductsPayTheTileTheirTokensLeaveEmpty) {
  SpeedModelShape s = qwen3_30b_a3b();
  EXPECT_EQ(s.active_expert_params(), 1'811'939'328u);
  // No microbatch or tile: 2 x 3,352,821,760 + 4 x 48 x 256 x 4096
  // (201,326,592) = 6,906,970,112 FLOPs a token at pp512.
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 1.0);
  EXPECT_DOUBLE_EQ(prefill_flops_per_token(s, 256), 6'906'970'112.0);
  // CUDA's MMQ at a microbatch of 512: an expert gets 512 / 16 = 32 tokens
  // where a dense tile serves min(128, 512) = 128: 4 times the cost. The
  // experts' 2 x 1,811,939,328 = 3,623,878,656 FLOPs count 4 times:
  // 6,906,970,112 + 3 x 3,623,878,656 = 17,778,606,080.
  s.microbatch_tokens = 512;
  s.tile_tokens = kMmqTileTokens;
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 4.0);
  EXPECT_DOUBLE_EQ(prefill_flops_per_token(s, 256), 17'778'606'080.0);
  // A microbatch of 128 (a prompt of 128): 8 tokens an expert against a
  // dense tile of 128: 16 times.
  s.microbatch_tokens = 128;
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 16.0);
  // A microbatch of 2048: 128 tokens an expert fill the tile: no cost.
  s.microbatch_tokens = 2048;
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 1.0);
  // Metal's tiles of 32 tokens: 32 an expert at 512 fill one.
  s.microbatch_tokens = 512;
  s.tile_tokens = kMetalTileTokens;
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 1.0);
  // A microbatch of 64 on Metal: 4 tokens an expert against a dense tile
  // of min(32, 64) = 32: 8 times.
  s.microbatch_tokens = 64;
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 8.0);
}

TEST(SpeedBounds, ADenseModelOrUnknownExpertsPayNoTileCost) {
  // Llama 3 8B at a microbatch of 512 on CUDA: no experts, factor 1, the
  // FLOPs of PrefillIsTwoFlopsAParameterPlusAttention.
  SpeedModelShape dense = llama3_8b(0);
  dense.microbatch_tokens = 512;
  dense.tile_tokens = kMmqTileTokens;
  EXPECT_EQ(dense.active_expert_params(), 0u);
  EXPECT_DOUBLE_EQ(dense.expert_tile_factor(), 1.0);
  EXPECT_DOUBLE_EQ(prefill_flops_per_token(dense, 256), 16'194'207'744.0);
  // Expert parameters whose shared rest exceeds the active ones are not a
  // consistent split: no cost.
  SpeedModelShape s = qwen3_30b_a3b();
  s.microbatch_tokens = 512;
  s.tile_tokens = kMmqTileTokens;
  s.expert_params = 10'000'000'000;  // shared 20.5 B > 3.35 B active
  EXPECT_EQ(s.active_expert_params(), 0u);
  EXPECT_DOUBLE_EQ(s.expert_tile_factor(), 1.0);
  // An active count above the total (an untrusted config) counts every
  // expert active, never more: active 40 B - shared (30,531,911,680 -
  // 28,991,029,248 = 1,540,882,432) = 38,459,117,568 > 28,991,029,248.
  SpeedModelShape over = qwen3_30b_a3b();
  over.active_params = 40'000'000'000;
  EXPECT_EQ(over.active_expert_params(), 28'991'029'248u);
}

TEST(SpeedBounds, PromptTilesAreKnownForLlamaCppsGpuBackends) {
  EXPECT_EQ(llamacpp_prompt_tile_tokens("cuda"), 128u);
  EXPECT_EQ(llamacpp_prompt_tile_tokens("rocm"), 128u);
  EXPECT_EQ(llamacpp_prompt_tile_tokens("metal"), 32u);
  EXPECT_EQ(llamacpp_prompt_tile_tokens("vulkan"), 0u);
  EXPECT_EQ(llamacpp_prompt_tile_tokens("cpu"), 0u);
}

TEST(SpeedBounds, Int8PeakBoundsLlamaCppTensorCoreProducts) {
  // The same 16,194,207,744 FLOPs a token at the RTX 4090's dense INT8
  // 660.6 TOPS: 660.6e12 / 16,194,207,744 = 40,792.36 tokens a second,
  // 4 x the FP16 (FP32-accumulate) bound of 10,201.2 above.
  const SpeedModelShape s = llama3_8b(0);
  const DeviceThroughput rtx4090{"rtx4090", 1008, 165.2, 660.6};
  Result<double> bound = prefill_bound_tokens_per_second(s, 256, rtx4090, ComputePeak::kInt8);
  ASSERT_TRUE(bound.ok());
  EXPECT_NEAR(*bound, 40'792.36, 0.01);
  // A device without an INT8 figure (a Mac, a GPU without INT8 tensor
  // cores) is bound at its FP16 peak: 14.32e12 / 16,194,207,744 = 884.27.
  Result<double> mac = prefill_bound_tokens_per_second(s, 256, {"m3-max-64gb", 400, 14.32, 0},
                                                       ComputePeak::kInt8);
  ASSERT_TRUE(mac.ok());
  EXPECT_NEAR(*mac, 884.27, 0.01);
  Result<double> none =
      prefill_bound_tokens_per_second(s, 256, {"m5-16gb", 153, 0, 0}, ComputePeak::kInt8);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(),
            "prefill speed: device m5-16gb has no INT8 or FP16 throughput figure");
}

TEST(SpeedBounds, CudaAndRocmBandsAreFittedAtTheInt8Peak) {
  EXPECT_EQ(prefill_compute_peak("cuda"), ComputePeak::kInt8);
  EXPECT_EQ(prefill_compute_peak("rocm"), ComputePeak::kInt8);
  EXPECT_EQ(prefill_compute_peak("metal"), ComputePeak::kFp16);
  EXPECT_EQ(prefill_compute_peak("vulkan"), ComputePeak::kFp16);
  EXPECT_EQ(prefill_compute_peak("mlx"), ComputePeak::kFp16);
  EXPECT_EQ(prefill_compute_peak("cpu"), ComputePeak::kFp16);
  EXPECT_EQ(to_string(ComputePeak::kInt8), "int8");
  EXPECT_EQ(to_string(ComputePeak::kFp16), "fp16");
}

TEST(SpeedBounds, TimeToFirstTokenIsThePromptOverThePrefillRate) {
  // 4,096 tokens at 2,048 a second: 2 s.
  Result<double> ttft = time_to_first_token_s(4096, 2048);
  ASSERT_TRUE(ttft.ok());
  EXPECT_DOUBLE_EQ(*ttft, 2.0);
  EXPECT_FALSE(time_to_first_token_s(4096, 0).ok());
}

}  // namespace
}  // namespace memfit
