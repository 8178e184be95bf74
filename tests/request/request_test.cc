// prepare() and run() over a fake context: the order of the checks, the
// kinds of errors and warnings, and which limit becomes the budget.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "memfit/model_spec.h"
#include "memfit/request.h"
#include "support/corpus.h"

namespace memfit {
namespace {

// A Qwen3-8B-shaped spec: 36 layers, 8 KV heads of 128, hidden 4096,
// intermediate 12288, vocabulary 151936.
ModelSpec qwen3_8b_spec() {
  Result<ModelSpec> spec = parse_model_config(R"({
    "model_type": "qwen3", "num_hidden_layers": 36, "hidden_size": 4096,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
    "intermediate_size": 12288, "vocab_size": 151936})");
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

class FakeContext : public RequestContext {
 public:
  FakeContext() {
    model_.path = "/models/qwen3-8b";
    model_.has_config = true;
    model_.spec = qwen3_8b_spec();
    model_.weights.bytes = 16ull << 30;
    model_.weights.source = WeightsSource::kSafetensorsHeader;
    host_.os = "linux";
    host_.ram_total_bytes = 64ull << 30;
    host_.ram_available_bytes = 48ull << 30;
    host_.budget_bytes = 48ull << 30;
    host_.budget_source = BudgetSource::kMeminfoAvailable;
    host_.device = "cpu";
  }

  Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                  const OpenModelOptions& options) override {
    ++opens;
    opened_name = name;
    kept_tensors = options.keep_tensors;
    if (!open_error.empty()) return Error(open_error);
    return std::shared_ptr<const Model>(std::make_shared<Model>(model_));
  }
  const MlxcelSettings& settings() const override { return settings_; }
  const std::vector<std::string>& settings_warnings() const override { return settings_warnings_; }
  Platform platform() const override { return Platform{}; }
  HostMemoryStatus host_memory(const DeviceSelector& device,
                               std::optional<uint64_t> explicit_limit_bytes) override {
    HostMemoryStatus status = host_;
    if (device.kind == DeviceSelector::Kind::kCuda) {
      status.budget_bytes = 0;
      status.budget_source = BudgetSource::kDeviceMissing;
      status.device_error = "cuda:0 is not among the 0 GPUs found";
    }
    if (explicit_limit_bytes) {
      apply_explicit_limit(status, *explicit_limit_bytes);
    } else if (settings_.memory_limit_bytes) {
      apply_explicit_limit(status, *settings_.memory_limit_bytes);
    }
    return status;
  }

  Model model_;
  HostMemoryStatus host_;
  MlxcelSettings settings_;
  std::vector<std::string> settings_warnings_;
  std::string open_error;
  int opens = 0;
  std::string opened_name;
  bool kept_tensors = false;
};

EstimateRequest request_for(std::string model = "qwen3-8b") {
  EstimateRequest r;
  r.model = std::move(model);
  return r;
}

TEST(Request, UsageErrorsComeBeforeTheModelIsOpened) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.max_tokens = 0;
  Result<PreparedRequest> p = prepare(r, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(p.error().field(), "max_tokens");
  EXPECT_EQ(p.error().message(), "max_tokens: must be at least 1");

  r = request_for("");
  p = prepare(r, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(), "model: required");
  EXPECT_EQ(context.opens, 0);

  // The K/V rules are the engine's, and a request that names none gets the
  // model's: the model is opened first.
  r = request_for();
  r.cache_type_k = KvElement::kInt8;
  p = prepare(r, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(p.error().field(), "cache_type_k");
  EXPECT_EQ(p.error().message(), "cache_type_k: and cache_type_v go together: give both or neither");
  EXPECT_EQ(context.opens, 1);
}

TEST(Request, KvWidthFromModeOrFromKAndV) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.kv_cache_mode = KvElement::kInt8;
  Result<PreparedRequest> p = prepare(r, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->inputs.kv_element, KvElement::kInt8);
  EXPECT_TRUE(p->warnings.empty());

  // K and V differ: the wider, fp16, with a request warning.
  r = request_for();
  r.cache_type_k = KvElement::kInt8;
  r.cache_type_v = KvElement::kFp16;
  p = prepare(r, context);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->inputs.kv_element, KvElement::kFp16);
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_EQ(p->warnings[0].kind, WarningKind::kRequest);

