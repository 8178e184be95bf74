// render_llamacpp_fit_text() and llamacpp_fit_to_json() on a hand-filled LlamaCppFit:
// each solved setting, capped, uncapped and nothing-fits, on the CPU and GPUs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "memfit/llamacpp_fit.h"
#include "memfit/llamacpp_report.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr uint64_t kMiB = 1ull << 20;
using ::memfit::testing::kGiB;

std::shared_ptr<const Model> qwen3_gguf(uint64_t training_context = 40960) {
  auto m = std::make_shared<Model>();
  m->path = "models/qwen3-8b.gguf";
  m->has_config = true;
  m->spec.model_type = "qwen3";
  m->spec.family = "qwen3";
  m->spec.layout = "standard";
  m->spec.max_position_tokens = training_context;
  m->weights.bytes = 5 * kGiB;
  m->weights.source = WeightsSource::kGgufHeader;
  return m;
}

PreparedRequest prepared(uint64_t training_context = 40960) {
  PreparedRequest p;
  p.model = qwen3_gguf(training_context);
  p.engine = EngineRegistry::instance().find("llamacpp");
  p.budget = MemoryBudget{8 * kGiB, 8 * kGiB, BudgetSource::kExplicit};
  p.warnings = {{WarningKind::kHost, "no GPU library"}};
  return p;
}

// The estimate at the answer: 5 GiB of model, 512 MiB of context, 256 MiB
// of compute: 5.75 GiB (6,174,015,488) of 8 GiB, 2.25 GiB to spare.
LlamaCppEstimate at_answer(uint64_t ctx) {
  LlamaCppEstimate e;
  e.settings.ctx_size = ctx;
  e.context.n_ctx = e.context.n_ctx_seq = ctx;
  e.context.n_batch = 2048;
  e.context.n_ubatch = 512;
  e.mapped_bytes = e.model_bytes = 5 * kGiB;
  e.model_bytes_exact = true;
  e.repack = RepackCpu::kNone;
  e.repack_modelled = true;
  e.kv_bytes = e.context_bytes = 512 * kMiB;
  e.kv_layers = 36;
  e.compute_bytes = 256 * kMiB;
  e.total_bytes = 5 * kGiB + 768 * kMiB;
  e.budget_bytes = 8 * kGiB;
  e.fits = true;
  return e;
}

LlamaCppSolution solution(GgmlType type, std::optional<uint64_t> value, bool capped = false) {
  LlamaCppSolution s;
  s.cache_type = type;
  s.value = value;
  s.capped = capped;
  if (value) {
    s.estimate = at_answer(*value);
    s.estimate->settings.cache_type_k = s.estimate->settings.cache_type_v = type;
  }
  return s;
}

// ctx-size at f16 K and V: 16384; q8_0 30720; q4_0 capped at the training
// context, 40960.
LlamaCppFit ctx_fit() {
  LlamaCppFit f;
  f.what = LlamaCppSolveFor::kCtxSize;
  f.answer = solution(GgmlType::kF16, 16384);
  f.by_cache_type = {solution(GgmlType::kF16, 16384), solution(GgmlType::kQ8_0, 30720),
                     solution(GgmlType::kQ4_0, 40960, true)};
  f.flags = {"-c", "16384", "-np", "1"};
  return f;
}

TEST(LlamaCppFitTextReport, EachKvCacheTypeRowThenItsLaunchCommandThenTheReport) {
  const PreparedRequest p = prepared();
  const LlamaCppFit f = ctx_fit();
  // Each command whole: the file, the context it found, and -fa, -ctk and
  // -ctv even at their defaults.
  EXPECT_EQ(render_llamacpp_fit_text(p, f),
            "Largest ctx-size that fits 8.00 GiB (explicit):\n"
            "  KV cache f16:   16384\n"
            "    llama-server -m models/qwen3-8b.gguf -c 16384 -np 1 -fa auto -ctk f16 -ctv f16\n"
            "  KV cache q8_0:  30720\n"
            "    llama-server -m models/qwen3-8b.gguf -c 30720 -np 1 -ctk q8_0 -ctv q8_0 -fa auto\n"
            "  KV cache q4_0:  40960 (the training context)\n"
            "    llama-server -m models/qwen3-8b.gguf -c 40960 -np 1 -ctk q4_0 -ctv q4_0 -fa auto\n"
            "\n" +
                render_llamacpp_text(*p.model, *f.answer.estimate, p.budget) +
                "\nspeed: unknown: give --gpu or --mac\n");
  // The report at the answer is the one render_llamacpp_text gives, then
  // its speed line (no machine here: unknown).
  EXPECT_THAT(render_llamacpp_fit_text(p, f),
              HasSubstr("\nFITS: 5.75 GiB of 8.00 GiB (2.25 GiB to spare)\n"));
}

