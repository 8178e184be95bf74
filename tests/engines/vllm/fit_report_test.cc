// render_vllm_fit_text() and vllm_fit_to_json() on a hand-filled VllmFit: max-model-len
// and max-num-seqs, capped, uncapped and nothing-fits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "memfit/vllm_fit.h"
#include "memfit/vllm_report.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using ::memfit::testing::kMiB;
using ::memfit::testing::kGiB;

PreparedRequest prepared() {
  auto m = std::make_shared<Model>();
  m->path = "models/llama-8b";
  m->has_config = true;
  m->spec.model_type = "llama";
  m->spec.family = "llama";
  m->spec.layout = "standard";
  m->spec.max_position_tokens = 131072;
  m->weights.bytes = 15 * kGiB;
  m->weights.source = WeightsSource::kSafetensorsHeader;
  PreparedRequest p;
  p.model = m;
  p.engine = EngineRegistry::instance().find("vllm");
  p.budget = MemoryBudget{80 * kGiB, 80 * kGiB, BudgetSource::kGpu};
  p.warnings = {{WarningKind::kHost, "probed GPU 0"}};
  return p;
}

// The estimate at the answer: 72 GiB requested + 1 GiB of graphs = 73 GiB
// peak of 80 GiB; 55 GiB of KV in 28,160 blocks of 2 MiB.
VllmEstimate at(uint64_t max_model_len, uint64_t max_num_seqs) {
  VllmEstimate e;
  e.settings.gpu_memory_total = 80 * kGiB;
  e.settings.gpu_memory_utilization = 0.9;  // as resolved (given)
  e.settings.max_model_len = max_model_len;
  e.settings.max_num_seqs = max_num_seqs;
  e.settings.max_num_batched_tokens = 8192;
  e.weights.bytes = 15 * kGiB;
  e.activation_bytes = 1936 * kMiB;
  e.non_torch_bytes = 144 * kMiB;
  e.cuda_graph_bytes = kGiB;
  e.requested_bytes = 72 * kGiB;
  e.kv_cache_bytes = 55 * kGiB;
  e.layout.page_size_bytes = 65536;
  e.layout.attention_block_size = 16;
  e.layout.group_size = 32;
  e.layout.bytes_per_block = 2 * kMiB;
  e.num_blocks = 28160;
  e.kv_tokens = 450560;
  e.kv_cache_memory_for_seqs = 8 * kGiB;
  e.total_bytes = 73 * kGiB;
  e.budget_bytes = 80 * kGiB;
  e.starts = true;
  e.fits = true;
  return e;
}

VllmFit max_model_len_fit() {
  VllmFit f;
  f.answer.what = VllmSolveFor::kMaxModelLen;
  f.answer.value = 131072;
  f.answer.capped = true;
  f.answer.ceiling = 131072;
  f.answer.ceiling_reason = "the config's context: vLLM refuses a longer --max-model-len";
  f.answer.estimate = at(131072, 256);
  f.flags = vllm_serve_flags(*f.answer.estimate);
  return f;
}

TEST(VllmFitTextReport, CappedMaxModelLenThenFlagsAndTheReport) {
  const PreparedRequest p = prepared();
  const VllmFit f = max_model_len_fit();
  EXPECT_EQ(render_vllm_fit_text(p, f),
            "Largest max-model-len vLLM starts with in 80.00 GiB (gpu): 131072 (the config's context: "
            "vLLM refuses a longer --max-model-len)\n"
            "start: vllm serve models/llama-8b --max-model-len 131072 --max-num-seqs 256 --max-num-batched-tokens 8192 "
            "--gpu-memory-utilization 0.9\n"
            "\n" +
                render_vllm_text(*p.model, *f.answer.estimate, p.budget) +
                // The report's speed line: no machine here, so unknown.
                "\nspeed: unknown: give --gpu or --mac\n");
  EXPECT_THAT(render_vllm_fit_text(p, f), HasSubstr("\nFITS: 73.00 GiB of 80.00 GiB (7.00 GiB to spare)\n"));
}

TEST(VllmFitTextReport, UncappedHasNoReason) {
  VllmFit f = max_model_len_fit();
  f.answer.value = 65536;
  f.answer.capped = false;
  f.answer.estimate = at(65536, 256);
  f.flags = vllm_serve_flags(*f.answer.estimate);
  EXPECT_THAT(render_vllm_fit_text(prepared(), f),
              StartsWith("Largest max-model-len vLLM starts with in 80.00 GiB (gpu): 65536\n"
                         "start: vllm serve models/llama-8b --max-model-len 65536 "));
}

