// The published runs (memfit/published_runs.h): the embedded copy against
// the committed files, every row's source and device, the loader's
// refusals, and the test names.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "memfit/published_runs.h"
#include "support/paths.h"

namespace memfit {
namespace {

std::string slurp(const std::string& relative) {
  std::ifstream in(std::string(MEMFIT_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

constexpr std::string_view kModels =
    "model\tparams\tactive_params\tn_layers\tattention_width\tkv_width\tparams_basis\tsource\n"
    "m\t1000\t1000\t2\t64\t16\tderived\thttps://example.org/config.json\n";
constexpr std::string_view kRunsHeader =
    "source\tengine\tbackend\tdevice\tmodel\tquant\tsize\tsize_bytes\tsize_basis\tprefill_test\t"
    "prefill_tokens_per_second\tdecode_test\tdecode_tokens_per_second\tnotes\tbuild_date\tbatch\n";

// A decode row of model m on an RTX 4090 (cuda, Q4_0, 900 B) reaching
// `tokens_per_second` at tg128, with its engine, build month and batch.
std::string decode_row(double tokens_per_second, std::string_view build_date = "",
                       std::string_view batch = "0", std::string_view engine = "llamacpp") {
  return "u\t" + std::string(engine) + "\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\t\t\ttg128\t" +
         std::to_string(tokens_per_second) + "\t\t" + std::string(build_date) + "\t" +
         std::string(batch) + "\n";
}

std::string runs_error(std::string_view row) {
  Result<PublishedRuns> r = parse_published_runs(kModels, std::string(kRunsHeader) + std::string(row));
  return r.ok() ? "" : r.error().message();
}

TEST(PublishedRuns, EmbeddedCopyIsTheCommittedFiles) {
  Result<PublishedRuns> files = parse_published_runs(slurp("data/speed/models.tsv"),
                                                     slurp("data/speed/published-runs.tsv"),
                                                     slurp("data/speed/moe-experts.tsv"));
  ASSERT_TRUE(files.ok()) << files.error().message();
  Result<const PublishedRuns*> embedded = published_runs();
  ASSERT_TRUE(embedded.ok()) << embedded.error().message();
  ASSERT_EQ((*embedded)->runs.size(), files->runs.size());
  for (size_t i = 0; i < files->runs.size(); ++i) {
    EXPECT_EQ((*embedded)->runs[i].source, files->runs[i].source);
    EXPECT_EQ((*embedded)->runs[i].decode_tokens_per_second,
              files->runs[i].decode_tokens_per_second);
  }
}

TEST(PublishedRuns, SixtyRunsEachWithASourceAndAKnownDevice) {
  Result<const PublishedRuns*> runs = published_runs();
  ASSERT_TRUE(runs.ok());
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  EXPECT_GE((*runs)->runs.size(), 60u);
  std::set<std::string> backends;
  for (const PublishedRun& run : (*runs)->runs) {
    EXPECT_TRUE(run.source.starts_with("https://")) << "line " << run.line;
    EXPECT_TRUE(device_throughput(**table, run.device).has_value()) << run.device;
    EXPECT_TRUE(run.decode_tokens_per_second || run.prefill_tokens_per_second) << run.line;
    backends.insert(run.backend);
  }
  // Apple (Metal, MLX), NVIDIA (CUDA) and AMD (ROCm, Vulkan) are all in.
  EXPECT_EQ(backends, (std::set<std::string>{"cuda", "metal", "mlx", "rocm", "vulkan"}));
}

TEST(PublishedRuns, TestNamesGiveTheMeanContext) {
  EXPECT_EQ(test_mean_context_tokens("pp512"), 256u);
  EXPECT_EQ(test_mean_context_tokens("tg128"), 64u);
  EXPECT_EQ(test_mean_context_tokens("tg"), std::nullopt);
  EXPECT_EQ(test_mean_context_tokens("pp0"), std::nullopt);
  EXPECT_EQ(test_mean_context_tokens("pp512+tg128"), std::nullopt);
  EXPECT_EQ(test_mean_context_tokens("512"), std::nullopt);
}

TEST(PublishedRuns, LoaderRefusesBadRows) {
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t10\ttg128\t5\t\t\t0\n"),
            "");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tx\tQ4_0\t\t900\tprinted\tpp512\t10\ttg128\t5\t\t\t0\n"),
            "data/speed/published-runs.tsv: line 2: model: 'x' is not a model of models.tsv");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t10\tgen\t5\t\t\t0\n"),
            "data/speed/published-runs.tsv: line 2: decode_test: 'gen' is not pp<N> or tg<N>");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\tfast\ttg128\t5\t\t\t0\n"),
            "data/speed/published-runs.tsv: line 2: prefill_tokens_per_second: 'fast' is not a "
            "decimal number");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t0\tprinted\tpp512\t10\ttg128\t5\t\t\t0\n"),
            "data/speed/published-runs.tsv: line 2: size_bytes: '0' is not a size");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t10\ttg128\t5\t\t2024-13\t0\n"),
            "data/speed/published-runs.tsv: line 2: build_date: '2024-13' is not YYYY-MM");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t10\ttg128\t5\t\t2024-1\t0\n"),
            "data/speed/published-runs.tsv: line 2: build_date: '2024-1' is not YYYY-MM");
  EXPECT_EQ(runs_error("u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t10\ttg128\t5\t\t2024-06\tone\n"),
            "data/speed/published-runs.tsv: line 2: batch: 'one' is not a decimal number");
  EXPECT_EQ(runs_error("u\tllamacpp\n"),
            "data/speed/published-runs.tsv: line 2: 2 fields, the header has 16");
  // matrix_cores is what a Vulkan log's device line says: on a CUDA run it
  // is refused, on a Vulkan run taken.
  const std::string header = std::string(kRunsHeader.substr(0, kRunsHeader.size() - 1)) + "\tmatrix_cores\n";
  const auto with_cores = [&](std::string_view backend) {
    return parse_published_runs(kModels, header + "u\tllamacpp\t" + std::string(backend) +
                                             "\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t10\ttg128\t5\t\t\t0"
                                             "\tKHR_coopmat\n");
  };
  EXPECT_TRUE(with_cores("vulkan").ok());
  Result<PublishedRuns> cuda = with_cores("cuda");
  ASSERT_FALSE(cuda.ok());
  EXPECT_EQ(cuda.error().message(),
            "data/speed/published-runs.tsv: line 2: matrix_cores: 'KHR_coopmat' is not empty (a "
            "Vulkan run's device line only)");
}