TEST(LlamaCppFitTextReport, AskedTypesThatDifferGetTheirOwnRow) {
  PreparedRequest p = prepared();
  p.llamacpp_settings.cache_type_k = GgmlType::kQ8_0;
  p.llamacpp_settings.cache_type_v = GgmlType::kF16;
  LlamaCppFit f = ctx_fit();
  f.answer = solution(GgmlType::kQ8_0, 20480);
  EXPECT_THAT(render_llamacpp_fit_text(p, f),
              HasSubstr("  KV cache K q8_0, V f16 (asked): 20480\n"
                        "    llama-server -m models/qwen3-8b.gguf -c 20480 -np 1 -ctk q8_0 -ctv q8_0 "
                        "-fa auto\n"));
  // K and V both q8_0: that row is the answer's; no extra row.
  p.llamacpp_settings.cache_type_v = GgmlType::kQ8_0;
  EXPECT_THAT(render_llamacpp_fit_text(p, f), Not(HasSubstr("(asked)")));
}

TEST(LlamaCppFitTextReport, CeilingNotesOfEachSolve) {
  PreparedRequest p = prepared(0);  // no training context
  LlamaCppFit f = ctx_fit();
  EXPECT_THAT(render_llamacpp_fit_text(p, f),
              HasSubstr("  KV cache q4_0:  40960 (the search ceiling: it fits any value)\n"));

  // --solve parallel at the request's ctx-size, or the training context.
  p = prepared();
  f.what = LlamaCppSolveFor::kParallel;
  f.by_cache_type = {solution(GgmlType::kF16, 256, true), solution(GgmlType::kQ8_0, 64, true)};
  f.answer = f.by_cache_type[0];
  std::string text = render_llamacpp_fit_text(p, f);
  EXPECT_THAT(text, StartsWith("Largest parallel at ctx-size 40960 that fits 8.00 GiB (explicit):\n"));
  EXPECT_THAT(text, HasSubstr("  KV cache f16:   256 (llama.cpp's most sequences)\n"));
  EXPECT_THAT(text, HasSubstr("  KV cache q8_0:  64 (one 256-cell block per sequence)\n"));
  p.llamacpp_settings.ctx_size = 16384;
  EXPECT_THAT(render_llamacpp_fit_text(p, f),
              StartsWith("Largest parallel at ctx-size 16384 that fits 8.00 GiB (explicit):\n"));
}

TEST(LlamaCppFitTextReport, GpuSolvesSayTheMargin) {
  PreparedRequest p = prepared();
  p.llamacpp_settings.placement.gpus = {{"cuda:0", "NVIDIA RTX A5000", 24 * kGiB}};
  LlamaCppFit f = ctx_fit();
  f.what = LlamaCppSolveFor::kGpuLayers;
  f.by_cache_type = {solution(GgmlType::kF16, 37, true), solution(GgmlType::kQ8_0, 20)};
  f.answer = f.by_cache_type[0];
  f.flags = {"-ngl", "37"};
  std::string text = render_llamacpp_fit_text(p, f);
  EXPECT_THAT(text, StartsWith("Largest gpu-layers that fits every device (GPUs less a 1.00 GiB margin):\n"
                               "  KV cache f16:   37 (every layer)\n"));
  EXPECT_THAT(text, HasSubstr("\n  KV cache q8_0:  20\n"));
  f.what = LlamaCppSolveFor::kNCpuMoe;
  p.llamacpp_settings.placement.gpu_margin_bytes = 512 * kMiB;
  f.by_cache_type = {solution(GgmlType::kF16, 0, true), solution(GgmlType::kQ8_0, 12)};
  f.answer = f.by_cache_type[0];
  text = render_llamacpp_fit_text(p, f);
  EXPECT_THAT(text, StartsWith("Fewest n-cpu-moe that fits every device (GPUs less a 512.0 MiB margin):\n"
                               "  KV cache f16:   0 (no expert on the host)\n"));
  EXPECT_THAT(text, HasSubstr("\n  KV cache q8_0:  12\n"));
}

TEST(LlamaCppFitTextReport, NothingFitsHasNoFlagsAndNoReport) {
  const PreparedRequest p = prepared();
  LlamaCppFit f;
  f.what = LlamaCppSolveFor::kCtxSize;
  f.answer = solution(GgmlType::kF16, std::nullopt);
  f.by_cache_type = {solution(GgmlType::kF16, std::nullopt), solution(GgmlType::kQ8_0, std::nullopt)};
  EXPECT_EQ(render_llamacpp_fit_text(p, f),
            "Largest ctx-size that fits 8.00 GiB (explicit):\n"
            "  KV cache f16:   nothing fits: even the smallest context is over the budget\n"
            "  KV cache q8_0:  nothing fits: even the smallest context is over the budget\n");
  // The answer row alone, when no cache type was solved: the asked one.
  f.by_cache_type.clear();
  EXPECT_EQ(render_llamacpp_fit_text(p, f),
            "Largest ctx-size that fits 8.00 GiB (explicit):\n"
            "  KV cache K f16, V f16 (asked): nothing fits: even the smallest context is over "
            "the budget\n");
}

