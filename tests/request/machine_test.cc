// The machine a request describes (request.h: MachineRequest; --gpu,
// --mac) through prepare() and run(), for every engine, over a fake
// context whose host is a Linux box with 48 GiB free and no GPU: each
// problem of issue 29's "describing another machine" as a test, with the
// arithmetic by hand.
#include <gtest/gtest.h>

#include <utility>

#include "memfit/hardware.h"
#include "memfit/request.h"
#include "support/corpus.h"

namespace memfit {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kMiB = 1ull << 20;

class ThisHost : public RequestContext {
 public:
  ThisHost() {
    model_ = testing::corpus_model("llama3/Llama-3.2-1B-Instruct", 2'471'645'184ull);
    host_.os = "linux";
    host_.ram_total_bytes = 64 * kGiB;
    host_.available_now_bytes = 48 * kGiB;
    host_.ram_available_bytes = 48 * kGiB;
    host_.budget_bytes = 48 * kGiB;
    host_.budget_source = BudgetSource::kMeminfoAvailable;
    host_.device = "cpu";
  }
  Result<std::shared_ptr<const Model>> open_model(const std::string&,
                                                  const OpenModelOptions&) override {
    return std::shared_ptr<const Model>(std::make_shared<Model>(model_));
  }
  const MlxcelSettings& settings() const override { return settings_; }
  const std::vector<std::string>& settings_warnings() const override { return no_warnings_; }
  Platform platform() const override { return Platform{}; }
  HostMemoryStatus host_memory(const DeviceSelector&, std::optional<uint64_t> limit) override {
    ++host_reads;
    HostMemoryStatus status = host_;
    if (limit)
      apply_explicit_limit(status, *limit);
    else if (settings_.memory_limit_bytes)
      apply_explicit_limit(status, *settings_.memory_limit_bytes);
    return status;
  }

  Model model_;
  HostMemoryStatus host_;
  MlxcelSettings settings_;
  std::vector<std::string> no_warnings_;
  int host_reads = 0;
};

EstimateRequest request(std::string engine = "") {
  EstimateRequest r;
  r.model = "Llama-3.2-1B-Instruct";
  r.engine = std::move(engine);
  return r;
}

bool has_warning(const std::vector<Warning>& warnings, WarningKind kind) {
  for (const Warning& w : warnings) {
    if (w.kind == kind) return true;
  }
  return false;
}

std::string error_of(const EstimateRequest& r, ThisHost& context) {
  Result<EstimateRun> run = memfit::run(r, context);
  if (run.ok()) return "ok";
  EXPECT_EQ(run.error().kind(), ErrorKind::kUsage);
  return run.error().message();
}

TEST(Machine, VllmOnAnH100FromTheTable) {
  // --gpu h100-80gb --engine vllm, Llama-3.2-1B (2,471,645,184 B of weights
  // + its rope cache 131,072 x 64 x 2 = 16,777,216 = 2,488,422,400), at
  // vLLM's default context, the config's 131,072 tokens, vLLM 0.21
  // (pinned: the last release whose V1 sampler sorts the logits, whose 39 B the
  // activation below is; the table's total is what is tested).
  //   total      81,559 MiB x 2^20 = 85,520,809,984 B (the driver's figure)
  //   requested  floor(0.92 x 85,520,809,984) = 78,679,145,185 (0.92: the
  //              default from 0.21, vllm#38284)
  //   defaults   80 GiB and not an A100: 8,192 batched tokens, 1,024 rows
  //   activation the sampler, 8,192 x 2,048 x 2 + 1,024 x 128,256 x 39 =
  //              33,554,432 + 5,122,031,616 = 5,155,586,048 (over the
  //              forward 8,192 x 2,048 x 8 + 8,192 x 3 x 8,192 x 2 = 536,870,912)
  //   non-torch  144 MiB = 150,994,944
  //   weights    2,488,422,400 + the allocator's 1,048,576 (the tied table,
  //              501 MiB, holds a 502 MiB block: allocations.h) = 2,489,470,976
  //   graphs     the CUDA graphs' estimate, subtracted from 0.21: 1,024
  //              sequences capture 51 PIECEWISE and 51 FULL graphs, x 16
  //              layers x 256 KiB = 427,819,008
  //   KV         78,679,145,185 - 2,489,470,976 - 5,155,586,048 - 150,994,944
  //              - 427,819,008 = 70,455,274,209 B; a block 16 layers x 2 x
  //              16 x 8 x 64 x 2 = 524,288 B: 134,382 blocks, 2,150,112 tokens
  //   requests   131,072 tokens are 8,192 blocks: 134,382 / 8,192 = 16.40 at once
  ThisHost context;
  EstimateRequest r = request("vllm");
  r.machine.gpu = {"h100-80gb"};
  r.vllm.vllm_version = VllmRelease{0, 21, 0, true};
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->vllm_settings.gpu_memory_total, 85'520'809'984u);
  EXPECT_EQ(run->vllm_settings.gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(run->vllm_settings.gpu_name_given);  // by --gpu, not the probe
  EXPECT_EQ(run->vllm->requested_bytes, 78'679'145'185u);
  EXPECT_EQ(run->vllm->settings.max_num_batched_tokens, 8192u);
  EXPECT_EQ(run->vllm->settings.max_num_seqs, 1024u);
  EXPECT_EQ(run->vllm->activation_bytes, 5'155'586'048u);
  EXPECT_EQ(run->vllm->kv_cache_bytes, 70'455'274'209u);
  EXPECT_EQ(run->vllm->num_blocks, 134'382u);
  EXPECT_EQ(run->vllm->kv_tokens, 2'150'112u);
  EXPECT_DOUBLE_EQ(run->vllm->max_concurrency, 134382.0 / 8192);
  // The budget is the GPU's, as a probed one; nothing about this host.
  EXPECT_EQ(run->budget.budget_bytes, 85'520'809'984u);
  EXPECT_EQ(run->budget.source, BudgetSource::kGpu);
  EXPECT_EQ(run->host.described_by, "gpu");
  EXPECT_TRUE(run->fits());
  EXPECT_FALSE(has_warning(run->warnings, WarningKind::kAvailableNow));
}

TEST(Machine, ACardSoldWithTwoMemorySizesGetsItsOwnRowsThroughput) {
  // Both RTX 4060 Ti rows print "NVIDIA GeForce RTX 4060 Ti" (the name a
  // device carries): the speed estimate takes the row whose memory is the
  // device's, 16,376 or 8,188 MiB, both 288 GB/s (data/hardware/gpus.tsv).
  for (const char* id : {"rtx4060ti-16gb", "rtx4060ti-8gb"}) {
    ThisHost context;
    EstimateRequest r = request("vllm");
    r.machine.gpu = {id};
    Result<EstimateRun> run = memfit::run(r, context);
    ASSERT_TRUE(run.ok()) << run.error().message();
    ASSERT_EQ(run->speed_machine.gpus.size(), 1u);
    EXPECT_EQ(run->speed_machine.gpus[0].name, id);
    EXPECT_DOUBLE_EQ(run->speed_machine.gpus[0].bandwidth_gb_s, 288);
  }
}

TEST(Machine, AnM1MaxDecodesAtItsMeasuredGpuReadBandwidth) {
  // The M1 Max's GPU was measured reading 317.6 GB/s of its 400
  // (ggml-org/llama.cpp#1642, data/hardware/apple.tsv): the unified
  // device's bandwidth is the measured figure; the M3 Max, with no
  // measurement, keeps its spec's 400 (docs/speed.md, "Attainable bandwidth").
  for (const auto& [mac, gb_s] : {std::pair{"M1 Max 64GB", 317.6}, {"M3 Max 64GB", 400.0}}) {
    ThisHost context;
    EstimateRequest r = request("llamacpp");
    r.machine.mac = mac;
    Result<EstimateRun> run = memfit::run(r, context);
    ASSERT_TRUE(run.ok()) << run.error().message();
    ASSERT_TRUE(run->speed_machine.unified.has_value()) << mac;
    EXPECT_DOUBLE_EQ(run->speed_machine.unified->bandwidth_gb_s, gb_s) << mac;
  }
}

TEST(Machine, VllmGpuNameAloneTakesTheTablesTotal) {
  // Before: "gpu_memory_total: no GPU was found". Now the name the table
  // knows gives its total, 81,559 MiB, and that GPU is the budget.
  ThisHost context;
  EstimateRequest r = request("vllm");
  r.vllm.gpu_name = "NVIDIA H100 80GB HBM3";
  r.vllm.vllm_version = VllmRelease{0, 21, 0, true};  // as above
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->vllm_settings.gpu_memory_total, 81559 * kMiB);
  EXPECT_EQ(run->budget.budget_bytes, 81559 * kMiB);
  EXPECT_EQ(run->budget.source, BudgetSource::kGpuTotalGiven);
  EXPECT_EQ(run->vllm->num_blocks, 134'382u);  // as --gpu h100-80gb above
  // A name the table does not know still needs a total.
  r.vllm.gpu_name = "NVIDIA H999";
  EXPECT_EQ(error_of(r, context),
            "gpu_memory_total: no GPU was found: give the GPU (gpu, e.g. h100-80gb), its total "
            "memory (gpu_memory_total) or kv_cache_memory");
}

TEST(Machine, VllmGpuTotalIn80GBIsDecimal) {
  // --gpu-memory-total 80GB was read as 80 GiB: 85,899,345,920 B, 133,815
  // blocks. 80GB is 80 x 10^9: requested 0.92 x that = 73,600,000,000; KV
  // 73,600,000,000 - 2,489,470,976 (with the allocator's 1 MiB, above) -
  // 5,155,586,048 - 150,994,944 - the CUDA graphs' 427,819,008 (above) =
  // 65,376,129,024 B, 124,695 blocks of 524,288 B (vLLM 0.21, pinned as
  // above: the total's unit is tested).
  ThisHost context;
  EstimateRequest r = request("vllm");
  r.vllm.vllm_version = VllmRelease{0, 21, 0, true};
  const RequestField* total = find_request_field("gpu_memory_total");
  ASSERT_NE(total, nullptr);
  ASSERT_TRUE(apply_request_field(*total, r, "80GB").ok());
  EXPECT_EQ(r.vllm.gpu_memory_total, 80'000'000'000u);
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->vllm->kv_cache_bytes, 65'376'129'024u);
  EXPECT_EQ(run->vllm->num_blocks, 124'695u);
  ASSERT_TRUE(apply_request_field(*total, r, "80GiB").ok());
  EXPECT_EQ(r.vllm.gpu_memory_total, 80 * kGiB);
}

TEST(Machine, TheDefaultEngineTakesAGpu) {
  // Before: only llamacpp took a GPU (--gpu-memory), refused by mlxcel.
  // --gpu rtx4090 under mlxcel: the budget is its 24,564 MiB =
  // 25,757,220,864 B, the backend CUDA.
  ThisHost context;
  EstimateRequest r = request();
  r.machine.gpu = {"rtx4090"};
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->engine->name(), "mlxcel");
  EXPECT_EQ(run->budget.budget_bytes, 25'757'220'864u);
  EXPECT_EQ(run->budget.source, BudgetSource::kGpu);
  EXPECT_EQ(run->platform.backend, Backend::kCuda);
  EXPECT_EQ(run->estimate.budget_bytes, 25'757'220'864u);
  // An AMD GPU is ROCm's: its in-flight reserve is priced.
  r.machine.gpu = {"mi300x"};
  run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->platform.backend, Backend::kRocm);
  EXPECT_GT(run->estimate.backend_inflight_bytes, 0u);
  EXPECT_EQ(run->budget.budget_bytes, 196592 * kMiB);
}

TEST(Machine, LlamaCppGetsOneDevicePerGpuInTheHostsOrder) {
  // --gpu mi300x --gpu rtx4090: NVIDIA's devices first, as the host lists
  // them: cuda:0 the RTX 4090 (24,564 MiB free), rocm:0 the MI300X.
  ThisHost context;
  EstimateRequest r = request("llamacpp");
  r.machine.gpu = {"mi300x", "rtx4090"};
  Result<PreparedRequest> p = prepare(r, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  const std::vector<LlamaCppGpu>& gpus = p->llamacpp_settings.placement.gpus;
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].device, "cuda:0");
  EXPECT_EQ(gpus[0].name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(gpus[0].free_bytes, 24564 * kMiB);
  EXPECT_EQ(gpus[1].device, "rocm:0");
  EXPECT_EQ(gpus[1].free_bytes, 196592 * kMiB);
  // --device names one of them, or fails naming those there are.
  r.device = DeviceSelector{DeviceSelector::Kind::kRocm, 0};
  p = prepare(r, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_EQ(p->budget.budget_bytes, 196592 * kMiB);
  r.device = DeviceSelector{DeviceSelector::Kind::kCuda, 1};
  EXPECT_EQ(prepare(r, context).error().message(),
            "device: cuda:1 is not among the GPUs gpu describes (cuda:0, rocm:0)");
  // --gpu-memory and --gpu both give the GPUs: one of them.
  r = request("llamacpp");
  r.machine.gpu = {"rtx4090"};
  r.llamacpp.placement.gpu_memory = std::vector<LlamaCppGpu>{{"gpu:0", "", 8 * kGiB}};
  EXPECT_EQ(error_of(r, context),
            "gpu_memory: and the machine's gpu or mac both give the GPUs' memory: give one");
}

TEST(Machine, AMacIsItsRamItsReserveAndItsWiredLimit) {
  // --mac "M3 Pro 18GB": 18 GiB of RAM; macOS's reserve max(7 GiB, 15%) = 7
  // GiB; the default wired limit 2/3 x 18 GiB = 12 GiB = 12,884,901,888 B,
  // the budget. Nothing of this host is read.
  ThisHost context;
  EstimateRequest r = request();
  r.machine.mac = "M3 Pro 18GB";
  Result<EstimateRun> run = memfit::run(r, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(context.host_reads, 0);
  EXPECT_EQ(run->host.os, "macos");
  EXPECT_EQ(run->host.ram_total_bytes, 18 * kGiB);
  EXPECT_EQ(run->host.reserve_bytes, 7 * kGiB);
  EXPECT_EQ(run->budget.budget_bytes, 12 * kGiB);
  EXPECT_EQ(run->budget.source, BudgetSource::kUnifiedMemory);
  // Metal with the M3 Pro's 18 GPU cores: the decode workspace's CTAs are 8
  // x 18 = 144, so (Llama-3.2-1B: 8 KV heads of 64) 2 x (ceil(2 x 144 / 8)
  // + 1) x (8 x 16) x (64 + 1) x 4 = 2 x 37 x 128 x 65 x 4 = 2,462,720.
  EXPECT_EQ(run->platform.backend, Backend::kMetal);
  EXPECT_EQ(run->platform.metal_gpu_cores, 18u);
  ASSERT_TRUE(run->estimate.per_slot_overhead_bytes.has_value());
  EXPECT_EQ(*run->estimate.per_slot_overhead_bytes, 2'462'720u);
  // llama.cpp: one Metal device, the unified budget.
  r.engine = "llamacpp";
  Result<PreparedRequest> p = prepare(r, context);
  ASSERT_TRUE(p.ok()) << p.error().message();
  ASSERT_EQ(p->llamacpp_settings.placement.gpus.size(), 1u);
  EXPECT_EQ(p->llamacpp_settings.placement.gpus[0].device, "metal:0");
  EXPECT_EQ(p->llamacpp_settings.placement.gpus[0].free_bytes, 12 * kGiB);
  EXPECT_TRUE(p->llamacpp_settings.placement.unified);
  // A Mac's GPU is no CUDA device; --gpu with --mac is two machines.
  r.engine = "";
  r.device = DeviceSelector{DeviceSelector::Kind::kCuda, 0};
  EXPECT_EQ(error_of(r, context),
            "device: cuda:0 is not a device of a Mac (M3 Pro 18GB): its GPU shares the unified "
            "memory, device cpu");
  r.device = DeviceSelector{};
  r.machine.gpu = {"rtx4090"};
  EXPECT_EQ(error_of(r, context), "mac: and gpu describe two machines: give one");
}

TEST(Machine, A24GBMacKeepsMacosItsReserve) {
  // "A 24 GB Mac" as --memory-limit 24GiB under mlx-lm: the whole 24 GiB
  // was the budget, and a peak that fits it was advised as the wired
  // limit, leaving macOS under 1 GB. With --mac m4-24gb the default wired
  // limit, 2/3 x 24 GiB = 16 GiB, is the budget; a limit given stands for
  // a raised wired limit and is held to RAM - reserve = 24 - 7 = 17 GiB =
  // 18,253,611,008 B, with a warning. A 20 GiB model (peak past 17 GiB)
  // fits the bare limit but not the Mac.
  ThisHost context;
  context.model_.weights.bytes = 20 * kGiB;
  EstimateRequest r = request("mlx-lm");
  r.max_tokens = 256;
  r.memory_limit_bytes = 24 * kGiB;
  Result<EstimateRun> bare = memfit::run(r, context);
  ASSERT_TRUE(bare.ok()) << bare.error().message();
  EXPECT_TRUE(bare->fits());
  EXPECT_GT(bare->mlxlm->wired_limit_mb * kMiB, 20 * kGiB);
  // The limit describes the budget, not this host: no word about this
  // host's free memory (48 GiB here; it was warned of when short).
  EXPECT_EQ(bare->host.described_by, "memory_limit");

  r.machine.mac = "m4-24gb";
  Result<EstimateRun> mac = memfit::run(r, context);
  ASSERT_TRUE(mac.ok()) << mac.error().message();
  EXPECT_EQ(mac->budget.budget_bytes, 17 * kGiB);
  EXPECT_EQ(mac->budget.source, BudgetSource::kExplicit);
  EXPECT_FALSE(mac->fits());
  ASSERT_FALSE(mac->warnings.empty());
  EXPECT_EQ(mac->warnings.front().kind, WarningKind::kRequest);
  EXPECT_EQ(mac->warnings.front().text,
            "memory_limit 24.00 GiB would leave macOS less than its reserve on M4 24GB (24.00 GiB "
            "of RAM, 7.00 GiB reserve): the budget is 17.00 GiB");
  EXPECT_FALSE(has_warning(mac->warnings, WarningKind::kAvailableNow));
  // llama.cpp's Metal device holds that budget too.
  EstimateRequest llama = r;
  llama.engine = "llamacpp";
  llama.max_tokens.reset();
  Result<PreparedRequest> metal = prepare(llama, context);
  ASSERT_TRUE(metal.ok()) << metal.error().message();
  ASSERT_EQ(metal->llamacpp_settings.placement.gpus.size(), 1u);
  EXPECT_EQ(metal->llamacpp_settings.placement.gpus[0].device, "metal:0");
  EXPECT_EQ(metal->llamacpp_settings.placement.gpus[0].free_bytes, 17 * kGiB);

  // No limit: the default wired limit, 16 GiB; whatever fits it, the
  // advised wired limit leaves macOS at least 24 - 16 = 8 GiB.
  r.memory_limit_bytes.reset();
  context.model_.weights.bytes = 12 * kGiB;
  Result<EstimateRun> fits = memfit::run(r, context);
  ASSERT_TRUE(fits.ok()) << fits.error().message();
  EXPECT_EQ(fits->budget.budget_bytes, 16 * kGiB);
  EXPECT_TRUE(fits->fits());
  EXPECT_LE(fits->mlxlm->wired_limit_mb * kMiB, 16 * kGiB);
}

TEST(Machine, ThisHostIsWarnedOfOnlyWhenItIsPriced) {
  // This host has 1 GiB free now and the model 2.3 GiB of weights.
  ThisHost context;
  context.host_.ram_available_bytes = 1 * kGiB;
  // Priced as it stands: the warning.
  Result<EstimateRun> here = memfit::run(request(), context);
  ASSERT_TRUE(here.ok()) << here.error().message();
  EXPECT_TRUE(has_warning(here->warnings, WarningKind::kAvailableNow));
  // This host's own setting (MEMFIT_MEMORY_LIMIT) is still this host.
  context.settings_.memory_limit_bytes = 8 * kGiB;
  Result<EstimateRun> capped = memfit::run(request(), context);
  ASSERT_TRUE(capped.ok()) << capped.error().message();
  EXPECT_TRUE(has_warning(capped->warnings, WarningKind::kAvailableNow));
  context.settings_.memory_limit_bytes.reset();
  // Another machine, by --memory-limit, --gpu or --mac: none.
  EstimateRequest limited = request();
  limited.memory_limit_bytes = 8 * kGiB;
  EstimateRequest gpu = request();
  gpu.machine.gpu = {"rtx4090"};
  EstimateRequest gpu_llama = request("llamacpp");
  gpu_llama.machine.gpu = {"rtx4090"};
  EstimateRequest mac = request("mlx-lm");
  mac.machine.mac = "m4-max-128gb";
  for (const EstimateRequest& r : {limited, gpu, gpu_llama, mac}) {
    Result<EstimateRun> run = memfit::run(r, context);
    ASSERT_TRUE(run.ok()) << run.error().message();
    EXPECT_FALSE(has_warning(run->warnings, WarningKind::kAvailableNow)) << r.engine;
  }
}

TEST(Machine, NamesAreCheckedBeforeTheModelIsOpened) {
  ThisHost context;
  EstimateRequest r = request();
  r.machine.gpu = {"rtx 4090 ti"};
  EXPECT_EQ(error_of(r, context),
            "gpu: 'rtx 4090 ti': no such GPU; nearest: rtx4090, rtx3090ti, rtx4060ti-8gb (memfit "
            "hardware lists them)");
  r.machine.gpu = {"arc-a770"};
  EXPECT_EQ(error_of(r, context),
            "gpu: arc-a770 is an Intel GPU: no engine here prices its runtime; give its memory as "
            "memory_limit");
  r.machine.gpu.clear();
  r.machine.mac = "M3 Pro";
  EXPECT_EQ(error_of(r, context),
            "mac: 'M3 Pro' is a chip: give its memory too: m3-pro-18gb or m3-pro-36gb");
  EXPECT_EQ(context.host_reads, 0);
  // vLLM's own GPU fields with --gpu: one description.
  EstimateRequest v = request("vllm");
  v.machine.gpu = {"h100"};
  v.vllm.gpu_memory_total = 80 * kGiB;
  EXPECT_EQ(
      error_of(v, context),
      "gpu_memory_total: and gpu describe the same GPU: give gpu alone (the hardware table has "
      "its name and total)");
}

TEST(Machine, TheFieldsReadAStringOrAList) {
  const RequestField* gpu = find_request_field("gpu");
  const RequestField* mac = find_request_field("mac");
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(mac, nullptr);
  EXPECT_EQ(gpu->type, FieldType::kList);
  EXPECT_EQ(gpu->engine, "");
  EstimateRequest r;
  ASSERT_TRUE(apply_request_field(*gpu, r, "h100").ok());
  ASSERT_TRUE(apply_request_field(*gpu, r, "h100").ok());
  EXPECT_EQ(r.machine.gpu, (std::vector<std::string>{"h100", "h100"}));
  ASSERT_TRUE(apply_request_field(*mac, r, "M3 Pro 18GB").ok());
  EXPECT_EQ(r.machine.mac, "M3 Pro 18GB");
}

}  // namespace
}  // namespace memfit