TEST(PublishedRuns, PredictionsComeFromTheBoundAndTheOtherHalfsBand) {
  // Four CUDA runs of the shape above on an RTX 4090 (1008 GB/s): 900
  // bytes of weights plus 64 tokens x (2 x 2 layers x 16 x 2 bytes = 128)
  // = 8,192 bytes of cache: 9,092 bytes a token, a bound of 1008e9 / 9092.
  // Reached fractions 0.1, 0.2, 0.3, 0.4 (figures bound x fraction). One
  // shape, so the layer term cannot be told from the bandwidth term and
  // the fit keeps none: seconds = a x bound seconds, a = sum(f) /
  // sum(f^2), and the band's median is a x the median fraction.
  // Held out, run 0 is predicted by runs 1 and 3 (0.2, 0.4): a = 0.6 / 0.2
  // = 3, median a x 0.3 = 0.9: bound / 3 x 0.9 = 0.3 x bound. Two runs are
  // under four for the group and the backend: the band over all of them.
  const double bound = 1008e9 / 9092.0;
  std::string rows;
  for (double fraction : {0.1, 0.2, 0.3, 0.4}) {
    rows += decode_row(bound * fraction);
  }
  Result<PublishedRuns> runs = parse_published_runs(kModels, std::string(kRunsHeader) + rows);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, **table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->size(), 4u);
  ASSERT_TRUE((*p)[0].decode_bound.has_value());
  EXPECT_NEAR(*(*p)[0].decode_bound, bound, 1e-6);
  ASSERT_TRUE((*p)[0].decode_held_out.has_value());
  EXPECT_NEAR((*p)[0].decode_held_out->median, bound * 0.3, 1e-3);
  EXPECT_EQ((*p)[0].decode_held_out->efficiency.basis, "all backends");
  // In-sample, all four: a = 1.0 / 0.3, the median fraction (0.2 + 0.3) /
  // 2 = 0.25, so bound x 0.3 / 1.0 x 0.25 / 0.3 = 0.25 x bound.
  ASSERT_TRUE((*p)[0].decode_fitted.has_value());
  EXPECT_NEAR((*p)[0].decode_fitted->median, bound * 0.25, 1e-3);
  EXPECT_EQ((*p)[0].decode_fitted->efficiency.basis, "backend and family");
  EXPECT_FALSE((*p)[0].prefill_bound.has_value());
  // Left out, run 1 (0.2) is predicted by runs 0, 2 and 3 (0.1, 0.3, 0.4):
  // the median fraction 0.3, so 0.3 x bound; held out, by runs 0 and 2
  // only (0.1, 0.3): their median 0.2, so 0.2 x bound. Three runs are under
  // four: the band over all of them.
  ASSERT_TRUE((*p)[1].decode_left_out.has_value());
  EXPECT_NEAR((*p)[1].decode_left_out->median, bound * 0.3, 1e-3);
  EXPECT_EQ((*p)[1].decode_left_out->efficiency.basis, "all backends");
  ASSERT_TRUE((*p)[1].decode_held_out.has_value());
  EXPECT_NEAR((*p)[1].decode_held_out->median, bound * 0.2, 1e-3);
  EXPECT_FALSE((*p)[1].prefill_left_out.has_value());
}

