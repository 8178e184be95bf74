// SGLang's memory plan (src/engines/sglang/plan.h) worked by hand: the
// computed --mem-fraction-static for several GPU sizes and TP, the bytes
// per token of a GQA and an MLA pool, and the token pool of Llama-3.1-8B on
// an H100 (docs/engine-sglang.md, "Rules").
#include <gtest/gtest.h>

#include "engines/sglang/allocator_rounding.h"
#include "engines/sglang/plan.h"
#include "support/corpus.h"

namespace memfit::sglang {
namespace {

constexpr uint64_t kH100Mib = 81559;  // nvidia-smi's total of an H100 80GB HBM3
constexpr uint64_t kLlama8bBytes = 16060522496ull;  // the 8B's safetensors index total_size

double fraction(uint64_t gpu_mib, uint64_t tp, bool dp_attention = false, uint64_t dp = 1) {
  Settings s;
  s.tensor_parallel = tp;
  s.dp_size = dp;
  s.dp_attention = dp_attention;
  return default_mem_fraction(gpu_mib, gpu_defaults(gpu_mib, tp), s);
}

TEST(SglangDefaults, GpuTiersPickChunkedPrefillAndGraphBatch) {
  // 24,564 MiB (an RTX 4090): under 35 GiB, 2048 and 24 at TP < 4, 80 from TP 4.
  EXPECT_EQ(gpu_defaults(24564, 1).chunked_prefill_size, 2048u);
  EXPECT_EQ(gpu_defaults(24564, 1).cuda_graph_max_bs, 24u);
  EXPECT_EQ(gpu_defaults(24564, 4).cuda_graph_max_bs, 80u);
  // An H100: under 90 GiB, 8192 and 256, 512 from TP 4; a B200 (183 GiB): 16384 and 512.
  EXPECT_EQ(gpu_defaults(kH100Mib, 1).chunked_prefill_size, 8192u);
  EXPECT_EQ(gpu_defaults(kH100Mib, 8).cuda_graph_max_bs, 512u);
  EXPECT_EQ(gpu_defaults(187392, 1).chunked_prefill_size, 16384u);
}

TEST(SglangDefaults, From0520AMidSizedGpuTakesLargerChunksAndGraphBatches) {
  // sgl-project/sglang#37898 (0.5.20; arg_groups/memory_hook.py): under 35
  // GiB, 4,096 and 48 at TP < 4, 160 from TP 4; under 20 GiB unchanged.
  EXPECT_EQ(gpu_defaults(24564, 1, true).chunked_prefill_size, 4096u);
  EXPECT_EQ(gpu_defaults(24564, 1, true).cuda_graph_max_bs, 48u);
  EXPECT_EQ(gpu_defaults(24564, 4, true).cuda_graph_max_bs, 160u);
  EXPECT_EQ(gpu_defaults(16384, 1, true).chunked_prefill_size, 2048u);
  EXPECT_EQ(gpu_defaults(16384, 1, true).cuda_graph_max_bs, 8u);
  Settings s;  // the pinned 0.5.20
  EXPECT_TRUE(has_mid_tier_37898(s));
  s.release = "0.5.19";
  EXPECT_FALSE(has_mid_tier_37898(s));
  s.release = "0.5.23";
  EXPECT_TRUE(has_mid_tier_37898(s));
  // A log that prints no release: its date, from the PR's 2026-09-04.
  s.release = "0.5.23";
  s.log_date = "2026-09-03";
  EXPECT_FALSE(has_mid_tier_37898(s));
  s.log_date = "2026-09-04";
  EXPECT_TRUE(has_mid_tier_37898(s));
  // The computed fraction on an RTX 4090 (24,564 MiB), TP 1, the piecewise
  // graphs on (#16331's reserve): 0.5.20 reserves 512 + 4,096 x 1.5 + 48 x 2
  // + 1 / 8 x 1,024 = 6,880, + 50 token sizes up to 4,096 (8 + 14 + 8 + 8 +
  // 1,280..4,096 by 256 (12)) x 8 = 400: 7,280; (24,564 - 7,280) / 24,564
  // = 0.70363 -> 0.704. 0.5.19: 512 + 3,072 + 48 + 128 = 3,760, + 42 sizes
  // up to 2,048 x 8 = 336: 4,096; 20,468 / 24,564 = 0.83325 -> 0.833.
  Settings on;
  on.piecewise_log_date = "2026-03-02";
  EXPECT_DOUBLE_EQ(default_mem_fraction(24564, gpu_defaults(24564, 1, true), on), 0.704);
  EXPECT_DOUBLE_EQ(default_mem_fraction(24564, gpu_defaults(24564, 1, false), on), 0.833);
}

TEST(SglangDefaults, From0516DisableCudaGraphDropsTheGraphBatchesReserve) {
  // sgl-project/sglang#29615 (2026-06-29): the decode graphs' term only
  // where they are captured. An H100, TP 1, no piecewise reserve:
  // 0.5.15 keeps 512 + 8,192 x 1.5 + 256 x 2 + 128 = 13,440 -> 0.835 (the
  // test below); 0.5.16 leaves out 512: 12,928, over the 10 GiB floor;
  // (81,559 - 12,928) / 81,559 = 0.84149 -> 0.841.
  Settings s;
  s.disable_cuda_graph = true;
  s.release = "0.5.15";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, gpu_defaults(kH100Mib, 1), s), 0.835);
  s.release = "0.5.16";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, gpu_defaults(kH100Mib, 1), s), 0.841);
  // A log that prints no release, by its date.
  s.release = "0.5.20";
  s.log_date = "2026-06-28";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, gpu_defaults(kH100Mib, 1), s), 0.835);
  s.log_date = "2026-06-29";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, gpu_defaults(kH100Mib, 1), s), 0.841);
  // The graphs on: their 512 MiB stay.
  s.disable_cuda_graph = false;
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, gpu_defaults(kH100Mib, 1), s), 0.835);
}

