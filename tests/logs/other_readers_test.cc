// SGLang's, mlx-lm's and Ollama's logs read back, from real logs under
// tests/data/logs/: each runtime's "GB" as it means it (SGLang 2^30,
// mlx-lm 10^9), Ollama's own records beside llama.cpp's lines.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "logs/log_test_data.h"
#include "memfit/runtime_log.h"

namespace memfit {
namespace {

using testing::find_figure;
using testing::read_test_log;
using testing::setting_of;

RuntimeLog read(const std::string& engine, const std::string& file) {
  Result<RuntimeLog> log = read_runtime_log(read_test_log(engine, file));
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : RuntimeLog{};
}

TEST(SglangLog, WeightsPoolAndTokensPerRank) {
  // sgl-project/sglang#4826: Gemma 3 on an H200.
  const RuntimeLog log = read("sglang", "sglang-4826-gemma3-h200.log");
  EXPECT_EQ(log.runtime, "sglang");
  // "mem usage=8.13 GB" = 813 x 2^30 / 100 = 8,729,521,029.12.
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kWeights)->value, 8'729'521'029u);
  // "#tokens: 834615, K size: 54.12 GB, V size: 54.12 GB": 2 x
  // 58,110,907,514.88 -> 58,110,907,515 each, summed.
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kTokenPool)->value, 834'615u);
  const PrintedFigure* kv = find_figure(log, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value, 2 * 58'110'907'515ull);
  EXPECT_EQ(kv->text, "54.12 GB + 54.12 GB");
}

TEST(SglangLog, TensorParallelRanksFromTheirTags) {
  // sgl-project/sglang#15909: "[2025-12-28 10:40:09 TP2] ...".
  const RuntimeLog log = read("sglang", "sglang-15909-qwen3-omni-30b-a3b-tp4.log");
  EXPECT_EQ(find_figure(log, "rank2", LogFigure::kTokenPool)->value, 2'090'351u);
  EXPECT_EQ(find_figure(log, "rank1", LogFigure::kTokenPool)->value, 2'090'351u);
}

TEST(SglangLog, TheTpGroupFromTheHighestRankATagNames) {
  // sgl-project/sglang#27537's excerpt: rank 0 prints the pool, rank 1
  // only "Capture cuda graph begin" (no figure, no device): the tags name
  // TP 0 and TP 1, a group of 2.
  const RuntimeLog log = read("sglang", "sglang-27537-qwen3-30b-a3b-fp8-tp2-musa.log");
  EXPECT_EQ(setting_of(log, "tp_ranks_seen"), "2");
  EXPECT_TRUE(std::none_of(log.figures.begin(), log.figures.end(),
                           [](const PrintedFigure& f) { return f.device == "rank1"; }));
  // DP attention's tags run the TP ranks on ("DP1 TP3"): 3 + 1 = 4; a
  // TP3 in a line's text past its tag is not a tag.
  const RuntimeLog dp = read_runtime_log(
      "[2026-01-01 10:00:00 DP1 TP3 EP3] Memory pool end. avail mem=1.00 GB\n"
      "[2026-01-01 10:00:00 DP0 TP1 EP1] KV Cache is allocated. #tokens: 10, K size: 0.01 GB, V size: 0.01 GB "
      "TP7]\n")
                           .value();
  EXPECT_EQ(setting_of(dp, "tp_ranks_seen"), "4");
  // No tag with a TP rank: no setting.
  const RuntimeLog untagged = read_runtime_log(
      "[2026-01-01 10:00:00] KV Cache is allocated. #tokens: 10, K size: 0.01 GB, V size: 0.01 GB\n")
                                 .value();
  EXPECT_EQ(untagged.setting("tp_ranks_seen"), nullptr);
}

TEST(SglangLog, DataParallelAttentionFromTagsWhoseTpRanksRunOnAcrossDpRanks) {
  // sgl-project/sglang#17392: "[2026-05-07 13:39:14 DP1 TP1 EP1]" on four
  // ranks, no server_args: DP d on TP d is one TP group of 4 split into 4
  // attention DP ranks (attn_dp_rank = tp_rank // attn_tp_size, attn_tp_size 1).
  const RuntimeLog log = read("sglang", "sglang-17392-qwen3-30b-a3b-dp4-attn-tp4.log");
  EXPECT_EQ(setting_of(log, "enable_dp_attention"), "True");
  EXPECT_EQ(setting_of(log, "dp_size"), "4");
  // "mem usage=16.39 GB": 1639 x 2^30 / 100 = 17,598,628,495.36.
  EXPECT_EQ(find_figure(log, "rank3", LogFigure::kWeights)->value, 17'598'628'495u);
  // DP replicas each number their own TP group from 0 ("DP1 TP0"): no
  // attention split fits, nothing is inferred.
  const RuntimeLog replicas = read_runtime_log(
      "[2026-01-01 10:00:00 DP0 TP0] Load weight end. type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n"
      "[2026-01-01 10:00:00 DP0 TP1] Load weight end. type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n"
      "[2026-01-01 10:00:00 DP1 TP0] Load weight end. type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n")
                                   .value();
  EXPECT_EQ(replicas.setting("enable_dp_attention"), nullptr);
  // Two attention DP ranks of TP 2 each: DP 1 on TP 2 and 3.
  const RuntimeLog halves = read_runtime_log(
      "[2026-01-01 10:00:00 DP0 TP1] Load weight end. type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n"
      "[2026-01-01 10:00:00 DP1 TP2] Load weight end. type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n"
      "[2026-01-01 10:00:00 DP1 TP3] Load weight end. type=X, avail mem=60.00 GB, mem usage=15.00 GB.\n")
                                .value();
  EXPECT_EQ(setting_of(halves, "enable_dp_attention"), "True");
  EXPECT_EQ(setting_of(halves, "dp_size"), "2");  // 3 // 2 + 1
}

TEST(SglangLog, TheMxfp4KernelFromServerArgsWarningOrItsSetting) {
  // server_args.py's GPT-OSS adjustments log the kernel they pick.
  const RuntimeLog flashinfer = read_runtime_log(
      "[2025-10-12 21:13:00] Detected SM100 and MXFP4 quantization format for GPT-OSS model, "
      "enabling FlashInfer MXFP4 MOE kernel.\n"
      "[2025-10-12 21:14:09] Load weight end. type=GptOssForCausalLM, dtype=torch.bfloat16, "
      "avail mem=163.13 GB, mem usage=14.53 GB.\n")
                                    .value();
  EXPECT_EQ(setting_of(flashinfer, "mxfp4_backend"), "flashinfer");
  const RuntimeLog triton = read_runtime_log(
      "[2025-10-12 21:13:00] server_args=ServerArgs(model_path='openai/gpt-oss-20b', "
      "moe_runner_backend='triton_kernel', tp_size=1)\n")
                                .value();
  EXPECT_EQ(setting_of(triton, "mxfp4_backend"), "triton");
}

TEST(SglangLog, ZeroFourLinesGiveThePoolAndTheFreeMemoryBeforeTheWeights) {
  // SGLang's docs, 2025-01-23 (0.4.x): the load line has no "mem usage",
  // the KV line no "#tokens"; max_total_num_tokens is the pool.
  const RuntimeLog log = read("sglang", "sglang-docs-llama31-8b-h100.log");
  for (const PrintedFigure& f : log.figures) EXPECT_NE(f.figure, LogFigure::kWeights);
  // "Load weight begin. avail mem=78.81 GB": 7881 x 2^30 / 100 =
  // 84,621,593,149.44.
  EXPECT_EQ(setting_of(log, "free_before_load"), "84621593149");
  // "max_total_num_tokens=444500, ..." on TP0.
  const PrintedFigure* pool = find_figure(log, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->value, 444'500u);
  // "K size: 27.13 GB, V size: 27.13 GB.": 2713 x 2^30 / 100 =
  // 29,130,615,685.12 -> 29,130,615,685 each, summed.
  const PrintedFigure* kv = find_figure(log, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value, 2 * 29'130'615'685ull);
  EXPECT_EQ(kv->text, "27.13 GB + 27.13 GB");
}

TEST(SglangLog, RankZerosMemoryPoolEndIsTheFreeMemoryAfterThePools) {
  // sgl-project/sglang#22537 (4 x B200): TP1's "Memory pool end. avail
  // mem=25.37 GB" comes first, TP0's "25.40 GB" third; rank 0's is kept:
  // 2,540 x 2^30 / 100 = 27,273,042,329.6 -> 27,273,042,330.
  const RuntimeLog log = read("sglang", "sglang-22537-qwen3-32b-tp4-b200.log");
  EXPECT_EQ(setting_of(log, "free_after_pools"), "27273042330");
  // One GPU, no tag: sglang#11830's "avail mem=40.03 GB" = 4,003 x 2^30 /
  // 100 = 42,981,885,214.72 -> 42,981,885,215.
  EXPECT_EQ(setting_of(read("sglang", "sglang-11830-qwen2-7b-geometry-b200.log"), "free_after_pools"),
            "42981885215");
}

TEST(SglangLog, ThePdRoleAndTheHierarchicalCacheFromArgsCommandOrWarnings) {
  // server_args' disaggregation_mode and enable_hierarchical_cache, the
  // launch command's flags, or _handle_pd_disaggregation's warnings.
  const std::string load = "[2026-01-01 00:00:01] Load weight end. type=Qwen3ForCausalLM, avail mem=10.00 GB, "
                           "mem usage=1.00 GB.\n";
  Result<RuntimeLog> args = read_runtime_log(
      "[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, disaggregation_mode='prefill', "
      "enable_hierarchical_cache=True)\n" + load);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(setting_of(*args, "disaggregation_mode"), "prefill");
  EXPECT_EQ(setting_of(*args, "enable_hierarchical_cache"), "True");
  Result<RuntimeLog> command = read_runtime_log(
      "$ python -m sglang.launch_server --model-path Qwen/Qwen3-4B --disaggregation-mode decode "
      "--enable-hierarchical-cache\n" + load);
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(setting_of(*command, "disaggregation_mode"), "decode");
  EXPECT_EQ(setting_of(*command, "enable_hierarchical_cache"), "True");
  Result<RuntimeLog> warned = read_runtime_log(
      "[2026-01-01 00:00:00] KV cache is forced as chunk cache for decode server\n" + load);
  ASSERT_TRUE(warned.ok());
  EXPECT_EQ(setting_of(*warned, "disaggregation_mode"), "decode");
  // sgl-project/sglang#21395's host pool line: the hierarchical cache; its
  // pool line ("max_total_num_tokens=105600, chunked_prefill_size=4096,
  // ...") the chunked prefill the scheduler settled on.
  const RuntimeLog pd = read("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.log");
  EXPECT_EQ(setting_of(pd, "enable_hierarchical_cache"), "True");
  EXPECT_EQ(setting_of(pd, "chunked_prefill_printed"), "4096");
}

TEST(SglangLog, TheAttentionBackendSglangChoseWhenNoneWasGiven) {
  // server_args.py: "Attention backend not specified. Use aiter backend by
  // default." (an MI355X run of SGLang 0.5.17).
  EXPECT_EQ(setting_of(read("sglang", "sglang-nevervllm7-mi355x-qwen3-06b-mf06-v0517.log"), "attention_backend"),
            "aiter");
  // A backend server_args names stays; server_args' None gives way.
  const std::string chose = "[2026-01-01 00:00:00] Attention backend not specified. Use aiter backend by default.\n";
  const std::string load = "[2026-01-01 00:00:01] Load weight end. type=Qwen3ForCausalLM, avail mem=10.00 GB, "
                           "mem usage=1.00 GB.\n";
  for (const auto& [args, want] : {std::pair<std::string, std::string>{"attention_backend='triton'", "triton"},
                                   {"attention_backend=None", "aiter"}}) {
    const std::string text = "[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, " + args + ")\n" + chose + load;
    Result<RuntimeLog> log = read_runtime_log(text);
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(setting_of(*log, "attention_backend"), want) << args;
  }
  // A name that is no backend's word is not taken.
  Result<RuntimeLog> odd = read_runtime_log(
      "[2026-01-01 00:00:00] Attention backend not specified. Use a$b backend by default.\n" + load);
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->setting("attention_backend"), nullptr);
}

TEST(SglangLog, AnAmdRunIsRocmNotCuda) {
  // SGLang's ROCm builds print the aiter backend, "(ROCm)" and AMD Instinct
  // devices; a log that shows none of them is CUDA's.
  // sglang-nevervllm7 (MI355X, 0.5.17): "Use aiter backend by default.".
  EXPECT_EQ(read("sglang", "sglang-nevervllm7-mi355x-qwen3-06b-mf06-v0517.log").backend, "ROCm");
  // sglang-neversgmlx-kimi-k25 (MI355X): "Using CompressedTensorsWNA16TritonMoE (ROCm)".
  EXPECT_EQ(read("sglang", "sglang-neversgmlx-kimi-k25-mi355x-tp8.log").backend, "ROCm");
  // An H100 run whose server_args name aiter's flags off
  // (enable_aiter_allreduce_fusion=False) is CUDA's.
  EXPECT_EQ(read("sglang", "sglang-neversgl-sglangplay-qwen25-05b-h100nvl-shared-v0510post1.log").backend, "CUDA");
  const std::string load = "[2026-01-01 00:00:01] Load weight end. type=Qwen3ForCausalLM, avail mem=10.00 GB, "
                           "mem usage=1.00 GB.\n";
  for (const std::string& line :
       {std::string("[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, attention_backend='aiter')\n"),
        std::string("[2026-01-01 00:00:00] HIP_VISIBLE_DEVICES=0,1\n"),
        std::string("[2026-01-01 00:00:00] Init torch distributed begin. is_hip: True on HIP\n"),
        std::string("[2026-01-01 00:00:00] device: AMD Instinct MI300X\n"),
        std::string("[2026-01-01 00:00:00] GPU: MI325X\n")}) {
    Result<RuntimeLog> log = read_runtime_log(line + load);
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log->backend, "ROCm") << line;
  }
  // Words that only contain the markers stay CUDA's.
  for (const std::string& line :
       {std::string("[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, enable_aiter_allreduce_fusion=False, "
                    "attention_backend='fa3')\n"),
        std::string("[2026-01-01 00:00:00] a WHIP and a waiter, SHIP it\n")}) {
    Result<RuntimeLog> log = read_runtime_log(line + load);
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log->backend, "CUDA") << line;
  }
}

TEST(SglangLog, AMooreThreadsRunIsMusaNotCuda) {
  // SGLang's MUSA port (sgl-project/sglang's "[MUSA]" PRs) on Moore Threads
  // GPUs: server_args' device='musa', the MUSA runtime's names, MCCL, an
  // MTT GPU. A log that shows none of them stays CUDA's (the corpus's two
  // MUSA excerpts print no such line: their sidecars say MUSA).
  const std::string load = "[2026-01-01 00:00:01] Load weight end. type=Qwen3ForCausalLM, avail mem=10.00 GB, "
                           "mem usage=1.00 GB.\n";
  for (const std::string& line :
       {std::string("[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, device='musa')\n"),
        std::string("[2026-01-01 00:00:00] UserWarning: MUSA does not support fused_marlin_moe currently.\n"),
        std::string("[2026-01-01 00:00:00 TP0] sglang is using mccl==2.11.4\n"),
        std::string("[2026-01-01 00:00:00] MUSA_VISIBLE_DEVICES=0,1\n"),
        std::string("[2026-01-01 00:00:00] Using default MoE kernel config device_name=MTT_S5000.json\n"),
        std::string("[2026-01-01 00:00:00] tensor on musa:0\n")}) {
    Result<RuntimeLog> log = read_runtime_log(line + load);
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log->backend, "MUSA") << line;
  }
  for (const std::string& line :
       {std::string("[2026-01-01 00:00:00] server_args=ServerArgs(tp_size=1, device='cuda', musa_graph=False)\n"),
        std::string("[2026-01-01 00:00:00] Musashi and a MUSAKA\n")}) {
    Result<RuntimeLog> log = read_runtime_log(line + load);
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log->backend, "CUDA") << line;
  }
  EXPECT_EQ(read("sglang", "sglang-17246-qwen3-06b-musa.log").backend, "CUDA");
}