TEST(PublishedRuns, TheExpertsTableSetsItsModelsExpertParameters) {
  // Model m: 1000 parameters, 1000 active (dense); moe: 1000, 300 active.
  const std::string models = std::string(kModels) +
                             "moe\t1000\t300\t2\t64\t16\tderived\thttps://example.org/config.json\n";
  constexpr std::string_view kHeader = "model\texpert_params\texpert_params_basis\tsource\n";
  const auto parse = [&](std::string_view row) {
    return parse_published_runs(models, std::string(kRunsHeader),
                                std::string(kHeader) + std::string(row));
  };
  Result<PublishedRuns> ok = parse("moe\t800\tderived\thttps://example.org/config.json\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ(ok->find_model("moe")->expert_params, 800u);
  EXPECT_EQ(ok->find_model("m")->expert_params, 0u);
  // 1000 - 700 = 300 shared <= 300 active: the least the split allows.
  EXPECT_TRUE(parse("moe\t700\tderived\thttps://example.org/config.json\n").ok());
  Result<PublishedRuns> few = parse("moe\t699\tderived\thttps://example.org/config.json\n");
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().message(),
            "data/speed/moe-experts.tsv: line 2: expert_params: '699' is not between params - "
            "active_params and params");
  EXPECT_FALSE(parse("moe\t1001\tderived\thttps://example.org/config.json\n").ok());
  Result<PublishedRuns> twice = parse(
      "moe\t800\tderived\thttps://example.org/config.json\nmoe\t900\tderived\thttps://example.org/config.json\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message(),
            "data/speed/moe-experts.tsv: line 3: model: 'moe' is not the model's only row");
  Result<PublishedRuns> unknown = parse("x\t800\tderived\thttps://example.org/config.json\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(),
            "data/speed/moe-experts.tsv: line 2: model: 'x' is not a model of models.tsv");
}