TEST(SglangMxfp4, FlashInferOnDatacenterBlackwellTritonKernelsElsewhere) {
  // server_args.py's GPT-OSS adjustments: flashinfer_mxfp4 on SM 10.x, else
  // triton_kernel.
  EXPECT_EQ(sglang_mxfp4_kernel("NVIDIA B200"), Mxfp4Kernel::kFlashInfer);
  EXPECT_EQ(sglang_mxfp4_kernel("NVIDIA GB200"), Mxfp4Kernel::kFlashInfer);
  EXPECT_EQ(sglang_mxfp4_kernel("NVIDIA H100 80GB HBM3"), Mxfp4Kernel::kTriton);
  EXPECT_EQ(sglang_mxfp4_kernel(""), Mxfp4Kernel::kTriton);
  // gpt-oss-20b's 768 experts, the layouts of vllm/mxfp4_layout_test.cc:
  // FlashInfer's 15,077,388 B an expert against triton_kernels'
  // 14,060,160, 1,017,228 more each: 781,231,104 B more a rank at TP 1.
  const Model m = testing::corpus_model("gpt_oss/gpt-oss-20b", 13'761'264'768ull);
  Settings s;
  s.gpu_total_bytes = 183359ull << 20;  // nvidia-smi's total of a B200
  Result<Plan> triton = plan_sglang(m, {}, s);
  s.mxfp4_kernel = Mxfp4Kernel::kFlashInfer;
  Result<Plan> flashinfer = plan_sglang(m, {}, s);
  ASSERT_TRUE(triton.ok() && flashinfer.ok());
  EXPECT_EQ(flashinfer->weights_bytes - triton->weights_bytes, 781'231'104u);
}

TEST(SglangDefaults, ThePiecewiseCudaGraphsReserveIsDatedByTheTreeThatRan) {
  // server_args.py, _handle_gpu_memory_settings, by date (plan.h).
  // Before sgl-project/sglang#12996 (2025-11-10): none.
  EXPECT_FALSE(piecewise_reserve("2025-11-09", 16384, false).has_value());
  EXPECT_FALSE(piecewise_reserve("no date", 16384, false).has_value());
  // #12996: the max tokens' default 4,096 // 4 = 1,024 MiB, after the floor.
  std::optional<PiecewiseReserve> r = piecewise_reserve("2025-11-30", 16384, false);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->mib, 1024);
  EXPECT_FALSE(r->before_floor);
  // #15700 (2025-12-24): the max tokens the chunked prefill, 16,384 // 8 =
  // 2,048 MiB.
  EXPECT_DOUBLE_EQ(piecewise_reserve("2025-12-30", 16384, false)->mib, 2048);
  // #15927 (2026-01-10): 8 MiB a token size up to 16,384, before the floor:
  // 4..32 by 4 (8), 48..256 by 16 (14), 288..512 by 32 (8), 640..1,024 by
  // 64 (7), 1,280..4,096 by 256 (12), 4,608..16,384 by 512 (24) = 73 sizes,
  // 584 MiB.
  r = piecewise_reserve("2026-01-15", 16384, false);
  EXPECT_DOUBLE_EQ(r->mib, 584);
  EXPECT_TRUE(r->before_floor);
  // #17956 (2026-01-29): 576..1,024 by 64 (8): 74 sizes, 592 MiB.
  EXPECT_DOUBLE_EQ(piecewise_reserve("2026-04-10", 16384, false)->mib, 592);
  // MLA: the max tokens 2,048 (#15927): 8 + 14 + 8 + 8 + 1,280..2,048 by
  // 256 (4) = 42 sizes, 336 MiB; 1.5 GiB from #16331 (2026-03-02).
  EXPECT_DOUBLE_EQ(piecewise_reserve("2026-02-01", 16384, true)->mib, 336);
  EXPECT_DOUBLE_EQ(piecewise_reserve("2026-03-02", 16384, true)->mib, 1536);
}

TEST(SglangDefaults, ThePiecewiseReserveEntersTheComputedFraction) {
  // A B200 (183,359 MiB), TP 1, on 2025-11-30 (sglang#11830's run): 512 +
  // 16,384 x 1.5 + 512 x 2 + 1 / 8 x 1,024 = 26,240 MiB, over the 10 GiB
  // floor, + 1,024 after it = 27,264; (183,359 - 27,264) / 183,359 =
  // 0.85131 -> 0.851 (without: 0.85689 -> 0.857).
  Settings s;
  s.piecewise_log_date = "2025-11-30";
  EXPECT_DOUBLE_EQ(default_mem_fraction(183359, gpu_defaults(183359, 1), s), 0.851);
  // TP 4 on 2026-04-10 (sglang#22537's): 512 + 24,576 + 1,024 + 4 / 8 x
  // 1,024 = 26,624, + 592 = 27,216; (183,359 - 27,216) / 183,359 = 0.85157
  // -> 0.852.
  s.tensor_parallel = 4;
  s.piecewise_log_date = "2026-04-10";
  EXPECT_DOUBLE_EQ(default_mem_fraction(183359, gpu_defaults(183359, 4), s), 0.852);
  s.piecewise_log_date.clear();
  EXPECT_DOUBLE_EQ(default_mem_fraction(183359, gpu_defaults(183359, 4), s), 0.855);
}