  // A mode that disagrees with K and V.
  r.kv_cache_mode = KvElement::kInt8;
  p = prepare(r, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kUsage);
}

TEST(Request, WarningsInOrderWithTheirKinds) {
  FakeContext context;
  context.settings_warnings_ = {"MEMFIT_HEADROOM_FACTOR 'x' is not a number: 1.20 is used"};
  context.model_.warnings = {"model_type 'x' is not one memfit knows"};
  context.host_.warnings = {"MEMFIT_NVML_LIBRARY 'y' would not load"};
  EstimateRequest r = request_for();
  r.cache_type_k = KvElement::kInt8;
  r.cache_type_v = KvElement::kFp16;
  Result<PreparedRequest> p = prepare(r, context);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->warnings.size(), 4u);
  EXPECT_EQ(p->warnings[0].kind, WarningKind::kSettings);
  EXPECT_EQ(p->warnings[1].kind, WarningKind::kRequest);
  EXPECT_EQ(p->warnings[2].kind, WarningKind::kModel);
  EXPECT_EQ(p->warnings[3].kind, WarningKind::kHost);
  EXPECT_EQ(p->warnings[3].text, "MEMFIT_NVML_LIBRARY 'y' would not load");
}

TEST(Request, TheRequestsLimitWinsOverTheContextsAndTheHosts) {
  FakeContext context;
  Result<PreparedRequest> p = prepare(request_for(), context);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->budget.budget_bytes, 48ull << 30);
  EXPECT_EQ(p->budget.source, BudgetSource::kMeminfoAvailable);

  context.settings_.memory_limit_bytes = 32ull << 30;
  p = prepare(request_for(), context);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->budget.budget_bytes, 32ull << 30);
  EXPECT_EQ(p->budget.source, BudgetSource::kExplicit);

  EstimateRequest r = request_for();
  r.memory_limit_bytes = 8ull << 30;
  p = prepare(r, context);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->budget.budget_bytes, 8ull << 30);
  EXPECT_EQ(p->budget.source, BudgetSource::kExplicit);
  // The host-shadow comparison keeps the host's own figure.
  EXPECT_EQ(p->budget.ram_available_bytes, 48ull << 30);
}

TEST(Request, AMissingDeviceIsAHostErrorUnlessALimitIsGiven) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.device.kind = DeviceSelector::Kind::kCuda;
  Result<PreparedRequest> p = prepare(r, context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kHost);
  EXPECT_EQ(p.error().message(), "cuda:0 is not among the 0 GPUs found");

  r.memory_limit_bytes = 24ull << 30;
  p = prepare(r, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->budget.budget_bytes, 24ull << 30);
  ASSERT_EQ(p->warnings.size(), 1u);
  EXPECT_EQ(p->warnings[0].kind, WarningKind::kHost);
  EXPECT_EQ(p->warnings[0].text, "cuda:0 is not among the 0 GPUs found");
}

TEST(Request, TheModelsErrorKeepsItsKindAndText) {
  FakeContext context;
  context.open_error = "'/models/x/config.json': not JSON";
  Result<PreparedRequest> p = prepare(request_for("x"), context);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(p.error().message(), "'/models/x/config.json': not JSON");
  EXPECT_EQ(context.opened_name, "x");
}

TEST(Request, RunEstimatesWithThePreparedInputs) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.max_tokens = 8000;  // rounded up to 8192 for the cache
  r.memory_limit_bytes = 64ull << 30;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  // KV: 36 layers x 2 x 8 heads x 128 x 2 bytes = 147,456 B/token;
  // x 8192 tokens = 1,207,959,552.
  EXPECT_EQ(run->estimate.kv.total_bytes, 1'207'959'552u);
  EXPECT_EQ(run->estimate.weights_bytes, 16ull << 30);
  EXPECT_EQ(run->estimate.budget_bytes, 64ull << 30);
  EXPECT_TRUE(run->fits());
  EXPECT_FALSE(run->parallel.has_value());
  EXPECT_FALSE(context.kept_tensors);
}