TEST(PublishedRuns, AnMxfp4RunReadsItsExpertsAtFourAndAQuarterBits) {
  // moe: 1024 parameters, 320 active, 896 in experts (128 shared, 192 of
  // the experts a token). MXFP4 experts: 896 / 32 x 17 = 476 bytes of the
  // file's 1000; a token reads 1000 - 476 = 524 shared + 476 x 192 / 896 =
  // 102 bytes = 626. A Q4_0 run of the same file keeps the share rule:
  // 1000 x 320 / 1024 = 312 bytes. At 1 GB/s (tg2: a context of 1 token,
  // 2 x 2 x 16 x 2 = 128 bytes of cache): 1e9 / (626 + 128) and
  // 1e9 / (312 + 128).
  const std::string models = "model\tparams\tactive_params\tn_layers\tattention_width\tkv_width\t"
                             "params_basis\tsource\n"
                             "moe\t1024\t320\t2\t64\t16\tderived\thttps://example.org/c.json\n";
  const std::string experts = "model\texpert_params\texpert_params_basis\tsource\n"
                              "moe\t896\tderived\thttps://example.org/c.json\n";
  const std::string rows = std::string(kRunsHeader) +
      "https://example.org/a\tllamacpp\tcuda\ttoy\tmoe\tMXFP4\t\t1000\tprinted\t\t\ttg2\t1\t\t\t0\n"
      "https://example.org/b\tllamacpp\tcuda\ttoy\tmoe\tQ4_0\t\t1000\tprinted\t\t\ttg2\t1\t\t\t0\n";
  Result<PublishedRuns> runs = parse_published_runs(models, rows, experts);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  HardwareTable table;
  GpuSpec toy;
  toy.id = "toy";
  toy.bandwidth_gb_s = 1;
  table.gpus.push_back(toy);
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_NEAR(*(*p)[0].decode_bound, 1e9 / 754.0, 1e-3);
  EXPECT_NEAR(*(*p)[1].decode_bound, 1e9 / 440.0, 1e-3);
}

TEST(PublishedRuns, OldCudaBuildsAreFittedInTheirOwnGroup) {
  // The prefill of llama.cpp on CUDA or ROCm from before 2024-01 (the
  // ggml-backend integration) is its own group, and the decode on CUDA from
  // before 2024-05 (CUDA graphs); a later or unknown build, another backend
  // or another engine keeps the backend.
  PublishedRun run;
  run.engine = "llamacpp";
  run.backend = "cuda";
  run.build_date = "2023-12";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "cuda builds before 2024-01");
  // Decode's boundary is CUDA graphs (2024-05), not the integration: a
  // build of 2024-04 decodes in the old group, one of 2024-05 in the
  // backend's, ROCm always in the backend's.
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "cuda builds before 2024-05");
  run.build_date = "2024-04";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "cuda");
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "cuda builds before 2024-05");
  run.build_date = "2024-05";
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "cuda");
  run.build_date = "";
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "cuda");
  run.build_date = "2023-12";
  run.backend = "rocm";
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "rocm");
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "rocm builds before 2024-01");
  run.build_date = "2024-01";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "rocm");
  run.build_date = "";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "rocm");
  run.backend = "metal";
  run.build_date = "2023-12";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "metal");
  run.engine = "mlx-lm";
  run.backend = "cuda";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "cuda");
}

TEST(PublishedRuns, VllmAndSglangAreFittedInTheirOwnGroup) {
  // vLLM and SGLang (PyTorch, CUDA graphs) are fitted apart from llama.cpp
  // on the same backend, both phases, whatever the build date; their
  // group reads the FP16 peak, llama.cpp's CUDA and ROCm the INT8 one.
  PublishedRun run;
  run.engine = "vllm";
  run.backend = "cuda";
  run.build_date = "2023-11";
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "cuda vllm/sglang");
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "cuda vllm/sglang");
  run.engine = "sglang";
  run.backend = "rocm";
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "rocm vllm/sglang");
  EXPECT_TRUE(torch_engine("vllm"));
  EXPECT_TRUE(torch_engine("sglang"));
  EXPECT_FALSE(torch_engine("llamacpp"));
  EXPECT_FALSE(torch_engine("ollama"));
  EXPECT_EQ(engine_fit_group("vllm", "cuda"), "cuda vllm/sglang");
  EXPECT_EQ(engine_fit_group("llamacpp", "cuda"), "cuda");
  EXPECT_EQ(engine_fit_group("mlx-lm", "mlx"), "mlx");
  EXPECT_EQ(prefill_compute_peak("cuda vllm/sglang"), ComputePeak::kFp16);
  EXPECT_EQ(prefill_compute_peak("cuda"), ComputePeak::kInt8);
}