TEST(SglangDefaults, MemFractionIsComputedFromTheGpuNotTheDocumented09) {
  // H100, TP 1: reserved 512 + 8192 x 1.5 + 256 x 2 + 1 / 8 x 1024
  // = 13,440 MiB (over the 10 GiB floor); (81,559 - 13,440) / 81,559
  // = 0.83521 -> 0.835.
  EXPECT_DOUBLE_EQ(fraction(kH100Mib, 1), 0.835);
  // TP 8: 512 + 12,288 + 512 x 2 + 8 / 8 x 1024 = 14,848; 66,711 / 81,559
  // = 0.81795 -> 0.818.
  EXPECT_DOUBLE_EQ(fraction(kH100Mib, 8), 0.818);
  // RTX 4090, 24,564 MiB, TP 1: 512 + 2048 x 1.5 + 24 x 2 + 128 = 3,760
  // (no floor under 60 GiB); 20,804 / 24,564 = 0.84693 -> 0.847.
  EXPECT_DOUBLE_EQ(fraction(24564, 1), 0.847);
  // A100 40GB, 40,960 MiB, TP 2: 512 + 4096 x 1.5 + 32 x 2 + 256 = 6,976;
  // 33,984 / 40,960 = 0.82969 -> 0.830.
  EXPECT_DOUBLE_EQ(fraction(40960, 2), 0.83);
  // H100, TP 8, DP attention over DP 8: + 512 x 8 x 3 + 512 x 8 x 1.5
  // (graph batch over 300) = 14,848 + 12,288 + 6,144 = 33,280;
  // 48,279 / 81,559 = 0.59195 -> 0.592.
  EXPECT_DOUBLE_EQ(fraction(kH100Mib, 8, true, 8), 0.592);
}

TEST(SglangKvCell, GqaSplitsKvHeadsByTpAndReplicatesPastThem) {
  // Llama-3.1-8B: 8 KV heads x 128 x 32 layers x 2 (K, V) x 2 B = 131,072 B
  // a token at TP 1; 4 heads at TP 2 = 65,536; at TP 16 each rank keeps one
  // head: 16,384. fp8: one byte, 65,536 at TP 1.
  const ModelSpec spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  Settings s;
  EXPECT_EQ(kv_cell(spec, s).bytes, 131072u);
  s.tensor_parallel = 2;
  EXPECT_EQ(kv_cell(spec, s).bytes, 65536u);
  s.tensor_parallel = 16;
  EXPECT_EQ(kv_cell(spec, s).bytes, 16384u);
  Settings fp8;
  fp8.kv_bytes_per_element = 1;
  EXPECT_EQ(kv_cell(spec, fp8).bytes, 65536u);
}

TEST(SglangKvCell, MlaKeepsOneLatentPerTokenOnEveryRank) {
  // DeepSeek-V3: (kv_lora_rank 512 + qk_rope_head_dim 64) x 61 layers x 2 B
  // = 70,272 B, the same at TP 8 (the latent is not split).
  const ModelSpec spec = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  Settings s;
  EXPECT_EQ(kv_cell(spec, s).bytes, 70272u);
  EXPECT_TRUE(kv_cell(spec, s).mla);
  s.tensor_parallel = 8;
  EXPECT_EQ(kv_cell(spec, s).bytes, 70272u);
}

TEST(SglangKvCell, NsaIndexerAndFp8LatentLayoutOfDeepSeekV32) {
  // DeepSeek-V3.2-Exp: 61 MLA layers of kv_lora_rank 512 + rope 64 and an
  // indexer key of index_head_dim 128 (NSATokenToKVPool). The indexer is
  // fp8 with one fp32 scale a 128: 128 + 1 x 4 = 132 B a layer.
  const ModelSpec spec = testing::corpus_spec("deepseek_v32/DeepSeek-V3.2-Exp-ptpc");
  Settings s;
  // bf16 (auto before SM 10): (576 x 2 + 132) x 61 = 1,284 x 61 = 78,324,
  // profiled and stored alike.
  KvCell bf16 = kv_cell(spec, s);
  EXPECT_EQ(bf16.bytes, 78324u);
  EXPECT_EQ(bf16.stored_bytes, 78324u);
  // fp8_e4m3: profile_max_num_token counts (576 x 1 + 132) x 61 = 708 x 61
  // = 43,188; the pool stores 512 fp8 + 512 / 128 x 4 scales + 64 x 2 rope
  // + 132 = 788 B a layer, x 61 = 48,068. PR #11309's B200 run printed
  // 975,424 tokens with "KV size: 43.67 GB": 975,424 x 48,068 =
  // 46,886,680,832 B = 43.67 GiB.
  s.kv_bytes_per_element = 1;
  KvCell fp8 = kv_cell(spec, s);
  EXPECT_EQ(fp8.bytes, 43188u);
  EXPECT_EQ(fp8.stored_bytes, 48068u);
  // DeepSeek-V3 has no indexer: stored is the profiled cell, 576 x 61.
  KvCell v3 = kv_cell(testing::corpus_spec("deepseek_v3/DeepSeek-V3"), s);
  EXPECT_EQ(v3.bytes, 35136u);
  EXPECT_EQ(v3.stored_bytes, 35136u);
}