TEST(LlamaCppFitTextReport, ZeroBudget) {
  PreparedRequest p = prepared();
  p.budget = MemoryBudget{0, 0, BudgetSource::kUnavailable};
  LlamaCppFit f;
  f.answer = solution(GgmlType::kF16, std::nullopt);
  f.by_cache_type = {f.answer};
  EXPECT_THAT(render_llamacpp_fit_text(p, f), StartsWith("Largest ctx-size that fits 0 B (unavailable):\n"));
}

// A plan's speed without a machine: no figure, and why.
const std::string kUnknownSpeed =
    R"({"decode_tokens_per_second":null,"prefill_tokens_per_second":null,)"
    R"("time_to_first_token_s":null,"unknown":"give --gpu or --mac"})";

TEST(LlamaCppFitJsonReport, TheAnswerItsRowsFlagsAndReport) {
  const PreparedRequest p = prepared();
  const LlamaCppFit f = ctx_fit();
  nlohmann::ordered_json j = llamacpp_fit_to_json(p, f);
  nlohmann::ordered_json report = j["report"];
  j.erase("report");
  EXPECT_EQ(j.dump(),
            R"({"solve":"ctx-size","engine":"llamacpp","value":16384,"cache_type":"f16","capped":false,)"
            R"("budget_bytes":8589934592,"budget_source":"explicit","by_cache_type":[)"
            R"({"cache_type":"f16","value":16384,"capped":false,"speed":)" + kUnknownSpeed + "},"
            R"({"cache_type":"q8_0","value":30720,"capped":false,"speed":)" + kUnknownSpeed + "},"
            R"({"cache_type":"q4_0","value":40960,"capped":true,"speed":)" + kUnknownSpeed + "}],"
            R"("flags":["-c","16384","-np","1"],"plans_by_speed":null,"warnings":["no GPU library"]})");
  // The report as inspect gives it, with its speed.
  nlohmann::ordered_json want = llamacpp_estimate_to_json(*p.model, *f.answer.estimate, p.budget, p.warnings);
  want["speed"] = nlohmann::ordered_json::parse(kUnknownSpeed);
  EXPECT_EQ(report, want);
  EXPECT_EQ(report["total_bytes"], 6174015488u);  // 5 GiB + 768 MiB
  EXPECT_EQ(report["inputs"]["ctx_size"], 16384u);
}