TEST(PublishedRuns, AGroupWithTooFewRunsTakesItsBackendsBand) {
  // Three vLLM samples are under kMinEfficiencyRuns (4): the plan takes the
  // backend's band; a fourth makes the group's own.
  std::vector<EfficiencySample> samples;
  for (int i = 0; i < 4; ++i) samples.push_back({"cuda", "16-bit", 0.01, 32, 0.02});
  for (int i = 0; i < 3; ++i) samples.push_back({"cuda vllm/sglang", "16-bit", 0.01, 32, 0.015});
  EXPECT_EQ(band_group(EfficiencyTable::fit(samples), "cuda vllm/sglang", "cuda"), "cuda");
  samples.push_back({"cuda vllm/sglang", "16-bit", 0.01, 32, 0.015});
  EXPECT_EQ(band_group(EfficiencyTable::fit(samples), "cuda vllm/sglang", "cuda"),
            "cuda vllm/sglang");
}

TEST(PublishedRuns, AVllmRunsPrefillIsBoundAtTheFp16Peak) {
  // The pp512 of CudaPrefillIsBoundAtTheInt8PeakAndMetalAtFp16 (133,072
  // FLOPs a token) run by vLLM on the RTX 4090: at its 165.2 FP16 TFLOPS
  // (FP32 accumulation), 165.2e12 / 133,072 = 1,241,433,209.1 tokens a
  // second, a quarter of llama.cpp's INT8 bound.
  const std::string rows =
      "u\tvllm\tcuda\trtx4090\tm\tBF16\t\t2000\tprinted\tpp512\t1000\t\t\t\t\t2\n";
  Result<PublishedRuns> runs = parse_published_runs(kModels, std::string(kRunsHeader) + rows);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, **table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_TRUE((*p)[0].prefill_bound.has_value());
  EXPECT_NEAR(*(*p)[0].prefill_bound, 1'241'433'209.1, 1.0);
}

TEST(PublishedRuns, ALaterBatchIsPredictedByTheEarlierOnesOnly) {
  // The four decode runs of PredictionsComeFromTheBoundAndTheOtherHalfsBand
  // (fractions 0.1 to 0.4 of the bound) as batch 0, and a fifth at 0.9 as
  // batch 1. Never seen, the fifth is predicted by the first four: a =
  // 1.0 / 0.3 and the median fraction 0.25, so 0.25 x bound, as their own
  // in-sample prediction was. In-sample over all five, a = sum f / sum f^2
  // = 1.9 / 1.11 and the band's median a x 0.3 (the middle fraction), so
  // bound / a x a x 0.3 = 0.3 x bound.
  const double bound = 1008e9 / 9092.0;
  std::string rows;
  for (double fraction : {0.1, 0.2, 0.3, 0.4}) {
    rows += decode_row(bound * fraction);
  }
  rows += decode_row(bound * 0.9, "2025-12", "1");
  Result<PublishedRuns> runs = parse_published_runs(kModels, std::string(kRunsHeader) + rows);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, **table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->size(), 5u);
  EXPECT_EQ((*runs).runs[4].batch, 1u);
  EXPECT_EQ((*runs).runs[4].build_date, "2025-12");
  EXPECT_FALSE((*p)[0].decode_never_seen.has_value());
  ASSERT_TRUE((*p)[4].decode_never_seen.has_value());
  EXPECT_NEAR((*p)[4].decode_never_seen->median, bound * 0.25, 1e-3);
  EXPECT_EQ((*p)[4].decode_never_seen->efficiency.basis, "backend and family");
  ASSERT_TRUE((*p)[4].decode_fitted.has_value());
  EXPECT_NEAR((*p)[4].decode_fitted->median, bound * 0.3, 1e-3);
}