ModelSpec mimo_like_spec() {
  // MiMo-V2-Flash's caches: 9 full layers of 4 KV heads x (K 192 + V 128)
  // and 39 sliding-window layers of 8 KV heads x (192 + 128).
  ModelSpec spec;
  spec.geometry.kv_heads = 4;
  spec.geometry.head_dim = 192;
  spec.layers.assign(9, LayerCache{LayerKind::kFullAttention, 4 * 320, 0, 0, 0});
  spec.layers.insert(spec.layers.end(), 39, LayerCache{LayerKind::kSlidingWindow, 8 * 320, 0, 128, 0});
  return spec;
}

TEST(SglangKvCell, EachSwaPoolAtItsOwnHeadsAndKAndVDims) {
  // At TP 4 a full layer keeps 4 / 4 = 1 head x (192 + 128) x 2 B = 640 B
  // a token, a sliding layer 8 / 4 = 2 heads: 1,280 B. Full pool 9 x 640 =
  // 5,760 B; SWA pool 39 x 1,280 = 49,920 B (sglang#18039's main-branch
  // run prints "#tokens: 300288, K size: 8.38 GB, V size: 5.59 GB": 300,288
  // x 49,920 = 14,990,376,960 B, 13.961 GiB, against 8.38 + 5.59 = 13.97).
  const ModelSpec spec = mimo_like_spec();
  Settings s;
  s.tensor_parallel = 4;
  const KvCell c = kv_cell(spec, s);
  EXPECT_EQ(c.full_layers, 9u);
  EXPECT_EQ(c.swa_layers, 39u);
  EXPECT_EQ(c.full_bytes, 5760u);
  EXPECT_EQ(c.swa_bytes, 49920u);
  EXPECT_FALSE(c.same_layers);
  // TP 8: the 4 full heads are replicated, one a rank (640 B a layer); the
  // 8 sliding heads split, one a rank (640 B): 48 x 640 = 30,720 B.
  s.tensor_parallel = 8;
  EXPECT_EQ(kv_cell(spec, s).bytes, 30720u);
}

TEST(SglangPlan, TokenPoolIsWhatTheFractionLeavesAfterTheWeights) {
  // Llama-3.1-8B on an H100 (81,559 MiB = 85,520,809,984 B), the computed
  // 0.835. Free before the load: 85,520,809,984 - 1,200 MiB (startup,
  // 1,258,291,200) = 84,262,518,784. Weights: 16,060,522,496 + the rope
  // cache, float32 on CUDA (held_weights.h), 131,072 x 128 x 4 =
  // 67,108,864 -> 16,127,631,360; free after 68,134,887,424. Reserved:
  // floor(84,262,518,784 x 0.165) = 13,903,315,599. Rest 54,231,571,825 /
  // 131,072 = 413,754 tokens (page 1), a pool of 54,231,564,288 B.
  // Requests: 413,754 / 131,072 x 512 = 1,616, raised to 2,048; their table
  // 2,048 x (131,072 + 4) x 4 = 1,073,774,592.
  // 0.5.9: before the piecewise CUDA graphs' default (the next test).
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Settings s;
  s.release = "0.5.9";
  s.gpu_total_bytes = kH100Mib << 20;
  Result<Plan> p = plan_sglang(m, {}, s);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_DOUBLE_EQ(p->mem_fraction_static, 0.835);
  EXPECT_EQ(p->piecewise_rule_date, "");
  EXPECT_EQ(p->weights_bytes, 16127631360ull);
  EXPECT_EQ(p->free_before_load_bytes, 84262518784ull);
  EXPECT_EQ(p->reserved_bytes, 13903315599ull);
  EXPECT_EQ(p->max_total_num_tokens, 413754u);
  EXPECT_EQ(p->kv_pool_bytes, 54231564288ull);
  EXPECT_EQ(p->max_running_requests, 2048u);
  EXPECT_EQ(p->req_to_token_bytes, 1073774592ull);
  EXPECT_TRUE(p->starts);
  EXPECT_TRUE(p->holds_context);
  // Page 64: 413,754 rounds down to 6,464 pages, 413,696 tokens.
  s.page_size = 64;
  Result<Plan> paged = plan_sglang(m, {}, s);
  ASSERT_TRUE(paged.ok());
  EXPECT_EQ(paged->max_total_num_tokens, 413696u);
}

