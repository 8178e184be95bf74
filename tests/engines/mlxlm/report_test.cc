// render_mlxlm_text() and mlxlm_estimate_to_json() on a hand-filled MlxLmEstimate
// (peak in each phase) and on estimate_mlxlm()'s answer for Qwen3-14B.
//
// The hand-built estimate, a Llama-3.2-3B-like model, 2048-token prompt,
// 128 generated, one chunk:
//   KV 28 layers x 2 x 8 x 128 x 2 B = 114,688 B/token x 2304 slots
//      (2048 + 128 = 2176, grown in 256s) = 264,241,152 (252 MiB)
//   weights 1.5 GiB (1,610,612,736), transient 1 GiB at the last chunk
//   peak 1,610,612,736 + 264,241,152 + 1,073,741,824 = 2,948,595,712
//        (2.746 GiB -> 2.75) = 2812 MiB exactly: wired 2812 MiB
//   budget 4 GiB: 1,346,371,584 (1.254 GiB -> 1.25) to spare
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "memfit/mlxlm_report.h"
#include "memfit/mlxcel_report.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::ordered_json;

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

const MemoryBudget kBudget{4 * kGiB, 4 * kGiB, BudgetSource::kUnifiedMemory};

Model llama_3b() {
  Model m;
  m.path = "mlx-community/Llama-3.2-3B-Instruct-4bit";
  m.has_config = true;
  m.spec.model_type = "llama";
  m.spec.family = "llama";
  m.spec.layout = "standard";
  m.weights.bytes = 1536 * kMiB;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

MlxLmPhaseBytes phase(uint64_t kv, uint64_t attention, uint64_t mlp, uint64_t logits, uint64_t regrow,
                      uint64_t transient, uint64_t total) {
  return MlxLmPhaseBytes{kv, attention, mlp, logits, regrow, transient, total};
}

MlxLmEstimate one_chunk() {
  MlxLmEstimate e;
  e.settings.prompt_tokens = 2048;
  e.settings.max_tokens = 128;
  e.settings.batch = 1;
  e.settings.prefill_step_size = 2048;
  e.full_chunks = 0;
  e.last_chunk_tokens = 2048;
  e.kv_capacity_tokens = 2304;
  e.kv_layers = 28;
  e.kv_bytes_per_token = 114688;
  e.fused_attention = true;
  e.weights_bytes = 1536 * kMiB;
  e.weights_exact = true;
  // Last chunk: attention 64 MiB, MLP 96 MiB, logits 500 MiB, no regrow.
  e.last_chunk = phase(252 * kMiB, 64 * kMiB, 96 * kMiB, 500 * kMiB, 0, kGiB, 2948595712);
  // Decode: 1 MiB of attention, 2 MiB of MLP, 250 KiB of logits, a 224 MiB
  // regrow; 300 MiB transient: 1536 + 252 + 300 = 2088 MiB.
  e.decode = phase(252 * kMiB, kMiB, 2 * kMiB, 250 * 1024, 224 * kMiB, 300 * kMiB, 2088 * kMiB);
  e.peak_phase = MlxLmPhase::kLastChunk;
  e.kv_bytes = 252 * kMiB;
  e.transient_bytes = kGiB;
  e.peak_bytes = e.total_bytes = 2948595712;  // no --confidence: the total is the peak
  e.budget_bytes = 4 * kGiB;
  e.fits = true;
  e.wired_limit_mb = 2812;
  return e;
}

std::vector<std::string> keys_of(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST(MlxLmTextReport, TheWholeReportOfAOneChunkPromptThatFits) {
  EXPECT_EQ(render_mlxlm_text(llama_3b(), one_chunk(), kBudget),
            fmt::format("memfit {} — mlx-community/Llama-3.2-3B-Instruct-4bit (engine mlx-lm)\n"
                        "model_type llama, family llama, layout standard\n"
                        "inputs: --prompt-tokens 2048 --max-tokens 128 --batch-size 1\n"
                        "        --prefill-step-size 2048 (0 full chunks, then 2048 tokens), KV fp16\n"
                        "\n"
                        "  Weights                   1.50 GiB   exact (safetensors_header)\n"
                        "  KV cache                 252.0 MiB   exact, 28 layers, 2304 slots at the end\n"
                        "  Recurrent state                0 B\n"
                        "  Transient                 1.00 GiB   modelled: held by the command buffers "
                        "in flight, at the last prefill chunk\n"
                        "  of which the largest single ops:\n"
                        "    Attention               64.0 MiB   fused SDPA\n"
                        "    MLP                     96.0 MiB\n"
                        "    Logits                 500.0 MiB\n"
                        "    Cache regrow                 0 B   the largest layer's old buffer\n"
                        "  Peak                      2.75 GiB   mx.get_peak_memory(), modelled\n"
                        "  Budget                    4.00 GiB   unified_memory\n"
                        "KV per token: 114688 B, one sequence (28 layers without a window); "
                        "KVCache grows in 256-token steps: 2304 slots for 2176 tokens\n"
                        "wired: mx.set_wired_limit(2948595712); macOS: sudo sysctl iogpu.wired_limit_mb=2812\n"
                        "\n"
                        "FITS: 2.75 GiB of 4.00 GiB (1.25 GiB to spare)\n",
                        memfit_version()));
}

TEST(MlxLmTextReport, OverTheBudgetSaysNoWiredLimitHelps) {
  // 2 GiB: 2,948,595,712 - 2,147,483,648 = 801,112,064 (764.0 MiB) short.
  MlxLmEstimate e = one_chunk();
  e.budget_bytes = 2 * kGiB;
  e.fits = false;
  const std::string text = render_mlxlm_text(llama_3b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("\nwired: mx.set_wired_limit(2948595712); macOS: sudo sysctl "
                              "iogpu.wired_limit_mb=2812 (over the budget: no wired limit makes it fit)\n"));
  EXPECT_THAT(text, HasSubstr("\nDOES NOT FIT: 2.75 GiB needed, 2.00 GiB available (764.0 MiB short)\n"));
  e.budget_bytes = 0;
  EXPECT_THAT(render_mlxlm_text(llama_3b(), e, MemoryBudget{}),
              HasSubstr("\nDOES NOT FIT: 2.75 GiB needed, 0 B available (2.75 GiB short)\n"));
}

TEST(MlxLmTextReport, InputsLineFollowsChunksQuantizedKvAndMaxKvSize) {
  MlxLmEstimate e = one_chunk();
  e.settings.prompt_tokens = 3000;
  e.settings.batch = 2;
  e.settings.kv_bits = 4;
  e.settings.kv_group_size = 64;
  e.full_chunks = 1;
  e.last_chunk_tokens = 952;  // 3000 - 2048
  EXPECT_THAT(render_mlxlm_text(llama_3b(), e, kBudget),
              HasSubstr("\ninputs: --prompt-tokens 3000 --max-tokens 128 --batch-size 2\n"
                        "        --prefill-step-size 2048 (1 full chunk, then 952 tokens), KV 4-bit, group 64\n\n"));
  e.full_chunks = 2;
  e.settings.prompt_tokens = 5000;
  e.last_chunk_tokens = 904;  // 5000 - 2 x 2048
  e.settings.kv_bits = 0;
  e.settings.max_kv_size = 4096;
  EXPECT_THAT(render_mlxlm_text(llama_3b(), e, kBudget),
              HasSubstr("(2 full chunks, then 904 tokens), KV fp16, --max-kv-size 4096\n\n"));
}

TEST(MlxLmTextReport, TheOpsRowsAreThePeakPhases) {
  MlxLmEstimate e = one_chunk();
  e.peak_phase = MlxLmPhase::kDecode;
  e.fused_attention = false;
  std::string text = render_mlxlm_text(llama_3b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("in flight, at the last decode step\n"
                              "  of which the largest single ops:\n"
                              "    Attention                1.0 MiB\n"
                              "    MLP                      2.0 MiB\n"
                              "    Logits                 250.0 KiB\n"
                              "    Cache regrow           224.0 MiB   the largest layer's old buffer\n"));
  // The last full chunk: 512 MiB of attention there.
  e.peak_phase = MlxLmPhase::kPrefillChunk;
  e.full_chunks = 1;
  e.prefill_chunk = phase(224 * kMiB, 512 * kMiB, 96 * kMiB, 0, 0, 900 * kMiB, 2660 * kMiB);
  text = render_mlxlm_text(llama_3b(), e, kBudget);
  EXPECT_THAT(text, HasSubstr("in flight, at the last full prefill chunk\n"
                              "  of which the largest single ops:\n"
                              "    Attention              512.0 MiB\n"));
}

TEST(MlxLmTextReport, RotatingRecurrentAndEstimatedWeights) {
  Model m = llama_3b();
  m.weights.source = WeightsSource::kSafetensorsIndex;
  m.spec.assumptions = {"sliding_window_pattern 6 (default)"};
  MlxLmEstimate e = one_chunk();
  e.weights_exact = false;
  e.rotating_layers = 5;
  e.kv_capacity_tokens = 0;  // no full-attention layer
  e.recurrent_bytes = 3 * kMiB;
  e.recurrent_layers = 24;
  const std::string text = render_mlxlm_text(m, e, kBudget);
  EXPECT_THAT(text, HasSubstr("\n  Weights                   1.50 GiB   estimated (safetensors_index)\n"));
  EXPECT_THAT(text, HasSubstr("\n  KV cache                 252.0 MiB   exact, 28 layers, 5 rotating\n"));
  EXPECT_THAT(text, HasSubstr("\n  Recurrent state            3.0 MiB   upper bound, 24 layers\n"));
  EXPECT_THAT(text, HasSubstr("\nassumed: sliding_window_pattern 6 (default)\nwired: "));
  EXPECT_THAT(text, Not(HasSubstr("slots at the end")));
}

TEST(MlxLmJsonReport, KeysAndExactFigures) {
  std::vector<Warning> warnings = {{WarningKind::kRequest, "--max-kv-size is ignored"}};
  Json j = mlxlm_estimate_to_json(llama_3b(), one_chunk(), kBudget, warnings);
  EXPECT_THAT(keys_of(j), ElementsAre("memfit_version", "model", "model_type", "family", "layout",
                                      "engine", "inputs", "weights_bytes", "weights_source",
                                      "weights_verified", "kv_bytes_per_token", "mlxlm", "bands", "confidence", "budget_bytes", "budget_source",
                                      "total_bytes", "fits", "assumptions", "warnings"));
  EXPECT_EQ(j["engine"], "mlx-lm");
  EXPECT_EQ(j["inputs"].dump(),
            R"({"prompt_tokens":2048,"max_tokens":128,"batch":1,"prefill_step_size":2048,)"
            R"("kv_bits":null,"kv_group_size":64,"max_kv_size":null,"full_chunks":0,)"
            R"("last_chunk_tokens":2048})");
  EXPECT_EQ(j["weights_bytes"], 1610612736u);  // 1.5 x 2^30
  const Json& x = j["mlxlm"];
  EXPECT_EQ(x["peak_phase"], "last_chunk");
  EXPECT_EQ(x["kv_bytes"], 264241152u);  // 114,688 x 2304
  EXPECT_EQ(x["kv_layers"], 28u);
  EXPECT_EQ(x["kv_capacity_tokens"], 2304u);
  EXPECT_EQ(x["transient_bytes"], 1073741824u);
  EXPECT_EQ(x["fused_attention"], true);
  EXPECT_EQ(x["command_buffers"].dump(),
            R"({"max_ops":50,"max_mega_elements":50,"max_in_flight":10,"inputs_counted":"distinct"})");
  EXPECT_TRUE(x["phases"]["prefill_chunk"].is_null());  // one chunk: no full chunk before it
  EXPECT_EQ(x["phases"]["last_chunk"].dump(),
            R"({"kv_bytes":264241152,"attention_bytes":67108864,"mlp_bytes":100663296,)"
            R"("logits_bytes":524288000,"regrow_bytes":0,"transient_bytes":1073741824,)"
            R"("total_bytes":2948595712})");
  EXPECT_EQ(x["phases"]["decode"]["regrow_bytes"], 234881024u);  // 224 MiB
  EXPECT_EQ(x["phases"]["decode"]["total_bytes"], 2189426688u);  // 2088 MiB
  EXPECT_EQ(x["figures"].dump(),
            R"({"weights_bytes":"exact","kv_bytes":"exact","recurrent_bytes":"upper_bound",)"
            R"("transient_bytes":"modelled"})");
  EXPECT_EQ(x["wired"].dump(),
            R"j({"limit_bytes":2948595712,"limit_mb":2812,"set_wired_limit":"mx.set_wired_limit(2948595712)",)j"
            R"("sysctl":"sudo sysctl iogpu.wired_limit_mb=2812"})");
  EXPECT_EQ(j["budget_bytes"], 4294967296u);
  EXPECT_EQ(j["budget_source"], "unified_memory");
  EXPECT_EQ(j["total_bytes"], 2948595712u);
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["warnings"].dump(), R"(["--max-kv-size is ignored"])");
}

TEST(MlxLmJsonReport, MutationsShowInTheirFields) {
  MlxLmEstimate e = one_chunk();
  e.settings.kv_bits = 8;
  e.settings.kv_group_size = 32;
  e.settings.max_kv_size = 4096;
  e.settings.buffers = MlxBufferLimits{100, 1000, false, 10};
  e.full_chunks = 1;
  e.prefill_chunk = phase(224 * kMiB, 512 * kMiB, 96 * kMiB, 0, 0, 900 * kMiB, 2660 * kMiB);
  e.peak_phase = MlxLmPhase::kPrefillChunk;
  e.weights_exact = false;
  e.fits = false;
  e.budget_bytes = 2 * kGiB;
  Json j = mlxlm_estimate_to_json(llama_3b(), e, kBudget, {});
  EXPECT_EQ(j["inputs"]["kv_bits"], 8u);
  EXPECT_EQ(j["inputs"]["kv_group_size"], 32u);
  EXPECT_EQ(j["inputs"]["max_kv_size"], 4096u);
  EXPECT_EQ(j["mlxlm"]["peak_phase"], "prefill_chunk");
  EXPECT_EQ(j["mlxlm"]["phases"]["prefill_chunk"]["attention_bytes"], 536870912u);  // 512 MiB
  EXPECT_EQ(j["mlxlm"]["command_buffers"]["inputs_counted"], "every");
  EXPECT_EQ(j["mlxlm"]["command_buffers"]["max_ops"], 100u);
  EXPECT_EQ(j["mlxlm"]["figures"]["weights_bytes"], "estimated");
  EXPECT_EQ(j["budget_bytes"], 2147483648u);
  EXPECT_EQ(j["fits"], false);
}

TEST(MlxLmTextReport, EstimatorsOwnAnswerForQwen3_14B) {
  // 2048-token prompt in one chunk, 128 generated: every full-attention
  // layer's KVCache ends at 2304 slots (2176 grown in 256s); 40 layers.
  // Weights from the index: 8,307,783,680 = 7.74 GiB. The wired limit is
  // the peak in whole MiB, rounded up.
  Model m = testing::corpus_model("mlx/Qwen3-14B-MLX-4bit", 8307783680ull);
  MlxLmSettings s;
  s.prompt_tokens = 2048;
  s.max_tokens = 128;
  const MemoryBudget budget{48 * kGiB, 48 * kGiB, BudgetSource::kUnifiedMemory};
  Result<MlxLmEstimate> e = estimate_mlxlm(m, s, budget);
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::string text = render_mlxlm_text(m, *e, budget);
  EXPECT_THAT(text, HasSubstr("\n  Weights                   7.74 GiB   exact (safetensors_index)\n"));
  EXPECT_THAT(text, HasSubstr(", 40 layers, 2304 slots at the end\n"));
  EXPECT_THAT(text, HasSubstr("(0 full chunks, then 2048 tokens), KV fp16\n"));
  EXPECT_EQ(e->wired_limit_mb, (e->total_bytes + kMiB - 1) / kMiB);
  EXPECT_THAT(text, HasSubstr(fmt::format("\nwired: mx.set_wired_limit({}); macOS: sudo sysctl "
                                          "iogpu.wired_limit_mb={}\n",
                                          e->wired_limit_mb << 20, e->wired_limit_mb)));
  EXPECT_THAT(text, HasSubstr("\nFITS: "));
  Json j = mlxlm_estimate_to_json(m, *e, budget, {});
  EXPECT_EQ(j["total_bytes"], e->total_bytes);
  EXPECT_EQ(j["mlxlm"]["kv_capacity_tokens"], 2304u);
}

}  // namespace
}  // namespace memfit