TEST(PublishedRuns, ABatchTwoRunIsPredictedByBatchesZeroAndOne) {
  // The five runs of ALaterBatchIsPredictedByTheEarlierOnesOnly (fractions
  // 0.1 to 0.4 of the bound in batch 0, 0.9 in batch 1) and a sixth at 0.5
  // in batch 2. Never seen, the sixth is predicted by the first five: a =
  // sum f / sum f^2 = 1.9 / 1.11 and the band's median a x 0.3 (the middle
  // of a x 0.1, 0.2, 0.3, 0.4, 0.9), so bound / a x a x 0.3 = 0.3 x bound;
  // by batch 0 alone it would be 0.25 x bound, and the batch-1 run keeps
  // its own 0.25 x bound.
  const double bound = 1008e9 / 9092.0;
  std::string rows;
  for (double fraction : {0.1, 0.2, 0.3, 0.4}) {
    rows += decode_row(bound * fraction);
  }
  rows += decode_row(bound * 0.9, "2025-12", "1");
  rows += decode_row(bound * 0.5, "2026-03", "2", "mlx-lm");
  Result<PublishedRuns> runs = parse_published_runs(kModels, std::string(kRunsHeader) + rows);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, **table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->size(), 6u);
  EXPECT_EQ((*runs).runs[5].batch, 2u);
  ASSERT_TRUE((*p)[4].decode_never_seen.has_value());
  EXPECT_NEAR((*p)[4].decode_never_seen->median, bound * 0.25, 1e-3);
  ASSERT_TRUE((*p)[5].decode_never_seen.has_value());
  EXPECT_NEAR((*p)[5].decode_never_seen->median, bound * 0.3, 1e-3);
  EXPECT_EQ((*p)[5].decode_never_seen->efficiency.runs, 5u);
}

// The header with the optional prompt_timing column, and an mlx-lm pp512
// row of model m on the 64 GB M4 Max at `tokens_per_second`.
std::string timed_header() {
  return std::string(kRunsHeader.substr(0, kRunsHeader.size() - 1)) + "\tprompt_timing\n";
}
std::string mlx_prefill_row(double tokens_per_second, std::string_view batch,
                            std::string_view timing, std::string_view engine = "mlx-lm") {
  return "u\t" + std::string(engine) + "\tmlx\tm4-max-64gb\tm\t4bit\t\t900\tprinted\tpp512\t" +
         std::to_string(tokens_per_second) + "\t\t\t\t\t" + std::string(batch) + "\t" +
         std::string(timing) + "\n";
}

TEST(PublishedRuns, PromptTimingIsFirstCallOrEmpty) {
  const auto error = [](const std::string& row) {
    Result<PublishedRuns> r = parse_published_runs(kModels, timed_header() + row);
    return r.ok() ? std::string() : r.error().message();
  };
  EXPECT_EQ(error(mlx_prefill_row(1000, "0", "first call")), "");
  EXPECT_EQ(error(mlx_prefill_row(1000, "0", "")), "");
  EXPECT_EQ(error(mlx_prefill_row(1000, "0", "cold")),
            "data/speed/published-runs.tsv: line 2: prompt_timing: 'cold' is not first call or "
            "empty");
  // llama-bench warms up; memfit has no first-call cost for llama.cpp.
  EXPECT_EQ(error(mlx_prefill_row(1000, "0", "first call", "llamacpp")),
            "data/speed/published-runs.tsv: line 2: prompt_timing: 'first call' is not empty (an "
            "engine without a first-call cost)");
  EXPECT_EQ(error("u\tmlx-lm\tmlx\tm4-max-64gb\tm\t4bit\t\t900\tprinted\t\t\ttg128\t50\t\t\t0"
                  "\tfirst call\n"),
            "data/speed/published-runs.tsv: line 2: prompt_timing: 'first call' is not empty (a run "
            "without a prompt figure)");
}