TEST(SglangPlan, From0510ThePiecewiseGraphsReserveTakesFromThePool) {
  // 0.5.10 and later (the default 0.5.12): _handle_piecewise_cuda_graph
  // leaves the piecewise graphs on for Llama-3.1-8B at TP 1 on an H100
  // (sgl-project/sglang#16331), and the computed fraction reserves 8 MiB a
  // token size up to the chunked prefill's 8,192: 4..32 by 4 (8), 48..256
  // by 16 (14), 288..512 by 32 (8), 576..1,024 by 64 (8), 1,280..4,096 by
  // 256 (12), 4,608..8,192 by 512 (8) = 58 sizes, 464 MiB, before the
  // floor: 13,440 + 464 = 13,904; (81,559 - 13,904) / 81,559 = 0.82952 ->
  // 0.830. Reserved: floor(84,262,518,784 x 0.17) = 14,324,628,193; rest
  // 68,134,887,424 - 14,324,628,193 = 53,810,259,231 / 131,072 = 410,539
  // tokens (413,754 at 0.5.9's 0.835, the test above).
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Settings s;
  s.gpu_total_bytes = kH100Mib << 20;
  ASSERT_EQ(s.release, "0.5.20");
  Result<Plan> p = plan_sglang(m, {}, s);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->piecewise_rule_date, "2026-03-02");
  EXPECT_DOUBLE_EQ(p->mem_fraction_static, 0.83);
  EXPECT_EQ(p->reserved_bytes, 14324628193ull);
  EXPECT_EQ(p->max_total_num_tokens, 410539u);
  // The plan holds the graphs at SGLang's reserve: 464 MiB = 486,539,264 B
  // beside the decode graphs' 256 x 2 MiB, both in the peak.
  EXPECT_EQ(p->piecewise_cuda_graph_bytes, 486539264u);
  EXPECT_EQ(p->cuda_graph_bytes, 536870912u);
  EXPECT_EQ(p->peak_bytes, p->startup_bytes + p->weights_bytes + p->kv_pool_bytes + p->req_to_token_bytes +
                               p->cuda_graph_bytes + p->piecewise_cuda_graph_bytes + p->activation_bytes);
  // --max-total-tokens 2,048 stops the sizes at 2,048 (#16331): 8 + 14 +
  // 8 + 8 + 1,280..2,048 by 256 (4) = 42 sizes, 336 MiB: 13,776;
  // (81,559 - 13,776) / 81,559 = 0.83109 -> 0.831.
  s.max_total_tokens = 2048;
  Result<Plan> capped = plan_sglang(m, {}, s);
  ASSERT_TRUE(capped.ok());
  EXPECT_DOUBLE_EQ(capped->mem_fraction_static, 0.831);
  // A given fraction is the run's: no reserve enters it.
  s.max_total_tokens.reset();
  s.mem_fraction_static = 0.835;
  Result<Plan> given = plan_sglang(m, {}, s);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->max_total_num_tokens, 413754u);
  // The graphs are still captured: their reserve stays in the plan.
  EXPECT_EQ(given->piecewise_cuda_graph_bytes, 486539264u);
  // Off (0.5.9): none.
  s.release = "0.5.9";
  Result<Plan> off = plan_sglang(m, {}, s);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->piecewise_cuda_graph_bytes, 0u);
}

TEST(SglangDefaults, ThePiecewiseGraphsAreOnByDefaultFrom0510WhereSglangLeavesThemOn) {
  // server_args.py, _handle_piecewise_cuda_graph (plan.h, piecewise_rule_date).
  ModelSpec spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  Settings s;  // 0.5.12
  EXPECT_EQ(piecewise_rule_date(spec, s), "2026-03-02");
  s.release = "0.5.10";
  EXPECT_EQ(piecewise_rule_date(spec, s), "2026-03-02");
  s.release = "0.5.9";  // before #16331: off unless asked for
  EXPECT_EQ(piecewise_rule_date(spec, s), "");
  s.release = "0.5.23";  // later releases: the pinned 0.5.20's rules
  EXPECT_EQ(piecewise_rule_date(spec, s), "2026-03-02");
  // Off under DP attention, on ROCm (HIP), for a multimodal model and for
  // Qwen3-Next or DeepSeek V4.
  Settings dp;
  dp.dp_attention = true, dp.dp_size = 2, dp.tensor_parallel = 2;
  EXPECT_EQ(piecewise_rule_date(spec, dp), "");
  Settings rocm;
  rocm.rocm = true;
  EXPECT_EQ(piecewise_rule_date(spec, rocm), "");
  ModelSpec vlm = spec;
  vlm.multimodal = true;
  EXPECT_EQ(piecewise_rule_date(vlm, Settings{}), "");
  ModelSpec next = spec;
  next.model_type = "qwen3_next";
  EXPECT_EQ(piecewise_rule_date(next, Settings{}), "");
  // DeepSeek-V3.2 (NSA) only from #23351 (2026-05-23, after 0.5.12): a log
  // of 2026-06-01 that prints no release has them, 0.5.12 not, 0.5.13 and
  // the pinned 0.5.20 do.
  ModelSpec nsa = spec;
  nsa.model_type = "deepseek_v32";
  EXPECT_EQ(piecewise_rule_date(nsa, Settings{}), "2026-03-02");
  Settings old_release;
  old_release.release = "0.5.12";
  EXPECT_EQ(piecewise_rule_date(nsa, old_release), "");
  old_release.release = "0.5.13";
  EXPECT_EQ(piecewise_rule_date(nsa, old_release), "2026-03-02");
  Settings dated;
  dated.log_date = "2026-06-01";
  EXPECT_EQ(piecewise_rule_date(nsa, dated), "2026-06-01");
  // A log's date stands for its release: before #16331's merge, off.
  dated.log_date = "2026-02-20";
  EXPECT_EQ(piecewise_rule_date(spec, dated), "");
  // Lines that show them on win, at the log's date.
  dated.piecewise_log_date = "2026-02-20";
  EXPECT_EQ(piecewise_rule_date(spec, dated), "2026-02-20");
}

TEST(SglangPlan, MaxTotalTokensCapsThePoolButNotTheDefaultRequests) {
  // model_runner.py, init_memory_pool: max_num_reqs is taken from the
  // profiled pool, then --max-total-tokens caps the pool, then whole pages.
  // Llama-3.1-8B on an H100 at the computed 0.835 profiles 414,010 tokens
  // (the test above). At --context-length 8192 the requests are
  // 414,010 / 8,192 x 512 = 25,875 -> 4,096 (the capped 20,480 would give
  // 1,280 -> 2,048). Capped at 20,480: a pool of 20,480 x 131,072 =
  // 2,684,354,560 B.
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Settings s;
  s.release = "0.5.9";  // the fraction of the test above
  s.gpu_total_bytes = kH100Mib << 20;
  s.context_length = 8192;
  s.max_total_tokens = 20480;
  Result<Plan> p = plan_sglang(m, {}, s);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->max_total_num_tokens, 20480u);
  EXPECT_EQ(p->kv_pool_bytes, 2684354560ull);
  EXPECT_EQ(p->max_running_requests, 4096u);
  // A cap above what memory allows leaves the profiled 413,754.
  s.max_total_tokens = 1'000'000;
  Result<Plan> loose = plan_sglang(m, {}, s);
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ(loose->max_total_num_tokens, 413754u);
  // Page 64, cap 20,000: min(413,696, 20,000) = 20,000 -> 312 pages, 19,968.
  s.page_size = 64;
  s.max_total_tokens = 20000;
  Result<Plan> paged = plan_sglang(m, {}, s);
  ASSERT_TRUE(paged.ok());
  EXPECT_EQ(paged->max_total_num_tokens, 19968u);
}