TEST(Request, TheAvailableNowWarningHasItsOwnKindAndNeverChangesFits) {
  FakeContext context;
  context.host_.ram_available_bytes = 1ull << 30;  // 1 GiB free now, 16 GiB of weights
  // This host's own limit (MEMFIT_MEMORY_LIMIT): this host is priced. (A
  // request's limit describes a budget, not this host: no warning, see
  // tests/request/machine_test.cc.)
  context.settings_.memory_limit_bytes = 64ull << 30;
  EstimateRequest r = request_for();
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok());
  ASSERT_FALSE(run->warnings.empty());
  EXPECT_EQ(run->warnings.back().kind, WarningKind::kAvailableNow);
  EXPECT_EQ(run->warnings.back().text.rfind("WARNING: memory available now", 0), 0u);
  EXPECT_TRUE(run->fits());
}

TEST(Request, AParallelPlanOpensTheModelWithItsTensorsAndRefusalsAreUsageErrors) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.memory_limit_bytes = 64ull << 30;
  r.parallel.tensor_parallel = 2;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_TRUE(context.kept_tensors);
  ASSERT_TRUE(run->parallel.has_value());
  EXPECT_EQ(run->parallel->ranks.size(), 2u);

  r.parallel.tensor_parallel = 3;  // 32 heads
  run = memfit::run(r, context);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(run.error().message().rfind("tensor parallel 3 x pipeline parallel 1: ", 0), 0u)
      << run.error().message();
}

TEST(Request, OverflowIsItsOwnKindAndNamesTheModel) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.max_tokens = 1ull << 62;
  r.batch = 1ull << 20;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().kind(), ErrorKind::kOverflow);
  EXPECT_EQ(run.error().message().rfind("'qwen3-8b': ", 0), 0u) << run.error().message();
}

TEST(Request, MlxLmTakesItsFieldsAndRefusesTheOthers) {
  FakeContext context;
  EstimateRequest r = request_for();
  r.engine = "mlx-lm";
  r.max_tokens = 128;  // mlx-lm's --max-tokens: tokens generated
  r.batch = 2;
  r.mlxlm.prompt_tokens = 2048;
  r.mlxlm.kv_bits = 8;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  ASSERT_TRUE(run->mlxlm.has_value());
  EXPECT_EQ(run->mlxlm_settings.prompt_tokens, 2048u);
  EXPECT_EQ(run->mlxlm_settings.max_tokens, 128u);
  EXPECT_EQ(run->mlxlm_settings.batch, 2u);
  EXPECT_EQ(run->mlxlm_settings.prefill_step_size, 2048u);  // mlx-lm's default
  EXPECT_EQ(run->mlxlm_settings.kv_bits, 8u);
  EXPECT_EQ(run->mlxlm_settings.kv_group_size, 64u);
  EXPECT_EQ(run->fits(), run->mlxlm->fits);
  // Qwen3-8B at 8 bits, group 64: 2 x 8 x 128 = 2048 elements per token
  // and layer -> 2048 B packed + 2048 / 64 x 2 x 2 = 128 B of scales and
  // biases; 36 layers x 2304 slots x 2 sequences x 2176 B.
  EXPECT_EQ(run->mlxlm->decode.kv_bytes, 36ull * 2304 * 2 * 2176);

  auto error_of = [&](EstimateRequest q) {
    Result<EstimateRun> x = memfit::run(q, context);
    return x.ok() ? std::string("ok") : x.error().message();
  };
  EstimateRequest mode = r;
  mode.kv_cache_mode = KvElement::kInt8;
  EXPECT_EQ(error_of(mode),
            "kv_cache_mode: is not an mlx-lm setting; mlx-lm takes prompt_tokens, max_tokens, "
            "batch, prefill_step_size, kv_bits, kv_group_size, max_kv_size, mlx_lm_version, "
            "mlx_version, mlx_chip, mlx_max_ops_per_buffer, mlx_max_mb_per_buffer and backend");
  EstimateRequest llama = r;
  llama.llamacpp.ubatch_size = 4;
  EXPECT_EQ(error_of(llama), "ubatch_size: is a llama.cpp setting: give engine llamacpp");
  EstimateRequest mlxcel = request_for();
  mlxcel.mlxlm.prefill_step_size = 512;
  EXPECT_EQ(error_of(mlxcel), "prefill_step_size: is an mlx-lm setting: give engine mlx-lm");
  EstimateRequest bits = r;
  bits.mlxlm.kv_bits = 7;
  EXPECT_EQ(error_of(bits), "kv_bits: must be 2, 3, 4, 5, 6 or 8 (mx.quantize's widths)");
}

