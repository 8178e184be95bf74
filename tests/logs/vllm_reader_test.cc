// vLLM's logs read back, from real logs under tests/data/logs/vllm/: sizes
// are bytes / 2^30 whether printed "GiB" or, in V0, "GB" (vLLM divides by
// float(2**30): docs/check-log.md); each worker's figures on its rank.
#include <gtest/gtest.h>

#include <algorithm>

#include "logs/log_test_data.h"
#include "memfit/runtime_log.h"

namespace memfit {
namespace {

using testing::find_figure;
using testing::read_test_log;
using testing::setting_of;

RuntimeLog read(const std::string& file) {
  Result<RuntimeLog> log = read_runtime_log(read_test_log("vllm", file));
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : RuntimeLog{};
}

TEST(VllmLog, V0WorkersAreRanksInOrderOfAppearance) {
  // vllm-project/vllm#15815: TP 2, the driver's lines bare, the worker's
  // "(VllmWorkerProcess pid=3280379)".
  const RuntimeLog log = read("vllm-15815-qwen25-32b-tp2-l40s.log");
  EXPECT_EQ(log.runtime, "vllm");
  // "30.7098 GB" = 307098 x 2^30 / 10^4 = 32,974,396,667.0, +- 2^30 / 20,000 = 53,687.09 -> 53,688.
  const PrintedFigure* w0 = find_figure(log, "rank0", LogFigure::kWeights);
  ASSERT_NE(w0, nullptr);
  EXPECT_EQ(w0->value, 32'974'396'667u);
  EXPECT_EQ(w0->band, 53'688u);
  EXPECT_EQ(find_figure(log, "rank1", LogFigure::kWeights)->value, 32'974'396'667u);
  // "reserved for KV Cache is 7.71GiB": 771 x 2^30 / 100 = 8,278,549,463.04.
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kKvCacheAvailable)->value, 8'278'549'463u);
  EXPECT_EQ(find_figure(log, "total", LogFigure::kKvBlocks)->value, 3947u);  // "# CUDA blocks: 3947"
  // "total_gpu_memory (44.42GiB)" = 47,695,611,822.08; "gpu_memory_utilization (0.90)".
  ASSERT_EQ(log.devices.size(), 2u);
  EXPECT_EQ(log.devices[0].id, "rank0");
  EXPECT_EQ(log.devices[0].total_bytes, 47'695'611'822u);
  EXPECT_EQ(setting_of(log, "gpu_memory_utilization"), "0.90");
}

TEST(VllmLog, EveryWorkersLineCountsItsRankNotOnlyTheFiguresLines) {
  // genlm/genlm-backend#10 (v0.7.0, TP 4): the excerpt keeps the weights
  // lines of the driver and of pid 1152871 only, but the driver and three
  // VllmWorkerProcess pids (1152873, 1152871, 1152872, in that order of
  // appearance: ranks 1, 2, 3) print "Using model weights format".
  const RuntimeLog log = read("vllm-genlm10-llama3-8b-tp4-v070.log");
  ASSERT_NE(find_figure(log, "rank0", LogFigure::kWeights), nullptr);
  ASSERT_NE(find_figure(log, "rank2", LogFigure::kWeights), nullptr);
  EXPECT_EQ(std::count_if(log.figures.begin(), log.figures.end(),
                          [](const PrintedFigure& f) { return f.figure == LogFigure::kWeights; }),
            2);
  EXPECT_EQ(setting_of(log, "ranks_seen"), "4");
  // One process, one rank: a log of one engine says nothing.
  EXPECT_EQ(read("vllm-10517-llama31-8b-rtx3090-20k.log").setting("ranks_seen"), nullptr);
}


TEST(VllmLog, RayWorkersAreTheRanksTheirParallelStateLinesAnnounce) {
  // dennislee22/vLLM-benchmarking, v0.10.1.1 over Ray, TP 2 on two nodes:
  // "(EngineCore_0 pid=1257) (RayWorkerWrapper pid=1384) ... rank 0 in
  // world size 2" and "(RayWorkerWrapper pid=374, ip=10.254.6.219) ...
  // rank 1 in world " (the file wraps its lines, so neither the config line
  // nor the args give the TP). The engine's own lines are rank 0 too: two
  // ranks, not three (pid 1384 was rank 1 and pid 374 rank 2 before).
  const RuntimeLog log = read("vllm-dennislee-qwen2-7b-tp2-a100-40gb-ray-u05.log");
  EXPECT_EQ(setting_of(log, "ranks_seen"), "2");
  // Ray's placement check prints the configured size: "[ray_utils.py:200]
  // tensor_parallel_size=2 is bigger than a reserved number of GPUs (1 GPU".
  EXPECT_EQ(setting_of(log, "tensor_parallel"), "2");
  // "Model loading took 7.1217 GiB", pid 1384's: 71217 x 2^30 / 10^4 = 7,646,867,147.98.
  const PrintedFigure* w0 = find_figure(log, "rank0", LogFigure::kWeights);
  ASSERT_NE(w0, nullptr);
  EXPECT_EQ(w0->value, 7'646'867'148u);
  // "Available KV cache memory: 11.03 GiB", pid 1384's too (pid 374's
  // lines are cut before their figures): 1103 x 2^30 / 100 = 11,843,372,318.72.
  const PrintedFigure* kv0 = find_figure(log, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv0, nullptr);
  EXPECT_EQ(kv0->value, 11'843'372'319u);

  // gpt-oss-120b, TP 4 over four Ray nodes: pid 345 runs on two of them
  // (10.42.11.243, rank 1 by its line; 10.42.9.225, no line of its own
  // past Ray's "[repeated 3x across cluster]"), so a worker is its pid and
  // node; pid 1273 announced rank 0. The unannounced take 2 and 3.
  const RuntimeLog oss = read("vllm-dennislee-gpt-oss-120b-tp4-a100-80gb-ray-u08.log");
  EXPECT_EQ(setting_of(oss, "ranks_seen"), "4");
  for (std::string_view rank : {"rank0", "rank1", "rank2", "rank3"}) {
    const PrintedFigure* w = find_figure(oss, rank, LogFigure::kWeights);
    ASSERT_NE(w, nullptr) << rank;
    EXPECT_EQ(w->value, 18'491'659'570u) << rank;  // 17.2217 GiB: 172217 x 2^30 / 10^4
  }
}
TEST(VllmLog, ACommandContinuedOverLinesIsReadWhole) {
  // uv-xiao/pto-cu's 64K probe note quotes its `vllm serve \\` command over
  // ten lines: the model is on the second, the flags on the rest. Read
  // whole, the model is the checkpoint's path, not the backslash, and the
  // flags on lines that name no tensor parallelism (--max-model-len alone
  // would be, were it on its own line) are read too.
  const RuntimeLog log = read("vllm-ptocu-deepseek-v4-flash-tp2-h200nvl-64k-v0230.log");
  EXPECT_EQ(setting_of(log, "model"), "tmp/model-artifacts/deepseek-ai/DeepSeek-V4-Flash");
  EXPECT_EQ(setting_of(log, "tensor_parallel"), "2");
  EXPECT_EQ(setting_of(log, "max_model_len"), "65536");
  EXPECT_EQ(setting_of(log, "gpu_memory_utilization"), "0.78");
  EXPECT_EQ(setting_of(log, "quantization"), "deepseek_v4_fp8");
  EXPECT_EQ(setting_of(log, "enforce_eager"), "True");
  // "GPU KV cache size: 673,323 tokens"; "Model loading took 74.08 GiB":
  // 7408 x 2^30 / 100 = 79,542,794,321.92 -> 79,542,794,322.
  EXPECT_EQ(find_figure(log, "total", LogFigure::kKvTokens)->value, 673'323u);
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kWeights)->value, 79'542'794'322u);
}

TEST(VllmLog, TheUsageSummaryKeepsTheProfilesTerms) {
  // vllm#50722 (v0.26.0): "Actual usage is 16.92 GiB for weight, 5.66 GiB
  // for peak activation, 0.13 GiB for non-torch memory, and 1.34 GiB for
  // CUDAGraph memory." The weights are a figure; the other three are kept
  // as printed, in GiB, for the pricer's notes.
  const RuntimeLog log = read("vllm-50722-qwen35-35b-a3b-tp4-h100-v0260.log");
  EXPECT_EQ(setting_of(log, "peak_activation_gib"), "5.66");
  EXPECT_EQ(setting_of(log, "non_torch_gib"), "0.13");
  EXPECT_EQ(setting_of(log, "cuda_graph_gib"), "1.34");
  // club3090#1087 prints "15.03 GiB for consumed memory (weights +
  // non-torch), 1.59 GiB for peak activation, and 0.09 GiB for CUDAGraph
  // memory": no non-torch term of its own.
  const RuntimeLog fused = read("vllm-club3090-1087-qwen38-27b-fp8-tp2-rtx5090.log");
  EXPECT_EQ(setting_of(fused, "peak_activation_gib"), "1.59");
  EXPECT_EQ(setting_of(fused, "cuda_graph_gib"), "0.09");
  EXPECT_EQ(fused.setting("non_torch_gib"), nullptr);
}

TEST(VllmLog, FlashInfersSamplerLineIsKept) {
  // vLLM 0.27.1 (souspilot, TP 2): "[topk_topp_sampler.py:62] Using
  // FlashInfer for top-p & top-k sampling." The T4's 0.30.0 falls back
  // ("unsupported compute capability 7.5"): no setting.
  const RuntimeLog log = read("vllm-nevervllm8-souspilot-qwen36-27b-tp2-v0271.log");
  EXPECT_EQ(setting_of(log, "top_k_top_p_sampler"), "flashinfer");
  const RuntimeLog t4 = read("vllm-nevervllm9-llmlab-qwen25-15b-t4-v0300.log");
  EXPECT_EQ(t4.setting("top_k_top_p_sampler"), nullptr);
}

TEST(VllmLog, TheCompilationConfigAndCudaGraphLinesAreKept) {
  // vLLM 0.27.1 (souspilot, TP 2), its config line: "'compile_sizes': [],
  // 'compile_ranges_endpoints': [2048], ... 'cudagraph_mode':
  // <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, ... 'cudagraph_capture_sizes':
  // [1, 2, 4, 8, 16, 24, ..., 256, 272, ..., 496, 512]", and each worker's
  // "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35
  // (largest=256)".
  const RuntimeLog log = read("vllm-nevervllm8-souspilot-qwen36-27b-tp2-v0271.log");
  EXPECT_EQ(setting_of(log, "compile_range_end"), "2048");
  EXPECT_EQ(setting_of(log, "cudagraph_mode"), "FULL_AND_PIECEWISE");
  EXPECT_EQ(setting_of(log, "full_graph_largest"), "256");
  // 1, 2, 4, then 8 to 256 by 8 (32 sizes), 272 to 512 by 16 (16): 51.
  const std::string sizes = setting_of(log, "cudagraph_capture_sizes");
  EXPECT_TRUE(sizes.starts_with("1,2,4,8,16,24,")) << sizes;
  EXPECT_NE(sizes.find(",248,256,272,288,"), std::string::npos) << sizes;
  EXPECT_TRUE(sizes.ends_with(",496,512")) << sizes;
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), ',') + 1, 51);
}

TEST(VllmLog, TheGraphProfilingLineAloneGivesTheFullGraphsLargestSize) {
  // The souspilot log's lines, verbatim; no config line: only the FULL
  // graphs' largest size is kept, and a PIECEWISE-only line keeps none.
  const RuntimeLog log = read_runtime_log(
      "(Worker_TP0 pid=3132449) INFO 08-13 11:34:43 [gpu_model_runner.py:5405] Model loading took 25.69 "
      "GiB memory and 65.362530 seconds\n"
      "(Worker_TP0 pid=3132449) INFO 08-13 11:38:57 [gpu_model_runner.py:6681] Profiling CUDA graph "
      "memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)\n")
                             .value();
  EXPECT_EQ(setting_of(log, "full_graph_largest"), "256");
  EXPECT_EQ(log.setting("compile_range_end"), nullptr);
  EXPECT_EQ(log.setting("cudagraph_mode"), nullptr);
  const RuntimeLog piecewise = read_runtime_log(
      "(Worker_TP0 pid=3132449) INFO 08-13 11:34:43 [gpu_model_runner.py:5405] Model loading took 25.69 "
      "GiB memory and 65.362530 seconds\n"
      "(Worker_TP0 pid=3132449) INFO 08-13 11:38:57 [gpu_model_runner.py:6681] Profiling CUDA graph "
      "memory: PIECEWISE=51 (largest=512)\n")
                                   .value();
  EXPECT_EQ(piecewise.setting("full_graph_largest"), nullptr);
}

TEST(VllmLog, V0sWorkerSummaryKeepsTheProfilesTermsInEachOfItsForms) {
  // OCI AQUA's A10 (V0, v0.7.x): "model weights take 14.99GiB;
  // non_torch_memory takes 0.05GiB; PyTorch activation peak memory takes
  // 0.22GiB; the rest of the memory reserved for KV Cache is 4.60GiB."
  const RuntimeLog sentence = read("vllm-oci-aqua-llama31-8b-a10.log");
  EXPECT_EQ(setting_of(sentence, "non_torch_gib"), "0.05");
  EXPECT_EQ(setting_of(sentence, "peak_activation_gib"), "0.22");
  // vllm#10511's tabular summary: "non_torch_memory     1.79GiB",
  // "PyTorch activation peak memory       1.26GiB".
  const RuntimeLog table = read("vllm-10511-llama3-8b-tp1-80gb.log");
  EXPECT_EQ(setting_of(table, "non_torch_gib"), "1.79");
  EXPECT_EQ(setting_of(table, "peak_activation_gib"), "1.26");
  // vllm#10517 (about v0.6.4): "peak_torch_memory=17.06GiB ...
  // non_torch_memory=0.35GiB": the torch peak counts the weights, so only
  // the non-torch term is kept.
  const RuntimeLog results = read("vllm-10517-llama31-8b-rtx3090-20k.log");
  EXPECT_EQ(setting_of(results, "non_torch_gib"), "0.35");
  EXPECT_EQ(results.setting("peak_activation_gib"), nullptr);
  // A study note's abridged ledger (vLLM 0.6.6): "model weights take
  // 14.25GiB; non_torch_memory 0.10GiB;" without "takes".
  const RuntimeLog abridged = read("vllm-nv6-qwen25-7b-rtx3090-v066.log");
  EXPECT_EQ(setting_of(abridged, "non_torch_gib"), "0.10");
  EXPECT_EQ(setting_of(abridged, "peak_activation_gib"), "1.09");
}

TEST(VllmLog, LoraSettingsFromTheArgsTheNamespaceAndTheCommand) {
  // 0.22.1's "non-default args: {... 'enable_lora': True, 'max_num_seqs': 1}".
  EXPECT_EQ(setting_of(read("vllm-neverfiles-exact-qwen3-8b-tp2.log"), "enable_lora"), "True");
  // 0.8.2's Namespace prints every LoRA argument, off.
  const RuntimeLog v082 = read("vllm-hfcookbook-llama32-3b-t4-v082.log");
  EXPECT_EQ(setting_of(v082, "enable_lora"), "False");
  EXPECT_EQ(setting_of(v082, "max_loras"), "1");
  EXPECT_EQ(setting_of(v082, "max_lora_rank"), "16");
  EXPECT_EQ(setting_of(v082, "lora_dtype"), "auto");
  EXPECT_EQ(setting_of(v082, "fully_sharded_loras"), "False");
  // A command: the flags by vLLM's names (with one line vLLM prints, so
  // the text reads as its log).
  Result<RuntimeLog> cmd = read_runtime_log(
      "vllm serve Qwen/Qwen3-8B --enable-lora --max-loras 4 --max-lora-rank 64 "
      "--lora-dtype bfloat16 --fully-sharded-loras --tensor-parallel-size 2\n"
      "INFO 06-13 20:06:37 [model_runner.py:295] Model loading took 7.7 GiB and 42.37 seconds\n");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message();
  EXPECT_EQ(setting_of(*cmd, "enable_lora"), "True");
  EXPECT_EQ(setting_of(*cmd, "max_loras"), "4");
  EXPECT_EQ(setting_of(*cmd, "max_lora_rank"), "64");
  EXPECT_EQ(setting_of(*cmd, "lora_dtype"), "bfloat16");
  EXPECT_EQ(setting_of(*cmd, "fully_sharded_loras"), "True");
}

TEST(VllmLog, MambaCacheDtypesFromTheArgsAndTheCommand) {
  // The non-default args dict as vLLM prints it, and a command.
  Result<RuntimeLog> args = read_runtime_log(
      "INFO 06-13 20:06:30 [utils.py:233] non-default args: {'model': 'ibm-granite/granite-4.0-h-small', "
      "'mamba_cache_dtype': 'float32', 'mamba_ssm_cache_dtype': 'float16'}\n"
      "INFO 06-13 20:06:37 [model_runner.py:295] Model loading took 7.7 GiB and 42.37 seconds\n");
  ASSERT_TRUE(args.ok()) << args.error().message();
  EXPECT_EQ(setting_of(*args, "mamba_cache_dtype"), "float32");
  EXPECT_EQ(setting_of(*args, "mamba_ssm_cache_dtype"), "float16");
  Result<RuntimeLog> cmd = read_runtime_log(
      "vllm serve ibm-granite/granite-4.0-h-small --mamba-ssm-cache-dtype bfloat16 "
      "--mamba_cache_dtype float32\n"
      "INFO 06-13 20:06:37 [model_runner.py:295] Model loading took 7.7 GiB and 42.37 seconds\n");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message();
  EXPECT_EQ(setting_of(*cmd, "mamba_ssm_cache_dtype"), "bfloat16");
  EXPECT_EQ(setting_of(*cmd, "mamba_cache_dtype"), "float32");
}

TEST(VllmLog, V082PrintsLowercaseCudaBlocksAndANamespaceOfArgs) {
  // Hugging Face cookbook (vLLM 0.8.2, T4): "[executor_base.py:111] # cuda
  // blocks: 3637, # CPU blocks: 1170"; "[api_server.py:982] args:
  // Namespace(..., block_size=None, gpu_memory_utilization=0.8938626454842437,
  // max_num_batched_tokens=2048, ..., max_num_seqs=192, ...)": None is unset.
  const RuntimeLog log = read("vllm-hfcookbook-llama32-3b-t4-v082.log");
  EXPECT_EQ(log.version, "0.8.2");
  EXPECT_EQ(find_figure(log, "total", LogFigure::kKvBlocks)->value, 3637u);
  EXPECT_EQ(setting_of(log, "max_num_seqs"), "192");
  EXPECT_EQ(setting_of(log, "max_num_batched_tokens"), "2048");
  EXPECT_EQ(setting_of(log, "gpu_memory_utilization"), "0.8938626454842437");
  EXPECT_EQ(log.setting("block_size"), nullptr);
}

TEST(VllmLog, TheMxfp4KernelFromMarlinsWarningOrTheBackendLine) {
  // vllm-project/vllm#23278 (v0.10.1, H100): "[marlin_utils_fp4.py:196]
  // ... leveraging the Marlin kernel"; #33155 (v0.14.1): "[mxfp4.py:165]
  // Using Triton backend". A log with neither names none.
  const RuntimeLog marlin = read("vllm-23278-gpt-oss-120b-h100.log");
  EXPECT_EQ(marlin.version, "0.10.1");
  EXPECT_EQ(setting_of(marlin, "mxfp4_backend"), "marlin");
  EXPECT_EQ(setting_of(read("vllm-33155-gpt-oss-120b-h100-v0141.log"), "mxfp4_backend"), "triton");
  EXPECT_EQ(read("vllm-17122-llama31-8b-l40s-v1.log").setting("mxfp4_backend"), nullptr);
}

TEST(VllmLog, DeepSeeksFp8DsMlaLineSetsTheKvCacheFormat) {
  // tant2tls/Deepseek-serving's v0.31 dev log of DeepSeek-V4-Flash-0731
  // passes no --kv-cache-dtype (the engine line would say auto) and prints
  // "[attention.py:121] Using DeepSeek's fp8_ds_mla KV cache format.": the
  // cache is fp8. A log without the line keeps what its arguments say.
  EXPECT_EQ(setting_of(read("vllm-tant2tls-deepseek-v4-flash-0731-tp8-ep-h100-v0311.log"),
                       "kv_cache_dtype"),
            "fp8");
  EXPECT_EQ(read("vllm-17122-llama31-8b-l40s-v1.log").setting("kv_cache_dtype"), nullptr);
}

TEST(VllmLog, TabularProfileOfV065) {
  // vllm-project/vllm#10511: "total_gpu_memory     79.22GiB", ...
  const RuntimeLog log = read("vllm-10511-llama3-8b-tp1-80gb.log");
  EXPECT_EQ(log.devices[0].total_bytes, 85'061'827'297u);  // 79.22 GiB = 85,061,827,297.28
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kWeights)->value, 16'063'177'687u);  // 14.96 GiB
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kKvCacheAvailable)->value, 57'219'701'801u);  // 53.29
}

TEST(VllmLog, V1CapacityLines) {
  // vllm-project/vllm#17122: "GPU KV cache size: 158,656 tokens",
  // "Maximum concurrency for 32,768 tokens per request: 4.84x".
  const RuntimeLog log = read("vllm-17122-llama31-8b-l40s-v1.log");
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kWeights)->value, 16'094'208'826u);  // 14.9889 GiB
  const PrintedFigure* tokens = find_figure(log, "total", LogFigure::kKvTokens);
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->unit, LogUnit::kTokens);
  EXPECT_EQ(tokens->value, 158'656u);
  const PrintedFigure* concurrency = find_figure(log, "total", LogFigure::kConcurrency);
  ASSERT_NE(concurrency, nullptr);
  EXPECT_EQ(concurrency->unit, LogUnit::kRatio);
  EXPECT_DOUBLE_EQ(concurrency->ratio, 4.84);
  EXPECT_EQ(concurrency->decimals, 2u);
  EXPECT_EQ(setting_of(log, "max_model_len"), "32768");
}

TEST(VllmLog, TheValueErrorOfTooLittleKvMemoryGivesTheAvailableMemory) {
  // vllm-project/vllm#34076 (0.15.2rc1, PP 2): the excerpt is the one
  // ValueError of _check_enough_kv_cache_memory, "... which is larger than
  // the available KV cache memory (3.18 GiB)": the log is vLLM's, and
  // 318 x 2^30 / 100 = 341,449,900,032 / 100 = 3,414,499,000.32 -> 3,414,499,000 B is the available
  // KV memory; "(24.0 GiB KV cache is needed" is no figure.
  const RuntimeLog log = read("vllm-34076-qwen3-coder-30b-a3b-fp8-pp2-rtx5070ti-5090d.log");
  EXPECT_EQ(log.runtime, "vllm");
  const PrintedFigure* kv = find_figure(log, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value, 3'414'499'000u);
  EXPECT_EQ(std::count_if(log.figures.begin(), log.figures.end(),
                          [](const PrintedFigure& f) { return f.figure == LogFigure::kKvCacheAvailable; }),
            1);
}

TEST(VllmLog, EngineConfigLineGivesTheSettings) {
  const std::string text =
      "INFO 08-05 10:12:36 [api_server.py:1805] vLLM API server version 0.10.1.1\n"
      "INFO 08-05 10:12:36 [utils.py:326] non-default args: {'model': 'Qwen/Qwen3-8B', "
      "'max_model_len': 8192, 'gpu_memory_utilization': 0.95}\n"
      "INFO 08-05 10:12:47 [core.py:71] Initializing a V1 LLM engine (v0.10.1.1) with config: "
      "model='Qwen/Qwen3-8B', speculative_config=None, dtype=torch.bfloat16, max_seq_len=8192, "
      "tensor_parallel_size=2, pipeline_parallel_size=1, quantization=None, enforce_eager=False, "
      "kv_cache_dtype=auto, compilation_config={\"level\":3,\"splitting_ops\":[\"a\", \"b\"]}, "
      "use_cached_outputs=True\n";
  Result<RuntimeLog> log = read_runtime_log(text);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->version, "0.10.1.1");
  EXPECT_EQ(log->model.name, "Qwen/Qwen3-8B");
  EXPECT_EQ(setting_of(*log, "max_model_len"), "8192");
  EXPECT_EQ(setting_of(*log, "gpu_memory_utilization"), "0.95");
  EXPECT_EQ(setting_of(*log, "tensor_parallel"), "2");
  EXPECT_EQ(setting_of(*log, "dtype"), "torch.bfloat16");
  EXPECT_EQ(setting_of(*log, "kv_cache_dtype"), "auto");
  EXPECT_EQ(setting_of(*log, "enforce_eager"), "False");
  EXPECT_EQ(setting_of(*log, "quantization"), "None");
  EXPECT_EQ(setting_of(*log, "engine"), "<none>");  // a V1 log
}

TEST(VllmLog, TheEngineLinesDtypeIsTheServedOneWhereTheArgumentsSayAuto) {
  // Captain-Jay29/vllm's v0.8.3 log: "args: Namespace(..., dtype='auto',
  // ...)" comes first and keeps "dtype"; the engine's config line prints
  // what auto resolved to, "dtype=torch.bfloat16", kept as served_dtype
  // (the pricer serves a float32 config at that width).
  const RuntimeLog log = read("vllm-nevervllm8-captainjay-tinyllama-bnb-v083.log");
  EXPECT_EQ(setting_of(log, "dtype"), "auto");
  EXPECT_EQ(setting_of(log, "served_dtype"), "torch.bfloat16");
  EXPECT_EQ(setting_of(log, "quantization"), "bitsandbytes");
}

TEST(VllmLog, ALineOfThePlatformsRocmModuleMarksTheLogRocm) {
  // amdgoose/arno_vllm_chat's v0.17 log prints no "Automatically detected
  // platform" line, but "[rocm.py:463] Using Triton Attention backend.",
  // which only vllm/platforms/rocm.py logs; a CUDA log has no such line.
  EXPECT_EQ(read("vllm-neverfiles-arno-qwen25-7b.log").backend, "ROCm");
  EXPECT_EQ(read("vllm-neverfiles-typhoon-ocr-7b.log").backend, "");
}

TEST(VllmLog, TheLogosVersionIsTheRelease) {
  // vllm-tant2tls's excerpt names its release only beside the API server's
  // logo (no "LLM engine (v...)" line).
  const RuntimeLog log = read("vllm-tant2tls-deepseek-v4-flash-0731-tp8-ep-h100-v0311.log");
  EXPECT_EQ(log.version, "0.31.1rc1.dev50+g554340f3d");
}

// V0's own lines mark the log as V0's (its defaults differ: vllm_pricer.cc);
// a command line's --quantization is read as the engine line's.
TEST(VllmLog, V0LinesAndTheQuantizationFlag) {
  const RuntimeLog v0 = read("vllm-10517-llama31-8b-rtx3090-29k.log");  // "# GPU blocks: 1478, # CPU blocks: 2048"
  EXPECT_EQ(setting_of(v0, "engine"), "V0");
  Result<RuntimeLog> command = read_runtime_log(
      "INFO 08-17 22:48:22 [gpu_model_runner.py:2005] Model loading took 11.0802 GiB and 3.1 seconds\n"
      "vllm serve /m --tensor-parallel-size 2 --quantization gptq_marlin --max-model-len 1024\n");
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(setting_of(*command, "quantization"), "gptq_marlin");
  EXPECT_EQ(setting_of(*command, "tensor_parallel"), "2");
  EXPECT_EQ(setting_of(*command, "engine"), "<none>");
}

TEST(VllmLog, EveryRankAnnouncingItsPlaceGivesTheTensorAndPipelineSizes) {
  // parallel_state.py's line from each of a world of 4 (TP 2 x PP 2):
  // the highest TP rank is 1 and the highest PP rank 1, so TP 2 and PP 2,
  // though two processes print a figure (the floor would say TP 2 x PP 1).
  const std::string layout =
      "(VllmWorker rank=0 pid=10) INFO 04-01 11:24:00 [parallel_state.py:1134] rank 0 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 0, EP rank 0\n"
      "(VllmWorker rank=1 pid=11) INFO 04-01 11:24:00 [parallel_state.py:1134] rank 1 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 1, EP rank 1\n"
      "(VllmWorker rank=2 pid=12) INFO 04-01 11:24:00 [parallel_state.py:1134] rank 2 in world size 4 is assigned as DP rank 0, PP rank 1, TP rank 0, EP rank 0\n"
      "(VllmWorker rank=3 pid=13) INFO 04-01 11:24:00 [parallel_state.py:1134] rank 3 in world size 4 is assigned as DP rank 0, PP rank 1, TP rank 1, EP rank 1\n";
  const std::string weights =
      "(VllmWorker rank=0 pid=10) INFO 04-01 11:24:08 [gpu_model_runner.py:4566] Model loading took 13.2 GiB memory and 82.6 seconds\n"
      "(VllmWorker rank=2 pid=12) INFO 04-01 11:24:08 [gpu_model_runner.py:4566] Model loading took 13.2 GiB memory and 82.6 seconds\n";
  Result<RuntimeLog> whole = read_runtime_log(layout + weights);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(setting_of(*whole, "tensor_parallel"), "2");
  EXPECT_EQ(setting_of(*whole, "pipeline_parallel"), "2");
  // An excerpt holding 2 of the 4 announcements names no size (a TP rank of
  // 1 says only that TP is 2 or more): the rank-count floor stays.
  Result<RuntimeLog> part = read_runtime_log(layout.substr(0, layout.find("(VllmWorker rank=2")) + weights);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(setting_of(*part, "tensor_parallel"), "<none>");
  EXPECT_EQ(setting_of(*part, "pipeline_parallel"), "<none>");
}

TEST(VllmLog, AnExcerptThatPrintsNoSizeKeepsTheRankFloor) {
  // MiniMax-AI/MiniMax-M2.5#30: two Ray workers' "Model loading took 13.2
  // GiB" of a TP 4 x PP 4 job (its script, not its log, says so): no
  // size, no layout, no placement warning, so no tensor_parallel setting;
  // the two processes seen are the floor the pricer takes, with its note.
  const RuntimeLog log = read("vllm-minimax30-minimax-m25-fp8-tp4-pp4-h100.log");
  EXPECT_EQ(setting_of(log, "tensor_parallel"), "<none>");
  EXPECT_EQ(setting_of(log, "pipeline_parallel"), "<none>");
  EXPECT_EQ(setting_of(log, "ranks_seen"), "2");
}

TEST(VllmLog, TheKvTokensFormIsReadFromTheRecordsThatPrintedIt) {
  // vllm#41069 logs "GPU KV cache size" as int(concurrency x max_model_len)
  // from the statement just before the concurrency's: a v0.20.2 run's
  // records name kv_cache_utils.py:1708 and 1709, consecutive lines.
  EXPECT_EQ(setting_of(read("vllm-nevervllm6-michal-gemma4-26b-a4b-h200-v0202.log"), "kv_tokens_form"),
            "concurrency_x_len");
  // Before it, blocks // groups x block size, the concurrency computed in
  // the statements between: v0.10.0's records name lines 833 and 837.
  EXPECT_EQ(setting_of(read("vllm-nevervllm6-daisuke-qwen3-32b-yarn-tp4-v0100.log"), "kv_tokens_form"),
            "blocks_per_group");
  // From v0.31 one record holds both (ReidHarris/sql-agent-rl's vllm.log).
  Result<RuntimeLog> one = read_runtime_log(
      "(EngineCore pid=4275) INFO 10-09 06:00:19 [kv_cache_utils.py:2464] GPU KV cache size: 1,207,072 "
      "tokens, Maximum concurrency for 16,384 tokens per request: 73.67x\n");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(setting_of(*one, "kv_tokens_form"), "concurrency_x_len");
  // A tokens record with no concurrency record after it says nothing.
  Result<RuntimeLog> alone = read_runtime_log(
      "INFO 08-07 11:12:30 [kv_cache_utils.py:833] GPU KV cache size: 855,344 tokens\n");
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->setting("kv_tokens_form"), nullptr);
}

}  // namespace
}  // namespace memfit