TEST(SglangPlan, WeightsPastTheFractionLeaveNoPool) {
  // A 24 GiB GPU at 0.5: 12 GiB less 1,200 MiB startup x 0.5 cannot hold
  // 16 GB of weights: no pool, SGLang refuses to start.
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Settings s;
  s.gpu_total_bytes = 24ull << 30;
  s.mem_fraction_static = 0.5;
  Result<Plan> p = plan_sglang(m, {}, s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->max_total_num_tokens, 0u);
  EXPECT_FALSE(p->starts);
}

TEST(SglangPlan, UnknownGpuIsRefusedNamingGpu) {
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Result<Plan> p = plan_sglang(m, {}, Settings{});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().field(), "gpu");
}

TEST(SglangAllocatorRounding, EachLargeParameterHoldsItsSegmentRoundedTo2MiB) {
  // QwQ-32B (the Qwen2 geometry of sglang-aws-qwq, docs/engine-sglang.md,
  // "Validation") at TP 4: 10 query heads, 2 KV heads of 128, hidden 5120,
  // 27,648 / 4 = 6,912 wide MLP, vocabulary 152,064 / 4 = 38,016 rows.
  // qkv (10 + 4) x 128 x 5120 x 2 B = 17.5 MiB -> 18 (+0.5); o 12.5 MiB ->
  // 14 (+1.5); gate_up 135 MiB -> 136 (+1); down 67.5 MiB -> 68 (+0.5):
  // 3.5 MiB a layer x 64 = 224 MiB; each vocabulary shard 371.25 MiB ->
  // 372 (+0.75), untied: 1.5 MiB. 225.5 MiB = 236,453,888 B.
  ModelSpec qwq;
  qwq.layout = "standard";
  qwq.geometry = {.layers = 64, .hidden = 5120, .heads = 40, .kv_heads = 8, .head_dim = 128,
                  .intermediate = 27648, .vocab = 152064};
  qwq.tied_embeddings = false;
  EXPECT_EQ(allocator_rounding_bytes(qwq, 4), 236'453'888u);
  // Llama-3.1-8B at TP 1: every parameter is a whole number of 2 MiB
  // (qkv 48, o 32, gate_up 224, down 112, each vocabulary table 1,002 MiB).
  const ModelSpec llama = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  EXPECT_EQ(allocator_rounding_bytes(llama, 1), 0u);
  // At TP 2 the vocabulary shards are 64,128 x 4096 x 2 B = 501 MiB -> 502
  // each, the layers' still whole (24, 16, 112, 56 MiB): 2 MiB.
  EXPECT_EQ(allocator_rounding_bytes(llama, 2), 2'097'152u);
  // The same geometry as an FP8 block (128 x 128) checkpoint: 1-byte linear
  // layers, fp32 block scales, 2-byte vocabulary shards. qkv 1,792 x 5120 x
  // 1 B = 8.75 MiB and o 6.25 MiB sit in shared segments (under 10 MiB);
  // gate_up 67.5 MiB -> 68 (+0.5); down 33.75 MiB -> 34 (+0.25); every
  // scale is under 10 MiB (gate_up's 108 x 40 x 4 B = 17,280 B): 0.75 MiB
  // a layer x 64 = 48 MiB; the shards as above, 1.5 MiB: 49.5 MiB =
  // 51,904,512 B.
  ModelSpec fp8 = qwq;
  fp8.quantization.method = "fp8";
  fp8.quantization.block_size = {128, 128};
  EXPECT_EQ(allocator_rounding_bytes(fp8, 4), 51'904'512u);
  // A config that keeps some projections unquantized mixes 1- and 2-byte
  // layers: not described, not priced.
  fp8.quantization.unquantized_modules = {"model.layers.0.self_attn.q_proj"};
  EXPECT_EQ(allocator_rounding_bytes(fp8, 4), 0u);
  // Packed integer schemes are not described.
  ModelSpec gptq = qwq;
  gptq.quantization.method = "gptq";
  EXPECT_EQ(allocator_rounding_bytes(gptq, 4), 0u);
}