TEST(Request, MlxLmCommandBufferLimitsAreFields) {
  // docs/engine-mlxlm.md, "Run-ahead": Metal's Max limits by default (50
  // ops, 50 x 2^20 distinct input elements); backend cuda the H100's CUDA
  // graphs since mlx #3077 (100, 1000, every input counted); the
  // MLX_MAX_*_PER_BUFFER fields over either, as MLX's environment.
  FakeContext context;
  EstimateRequest r = request_for();
  r.engine = "mlx-lm";
  r.mlxlm.prompt_tokens = 2048;
  auto limits_of = [&](const EstimateRequest& q) {
    Result<EstimateRun> run = memfit::run(q, context);
    EXPECT_TRUE(run.ok()) << run.error().message();
    return run.ok() ? run->mlxlm_settings.buffers : MlxBufferLimits{};
  };
  MlxBufferLimits metal = limits_of(r);
  EXPECT_EQ(metal.max_ops, 50u);
  EXPECT_EQ(metal.max_mega_elements, 50u);
  EXPECT_TRUE(metal.distinct_inputs);
  EXPECT_TRUE(metal.count_outputs);  // Metal binds outputs through set_input_array
  EstimateRequest cuda = r;
  cuda.backend = Backend::kCuda;
  MlxBufferLimits graphs = limits_of(cuda);
  EXPECT_EQ(graphs.max_ops, 100u);
  EXPECT_EQ(graphs.max_mega_elements, 1000u);
  EXPECT_FALSE(graphs.distinct_inputs);
  EXPECT_FALSE(graphs.count_outputs);  // CUDA's set_output_array counts nothing
  // The H100 before mlx #3077: 30 ops, 400 x 2^20 elements.
  cuda.mlxlm.mlx_max_ops_per_buffer = 30;
  cuda.mlxlm.mlx_max_mb_per_buffer = 400;
  graphs = limits_of(cuda);
  EXPECT_EQ(graphs.max_ops, 30u);
  EXPECT_EQ(graphs.max_mega_elements, 400u);
  EXPECT_FALSE(graphs.distinct_inputs);
  // On Metal they override the chip's: a base chip's 40 ops, 64 given.
  EstimateRequest base = r;
  base.mlxlm.mlx_chip = MlxChip::kBase;
  base.mlxlm.mlx_max_mb_per_buffer = 64;
  metal = limits_of(base);
  EXPECT_EQ(metal.max_ops, 40u);
  EXPECT_EQ(metal.max_mega_elements, 64u);

  auto error_of = [&](EstimateRequest q) {
    Result<EstimateRun> x = memfit::run(q, context);
    return x.ok() ? std::string("ok") : x.error().message();
  };
  EstimateRequest rocm = r;
  rocm.backend = Backend::kRocm;
  EXPECT_EQ(error_of(rocm), "backend: mlx-lm runs on MLX's Metal or CUDA backend: give metal or "
                            "cuda (docs/engine-mlxlm.md)");
  EstimateRequest chip = r;
  chip.backend = Backend::kCuda;
  chip.mlxlm.mlx_chip = MlxChip::kMax;
  EXPECT_EQ(error_of(chip), "mlx_chip: is an Apple GPU's class, and backend cuda runs MLX on an "
                            "NVIDIA GPU: give mlx_max_ops_per_buffer and mlx_max_mb_per_buffer "
                            "for its limits");
}