TEST(PublishedRuns, AFirstCallsPromptIsFittedWarmAndPredictedWithItsCost) {
  // pp512 of model m: 2 x 1000 + 4 x 2 x 256 x 64 = 133,072 FLOPs a token;
  // at the 64 GB M4 Max's 17.18 FP16 TFLOPS, bound = 17.18e12 / 133,072.
  // Four warm runs at 0.1 to 0.4 of it (batch 0), and a first call whose
  // warm rate is 0.25 x bound: 512 / (512 / (0.25 x bound) + 0.35 s).
  // Never seen, the fifth is predicted by the first four: 0.25 x bound
  // warm (ALaterBatchIsPredictedByTheEarlierOnesOnly's arithmetic), then
  // the 0.35 s added: its own figure. Fitted on all five, the fifth enters
  // at its warm 0.25 (its figure less 0.35 s over 512 tokens), so the
  // fractions are 0.1, 0.2, 0.25, 0.3, 0.4, the band's median a x 0.25,
  // and the prediction again its figure.
  const double bound = 17.18e12 / 133'072.0;
  const double first_call = 512 / (512 / (0.25 * bound) + 0.35);
  std::string rows;
  for (double fraction : {0.1, 0.2, 0.3, 0.4}) rows += mlx_prefill_row(bound * fraction, "0", "");
  rows += mlx_prefill_row(first_call, "1", "first call");
  Result<PublishedRuns> runs = parse_published_runs(kModels, timed_header() + rows);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  EXPECT_TRUE(runs->runs[4].first_call);
  EXPECT_FALSE(runs->runs[0].first_call);
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, **table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_TRUE((*p)[4].prefill_never_seen.has_value());
  EXPECT_NEAR((*p)[4].prefill_never_seen->median / first_call, 1, 1e-6);
  ASSERT_TRUE((*p)[4].prefill_fitted.has_value());
  EXPECT_NEAR((*p)[4].prefill_fitted->median / first_call, 1, 1e-6);
  // A warm run of the same table is priced warm: 0.25 x bound fitted (to
  // 1e-5: the rows print the first call's figure to 6 decimals, and its
  // warm time is that figure's time less nearly all of it).
  EXPECT_NEAR((*p)[0].prefill_fitted->median / (0.25 * bound), 1, 1e-5);
}