TEST(SglangAllocatorRounding, DpAttentionAndExpertParallelShapeTheirOwnParameters) {
  // Qwen3-30B-A3B bf16 (sglang-17392's geometry): hidden 2,048, 32 query
  // and 4 KV heads of 128, 128 experts of 768, vocabulary 151,936, untied.
  // At TP 4: qkv (8 + 2) x 128 x 2,048 x 2 B = 5 MiB and o 4 MiB under 10
  // MiB; w13 128 x 384 x 2,048 x 2 B = 192 MiB and w2 96 MiB whole; each
  // vocabulary shard 37,984 x 2,048 x 2 B = 148.375 MiB -> 150 (+1.625):
  // 3.25 MiB = 3,407,872 B.
  ModelSpec qwen;
  qwen.layout = "standard";
  qwen.geometry = {.layers = 48, .hidden = 2048, .heads = 32, .kv_heads = 4, .head_dim = 128,
                   .intermediate = 6144, .vocab = 151936};
  qwen.tied_embeddings = false;
  qwen.moe.experts = 128;
  qwen.moe.experts_per_token = 8;
  qwen.moe.expert_intermediate = 768;
  EXPECT_EQ(allocator_rounding_bytes(qwen, 4), 3'407'872u);
  // TP 4, DP 4 under DP attention (attention TP 1), EP 4: qkv (32 + 8) x
  // 128 x 2,048 x 2 B = 20 MiB and o 16 MiB, whole; 32 experts a rank of
  // 768 (MoE TP 1): w13 32 x 1,536 x 2,048 x 2 B = 192 MiB, w2 96 MiB,
  // whole; the embedding whole (enable_tp=not is_dp_attention_enabled()):
  // 151,936 x 2,048 x 2 B = 593.5 MiB -> 594 (+0.5); the head by TP 4
  // (+1.625): 2.125 MiB = 2,228,224 B.
  RankSplit split = tp_split(4);
  split.attention_tp = 1;
  split.expert_parallel = 4;
  split.dp_attention = true;
  EXPECT_EQ(allocator_rounding_bytes(qwen, split), 2'228'224u);
}

TEST(SglangPlan, AMusaBuildKeepsTheRotaryCacheAtTheModelsDtype) {
  // SGLang's is_cuda() is false under torch_musa, so RotaryEmbedding casts
  // its cache to the model's dtype: Llama-3.1-8B's 131,072 x 128 rows at
  // 2 B = 33,554,432 B, not CUDA's float32 67,108,864 B: the weights
  // 16,127,631,360 - 33,554,432 = 16,094,076,928 B.
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Settings s;
  s.gpu_total_bytes = kH100Mib << 20;
  Result<Plan> cuda = plan_sglang(m, {}, s);
  ASSERT_TRUE(cuda.ok()) << cuda.error().message();
  EXPECT_EQ(cuda->rope_cache_bytes, 67'108'864u);
  EXPECT_EQ(cuda->weights_bytes, 16'127'631'360ull);
  s.musa = true;
  Result<Plan> musa = plan_sglang(m, {}, s);
  ASSERT_TRUE(musa.ok()) << musa.error().message();
  EXPECT_EQ(musa->rope_cache_bytes, 33'554'432u);
  EXPECT_EQ(musa->weights_bytes, 16'094'076'928ull);
}

TEST(SglangAllocatorRounding, Fp8MoeCheckpointRoundsOnlyItsVocabularyShards) {
  // Qwen3-235B-A22B-FP8 (sglang-21348, docs/engine-sglang.md, "Validation")
  // at TP 4: 16 query heads and 1 KV head of 128, hidden 4096, 128 experts
  // of 1,536 / 4 = 384 a rank. qkv (16 + 2) x 128 x 4096 x 1 B = 9 MiB, o 8
  // MiB: under 10 MiB; w13 128 x 768 x 4096 x 1 B = 384 MiB and w2 192 MiB:
  // whole 2 MiB; the scales (w13 128 x 6 x 32 x 4 B = 96 KiB) under 10 MiB.
  // The bf16 vocabulary shards 151,936 / 4 x 4096 x 2 B = 296.75 MiB -> 298
  // (+1.25), untied: 2.5 MiB = 2,621,440 B.
  ModelSpec qwen;
  qwen.layout = "standard";
  qwen.geometry = {.layers = 94, .hidden = 4096, .heads = 64, .kv_heads = 4, .head_dim = 128,
                   .intermediate = 12288, .vocab = 151936};
  qwen.tied_embeddings = false;
  qwen.moe.experts = 128;
  qwen.moe.experts_per_token = 8;
  qwen.moe.expert_intermediate = 1536;
  qwen.quantization.method = "fp8";
  qwen.quantization.block_size = {128, 128};
  qwen.quantization.unquantized_modules = {"lm_head", "model.layers.0.mlp.gate",
                                           "model.layers.0.input_layernorm"};
  EXPECT_EQ(allocator_rounding_bytes(qwen, 4), 2'621'440u);
}

TEST(SglangDefaults, ThePiecewiseGraphsAreOffUnderA2aTheHierarchicalCacheAndPdDisaggregation) {
  // _handle_piecewise_cuda_graph's conditions 7 (a MoE all-to-all backend),
  // 12 (the hierarchical cache) and 14 (PD disaggregation), in #16331 and
  // in the tree of 2026-06-08: off at the pinned 0.5.20, where Llama-3.1-8B
  // has them on (the test above).
  const ModelSpec spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  ASSERT_EQ(piecewise_rule_date(spec, Settings{}), "2026-03-02");
  Settings a2a;
  a2a.moe_a2a_backend = "deepep";
  EXPECT_EQ(piecewise_rule_date(spec, a2a), "");
  Settings hicache;
  hicache.hierarchical_cache = true;
  EXPECT_EQ(piecewise_rule_date(spec, hicache), "");
  for (const char* mode : {"prefill", "decode"}) {
    Settings pd;
    pd.disaggregation_mode = mode;
    EXPECT_EQ(piecewise_rule_date(spec, pd), "") << mode;
  }
  // A log whose lines show them on still wins (plan.h).
  hicache.piecewise_log_date = "2026-03-25";
  EXPECT_EQ(piecewise_rule_date(spec, hicache), "2026-03-25");
}

TEST(SglangDefaults, From0516APrefillServerReservesNeitherDecodeGraphsNorDpAttention) {
  // sgl-project/sglang#29615 (reserve_for_graph_mb). An H100, TP 8, DP 8
  // with DP attention, the graph batch 512 (TP >= 4), chunked prefill
  // 8,192, no piecewise reserve (off under DP attention). Before it every
  // server reserves 512 + 8,192 x 1.5 + 512 x 2 + 8 / 8 x 1,024 + 512 x 8
  // x 3 + (past 300) 512 x 8 x 1.5 = 512 + 12,288 + 1,024 + 1,024 + 12,288
  // + 6,144 = 33,280; (81,559 - 33,280) / 81,559 = 0.59195 -> 0.592. From
  // it a prefill server leaves out the decode graphs' 1,024 and DP
  // attention's 18,432: 13,824; 67,735 / 81,559 = 0.83050 -> 0.831.
  Settings s;
  s.tensor_parallel = 8, s.dp_size = 8, s.dp_attention = true;
  s.disaggregation_mode = "prefill";
  const GpuDefaults d = gpu_defaults(kH100Mib, 8);
  s.release = "0.5.15";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.592);
  s.release = "0.5.16";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.831);
  // A plain server of 0.5.16 keeps both.
  s.disaggregation_mode = "null";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.592);
  // A release-less log from the PR's 2026-06-29.
  s.disaggregation_mode = "prefill";
  s.release = "0.5.20";
  s.log_date = "2026-06-28";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.592);
  s.log_date = "2026-06-29";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.831);
}