TEST(Request, VllmPricesTheGpuWhoseTotalItIsGiven) {
  // No GPU here (the fake host's budget is 48 GiB of RAM): a request that
  // gives the GPU's total prices that GPU, so its total is the budget and
  // this host's RAM is not warned about.
  FakeContext context;
  EstimateRequest r = request_for();
  r.engine = "vllm";
  r.max_tokens = 4096;
  r.vllm.gpu_memory_total = 80ull << 30;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->budget.budget_bytes, 80ull << 30);
  EXPECT_EQ(run->budget.source, BudgetSource::kGpuTotalGiven);
  EXPECT_EQ(to_string(run->budget.source), "gpu_total_given");
  for (const Warning& w : run->warnings) EXPECT_NE(w.kind, WarningKind::kAvailableNow) << w.text;
  // Qwen3-8B at 0.9 x 80 GiB: the peak (0.9 x 80 GiB + the CUDA graphs
  // past the utilization, 102 graphs x 36 layers x 256 KiB = 918 MiB) is
  // under 80 GiB.
  EXPECT_TRUE(run->fits());
  // An explicit limit still wins.
  r.memory_limit_bytes = 60ull << 30;
  Result<EstimateRun> limited = memfit::run(r, context);
  ASSERT_TRUE(limited.ok()) << limited.error().message();
  EXPECT_EQ(limited->budget.budget_bytes, 60ull << 30);
  EXPECT_EQ(limited->budget.source, BudgetSource::kExplicit);
  EXPECT_FALSE(limited->fits());
}