TEST(PublishedRuns, CudaPrefillIsBoundAtTheInt8PeakAndMetalAtFp16) {
  // pp512 of the shape above: a mean context of 256, 2 x 1000 + 4 x 2 x 256
  // x 64 = 133,072 FLOPs a token. On an RTX 4090 (cuda) at its 660.6 dense
  // INT8 TOPS: 660.6e12 / 133,072 = 4,964,229,891 tokens a second; on an M3
  // Max 40-core (metal) at its 14.32 FP16 TFLOPS: 14.32e12 / 133,072 =
  // 107,610,917. On the Radeon 8060S (rocm) at its RDNA 3.5 WMMA INT8 rate,
  // 40 CUs x 512 ops x 2.9 GHz = 59.4 TOPS: 59.4e12 / 133,072 =
  // 446,374,894.8 (no figure for it before batch 3: no bound at all).
  const std::string rows =
      "u\tllamacpp\tcuda\trtx4090\tm\tQ4_0\t\t900\tprinted\tpp512\t1000\t\t\t\t\t0\n"
      "u\tllamacpp\tmetal\tm3-max-64gb\tm\tQ4_0\t\t900\tprinted\tpp512\t1000\t\t\t\t\t0\n"
      "u\tllamacpp\trocm\tryzen-ai-max-395\tm\tQ4_0\t\t900\tprinted\tpp512\t1000\t\t\t\t\t0\n";
  Result<PublishedRuns> runs = parse_published_runs(kModels, std::string(kRunsHeader) + rows);
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  Result<std::vector<RunPrediction>> p = predict_published_runs(*runs, **table);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->size(), 3u);
  ASSERT_TRUE((*p)[0].prefill_bound.has_value());
  EXPECT_NEAR(*(*p)[0].prefill_bound, 4'964'229'891.0, 1.0);
  ASSERT_TRUE((*p)[1].prefill_bound.has_value());
  EXPECT_NEAR(*(*p)[1].prefill_bound, 107'610'917.0, 1.0);
  ASSERT_TRUE((*p)[2].prefill_bound.has_value());
  EXPECT_NEAR(*(*p)[2].prefill_bound, 446'374'894.8, 1.0);
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

TEST(PublishedRuns, VulkanPromptsReadTheMatrixUnitsOnlyWhenTheDriverExposesThem) {
  // The hardware table's RX 9070 XT: matrix FP16 194.7 TFLOPS, INT8 389.3
  // TOPS, shader FP16 97.3 TFLOPS. With KHR_coopmat: max(194.7, 389.3 / 2
  // = 194.65) = 194.7; with "none" (RADV in geerlingguy/ai-benchmarks#25)
  // the shader's 97.3. The RTX 3090: FP16 (FP32 accumulate) 71, INT8 284:
  // max(71, 142) = 142, its FP16-accumulate rate. The Arc A770 has no
  // matrix figure: unknown matrix cores read as none, 34.4.
  Result<const HardwareTable*> table = hardware_table();
  ASSERT_TRUE(table.ok());
  const auto gpu = [&](std::string_view id) {
    GpuSpec found;  // empty: every figure 0, so a missing id fails below
    for (const GpuSpec& g : (*table)->gpus) {
      if (g.id == id) found = g;
    }
    return found;
  };
  EXPECT_DOUBLE_EQ(vulkan_prefill_tflops(gpu("rx9070xt"), "KHR_coopmat"), 194.7);
  EXPECT_DOUBLE_EQ(vulkan_prefill_tflops(gpu("rx9070xt"), "none"), 97.3);
  EXPECT_DOUBLE_EQ(vulkan_prefill_tflops(gpu("rtx3090"), "NV_coopmat2"), 142);
  EXPECT_DOUBLE_EQ(vulkan_prefill_tflops(gpu("rtx3090"), ""), 142);
  EXPECT_TRUE(vulkan_uses_matrix_cores(gpu("rtx3090"), ""));
  EXPECT_FALSE(vulkan_uses_matrix_cores(gpu("arc-a770"), ""));
  EXPECT_DOUBLE_EQ(vulkan_prefill_tflops(gpu("arc-a770"), ""), 34.4);
  // The Radeon 8060S with KHR_coopmat: its matrix figure, RDNA 3.5's WMMA
  // FP16 rate, max(59.4, 59.4 INT8 / 2) = 59.4, the same as its packed
  // shader rate (the figure it read before the table had a matrix one).
  EXPECT_DOUBLE_EQ(vulkan_prefill_tflops(gpu("ryzen-ai-max-395"), "KHR_coopmat"), 59.4);
}

TEST(PublishedRuns, VulkanPromptsWithoutMatrixCoresAreFittedInTheirOwnGroup) {
  // Only the prefill of a Vulkan run whose device line says "none"; an
  // unknown line, a cooperative-matrix run, its decode and another backend
  // keep the backend.
  PublishedRun run;
  run.engine = "llamacpp";
  run.backend = "vulkan";
  run.matrix_cores = "none";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "vulkan without matrix cores");
  EXPECT_EQ(fit_group(run, SpeedPhase::kDecode), "vulkan");
  run.matrix_cores = "";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "vulkan");
  run.matrix_cores = "KHR_coopmat";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "vulkan");
  run.backend = "cuda";
  run.matrix_cores = "none";
  EXPECT_EQ(fit_group(run, SpeedPhase::kPrefill), "cuda");
}

TEST(PublishedRuns, MatrixCoresIsAnOptionalColumnOfTheDeviceLinesWords) {
  const std::string header = std::string(kRunsHeader).substr(0, std::string(kRunsHeader).size() - 1) +
                             "\tmatrix_cores\n";
  const std::string row = "u\tllamacpp\tvulkan\trx9070xt\tm\tQ4_0\t\t900\tprinted\t\t\ttg128\t50\t\t\t2\t";
  Result<PublishedRuns> runs = parse_published_runs(kModels, header + row + "none\n");
  ASSERT_TRUE(runs.ok()) << runs.error().message();
  EXPECT_EQ(runs->runs[0].matrix_cores, "none");
  Result<PublishedRuns> bad = parse_published_runs(kModels, header + row + "coopmat\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "data/speed/published-runs.tsv: line 2: matrix_cores: 'coopmat' is not none, "
            "KHR_coopmat, NV_coopmat2 or empty");
}

}  // namespace
}  // namespace memfit