TEST(SglangDefaults, From0516ADecodeServersActivationsFollowItsRunningRequests) {
  // sgl-project/sglang#29615 (handle_gpu_memory_settings): a decode
  // server's activation tokens are max(--max-running-requests, else the
  // graph batch, x 1 draft token, 2,048). An H100, TP 1, graph batch 256:
  // 512 + max(256, 2,048) x 1.5 + 256 x 2 + 128 = 4,224, raised to the 10
  // GiB floor: (81,559 - 10,240) / 81,559 = 0.87445 -> 0.874, where 0.5.15
  // takes the chunked prefill's 8,192: 13,440 -> 0.835. 16,384 running
  // requests: 512 + 24,576 + 512 + 128 = 25,728; 55,831 / 81,559 = 0.68455
  // -> 0.685.
  Settings s;
  s.disaggregation_mode = "decode";
  const GpuDefaults d = gpu_defaults(kH100Mib, 1);
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.874);
  s.release = "0.5.15";
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.835);
  s.release = "0.5.16";
  s.max_running_requests = 16384;
  EXPECT_DOUBLE_EQ(default_mem_fraction(kH100Mib, d, s), 0.685);
}

TEST(SglangPlan, APdServerSettlesItsGraphsAndCacheAsSglangDoes) {
  // Llama-3.1-8B on an H100 at the pinned 0.5.20 (the tests above: 0.830
  // with the piecewise graphs, 0.835 and 413,754 tokens without them).
  const Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", kLlama8bBytes);
  Settings s;
  s.gpu_total_bytes = kH100Mib << 20;
  // The hierarchical cache: no piecewise graphs, their 464 MiB neither
  // reserved nor held; the decode graphs stay (256 x 2 MiB).
  s.hierarchical_cache = true;
  Result<Plan> hicache = plan_sglang(m, {}, s);
  ASSERT_TRUE(hicache.ok()) << hicache.error().message();
  EXPECT_DOUBLE_EQ(hicache->mem_fraction_static, 0.835);
  EXPECT_EQ(hicache->max_total_num_tokens, 413754u);
  EXPECT_EQ(hicache->piecewise_cuda_graph_bytes, 0u);
  EXPECT_EQ(hicache->cuda_graph_bytes, 536870912u);
  // A prefill server captures no decode graphs (_handle_pd_disaggregation);
  // from 0.5.16 its fraction leaves their 512 MiB out: 512 + 12,288 + 128
  // = 12,928; (81,559 - 12,928) / 81,559 = 0.84149 -> 0.841. 0.5.15 still
  // reserves them: 0.835.
  s.hierarchical_cache = false;
  s.disaggregation_mode = "prefill";
  Result<Plan> prefill = plan_sglang(m, {}, s);
  ASSERT_TRUE(prefill.ok()) << prefill.error().message();
  EXPECT_DOUBLE_EQ(prefill->mem_fraction_static, 0.841);
  EXPECT_EQ(prefill->cuda_graph_bytes, 0u);
  EXPECT_EQ(prefill->piecewise_cuda_graph_bytes, 0u);
  s.release = "0.5.15";
  Result<Plan> old_prefill = plan_sglang(m, {}, s);
  ASSERT_TRUE(old_prefill.ok());
  EXPECT_DOUBLE_EQ(old_prefill->mem_fraction_static, 0.835);
  EXPECT_EQ(old_prefill->cuda_graph_bytes, 0u);
  // A decode server keeps its graphs and runs without the radix cache.
  s.disaggregation_mode = "decode";
  Result<Plan> decode = plan_sglang(m, {}, s);
  ASSERT_TRUE(decode.ok());
  EXPECT_TRUE(decode->settings.state.disable_radix_cache);
  EXPECT_EQ(decode->cuda_graph_bytes, 536870912u);
  EXPECT_FALSE(prefill->settings.state.disable_radix_cache);
}

}  // namespace
}  // namespace memfit::sglang