TEST(VllmFitTextReport, MaxNumSeqsNamesTheContextOfItsRequests) {
  VllmFit f;
  f.answer.what = VllmSolveFor::kMaxNumSeqs;
  f.answer.value = 55;
  f.answer.ceiling = 8192;
  f.answer.estimate = at(8192, 55);
  f.flags = vllm_serve_flags(*f.answer.estimate);
  EXPECT_THAT(render_vllm_fit_text(prepared(), f),
              StartsWith("Largest max-num-seqs whose requests of 8192 tokens all fit vLLM's KV cache in "
                         "80.00 GiB (gpu): 55\n"
                         "start: vllm serve models/llama-8b --max-model-len 8192 --max-num-seqs 55 "));
}

TEST(VllmFitTextReport, NothingFitsIsOneLine) {
  PreparedRequest p = prepared();
  VllmFit f;
  f.answer.what = VllmSolveFor::kMaxModelLen;
  f.answer.ceiling = 131072;
  f.answer.why_none = "the weights alone (15.00 GiB) leave no KV cache at utilization 0.9";
  EXPECT_EQ(render_vllm_fit_text(p, f),
            "Largest max-model-len vLLM starts with in 80.00 GiB (gpu): nothing fits: the weights alone "
            "(15.00 GiB) leave no KV cache at utilization 0.9\n");
  // max-num-seqs without an estimate: the request's context, else the config's.
  f.answer.what = VllmSolveFor::kMaxNumSeqs;
  f.answer.why_none = "no request of 131072 tokens fits";
  EXPECT_THAT(render_vllm_fit_text(p, f),
              StartsWith("Largest max-num-seqs whose requests of 131072 tokens all fit"));
  p.vllm_settings.max_model_len = 4096;
  EXPECT_THAT(render_vllm_fit_text(p, f),
              StartsWith("Largest max-num-seqs whose requests of 4096 tokens all fit"));
  // A zero budget.
  p.budget = MemoryBudget{0, 0, BudgetSource::kUnavailable};
  EXPECT_THAT(render_vllm_fit_text(p, f), HasSubstr(" in 0 B (unavailable): nothing fits: "));
}

TEST(VllmFitJsonReport, TheAnswerFlagsAndReport) {
  const PreparedRequest p = prepared();
  const VllmFit f = max_model_len_fit();
  nlohmann::ordered_json j = vllm_fit_to_json(p, f);
  nlohmann::ordered_json report = j["report"];
  j.erase("report");
  EXPECT_EQ(j.dump(),
            R"({"solve":"max-model-len","engine":"vllm","value":131072,"capped":true,"ceiling":131072,)"
            R"("ceiling_reason":"the config's context: vLLM refuses a longer --max-model-len",)"
            R"("reason":null,"budget_bytes":85899345920,"budget_source":"gpu",)"
            R"("flags":["--max-model-len","131072","--max-num-seqs","256","--max-num-batched-tokens",)"
            R"("8192","--gpu-memory-utilization","0.9"],"warnings":["probed GPU 0"]})");
  // The report as inspect gives it, with its speed (unknown: no machine).
  nlohmann::ordered_json want = vllm_estimate_to_json(*p.model, *f.answer.estimate, p.budget, p.warnings);
  want["speed"] = {{"decode_tokens_per_second", nullptr},
                   {"prefill_tokens_per_second", nullptr},
                   {"time_to_first_token_s", nullptr},
                   {"unknown", "give --gpu or --mac"}};
  EXPECT_EQ(report, want);
  EXPECT_EQ(report["total_bytes"], 78383153152u);  // 73 x 2^30
  EXPECT_EQ(report["inputs"]["max_model_len"], 131072u);
}

TEST(VllmFitJsonReport, NothingFitsHasAReasonAndNulls) {
  VllmFit f;
  f.answer.what = VllmSolveFor::kMaxNumSeqs;
  f.answer.ceiling = 8192;
  f.answer.ceiling_reason = "--max-num-batched-tokens: vLLM refuses more sequences";
  f.answer.why_none = "no request of 131072 tokens fits";
  EXPECT_EQ(vllm_fit_to_json(prepared(), f).dump(),
            R"({"solve":"max-num-seqs","engine":"vllm","value":null,"capped":false,"ceiling":8192,)"
            R"("ceiling_reason":"--max-num-batched-tokens: vLLM refuses more sequences",)"
            R"("reason":"no request of 131072 tokens fits","budget_bytes":85899345920,)"
            R"("budget_source":"gpu","flags":null,"warnings":["probed GPU 0"],"report":null})");
}

}  // namespace
}  // namespace memfit
