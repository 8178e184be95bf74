// check_log on the Ollama logs of the never-seen batch of 2026-12-06: the
// rules their first check found missing, each with its bytes worked by hand.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "logs/log_test_data.h"
#include "logs/log_text.h"
#include "memfit/log_check.h"

namespace memfit {
namespace {

using testing::read_test_log;

LogCheck check(const std::string& file, const LogCheckOptions& options = {}) {
  return testing::check_test_log("ollama", file, options);
}

constexpr auto figure = &testing::find_check_figure;

TEST(CommaList, WholeEntriesOnly) {
  EXPECT_TRUE(logs::comma_list_has("CUDA0,CUDA1", "CUDA1"));
  EXPECT_TRUE(logs::comma_list_has("CUDA1", "CUDA1"));
  EXPECT_FALSE(logs::comma_list_has("CUDA0,CUDA1", "CUDA"));
  EXPECT_FALSE(logs::comma_list_has("CUDA10", "CUDA1"));
  EXPECT_FALSE(logs::comma_list_has("", "CUDA1"));
}

TEST(CheckLogOllama, UseMmapFalseKeepsTheHostsModelBufferToItsTensors) {
  // The same log: 10379.71 MiB printed for the host's 36 blocks and the
  // output, plus 417.66 MiB for the token embedding (CPU, not repacked):
  // 11,321,863,045 B printed in all; memfit's host tensors hold
  // 11,321,856,000 B (within the print's 0.005 MiB per line). Priced as a
  // mapped range it would be the whole file, 19,845,357,568 B (1.75).
  const LogCheck c = check("ollama-dragon-qwq32b-q4km-rtx3060-partial-q8kv.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, std::optional<uint64_t>(11'321'856'000u));
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLogOllama, TheRunIsPricedOnTheGpuItsModelUsed) {
  // praveen-kdm/robustness_project, Ollama 0.21.0: 8 A100s listed, the
  // model on CUDA1 alone (its "using device" line). Llama 3.1 8B at
  // 131,072 cells, one sequence: 32 layers x 2 (K, V) x 8 heads x 128 x
  // 2 B = 131,072 B a cell, 17,179,869,184 B, "16384.00 MiB" exactly. Before,
  // memfit placed the run on CUDA0, whose free memory the log does not
  // print, and priced 0 on CUDA1.
  const LogCheck c = check("ollama-robustness-llama31-8b-q4km-a100-128k.log");
  const FigureCheck* kv = figure(c, "CUDA1", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 17'179'869'184u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
  const FigureCheck* model = figure(c, "CUDA1", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->within_print);  // "4403.49 MiB": every block and the output layer
  EXPECT_EQ(model->basis, FigureBasis::kExact);
}

TEST(CheckLogOllama, ACudaGpuHoldsTheMasksCopyAndItsCastToo) {
  // The same A100 run: flash attention (auto, set to enabled) at 131,072
  // cells, ubatch 512, Llama 3.1 8B (n_embd 4096, 32 heads of 128). CUDA1
  // runs every block and the output, and block 0 casts the F32 mask (a
  // build before #18898); its split is replayed (device_split): the copies
  // of the rows 4 x 512 x 4096 = 8,388,608, positions 2,048, k_idxs and
  // v_idxs 4,096 each, the F32 mask 4 x 131,072 x 512 = 268,435,456 and
  // out_ids 2,048, block 0's norm and Q product (holes K and V fit) and
  // the roped Q, 3 x 8,388,608, then the F16 cast 134,217,728 on top:
  // 436,219,904 B against the printed 416.01 MiB (436,218,102 B), within
  // the print; no note.
  const LogCheck c = check("ollama-robustness-llama31-8b-q4km-a100-128k.log");
  const FigureCheck* compute = figure(c, "CUDA1", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->memfit, 436'219'904u);
  EXPECT_EQ(compute->note, "");
}

TEST(CheckLogOllama, TheEnginesCacheIsItsLoadRequestsKvSize) {
  // AndreasBaschir/RAG-Naive-vs-Advanced, Ollama 0.24.0's own engine,
  // Qwen3 8B (config beside the log): KvSize 131,072 cells over 4
  // sequences; 36 layers x 2 x 8 heads x 128 x 2 B = 147,456 B a cell:
  // 19,327,352,832 B, "18.0 GiB" exactly. Before, with no context read,
  // memfit priced the model's 40,960 cells (6,039,797,760 B).
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-ragnaive-qwen3-8b-q4km-a5000-newengine.config.json");
  options.file_type = "Q4_K_M";
  const LogCheck c = check("ollama-ragnaive-qwen3-8b-q4km-a5000-newengine.log", options);
  const FigureCheck* kv = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 19'327'352'832u);
  const FigureCheck* compute = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  // Its own graph replayed (engines/ollama/engine_graph.h): 436,211,840 B
  // (416.00 MiB; llama.cpp's phases priced 830,058,496), plus ggml-cuda's
  // VMM pool (Ollama's patch 0020) on the A5000 (compute=8.6, Ampere):
  // the MMA flash attention kernel's tile metadata, 256 tiles (512 / 16
  // tokens x 32 / 4 heads) x 64 columns x (4 + 128) x 32 B = 69,206,016
  // (gpu_pool.h), above every product's q8_1 activations: 505,417,856 B,
  // the printed 482.0 MiB (505,413,632) within the print.
  EXPECT_EQ(compute->memfit, 505'417'856u);
  EXPECT_EQ(compute->basis, FigureBasis::kModelled);
  EXPECT_TRUE(compute->note.find("replayed for NVIDIA Turing and Ampere") != std::string::npos)
      << compute->note;
}

TEST(CheckLogOllama, AnUnreleasedBuildIsPricedByTheReleaseGiven) {
  // THustc2021/material_agent prints "(version 0.0.0)"; given 0.6.0 (the
  // runner's EasyBuild path), its one cache of 8,192 cells for 4 sequences
  // is priced as that release kept it: 32 x 2 x 8 x 128 x 2 B x 8,192 =
  // 1,073,741,824 B, "1024.00 MiB". Its runner lists the V100 twice and
  // pipes (n_copies=4): the log's word gives the one GPU three more copies
  // of its split's inputs, the rows 4 x 512 x 4,096 = 8,388,608, the F32
  // mask 4 x 8,192 x 512 = 16,777,216, positions and output ids 2 x 2,048:
  // 599,785,472 + 3 x 25,169,920 (printed 672.02 MiB = 704,664,044); the
  // host three more of its graph inputs, 3 x (16,777,216 + 3 x 2,048) over
  // its 25,171,968: 75,522,048, "72.02 MiB".
  LogCheckOptions options;
  options.version = "0.6.0";
  const LogCheck c = check("ollama-materialagent-llama31-8b-q4km-v100-parallel4.log", options);
  EXPECT_EQ(c.log.version, "0.6.0");
  EXPECT_EQ(figure(c, "CUDA0", LogFigure::kKvCache)->memfit, 1'073'741'824u);
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 675'295'232u);
  EXPECT_TRUE(gpu->note.starts_with("pipeline parallelism (n_copies=4): memfit prices 3 more copies"))
      << gpu->note;
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 75'522'048u);
}

TEST(CheckLogOllama, AnOldHostBufferNamedCpuIsTheMappedRange) {
  // simo-hue/LLM-Mob-As-Mobility-Interpreter, Ollama 0.3.14 with
  // --n-gpu-layers 1 under mmap: its llama.cpp predates #10026 and prints
  // the host's mapped buffer as "CPU buffer size = 4460.45 MiB". The host
  // holds block 0 and the output layer, which open and close an Ollama
  // file, so the range is the whole file across the GPU's block 27: the
  // rebuilt Q4_K_M list's 4,677,120,000 B, as the same file fully
  // offloaded (ollama-llmmob-qwen25-7b-q4km-a100-ctx1024) sums it: CPU
  // 306,561,024 (token_embd, 3,584 x 152,064 / 256 x 144) + CUDA0
  // 4,370,558,976 = 4,677,120,000 = 4460.45 MiB. Before, memfit's was the
  // host's tensors alone, 4318.24 MiB (0.97).
  const LogCheck c = check("ollama-llmmob-qwen25-7b-q4km-a100-1layer.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 4'677'120'000u);
  EXPECT_EQ(host->basis, FigureBasis::kExact);
  EXPECT_TRUE(host->within_print);
  EXPECT_TRUE(host->note.starts_with("the host maps the file's range from its first tensor to its last"))
      << host->note;
}

TEST(CheckLogOllama, TheLlamaRunnersWindowedLayersCacheEveryCell) {
  // The kosmos notes (a public markdown, search-index file 55586255430):
  // gemma2 2B on Ollama's llama.cpp runner, KvSize 16,384 for Parallel 2
  // (two streams of 8,192 cells), flash attention off. The runner keeps
  // llama_context_default_params' swa_full = true ("using full-size SWA
  // cache"), so the 13 windowed layers cache all 8,192 cells of each
  // stream like the 13 global ones: 26 layers x 16,384 cells x 2 (K, V)
  // x 4 heads x 256 x 2 B = 1,744,830,464 B, "832.00 MiB" twice. Before,
  // memfit priced the windowed half at its window: 1,335,885,824 B.
  const LogCheck c = check("ollama-kosmos-gemma2-2b-q4_0-rx6600-parallel2.log");
  const FigureCheck* kv = figure(c, "ROCm0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 1'744'830'464u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
}

TEST(CheckLogOllama, ALogWithOneCacheAndNoReleaseIsPricedAsV0114) {
  // jack-tsao/jetson-copilot: Mixtral 8x7B on an AGX Orin, n_ctx 8,192 for
  // 4 sequences, flash attention off; the log prints no release but its
  // runner kept one cache for every sequence (llama_kv_cache_init with
  // the whole context, no stream per sequence), as every release before
  // v0.11.5 did: v0.11.4's rules price it, the attention over all 8,192
  // cells. The host holds the graph's inputs: the F32 mask, 8,192 x 512 x
  // 4 B = 16,777,216, the token rows, 4,096 x 512 x 4 B = 8,388,608, and
  // the tokens, positions and output ids, 3 x 512 x 4 B = 6,144:
  // 25,171,968 B of the printed 24.01 MiB. Before, priced with a stream
  // per sequence: 16.01 MiB.
  const LogCheck c = check("ollama-jetsoncopilot-mixtral-8x7b-q4_0-agx-orin.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 25'171'968u);
  EXPECT_EQ(host->note, "");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->note, "");  // no longer "the log's runner kept one cache ..."
}

TEST(CheckLogOllama, AListedGpuWithoutAModelBufferHeldNoLayer) {
  // ollama/ollama#3940: the runner's llama.cpp lists two ROCm devices and
  // prints no "using device" line, but its loader prints a model buffer
  // on ROCm0 alone, as it prints one for each device holding tensors: the
  // 27 blocks are ROCm0's. DeepSeek-V2-Lite's legacy cache (a GGUF before
  // MLA) at 16,384 cells: 27 layers x 16 heads x (192 K + 128 V) x 2 B =
  // 276,480 B a cell, 4,529,848,320 B, "4320.00 MiB". Before, memfit spread
  // the layers over both GPUs: 13 on ROCm0, 2,181,038,080 B.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-3940-deepseek-v2-lite-rocm-16k.config.json");
  const LogCheck c = check("ollama-3940-deepseek-v2-lite-rocm-16k.log", options);
  const FigureCheck* kv = figure(c, "ROCm0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 4'529'848'320u);
}

TEST(CheckLogOllama, TheOwnEnginesCacheRecordHoldsTheRecurrentCheckpoints) {
  // The qwen3-coder-next report (search-index file 55579426224), q8_0 KV:
  // Ollama's own engine, KvSize 32,768, one sequence, 20 blocks on CUDA0.
  // Its "kv cache" records hold the 12 attention layers' q8_0 KV, 12 x
  // 32,768 x 2 x 2 heads x 256 x 34/32 B = 427,819,008, and each of the 36
  // gated-delta layers' state, conv 3 x 8,192 x 4 + delta 32 x 128 x 128 x
  // 4 = 2,195,456 B, live once and in the 24 checkpoints the pinned
  // release's kvcache/recurrent.go reserves a sequence: 25 x 36 x
  // 2,195,456 = 1,975,910,400. Total 2,403,729,408 B of the printed
  // 955.2 MiB + 1.3 GiB (2,397,464,166 +- 53,739,520). Before, the KV
  // alone: 0.1784.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-kvquant-qwen3codernext-q8-partial-cuda.config.json");
  options.file_type = "Q4_K_M";
  const LogCheck c = check("ollama-kvquant-qwen3codernext-q8-partial-cuda.log", options);
  const FigureCheck* total = figure(c, "total", LogFigure::kKvCache);
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->memfit, 2'403'729'408u);
  EXPECT_TRUE(total->within_print);
}

TEST(CheckLogOllama, ASplitGatedDeltaNetModelsGraphRowsNameTheirCause) {
  // The qwen3-coder-next report's f16 run: 20 of 48 blocks on CUDA0, the
  // rest and the output layer on the host. Neither device runs every
  // block, so no own-engine graph is replayed: each compute row stays
  // llama.cpp's stand-in (modelled) and names what it lacks: the host's
  // blocks' share of deltaNetChunked's graph, the op offload's copies, the
  // release's graph (v0.17.1 to v0.19.0 by the log's source lines), and on
  // CUDA0 ggml-cuda's pool.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-kvquant-qwen3codernext-f16-partial-cuda.config.json");
  options.file_type = "Q4_K_M";
  const LogCheck c = check("ollama-kvquant-qwen3codernext-f16-partial-cuda.log", options);
  for (const char* device : {"CPU", "CUDA0"}) {
    const FigureCheck* compute = figure(c, device, LogFigure::kCompute);
    ASSERT_NE(compute, nullptr) << device;
    EXPECT_EQ(compute->basis, FigureBasis::kModelled) << device;
    EXPECT_TRUE(compute->note.starts_with("Ollama's own engine splits this gated delta net model's blocks"))
        << compute->note;
    EXPECT_EQ(compute->note.find("ggml-cuda's pool") != std::string::npos, std::string_view(device) == "CUDA0")
        << compute->note;
  }
}

TEST(CheckLogOllama, TheServersGpuDiscoveryGivesTheDefaultContextsTier) {
  // The Qwen3.6-35B-A3B smoke-run report (search-index file 54554528612):
  // Ollama's own engine on a Renoir iGPU over Vulkan, no load request in
  // the excerpt. Its "inference compute" record gives Vulkan0 15.1 GiB
  // available, under 23 GiB: the VRAM tier's num_ctx is 4096 (where a GPU
  // of unknown memory had given 262,144). The cache at 4,096 cells: the
  // attention layers', 10 x 4,096 x 2 x 2 heads x 256 x 2 B = 83,886,080, the
  // 30 gated-delta layers' state (conv 3 x 8,192 x 4 + delta 32 x 128 x
  // 128 x 4 = 2,195,456 B) live and in 24 checkpoints: 25 x 30 x 2,195,456
  // = 1,646,592,000; 1,730,478,080 B of the printed 1.6 GiB.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-qwen36eval-qwen36-35b-a3b-iq1m-vulkan-renoir.config.json");
  options.file_type = "IQ1_M";
  const LogCheck c = check("ollama-qwen36eval-qwen36-35b-a3b-iq1m-vulkan-renoir.log", options);
  const FigureCheck* kv = figure(c, "Vulkan0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 1'730'478'080u);
  EXPECT_TRUE(kv->within_print);
}

TEST(CheckLogOllama, ALogWithoutContextOrSplitSaysItsCacheIsAnotherRuns) {
  // The a10doc grep of Ollama 0.12's records (Qwen3-30B-A3B Q8_0 on an
  // A10 and the host): no load request, so neither the context nor the
  // layers per device. memfit prices the default num_ctx, lowered to the
  // model's 40,960 cells, every layer on CUDA0: 48 layers x 2 x 4 heads x
  // 128 x 2 B = 98,304 B a cell x 40,960 = 4,026,531,840 B, against the
  // print's 1.9 GiB (and 1.1 GiB on the host: 32,768 cells split 30/18).
  // The rows say which inputs were assumed, modelled, not an untraced miss.
  LogCheckOptions options;
  options.config_json =
      read_test_log("ollama", "ollama-a10doc-qwen3-30b-a3b-thinking-q8-a10-partial.config.json");
  options.file_type = "Q8_0";
  const LogCheck c = check("ollama-a10doc-qwen3-30b-a3b-thinking-q8-a10-partial.log", options);
  const FigureCheck* kv = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 4'026'531'840u);
  EXPECT_EQ(kv->basis, FigureBasis::kModelled);
  EXPECT_EQ(kv->note,
            "the log prints no context (no load request or runner command): memfit takes the release's "
            "default num_ctx, 40960 cells; the log prints no layers per device (no load request's "
            "GPULayers): memfit puts every layer on the GPU");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kKvCache);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 0u);
  EXPECT_EQ(host->note, kv->note);
}

TEST(CheckLogOllama, GptOsssOwnGraphIsReplayedWithItsTwoCachesMasks) {
  // ROCm/ROCm#4909: gpt-oss-120b on Ollama 0.11.10's own engine, every
  // block on a gfx1151 (8,192 cells, one sequence, batch 512, flash
  // attention; 0.11.10 reserves the masks as F16 inputs, no cast). The
  // replay of model/models/gptoss Forward peaks when the MLP makes `up`
  // contiguous: below it the first layer's token rows, freed (2,880 x 512 x
  // 4 = 5,898,240), positions and slots (2 x 2,048), the windowed cache's
  // F16 mask (4,608 cells x 512 x 2 = 4,718,592) and the causal cache's
  // (8,192 x 512 x 2 = 8,388,608), the outputs (128), the router's rows and
  // their argsort (2 x 128 x 512 x 4 = 524,288), 7,864,320 of earlier
  // layers' freed norms, the MLP's residual (5,898,240), the fused gate-up
  // product over the 4 chosen experts (5,760 x 4 x 512 x 4 = 47,185,920),
  // gate and up made contiguous (2 x 2,880 x 4 x 512 x 4 = 47,185,920):
  // 127,668,352 B against the printed 121.8 MiB (127,716,557; 0.9996).
  // llama.cpp's phases, the stand-in before, priced 417,726,464 (3.27):
  // 512 rows of 201,088 logits where the engine keeps one.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-rocm4909-gpt-oss-120b-gfx1151-newengine.config.json");
  options.file_type = "MXFP4";
  const LogCheck c = check("ollama-rocm4909-gpt-oss-120b-gfx1151-newengine.log", options);
  const FigureCheck* compute = figure(c, "ROCm0", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->memfit, 127'668'352u);
  EXPECT_TRUE(compute->within_print);
  EXPECT_TRUE(compute->note.starts_with("Ollama's own engine's graph replayed")) << compute->note;
}

TEST(CheckLogOllama, AVisionModelsRecordIsItsImageEncodersOrItsTextGraphs) {
  // Ollama 0.9.6's own engine, gemma3 27B Q4_K_M on a 780M (search-index
  // file 2813348729): two reservations, the image encoder's (the host's
  // 0 B), then the text graph's; the last is read. The host holds the
  // token rows alone: 5,376 x 512 x 4 = 11,010,048 B, "10.5 MiB" exactly.
  // ROCm0's 1.1 GiB is the larger of the encoder's graph (the 2048 x 2048
  // image resized to 896 x 896: 4,096 patches, whose scores are 16 x 4,096
  // x 4,096 x 4 = 1 GiB; replayed: 1,190,150,144 B,
  // engines/ollama/vision_graph_test.cc) and the text graph (llama.cpp's
  // 609,222,656 B standing in): the encoder's.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-araki-gemma3-27b-q4km-780m-rocm-v096.config.json");
  options.file_type = "Q4_K_M";
  const LogCheck c = check("ollama-araki-gemma3-27b-q4km-780m-rocm-v096.log", options);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->printed.value, 11'010'048u);
  EXPECT_EQ(host->memfit, 11'010'048u);
  const FigureCheck* gpu = figure(c, "ROCm0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 1'190'150'144u);
  EXPECT_TRUE(gpu->within_print);
  EXPECT_TRUE(gpu->note.starts_with("Ollama's own engine reserves gemma3's image encoder")) << gpu->note;
}

TEST(CheckLogOllama, GptOssWithoutFlashAttentionHoldsItsScores) {
  // The same gpt-oss-120b run had its load request said FlashAttention:
  // false: each layer soft-maxes its scores over its cache's cells. The
  // peak is a causal layer's scores, 8,192 cells x 512 x 64 heads x 4 B =
  // 1,073,741,824, above the layer's input (5,898,240), positions and
  // slots (4,096), the two masks as F32 copies (4,608 and 8,192 cells x
  // 512 x 4 = 9,437,184 + 16,777,216), the outputs (128), 16,384,000 of
  // freed earlier tensors and the roped Q (64 x 64 x 512 x 4 = 8,388,608):
  // 1,130,631,296 B.
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-rocm4909-gpt-oss-120b-gfx1151-newengine.config.json");
  options.file_type = "MXFP4";
  std::string text = read_test_log("ollama", "ollama-rocm4909-gpt-oss-120b-gfx1151-newengine.log");
  for (size_t at = text.find("FlashAttention:true"); at != std::string::npos; at = text.find("FlashAttention:true")) {
    text.replace(at, std::string_view("FlashAttention:true").size(), "FlashAttention:false");
  }
  Result<LogCheck> c = check_log(text, options, nullptr);
  ASSERT_TRUE(c.ok());
  const FigureCheck* compute = figure(*c, "ROCm0", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->memfit, 1'130'631'296u);
}

TEST(CheckLogOllama, TheOwnEngineHoldsATiedOutputsTableTwiceOnTheHost) {
  // aifred's Ollama 0.12.6 run of qwen3:1.7b (Q4_K_M, tied), every layer
  // on the CPU: ggml.go's New creates token_embd again as output.weight in
  // the output layer's (the host's) buffer. The Q4_K_M file memfit
  // rebuilds from the config, 1,101,457,408 B, and the second q6_K table,
  // 151,936 x 2,048 = 311,164,928 weights / 256 x 210 = 255,252,480 B:
  // 1,356,709,888 B, within the printed 1.3 GiB (1.25 to 1.35 GiB; the
  // file alone, 1.03 GiB, was not).
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", "ollama-aifred-qwen3-1.7b-cpu-v0126.config.json");
  options.file_type = "Q4_K_M";
  const LogCheck c = check("ollama-aifred-qwen3-1.7b-cpu-v0126.log", options);
  const FigureCheck* model = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, 1'356'709'888u);
  EXPECT_TRUE(model->within_print);
}

}  // namespace
}  // namespace memfit