TEST(Request, VllmGpuNameGivenPricesThatGpusMlaBlocksAndDefaults) {
  // --gpu-name "NVIDIA H100 80GB HBM3" --gpu-memory-total 80GiB, for an H100
  // this host does not have: DeepSeek-V3 (61 MLA layers, a latent of 512 +
  // 64 elements, 16-bit) runs FlashMLA, which forces 64-token blocks: a
  // page 64 x 576 x 2 B = 73,728 B, a block 61 x 73,728 = 4,497,408 B. An
  // 80 GiB GPU whose name is not an A100 takes vLLM's large defaults,
  // 8,192 batched tokens and 1,024 sequences.
  FakeContext context;
  context.model_ = testing::corpus_model("deepseek_v3/DeepSeek-V3", 1000);
  EstimateRequest r = request_for();
  r.engine = "vllm";
  r.max_tokens = 32768;
  r.vllm.gpu_memory_total = 80ull << 30;
  r.vllm.gpu_name = "NVIDIA H100 80GB HBM3";
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  ASSERT_TRUE(run->vllm.has_value());
  EXPECT_EQ(run->vllm_settings.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(run->vllm_settings.gpu_name_given);
  EXPECT_EQ(run->vllm->layout.attention_block_size, 64u);
  EXPECT_EQ(run->vllm->layout.bytes_per_block, 4497408u);
  EXPECT_EQ(run->vllm->num_blocks, run->vllm->kv_cache_bytes / 4497408u);
  EXPECT_EQ(run->vllm->settings.max_num_batched_tokens, 8192u);
  EXPECT_EQ(run->vllm->settings.max_num_seqs, 1024u);
  for (const Warning& w : run->warnings) EXPECT_NE(w.kind, WarningKind::kRequest) << w.text;

  // Unnamed (the total alone), the same GPU keeps --block-size 16: a block
  // 61 x 16 x 576 x 2 B = 1,124,352 B.
  EstimateRequest unnamed = r;
  unnamed.vllm.gpu_name.reset();
  Result<EstimateRun> plain = memfit::run(unnamed, context);
  ASSERT_TRUE(plain.ok()) << plain.error().message();
  EXPECT_EQ(plain->vllm_settings.gpu_name, "");
  EXPECT_EQ(plain->vllm->layout.attention_block_size, 16u);
  EXPECT_EQ(plain->vllm->layout.bytes_per_block, 1124352u);

  // An A100 named: Triton MLA (16 stands) and the small defaults, 2,048
  // and 256, though it has 80 GiB.
  EstimateRequest a100 = r;
  a100.vllm.gpu_name = "NVIDIA A100-SXM4-80GB";
  Result<EstimateRun> ampere = memfit::run(a100, context);
  ASSERT_TRUE(ampere.ok()) << ampere.error().message();
  EXPECT_EQ(ampere->vllm->layout.attention_block_size, 16u);
  EXPECT_EQ(ampere->vllm->settings.max_num_batched_tokens, 2048u);
  EXPECT_EQ(ampere->vllm->settings.max_num_seqs, 256u);
}

TEST(Request, VllmGpuNameGivenOverridesTheProbedOne) {
  FakeContext context;
  context.model_ = testing::corpus_model("deepseek_v3/DeepSeek-V3", 1000);
  context.host_.gpus.push_back(
      GpuMemory{0, GpuVendor::kNvidia, "NVIDIA A100-SXM4-80GB", 80ull << 30, 79ull << 30});
  EstimateRequest r = request_for();
  r.engine = "vllm";
  r.max_tokens = 32768;
  // Probed: the A100's name and total, so Triton MLA's 16-token blocks.
  Result<EstimateRun> probed = memfit::run(r, context);
  ASSERT_TRUE(probed.ok()) << probed.error().message();
  EXPECT_EQ(probed->vllm_settings.gpu_name, "NVIDIA A100-SXM4-80GB");
  EXPECT_FALSE(probed->vllm_settings.gpu_name_given);
  EXPECT_EQ(probed->vllm->layout.attention_block_size, 16u);
  // Given: the name wins, the total is still the probed GPU's, and a
  // warning says so (the user may have meant another machine's).
  r.vllm.gpu_name = "NVIDIA H200";
  Result<EstimateRun> given = memfit::run(r, context);
  ASSERT_TRUE(given.ok()) << given.error().message();
  EXPECT_EQ(given->vllm_settings.gpu_name, "NVIDIA H200");
  EXPECT_TRUE(given->vllm_settings.gpu_name_given);
  EXPECT_EQ(given->vllm_settings.gpu_memory_total, 80ull << 30);
  EXPECT_EQ(given->vllm->layout.attention_block_size, 64u);
  bool warned = false;
  for (const Warning& w : given->warnings) {
    warned |= w.kind == WarningKind::kRequest &&
              w.text == "gpu_name is given but gpu_memory_total is not: the total is this host's "
                        "GPU's (NVIDIA A100-SXM4-80GB, 80.00 GiB); give gpu_memory_total for "
                        "another machine's";
  }
  EXPECT_TRUE(warned);
}

TEST(Request, VllmGpuNameBadOrWithAnotherEngineIsAUsageError) {
  FakeContext context;
  auto error_of = [&](EstimateRequest q) {
    Result<EstimateRun> x = memfit::run(q, context);
    if (x.ok()) return std::string("ok");
    EXPECT_EQ(x.error().kind(), ErrorKind::kUsage);
    return x.error().message();
  };
  EstimateRequest r = request_for();
  r.engine = "vllm";
  r.vllm.gpu_memory_total = 80ull << 30;
  r.vllm.gpu_name = "H100\n";
  EXPECT_EQ(error_of(r), "gpu_name: 'H100\\n': expected a GPU's name as nvidia-smi prints it, e.g. "
                         "\"NVIDIA H100 80GB HBM3\" (1 to 128 printable ASCII characters)");
  EstimateRequest mlxcel = request_for();
  mlxcel.vllm.gpu_name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(error_of(mlxcel), "gpu_name: is a vLLM setting: give engine vllm");
}

TEST(Request, VllmTakesItsFieldsAndRefusesTheOthers) {
  FakeContext context;
  context.host_.gpus.push_back(GpuMemory{0, GpuVendor::kNvidia, "H100", 80ull << 30, 79ull << 30});
  EstimateRequest r = request_for();
  r.engine = "vllm";
  r.max_tokens = 4096;  // --max-model-len
  r.batch = 8;          // --max-num-seqs
  r.vllm.kv_cache_fp8 = true;
  r.vllm.gpu_memory_utilization = 0.8;
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  ASSERT_TRUE(run->vllm.has_value());
  EXPECT_TRUE(context.kept_tensors);  // weights are split tensor by tensor
  const VllmSettings& s = run->vllm_settings;
  EXPECT_EQ(s.max_model_len, 4096u);
  EXPECT_EQ(s.max_num_seqs, 8u);
  EXPECT_EQ(s.gpu_memory_total, 80ull << 30);  // the GPU found
  EXPECT_EQ(s.block_size, 16u);
  EXPECT_EQ(run->fits(), run->vllm->fits);
  // Qwen3-8B, fp8: 36 layers x 2 x 16 x 8 x 128 x 1 B = 1,179,648 B a block.
  EXPECT_EQ(run->vllm->layout.bytes_per_block, 1179648u);
  EXPECT_EQ(run->vllm->requested_bytes, static_cast<uint64_t>((80ull << 30) * 0.8));

  auto error_of = [&](EstimateRequest q) {
    Result<EstimateRun> x = memfit::run(q, context);
    return x.ok() ? std::string("ok") : x.error().message();
  };
  EstimateRequest mode = r;
  mode.kv_cache_mode = KvElement::kInt8;
  EXPECT_EQ(error_of(mode), "kv_cache_mode: is not a vLLM setting; vLLM's KV cache type is "
                            "kv_cache_dtype (auto or fp8)");
  EstimateRequest mlx = r;
  mlx.mlxlm.kv_bits = 4;
  EXPECT_EQ(error_of(mlx), "kv_bits: is an mlx-lm setting: give engine mlx-lm");
  EstimateRequest mlxcel = request_for();
  mlxcel.vllm.block_size = 32;
  EXPECT_EQ(error_of(mlxcel), "block_size: is a vLLM setting: give engine vllm");
  EstimateRequest pp = r;
  pp.parallel.pipeline_parallel = 2;
  EXPECT_EQ(error_of(pp), "pipeline_parallel: the vLLM profile prices tensor parallelism only "
                          "(pipeline parallelism: not yet)");
  EstimateRequest both = r;
  both.vllm.max_model_len = 1024;
  EXPECT_EQ(error_of(both), "max_tokens: and max_model_len are both the context: give one "
                            "(max_model_len is vLLM's name)");
}

TEST(RequestParsers, NamesAndAliases) {
  EXPECT_EQ(*parse_kv_element("bf16"), KvElement::kFp16);
  EXPECT_EQ(*parse_kv_element("q8_0"), KvElement::kInt8);
  Result<KvElement> bad = parse_kv_element("q4\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(bad.error().message(), "'q4\\n': expected fp16 or int8");
  EXPECT_EQ(*parse_backend("auto"), std::nullopt);
  EXPECT_EQ(*parse_backend("rocm"), Backend::kRocm);
  EXPECT_FALSE(parse_backend("tpu").ok());
  // Engines by name or alias, ignoring case, returned as their names.
  EXPECT_EQ(*parse_engine("mlxcel"), "mlxcel");
  EXPECT_EQ(*parse_engine("auto"), "");
  EXPECT_EQ(*parse_engine("mlx-lm"), "mlx-lm");
  EXPECT_EQ(*parse_engine("mlxlm"), "mlx-lm");
  EXPECT_EQ(*parse_engine("mlx_lm"), "mlx-lm");
  EXPECT_EQ(*parse_engine("llama.cpp"), "llamacpp");
  EXPECT_EQ(*parse_engine("vllm"), "vllm");
  EXPECT_EQ(*parse_engine("vLLM"), "vllm");
  EXPECT_EQ(*parse_engine("SGLang"), "sglang");
  EXPECT_EQ(parse_engine("trtllm").error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(parse_engine("trtllm").error().message(),
            "'trtllm': expected auto, mlxcel, llamacpp, mlx-lm, vllm, sglang or ollama");
  EXPECT_EQ(*parse_engine("Ollama"), "ollama");
  EXPECT_EQ(*parse_vllm_kv_cache_dtype("fp8_e4m3"), true);
  EXPECT_EQ(*parse_vllm_kv_cache_dtype("auto"), false);
  EXPECT_FALSE(parse_vllm_kv_cache_dtype("int8").ok());
  EXPECT_EQ(*parse_quant_label("int4"), "int4");
  EXPECT_FALSE(parse_quant_label("int3").ok());
}

}  // namespace
}  // namespace memfit