TEST(LlamaCppFitJsonReport, NothingFitsIsNullValueFlagsAndReport) {
  PreparedRequest p = prepared();
  p.llamacpp_settings.cache_type_k = GgmlType::kQ8_0;
  p.llamacpp_settings.cache_type_v = GgmlType::kQ8_0;
  LlamaCppFit f;
  f.what = LlamaCppSolveFor::kParallel;
  f.answer = solution(GgmlType::kQ8_0, std::nullopt);
  f.by_cache_type = {solution(GgmlType::kF16, std::nullopt)};
  EXPECT_EQ(llamacpp_fit_to_json(p, f).dump(),
            R"({"solve":"parallel","engine":"llamacpp","value":null,"cache_type":"q8_0","capped":false,)"
            R"("budget_bytes":8589934592,"budget_source":"explicit","by_cache_type":[)"
            R"({"cache_type":"f16","value":null,"capped":false,"speed":null}],)"
            R"("flags":null,"plans_by_speed":null,"warnings":["no GPU library"],"report":null})");
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

// At -ngl `gpu_blocks` of 36 blocks: `gpu_bytes` of weights on one GPU and
// `host_bytes` on the host, the KV cache `kv_bytes_per_block` a block on
// the device of its block.
LlamaCppEstimate placed(GgmlType type, uint64_t gpu_blocks, uint64_t gpu_bytes, uint64_t host_bytes,
                        uint64_t kv_bytes_per_block) {
  LlamaCppEstimate e = at_answer(4096);
  e.settings.cache_type_k = e.settings.cache_type_v = type;
  e.settings.placement.n_gpu_layers = gpu_blocks;
  e.kv_bytes = 36 * kv_bytes_per_block;
  LlamaCppDeviceUsage gpu;
  gpu.device = "cuda:0";
  gpu.model_bytes = gpu_bytes;
  gpu.blocks = gpu_blocks;
  LlamaCppDeviceUsage host;
  host.device = "cpu";
  host.model_bytes = host_bytes;
  host.blocks = 36 - gpu_blocks;
  e.placement.devices = {gpu, host};
  return e;
}

TEST(LlamaCppFitSpeed, PlansWithLessOnAnUnknownHostRankFirstWithEachStep) {
  // One GPU of known bandwidth, the host's unknown. f16 at -ngl 20: 2 GiB
  // of weights and 16 blocks x 16 MiB = 256 MiB of cache on the host,
  // 2.25 GiB (2,415,919,104 bytes) a token there. q8_0 at -ngl 30: 1 GiB
  // and 6 x 8 MiB = 48 MiB, 1.05 GiB (1,124,073,472 bytes). q8_0 reads
  // less at the unknown bandwidth: it ranks first although it was solved
  // second.
  PreparedRequest p = prepared();
  auto model = std::make_shared<Model>(*p.model);
  model->spec.analytical_params = 8'000'000'000;  // dense: a token reads every weight
  p.model = model;
  p.llamacpp_settings.placement.gpus = {{"cuda:0", "NVIDIA GeForce RTX 4090", 24 * kGiB}};
  p.speed_machine.gpus = {{"rtx4090", 1008, 165.2}};
  LlamaCppFit f;
  f.what = LlamaCppSolveFor::kGpuLayers;
  f.by_cache_type = {solution(GgmlType::kF16, 20), solution(GgmlType::kQ8_0, 30)};
  f.by_cache_type[0].estimate = placed(GgmlType::kF16, 20, 3 * kGiB, 2 * kGiB, 16 * kMiB);
  f.by_cache_type[1].estimate = placed(GgmlType::kQ8_0, 30, 4 * kGiB, 1 * kGiB, 8 * kMiB);
  f.answer = f.by_cache_type[0];
  const std::string text = render_llamacpp_fit_text(p, f);
  const std::string step =
      "-ngl 30 -> 20, KV cache q8_0 -> f16: fits, decode at most ";
  // (The asked plan first, -ngl every layer, is estimate_llamacpp's on
  // this hand-filled model; the rows after it are the solver's.)
  EXPECT_THAT(text, HasSubstr("\nPlans by decode speed at "));
  EXPECT_THAT(text, HasSubstr(", KV cache f16 (asked): "));
  EXPECT_THAT(text, HasSubstr("\n  " + step));
  EXPECT_THAT(text, HasSubstr(" tok/s (cpu's 1.05 GiB a token at an unknown bandwidth not counted) -> at most "));
  EXPECT_THAT(text, HasSubstr(" tok/s (cpu's 2.25 GiB a token at an unknown bandwidth not counted)\n"));

  const nlohmann::ordered_json j = llamacpp_fit_to_json(p, f);
  const nlohmann::ordered_json& plans = j["plans_by_speed"];
  ASSERT_GE(plans.size(), 2u);
  const nlohmann::ordered_json& first = plans[plans.size() - 2];
  const nlohmann::ordered_json& second = plans[plans.size() - 1];
  EXPECT_EQ(first["value"], 30);
  EXPECT_EQ(first["cache_type_k"], "q8_0");
  EXPECT_EQ(first["asked"], false);
  EXPECT_EQ(first["not_counted"]["bytes_per_token"], 1'124'073'472u);
  EXPECT_EQ(first["not_counted"]["devices"], nlohmann::ordered_json::array({"cpu"}));
  EXPECT_EQ(second["value"], 20);
  EXPECT_EQ(second["not_counted"]["bytes_per_token"], 2'415'919'104u);
  EXPECT_THAT(second["step"].get<std::string>(), StartsWith(step));
  // The known part alone: the GPU's 4 GiB + 30 x 8 MiB against 3 GiB +
  // 20 x 16 MiB; the ranked figure of each is that part's rate.
  EXPECT_GT(first["decode_tokens_per_second"].get<double>(), 0);
  EXPECT_GT(second["decode_tokens_per_second"].get<double>(), 0);
  // The whole plan's speed is not guessed.
  EXPECT_EQ(j["by_cache_type"][0]["speed"]["unknown"],
            "the memory bandwidth of cpu (cpu) is not known, and it holds 2.25 GiB of the plan: give "
            "--host-bandwidth (memfit hardware --measure prints this host's)");
}

TEST(LlamaCppFitSpeed, ContextSolvesRankNothing) {
  const nlohmann::ordered_json j = llamacpp_fit_to_json(prepared(), ctx_fit());
  EXPECT_TRUE(j["plans_by_speed"].is_null());
  EXPECT_EQ(j["by_cache_type"][0]["speed"]["unknown"], "give --gpu or --mac");
  EXPECT_EQ(j["report"]["speed"]["unknown"], "give --gpu or --mac");
  EXPECT_THAT(render_llamacpp_fit_text(prepared(), ctx_fit()), Not(HasSubstr("Plans by decode speed")));
}

}  // namespace
}  // namespace memfit