TEST(SglangLog, ThePiecewiseCaptureAddsToTheCudaGraphFigure) {
  // sglang-neversgl-skilldoc: "Capture cuda graph end. ... mem usage=0.60
  // GB." then "Capture piecewise CUDA graph end. ... mem usage=2.32 GB.":
  // one cuda_graph figure, 0.60 x 2^30 = 644,245,094.4 -> 644,245,094 +
  // 2.32 x 2^30 = 2,491,081,031.68 -> 2,491,081,032 = 3,135,326,126 B.
  const RuntimeLog log = read("sglang", "sglang-neversgl-skilldoc-qwen3-8b-blackwell-trtllm.log");
  const PrintedFigure* graphs = find_figure(log, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->value, 3'135'326'126u);
  EXPECT_EQ(graphs->text, "0.60 GB + 2.32 GB");
  EXPECT_EQ(setting_of(log, "cuda_graph_parts"), "decode+piecewise");
  // Its "Capture cuda graph bs [1, 2, 4, ...]" is cut where it was copied:
  // no largest batch.
  EXPECT_EQ(setting_of(log, "cuda_graph_bs_captured"), "<none>");
  // The piecewise capture alone, printed twice on a rank (a second engine
  // start): once.
  const std::string piecewise = "[2026-01-01 00:00:02] Capture piecewise CUDA graph end. Time elapsed: 1.00 s. "
                                "mem usage=1.00 GB. avail mem=5.00 GB.\n";
  Result<RuntimeLog> alone = read_runtime_log(
      "[2026-01-01 00:00:01] Load weight end. type=Qwen3ForCausalLM, avail mem=10.00 GB, mem usage=1.00 GB.\n" +
      piecewise + piecewise);
  ASSERT_TRUE(alone.ok());
  ASSERT_NE(find_figure(*alone, "rank0", LogFigure::kCudaGraph), nullptr);
  EXPECT_EQ(find_figure(*alone, "rank0", LogFigure::kCudaGraph)->value, 1ull << 30);
  EXPECT_EQ(setting_of(*alone, "cuda_graph_parts"), "piecewise");
}

TEST(SglangLog, TotalTokensLineLeavesThePrintedPoolAlone) {
  // A QwQ-32B TP 4 start (2025-03-08): "#tokens: 46611" on every rank's KV
  // line, then max_total_num_tokens=46611 again; the pool is read once a
  // rank, and only rank 0's "Load weight begin" is kept (21.63 GB = 2163 x
  // 2^30 / 100 = 23,225,035,653.12).
  const RuntimeLog log = read("sglang", "sglang-aws-qwq-32b-tp4-l4.log");
  // The KV lines are the log's lines 54 to 57 (TP0 to TP3); the
  // max_total_num_tokens lines 71 to 74.
  uint64_t kv_line = 54;
  for (const char* rank : {"rank0", "rank1", "rank2", "rank3"}) {
    const PrintedFigure* pool = find_figure(log, rank, LogFigure::kTokenPool);
    ASSERT_NE(pool, nullptr) << rank;
    EXPECT_EQ(pool->value, 46'611u);
    EXPECT_EQ(pool->line, kv_line++);
  }
  EXPECT_EQ(setting_of(log, "free_before_load"), "23225035653");
  EXPECT_EQ(setting_of(log, "tensor_parallel"), "4");
  EXPECT_EQ(setting_of(log, "mem_fraction_static"), "0.85");
}

TEST(SglangLog, DeepGemmsExampleCommandIsNotTheLaunchLine) {
  // devopsrustem/slurmv4 3/12.sh at 9130f560: a DeepSeek-R1 decode node
  // (TP 16 over two nodes) whose rank 0 logs, while its CUDA graphs are
  // captured, DeepGEMM's JIT warning with an example command
  // ("... with same args as `sglang.launch_server` ... For example:
  // `python3 -m sglang.compile_deep_gemm --model deepseek-ai/DeepSeek-V3
  // --tp 8 --trust-remote-code`"): neither its model nor its --tp is the
  // run's. The log prints no launch line, so neither setting is read.
  const RuntimeLog log = read("sglang", "sglang-neverlogs11-slurmv4-r1-tp16-decode-h100.log");
  EXPECT_EQ(setting_of(log, "tensor_parallel"), "<none>");
  EXPECT_EQ(setting_of(log, "model"), "<none>");
  EXPECT_EQ(setting_of(log, "max_total_num_tokens"), "326265");
  // The launch line given beside it (read as the log's last line) gives
  // them: --tp-size 16.
  const RuntimeLog given = read_runtime_log(
      "[2026-02-27 14:33:51 TP0] Entering DeepGEMM JIT Pre-Compile session. It may take a long time "
      "(typically 10-20 mins) if you have not run `sglang.compile_deep_gemm`. It is recommended to run "
      "`sglang.compile_deep_gemm` with same args as `sglang.launch_server` for pre-compilation to reduce "
      "the overhead if you have not run it before. For example: `python3 -m sglang.compile_deep_gemm "
      "--model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code`\n"
      "[2026-02-27 14:34:02 TP0] max_total_num_tokens=326265, chunked_prefill_size=8192, "
      "max_prefill_tokens=16384, max_running_requests=128, context_len=163840, available_gpu_mem=14.40 GB\n"
      "python3 -m sglang.launch_server --model-path /app/models/Deepseek-R1/ --tp-size 16 --nnodes 2 "
      "--mem-fraction-static 0.8\n")
      .value();
  EXPECT_EQ(setting_of(given, "tensor_parallel"), "16");
  EXPECT_EQ(setting_of(given, "model"), "/app/models/Deepseek-R1/");
}

TEST(SglangLog, MaxTotalTokensFromServerArgsOrTheCommand) {
  // SGLang's docs CI (2026-02-04): server_args prints max_total_tokens=20480
  // (the CI's cap), which the pool then is: "#tokens: 20480".
  const RuntimeLog log = read("sglang", "sglang-neversgmlx-docs-qwen25-05b-maxtokens.log");
  EXPECT_EQ(setting_of(log, "max_total_tokens"), "20480");
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kTokenPool)->value, 20'480u);
  // server_args' None is read as printed (the pricer leaves a None out).
  const RuntimeLog none = read("sglang", "sglang-neversgmlx-qwen25-3b-80gb.log");
  EXPECT_EQ(setting_of(none, "max_total_tokens"), "None");
  // The launch command's flag.
  const RuntimeLog flag = read_runtime_log(
      "python -m sglang.launch_server --model-path m --max-total-tokens 4096\n"
      "[2026-01-01 10:00:00] KV Cache is allocated. #tokens: 4096, K size: 0.01 GB, V size: 0.01 GB\n")
      .value();
  EXPECT_EQ(setting_of(flag, "max_total_tokens"), "4096");
}

TEST(SglangLog, HybridModelStatePoolPerRank) {
  // kvcache-ai/ktransformers#1870 (Qwen3.5 MoE, TP 2): "Mamba Cache is
  // allocated. max_mamba_cache_size: 82, conv_state size: 0.13GB,
  // ssm_state size: 7.29GB" on each rank.
  const RuntimeLog log = read("sglang", "sglang-kt1870-qwen35-moe-kt-tp2-rtx4090.log");
  EXPECT_EQ(setting_of(log, "mamba_cache_slots"), "82");
  // 13 x 2^30 / 100 = 139,586,437.12 and 729 x 2^30 / 100 =
  // 7,827,577,896.96: 139,586,437 + 7,827,577,897.
  for (const char* rank : {"rank0", "rank1"}) {
    const PrintedFigure* state = find_figure(log, rank, LogFigure::kRecurrent);
    ASSERT_NE(state, nullptr) << rank;
    EXPECT_EQ(state->value, 7'967'164'334u);
    EXPECT_EQ(state->text, "0.13GB + 7.29GB");
  }
  // The KV pool beside it is read as before.
  EXPECT_EQ(find_figure(log, "rank0", LogFigure::kTokenPool)->value, 580'364u);
}

TEST(MlxLmLog, GenerateSummaryAndCommandLine) {
  // ml-explore/mlx-examples#1029: "Peak memory: 13.523 GB" is 10^9 bytes.
  const RuntimeLog log = read("mlx-lm", "mlxlm-examples1029-llama31-8b-4bit-32k-m4pro.log");
  EXPECT_EQ(log.runtime, "mlx-lm");
  EXPECT_EQ(setting_of(log, "model"), "mlx-community/Meta-Llama-3.1-8B-Instruct-4bit");
  EXPECT_EQ(setting_of(log, "max_kv_size"), "33000");
  EXPECT_EQ(setting_of(log, "prompt_tokens"), "32159");
  EXPECT_EQ(setting_of(log, "generation_tokens"), "1000");
  EXPECT_EQ(setting_of(log, "entry"), "mlx_lm.generate");  // the command that ran
  const PrintedFigure* peak = find_figure(log, "total", LogFigure::kPeak);
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->value, 13'523'000'000u);
  EXPECT_EQ(peak->band, 500'000u);  // 10^9 / 2,000
}

TEST(MlxLmLog, BenchmarkAveragesFirstTrial) {
  // ml-explore/mlx-lm#396: mlx_lm.benchmark, five trials; the first is read.
  const RuntimeLog log = read("mlx-lm", "mlxlm-396-benchmark-default-llama32-3b-4bit.log");
  EXPECT_EQ(setting_of(log, "prompt_tokens"), "2048");
  EXPECT_EQ(setting_of(log, "generation_tokens"), "128");
  EXPECT_EQ(find_figure(log, "total", LogFigure::kPeak)->value, 3'285'000'000u);  // 3.285 GB
  EXPECT_EQ(setting_of(log, "entry"), "<none>");  // the log holds no command line
}

TEST(MlxLmLog, BenchmarksTableRowUnderItsCommand) {
  // mlx-lm's mlx_lm/BENCHMARKS.md: the file's mlx_lm.benchmark command
  // (-p 2048 -g 128, "--model model/repo"), the table's q4 row ("|18.20 |"
  // without a space: 18.20 GB = 18,200,000,000 B, band 10^9 / 200) and its
  // Repo column, and the bullet "- mlx-lm 0.28.2".
  const RuntimeLog log = read("mlx-lm", "mlxlm-benchmarks-qwen3-30b-a3b-2507-4bit-m4max.log");
  EXPECT_EQ(log.runtime, "mlx-lm");
  EXPECT_EQ(log.version, "0.28.2");
  EXPECT_EQ(setting_of(log, "entry"), "mlx_lm.benchmark");
  EXPECT_EQ(setting_of(log, "model"), "mlx-community/Qwen3-30B-A3B-Instruct-2507-4bit");
  EXPECT_EQ(setting_of(log, "prompt_tokens"), "2048");
  EXPECT_EQ(setting_of(log, "generation_tokens"), "128");
  const PrintedFigure* peak = find_figure(log, "total", LogFigure::kPeak);
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->value, 18'200'000'000u);
  EXPECT_EQ(peak->band, 5'000'000u);
}

TEST(MlxLmLog, BenchmarksTableSkipsARowWithoutANumberAndProseBullets) {
  // A precision that did not fit (":skull:") has no peak: the next row's
  // is read. A bullet "- mlx-lm" followed by prose is no version.
  const Result<RuntimeLog> log = read_runtime_log(
      "mlx_lm.benchmark --model model/repo -p 2048 -g 128\n"
      "Precision | MMLU Pro | Memory GB | Repo\n"
      "--------- | -------- | --------- | ----\n"
      "bf16 | 72.62 | :skull: | Qwen/Qwen3-30B-A3B-Instruct-2507\n"
      "q8 | 72.46 | 33.46 | mlx-community/Qwen3-30B-A3B-Instruct-2507-8bit\n"
      "\n"
      "- mlx-lm is fast\n");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->version, "");
  EXPECT_EQ(setting_of(*log, "model"), "mlx-community/Qwen3-30B-A3B-Instruct-2507-8bit");
  EXPECT_EQ(find_figure(*log, "total", LogFigure::kPeak)->value, 33'460'000'000u);
}

TEST(MlxLmLog, AGenerateLinesShortFlagsAreItsOwn) {
  // golem's README (mlxlm-neversgl-golem-...): mlx_lm.generate's -p is the
  // prompt's text and -m its --max-tokens (mlx_lm/generate.py); only
  // mlx_lm.benchmark's -p is a token count. The counts come from the
  // summary: 18 prompt tokens, 512 generated, the cap -m 512.
  const RuntimeLog log = read("mlx-lm", "mlxlm-neversgl-golem-qwen3-235b-a22b-4bit-dwq-m2ultra-p18-g512.log");
  EXPECT_EQ(setting_of(log, "entry"), "mlx_lm.generate");
  EXPECT_EQ(setting_of(log, "model"), "mlx-community/Qwen3-235B-A22B-4bit-DWQ");
  EXPECT_EQ(setting_of(log, "prompt_tokens"), "18");
  EXPECT_EQ(setting_of(log, "generation_tokens"), "512");
  EXPECT_EQ(setting_of(log, "max_tokens"), "512");
  EXPECT_EQ(find_figure(log, "total", LogFigure::kPeak)->value, 132'397'000'000u);
  // "python -m mlx_lm generate": the -m before the entry is Python's, not
  // --max-tokens; the flags are read after the entry (the dotoryeee post:
  // the cap is on the next line, --max-tokens 100, and the summary's counts).
  const RuntimeLog module = read("mlx-lm", "mlxlm-neversgl-dotoryeee-qwen25-05b-4bit-p46-g100.log");
  EXPECT_EQ(setting_of(module, "entry"), "mlx_lm.generate");
  EXPECT_EQ(setting_of(module, "model"), "mlx-community/Qwen2.5-0.5B-Instruct-4bit");
  EXPECT_EQ(setting_of(module, "max_tokens"), "<none>");
  EXPECT_EQ(setting_of(module, "prompt_tokens"), "46");
  EXPECT_EQ(setting_of(module, "generation_tokens"), "100");
  // A benchmark line's short flags stay token counts: -p 2048 -g 128 -b 4.
  const Result<RuntimeLog> bench = read_runtime_log(
      "mlx_lm.benchmark --model model/repo -p 2048 -g 128 -b 4\n"
      "peak_memory=4.563\n");
  ASSERT_TRUE(bench.ok());
  EXPECT_EQ(setting_of(*bench, "prompt_tokens"), "2048");
  EXPECT_EQ(setting_of(*bench, "generation_tokens"), "128");
  EXPECT_EQ(setting_of(*bench, "batch"), "4");
}

TEST(MlxLmLog, ACommandQuotedInMarkdownAndTabbedSummaryAreRead) {
  // johnpfeiffer's post: `uv run mlx_lm.generate --model ... --prompt "..."`,
  // then the summary quoted as "> \tPrompt: 39 tokens, ..." lines.
  const RuntimeLog log = read("mlx-lm", "mlxlm-jpfeiffer-llama31-8b-4bit-p39-g54.log");
  EXPECT_EQ(setting_of(log, "entry"), "mlx_lm.generate");
  EXPECT_EQ(setting_of(log, "model"), "mlx-community/Meta-Llama-3.1-8B-Instruct-4bit");
  EXPECT_EQ(setting_of(log, "prompt_tokens"), "39");
  EXPECT_EQ(setting_of(log, "generation_tokens"), "54");
  EXPECT_EQ(find_figure(log, "total", LogFigure::kPeak)->value, 4'638'000'000u);
}

TEST(OllamaLog, LlamaCppRunnerLinesInsideOllama) {
  // ollama/ollama#9352: the runner's llama.cpp lines, then Ollama's record.
  const RuntimeLog log = read("ollama", "ollama-9352-llama-8b-class-parallel10-cuda.log");
  EXPECT_EQ(log.runtime, "ollama");
  EXPECT_EQ(log.backend, "CUDA");
  EXPECT_EQ(setting_of(log, "n_ctx"), "81920");
  EXPECT_EQ(setting_of(log, "n_ctx_seq"), "8192");  // printed n_ctx_per_seq
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kKvCache)->value, 10240ull << 20);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kCompute)->value, 176'171'254u);  // 168.01 MiB = 176,171,253.76
}

TEST(OllamaLog, OwnEngineRecordsNameTheirBuffer) {
  // ollama/ollama#11090: msg="model weights" buffer=CUDA0 size="11.5 GiB".
  const RuntimeLog log = read("ollama", "ollama-11090-mistral3-q8-2gpu-newengine.log");
  EXPECT_EQ(log.backend, "CUDA");
  // 11.5 GiB = 115 x 2^30 / 10 = 12,348,030,976; +- 2^30 / 20 = 53,687,091.2 -> 53,687,092.
  const PrintedFigure* w = find_figure(log, "CUDA0", LogFigure::kModel);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->value, 12'348'030'976u);
  EXPECT_EQ(w->band, 53'687'092u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kModel)->value, 680ull << 20);  // "680.0 MiB"
}

TEST(OllamaLog, LayoutRecordsBesideTheRunnersBuffersAreNotAdded) {
  // A committed Ollama 0.15.5 log (MarvellianRohit/Nexus-AI): device.go's
  // msg="model weights" device=Metal size="36.7 GiB" restates the runner's
  // "Metal_Mapped model buffer size = 37546.98 MiB"; only the latter is the
  // figure (37,546.98 x 2^20 = 39,370,862,100.48 B).
  const RuntimeLog log = read("ollama", "ollama-nexus-llama3-70b-q4_0-m3max-metal.log");
  EXPECT_EQ(log.version, "0.15.5");
  const PrintedFigure* metal = find_figure(log, "Metal", LogFigure::kModel);
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->value, 39'370'862'100u);
  EXPECT_EQ(find_figure(log, "Metal", LogFigure::kKvCache)->value, 2560ull << 20);
}

TEST(OllamaLog, TheLlamaRunnersLayoutRecordsAreItsPlanNotItsBuffers) {
  // A chat export pasting Ollama 0.20.2 (search-index file 56818628539):
  // qwen2.5-coder 7B reloaded on the llama.cpp runner ("runner --model",
  // no --ollama-engine) at KvSize 32,768; the paste ends before llama.cpp's
  // KV and compute lines. device.go's "kv cache" 1.8 GiB and "compute
  // graph" 1.8 GiB were filled by llamaServer.Load from GraphSize before
  // the runner started: no figure is read from them, only the runner's
  // "CUDA0 model buffer size = 4168.09 MiB" (4,370,558,976 B + 1/2 ulp).
  const RuntimeLog log = read("ollama", "ollama-openclaw-qwen25-coder-7b-3060-ctx32768.log");
  EXPECT_EQ(setting_of(log, "ollama_runner"), "llama");
  // Two figures, both the runner's model buffers (CPU_Mapped, CUDA0).
  ASSERT_EQ(log.figures.size(), 2u);
  EXPECT_EQ(log.figures[0].figure, LogFigure::kModel);
  EXPECT_EQ(log.figures[1].figure, LogFigure::kModel);
  const PrintedFigure* model = find_figure(log, "CUDA0", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->value, 4'370'559'140u);
}

TEST(OllamaLog, TheRunnersLinesOfASecondLoadAreNotAdded) {
  // The llama.cpp runner loaded twice in one server log (a model reloaded
  // at a larger context): its lines are read for the first load that built
  // its context, 2000.00 MiB = 2,097,152,000 B and 64.00 MiB of KV, not
  // the sums 4000 and 320 MiB.
  const std::string load =
      "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23000 MiB free\n"
      "llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from /b/sha256-1\n"
      "load_tensors:        CUDA0 model buffer size =  2000.00 MiB\n"
      "llama_context: n_ctx         = {}\n"
      "llama_kv_cache:      CUDA0 KV buffer size =   {}.00 MiB\n";
  const std::string text =
      "time=2026-01-01T00:00:00.000Z level=INFO source=routes.go:1 msg=\"Listening on 127.0.0.1:11434 (version 0.13.0)\"\n" +
      fmt::format(fmt::runtime(load), 4096, 64) +
      "time=2026-01-01T00:01:00.000Z level=INFO source=sched.go:1 msg=\"reloading\"\n" +
      fmt::format(fmt::runtime(load), 16384, 256);
  Result<RuntimeLog> log = read_runtime_log(text);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->runtime, "ollama");
  EXPECT_EQ(find_figure(*log, "CUDA0", LogFigure::kModel)->value, 2'097'152'000u);
  EXPECT_EQ(find_figure(*log, "CUDA0", LogFigure::kKvCache)->value, 64ull << 20);
  EXPECT_EQ(setting_of(*log, "n_ctx"), "4096");
}

TEST(OllamaLog, TheOwnEnginesRecordsOfASecondLoadAreNotAdded) {
  // Ollama's own engine logs a group of buffer records per load, closed
  // by "total memory"; two loads, the second committed: its group is read,
  // 2.0 GiB = 2,147,483,648 B on CUDA0, not 1.0 + 2.0 GiB.
  const std::string text =
      "time=2026-01-01T00:00:00.000Z level=INFO source=runner.go:1 msg=load request=\"{Operation:commit KvSize:4096 Parallel:1 BatchSize:512}\"\n"
      "time=2026-01-01T00:00:01.000Z level=INFO source=device.go:240 msg=\"model weights\" device=CUDA0 size=\"1.0 GiB\"\n"
      "time=2026-01-01T00:00:01.000Z level=INFO source=device.go:272 msg=\"total memory\" size=\"1.0 GiB\"\n"
      "time=2026-01-01T00:05:00.000Z level=INFO source=runner.go:1 msg=load request=\"{Operation:commit KvSize:8192 Parallel:1 BatchSize:512}\"\n"
      "time=2026-01-01T00:05:01.000Z level=INFO source=device.go:240 msg=\"model weights\" device=CUDA0 size=\"2.0 GiB\"\n"
      "time=2026-01-01T00:05:01.000Z level=INFO source=device.go:272 msg=\"total memory\" size=\"2.0 GiB\"\n";
  Result<RuntimeLog> log = read_runtime_log(text);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(find_figure(*log, "CUDA0", LogFigure::kModel)->value, 2ull << 30);
  EXPECT_EQ(setting_of(*log, "n_ctx"), "8192");  // the last commit's KvSize, the same load
  EXPECT_NE(std::find(log->notes.begin(), log->notes.end(),
                      "Ollama's engine logs the buffers of another load at line 2: left out, only "
                      "the records from line 5 are read"),
            log->notes.end());
}

TEST(OllamaLog, ALoadsLastReservationIsItsComputeGraph) {
  // Ollama 0.9.6 (ml/backend/ggml/ggml.go Context.Reserve) logs "compute
  // graph" at every reservation of a load; gemma3's image encoder reserves
  // first (the host's 0 B), then the text graph: the last records are the
  // load's, ROCm0 1.1 GiB and the host's 10.5 MiB = 11,010,048 B, with no
  // note of another load. A second "model weights" record still opens one.
  const std::string text =
      "time=2025-07-24T18:29:05.878+09:00 level=INFO source=routes.go:1288 msg=\"Listening on 127.0.0.1:11434 (version 0.9.6)\"\n"
      "time=2025-07-24T18:29:34.425+09:00 level=INFO source=ggml.go:377 msg=\"model weights\" buffer=ROCm0 size=\"16.2 GiB\"\n"
      "time=2025-07-24T18:29:34.657+09:00 level=INFO source=ggml.go:666 msg=\"compute graph\" backend=ROCm0 buffer_type=ROCm0 size=\"1.0 GiB\"\n"
      "time=2025-07-24T18:29:34.657+09:00 level=INFO source=ggml.go:666 msg=\"compute graph\" backend=CPU buffer_type=CPU size=\"0 B\"\n"
      "time=2025-07-24T18:29:35.056+09:00 level=INFO source=ggml.go:666 msg=\"compute graph\" backend=ROCm0 buffer_type=ROCm0 size=\"1.1 GiB\"\n"
      "time=2025-07-24T18:29:35.056+09:00 level=INFO source=ggml.go:666 msg=\"compute graph\" backend=CPU buffer_type=CPU size=\"10.5 MiB\"\n";
  Result<RuntimeLog> log = read_runtime_log(text);
  ASSERT_TRUE(log.ok());
  // 1.1 GiB = 11 x 2^30 / 10 = 1,181,116,006.4 -> 1,181,116,006.
  EXPECT_EQ(find_figure(*log, "ROCm0", LogFigure::kCompute)->value, 1'181'116'006u);
  EXPECT_EQ(find_figure(*log, "CPU", LogFigure::kCompute)->value, 11'010'048u);  // 10.5 x 2^20
  EXPECT_EQ(find_figure(*log, "ROCm0", LogFigure::kModel)->value, 17'394'617'549u);  // 16.2 GiB, rounded
  for (const std::string& note : log->notes) EXPECT_EQ(note.find("another load"), std::string::npos) << note;
  const size_t computes = std::count_if(log->figures.begin(), log->figures.end(),
                                        [](const PrintedFigure& f) { return f.figure == LogFigure::kCompute; });
  EXPECT_EQ(computes, 2u);
}

TEST(OllamaLog, ARecordWrappedOverIndentedLinesIsReadWhole) {
  // A status report (search-index file 40749440253) prints Ollama 0.12.6's
  // records broken after "source=device.go:217", the rest indented on the
  // next line: joined back, "kv cache" device=ROCm0 size="448.0 MiB" is
  // 448 x 2^20 = 469,762,048 B (format.HumanBytes2: MiB to one decimal).
  const RuntimeLog log = read("ollama", "ollama-aifred-qwen3-1.7b-rocm-780m-v0126.log");
  const PrintedFigure* kv = find_figure(log, "ROCm0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value, 469'762'048u);
  EXPECT_NE(find_figure(log, "ROCm0", LogFigure::kModel), nullptr);
  EXPECT_NE(find_figure(log, "ROCm0", LogFigure::kCompute), nullptr);
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "29");  // "offloaded 29/29 layers to GPU"
}

TEST(MlxLmLog, APeakQuotedUnderItsCommandIsRead) {
  // ml-explore/mlx-lm#1569: the author's list under the mlx_lm.benchmark
  // command, "- Peak memory: 3.30 GB": 3.30 x 10^9 B, +- 10^9 / 200.
  const RuntimeLog log = read("mlx-lm", "mlxlm-1569-qwen3-4b-instruct-2507-4bit-m3pro.log");
  EXPECT_EQ(log.runtime, "mlx-lm");
  EXPECT_EQ(setting_of(log, "model"), "mlx-community/Qwen3-4B-Instruct-2507-4bit");
  EXPECT_EQ(setting_of(log, "prompt_tokens"), "2048");
  EXPECT_EQ(setting_of(log, "generation_tokens"), "128");
  const PrintedFigure* peak = find_figure(log, "total", LogFigure::kPeak);
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->value, 3'300'000'000u);
  EXPECT_EQ(peak->band, 5'000'000u);
}

TEST(MlxLmLog, APeakWithoutARunOrItsCommandIsNotMlxLms) {
  Result<RuntimeLog> log = read_runtime_log("- Peak memory: 3.30 GB\n");
  EXPECT_FALSE(log.ok());
}

TEST(OllamaLog, ALoadWithoutMmapIsReadFromTheRequestAndTheLoader) {
  // Ollama with an RTX 3060, QwQ-32B at 29 of 65 layers: the load request
  // says "UseMmap:false" and the runner's llama.cpp "(mmap = false)", so
  // the host's model buffers, 417.66 + 10379.71 MiB, are its tensors
  // alone, not the file's mapped range; a request without UseMmap sets
  // nothing.
  const RuntimeLog log = read("ollama", "ollama-dragon-qwq32b-q4km-rtx3060-partial-q8kv.log");
  EXPECT_EQ(setting_of(log, "no_mmap"), "true");
  Result<RuntimeLog> mapped = read_runtime_log(
      "time=2026-01-01T00:00:00.000Z level=INFO source=runner.go:1 msg=load request=\"{Operation:commit "
      "KvSize:4096 Parallel:1 BatchSize:512 UseMmap:true}\"\n"
      "load_tensors:        CUDA0 model buffer size =  8128.64 MiB\n");
  ASSERT_TRUE(mapped.ok()) << mapped.error().message();
  EXPECT_EQ(mapped->setting("no_mmap"), nullptr);
  Result<RuntimeLog> unmapped = read_runtime_log(
      "load_tensors: loading model tensors, this can take a while... (mmap = false)\n"
      "load_tensors:        CUDA0 model buffer size =  8128.64 MiB\n");
  ASSERT_TRUE(unmapped.ok()) << unmapped.error().message();
  ASSERT_NE(unmapped->setting("no_mmap"), nullptr);
  EXPECT_EQ(unmapped->setting("no_mmap")->value, "true");
}

TEST(OllamaLog, TheEnginesLoadRequestGivesItsContext) {
  // AndreasBaschir/RAG-Naive-vs-Advanced, Ollama 0.24.0 on its own engine
  // (no llama_context line): the last of fit, fit, alloc, commit is the
  // run's, "Parallel:4 BatchSize:512 FlashAttention:Enabled KvSize:131072
  // KvCacheType: ... GPULayers:36[...]".
  const RuntimeLog log = read("ollama", "ollama-ragnaive-qwen3-8b-q4km-a5000-newengine.log");
  EXPECT_EQ(setting_of(log, "n_ctx"), "131072");
  EXPECT_EQ(setting_of(log, "n_seq_max"), "4");
  EXPECT_EQ(setting_of(log, "n_ubatch"), "512");
  EXPECT_EQ(setting_of(log, "flash_attn"), "enabled");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "36");  // the commit's, not the first fit's 37
  EXPECT_EQ(setting_of(log, "cache_type_k"), "<none>");  // "KvCacheType:" empty: the default
  EXPECT_EQ(setting_of(log, "ollama_runner"), "ollama");
}

TEST(OllamaLog, TheLlamaRunnersOwnLinesWinOverItsLoadRequest) {
  // Alvee0033/public, Ollama 0.17.4's llama runner: llama_context prints
  // n_ctx = 4096 and "flash_attn = auto" before the records are read; the
  // request (KvSize:4096, FlashAttention:Auto) agrees and adds nothing.
  const RuntimeLog log = read("ollama", "ollama-alvee-llama32-3b-q4km-rtx3050-laptop.log");
  EXPECT_EQ(setting_of(log, "n_ctx"), "4096");
  EXPECT_EQ(setting_of(log, "flash_attn"), "auto");
  EXPECT_EQ(setting_of(log, "ollama_runner"), "llama");
}

TEST(OllamaLog, VersionZeroIsABuildWithoutARelease) {
  // THustc2021/material_agent: an EasyBuild of Ollama 0.6.0 prints
  // "(version 0.0.0)", version.go's default: no release is read from it.
  const RuntimeLog log = read("ollama", "ollama-materialagent-llama31-8b-q4km-v100-parallel4.log");
  EXPECT_EQ(log.version, "");
  EXPECT_NE(std::find(log.notes.begin(), log.notes.end(),
                      "the server prints version 0.0.0, a build not given its release (version.go's default)"),
            log.notes.end());
  // The same log's context: its one GPU listed twice in the model's
  // devices ("using device CUDA0" twice), so llama.cpp piped 4 copies.
  EXPECT_EQ(setting_of(log, "model_devices"), "CUDA0");
  EXPECT_EQ(setting_of(log, "n_copies"), "4");
}

TEST(OllamaLog, TheModelsDevicesAreTheOnesItUses) {
  // praveen-kdm/robustness_project: ggml lists 8 A100s; Ollama's runner
  // loads onto the scheduler's one ("using device CUDA1 ... - 80730 MiB free").
  const RuntimeLog log = read("ollama", "ollama-robustness-llama31-8b-q4km-a100-128k.log");
  EXPECT_EQ(log.devices.size(), 9u);  // CUDA0 .. CUDA7 and the host
  EXPECT_EQ(setting_of(log, "model_devices"), "CUDA1");
}

TEST(OllamaLog, TheGgufVersionIsNotOllamas) {
  // An excerpt that starts after the server's "(version 0.1.28)" line: the
  // loader's "(version GGUF V3 (latest))" is the file's, not Ollama's.
  const RuntimeLog log = read("ollama", "ollama-neosophia-mixtral-q4_0-partial-a4000.log");
  EXPECT_EQ(log.version, "");
}

}  // namespace
}  // namespace memfit
