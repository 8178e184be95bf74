// llama.cpp's logs read back (runtime_log.h), from real logs under
// tests/data/logs/llamacpp/ (their sidecars name the threads): devices,
// settings, the metadata dump and every buffer in bytes, worked by hand
// (x MiB = x x 2^20 bytes, rounded once; a band of 2^20 / 200 = 5,243 B a
// line).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "logs/log_test_data.h"
#include "memfit/runtime_log.h"

namespace memfit {
namespace {

using testing::find_figure;
using testing::read_test_log;
using testing::setting_of;

constexpr uint64_t kMiBBand = 5'243;  // 2^20 / 200 = 5,242.88, up

RuntimeLog read(const std::string& file) {
  Result<RuntimeLog> log = read_runtime_log(read_test_log("llamacpp", file));
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : RuntimeLog{};
}

TEST(LlamaCppLog, PinnedRunReadsEveryBufferAndTheContext) {
  const RuntimeLog log = read("llamacpp-pinned-llama-dense-ctx4096.log");
  EXPECT_EQ(log.runtime, "llamacpp");
  EXPECT_EQ(log.backend, "CPU");
  ASSERT_EQ(log.devices.size(), 1u);
  EXPECT_EQ(log.devices[0].id, "CPU");
  // libggml-cpu-zen4.so: AVX-512's repack kernels.
  EXPECT_EQ(setting_of(log, "repack_cpu"), "x86-avx512");
  EXPECT_EQ(setting_of(log, "n_ctx"), "4096");
  EXPECT_EQ(setting_of(log, "n_seq_max"), "1");
  EXPECT_EQ(setting_of(log, "n_batch"), "512");
  EXPECT_EQ(setting_of(log, "flash_attn"), "auto");
  EXPECT_EQ(setting_of(log, "flash_attn_resolved"), "enabled");  // resolve_fused_ops
  EXPECT_EQ(setting_of(log, "cache_type_k"), "f16");
  // CPU_Mapped 50.55 MiB + CPU_REPACK 6.47 MiB on the host:
  // 53,005,516.8 -> 53,005,517 and 6,784,286.72 -> 6,784,287; 59,789,804.
  const PrintedFigure* model = find_figure(log, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->value, 59'789'804u);
  EXPECT_EQ(model->band, 2 * kMiBBand);
  EXPECT_EQ(model->buffers, (std::vector<std::string>{"CPU_Mapped", "CPU_REPACK"}));
  EXPECT_EQ(model->text, "50.55 MiB + 6.47 MiB");
  // 8.00 MiB = 8,388,608; 0.12 MiB = 125,829.12 -> 125,829; 64.50 MiB = 67,633,152.
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kKvCache)->value, 8'388'608u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kOutput)->value, 125'829u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kCompute)->value, 67'633'152u);
  EXPECT_EQ(log.figures.size(), 4u);
}

// --flash-attn auto resolved in sched_reserve: b7867's SYCL build on a
// UHD 730 prints "sched_reserve: Flash Attention was auto, set to
// disabled" (its FLASH_ATTN_EXT fell to the CPU), b9145's on an A770
// "... set to enabled". Read, the first prices the graph without flash
// attention: 328.01 MiB of SYCL0 compute, not the 92.51 MiB of the second.
TEST(LlamaCppLog, SchedReserveResolvesFlashAttnAuto) {
  const RuntimeLog off = read("llamacpp-neverllama9-ci-sycl-uhd730-llama2-7b-q4_0.log");
  EXPECT_EQ(setting_of(off, "flash_attn"), "auto");
  EXPECT_EQ(setting_of(off, "flash_attn_resolved"), "disabled");
  const RuntimeLog on = read("llamacpp-neverllama9-ci-sycl-arc770-llama2-7b-q4_0.log");
  EXPECT_EQ(setting_of(on, "flash_attn"), "auto");
  EXPECT_EQ(setting_of(on, "flash_attn_resolved"), "enabled");
}

TEST(LlamaCppLog, DatedLineFormsAreKeptAsSettings) {
  // ghghang2/v1.6's Qwen3.6 35B A3B server prints sched_reserve's fused
  // Gated Delta Net probe and the server's "system info: n_threads" line,
  // but neither the KV cache's older name nor n_ctx_per_seq.
  const RuntimeLog log = read("llamacpp-ghghang2v16-qwen36-35b-a3b-q6kxl-rtxpro6000.log");
  EXPECT_EQ(log.version, "");
  EXPECT_EQ(setting_of(log, "form_sched_reserve_gdn"), "true");
  EXPECT_EQ(setting_of(log, "form_server_system_info"), "true");
  EXPECT_EQ(log.setting("form_kv_cache_unified"), nullptr);
  EXPECT_EQ(log.setting("form_n_ctx_per_seq"), nullptr);
  // llama.cpp#15009's excerpt: "llama_kv_cache_unified:" and
  // "llama_context: n_ctx_per_seq (70000) < n_ctx_train (262144)".
  const RuntimeLog excerpt = read("llamacpp-15009-qwen3-30b-a3b-strix-halo-vulkan.log");
  EXPECT_EQ(setting_of(excerpt, "form_kv_cache_unified"), "true");
  EXPECT_EQ(setting_of(excerpt, "form_n_ctx_per_seq"), "true");
  // Its cache summary, "( 70016 cells,  48 layers,  1/ 1 seqs)", counts
  // the streams after the slash, as ghghang2's "1/1 seqs" does; #14441's
  // "(  4096 cells,  28 layers,  1 seqs)" has none.
  EXPECT_EQ(excerpt.setting("form_kv_seqs_without_streams"), nullptr);
  EXPECT_EQ(log.setting("form_kv_seqs_without_streams"), nullptr);
  EXPECT_EQ(setting_of(read("llamacpp-neverllama7-14441-cann-qwen2-1.5b-f16-910b4.log"),
                       "form_kv_seqs_without_streams"),
            "true");
  EXPECT_EQ(excerpt.setting("form_sched_reserve_gdn"), nullptr);
}

TEST(LlamaCppLog, MetadataDumpReadsBackAsGgufKeyValues) {
  const RuntimeLog log = read("llamacpp-pinned-llama-dense-ctx4096.log");
  const LogModel& m = log.model;
  EXPECT_EQ(m.name, "/tmp/vmodels/llama-dense.gguf");
  EXPECT_EQ(m.metadata_count, 20u);
  EXPECT_EQ(m.tensor_count, 39u);
  ASSERT_EQ(m.metadata.size(), 20u);
  EXPECT_TRUE(m.metadata_complete());
  // 9 f32 + 1 f16 + 16 q4_0 + 12 q4_K + 1 q6_K = 39 tensors.
  EXPECT_EQ(m.tensor_types.size(), 5u);
  EXPECT_EQ(m.tensor_types[2], (std::pair<std::string, uint64_t>{"q4_0", 16}));
  // "file size   = 50.55 MiB (9.46 BPW)": 53,005,517 B.
  ASSERT_TRUE(m.file_bytes.has_value());
  EXPECT_EQ(m.file_bytes->value, 53'005'517u);
  EXPECT_EQ(m.file_size_text, "50.55 MiB");
  // Typed as the dump types them: u32 block_count 4, f32 rope.freq_base
  // 10000.000000, str architecture; the vocabulary cut short ("...") keeps
  // its element type and count.
  EXPECT_EQ(m.metadata[0].key, "general.architecture");
  EXPECT_EQ(std::get<std::string>(m.metadata[0].value.data), "llama");
  EXPECT_EQ(m.metadata[5].key, "llama.block_count");
  EXPECT_EQ(m.metadata[5].value.type, GgufValueType::kUint32);
  EXPECT_EQ(std::get<uint64_t>(m.metadata[5].value.data), 4u);
  EXPECT_EQ(std::get<double>(m.metadata[19].value.data), 10000.0);
  const auto& tokens = std::get<GgufArray>(m.metadata[9].value.data);
  EXPECT_EQ(tokens.element_type, GgufValueType::kString);
  EXPECT_EQ(tokens.count, 32000u);
  EXPECT_FALSE(tokens.kept);
  EXPECT_EQ(m.cut_keys, (std::vector<std::string>{"tokenizer.ggml.tokens", "tokenizer.ggml.scores",
                                                  "tokenizer.ggml.token_type"}));
}

TEST(LlamaCppLog, ACutWindowPatternIsReadFromEachLayersKWidth) {
  // Gemma 4 E4B (acdtrx, b8680): the dump cuts "gemma4.attention.
  // sliding_window_pattern arr[bool,42] = [true, true, true, true, true,
  // false,...". print_info's n_embd_k_gqa prints every layer's K width:
  // 512 = key_length_swa 256 x 2 KV heads (windowed), 1024 = key_length
  // 512 x 2 (global), so layers 5, 11, ..., 41 are global and the flags
  // are five true and one false, seven times.
  const RuntimeLog log = read("llamacpp-acdtrx-gemma4-e4b-q8_0-m4-metal.log");
  const LogModel& m = log.model;
  const GgufKeyValue* pattern = nullptr;
  for (const GgufKeyValue& kv : m.metadata) {
    if (kv.key == "gemma4.attention.sliding_window_pattern") pattern = &kv;
  }
  ASSERT_NE(pattern, nullptr);
  const auto& flags = std::get<GgufArray>(pattern->value.data);
  ASSERT_TRUE(flags.kept);
  ASSERT_EQ(flags.count, 42u);
  ASSERT_EQ(flags.number_bytes.size(), 42u);  // one byte a bool
  for (size_t i = 0; i < 42; ++i) {
    EXPECT_EQ(flags.number_bytes[i], i % 6 == 5 ? '\0' : '\1') << "layer " << i;
  }
  EXPECT_EQ(std::count(m.cut_keys.begin(), m.cut_keys.end(),
                       "gemma4.attention.sliding_window_pattern"),
            0);
}

TEST(LlamaCppLog, OldFormatTwoGpusSplitPerDevice) {
  // ggml-org/llama.cpp#6122 (llm_load_tensors' "buffer size", before the
  // categories were named): the host's weights and two CUDA devices.
  const RuntimeLog log = read("llamacpp-6122-40layer-4070ti-3090ti.log");
  EXPECT_EQ(log.backend, "CUDA");
  ASSERT_EQ(log.devices.size(), 3u);
  EXPECT_EQ(log.devices[0].id, "CUDA0");
  EXPECT_EQ(log.devices[0].name, "NVIDIA GeForce RTX 4070 Ti");
  EXPECT_EQ(log.devices[1].name, "NVIDIA GeForce RTX 3090 Ti");
  EXPECT_EQ(log.devices[2].id, "CPU");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "41");
  // 1640.62 MiB = 1,720,314,757.12; 5434.38 MiB = 5,698,360,442.88;
  // 13989.53 MiB = 14,669,085,409.28.
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kModel)->value, 1'720'314'757u);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kModel)->value, 5'698'360'443u);
  EXPECT_EQ(find_figure(log, "CUDA1", LogFigure::kModel)->value, 14'669'085'409u);
  // KV 1536.00 and 3584.00 MiB per device; the "KV self size" summary is
  // not a third figure. Output 1.95 MiB = 2,044,723.2 on CUDA_Host (the host).
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kKvCache)->value, 1'610'612'736u);
  EXPECT_EQ(find_figure(log, "CUDA1", LogFigure::kKvCache)->value, 3'758'096'384u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kOutput)->value, 2'044'723u);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kCompute)->value, 704'653'558u);  // 672.01 MiB
  EXPECT_EQ(setting_of(log, "cache_type_k"), "f16");
  EXPECT_EQ(log.figures.size(), 7u);
}

TEST(LlamaCppLog, RowSplitBuffersJoinTheirDevice) {
  // ggml-org/llama.cpp#13661: "CUDA0_Split" is CUDA0's share of the
  // row-split matrices: 248.62 + 7969.22 MiB on CUDA0.
  const RuntimeLog log = read("llamacpp-13661-qwen3-30b-a3b-rowsplit-4x-k80.log");
  EXPECT_EQ(log.version, "b5261");  // "version: 5261 (cb06a3c3)"
  EXPECT_EQ(setting_of(log, "split_mode"), "row");
  const PrintedFigure* cuda0 = find_figure(log, "CUDA0", LogFigure::kModel);
  ASSERT_NE(cuda0, nullptr);
  EXPECT_EQ(cuda0->buffers, (std::vector<std::string>{"CUDA0_Split", "CUDA0"}));
  // Each line rounded once, then summed: 248.62 MiB = 260,696,965.12 ->
  // 260,696,965; 7969.22 MiB = 8,356,332,830.72 -> 8,356,332,831;
  // 8,617,029,796 in all.
  EXPECT_EQ(cuda0->value, 8'617'029'796u);
  EXPECT_EQ(log.devices.size(), 4u);  // CUDA0..3, names from ggml_cuda_init
  EXPECT_EQ(log.devices[3].name, "Tesla K80");
}

TEST(LlamaCppLog, CacheSummaryGivesTheCellsAndSequences) {
  // ROCm/TheRock#2595: "size = 7032.00 MiB (300032 cells,  12 layers,
  // 1/1 seqs)", the excerpt's only context line.
  const RuntimeLog next = read("llamacpp-2595-therock-qwen3-next-80b-gfx1151.log");
  EXPECT_EQ(setting_of(next, "kv_cells"), "300032");
  EXPECT_EQ(setting_of(next, "kv_seqs"), "1");
  EXPECT_EQ(setting_of(next, "kv_streams"), "1");
  EXPECT_EQ(setting_of(next, "n_ctx"), "<none>");
  // "(  1024 cells,   4 layers,  3/3 seqs)": three streams of 1024 cells
  // each, which the printed K (7.50 MiB) holds together.
  const RuntimeLog mla = read("llamacpp-pinned-deepseek2-mla-ctx3000-seq3-fa.log");
  EXPECT_EQ(setting_of(mla, "kv_cells"), "1024");
  EXPECT_EQ(setting_of(mla, "kv_streams"), "3");
  EXPECT_EQ(setting_of(mla, "kv_unified"), "false");  // llama_context's own line
  // ggml-org/llama.cpp#15009: "n_ctx_per_seq (70000) < n_ctx_train
  // (262144)" is the context per sequence; the cache holds 70016 cells.
  const RuntimeLog strix = read("llamacpp-15009-qwen3-30b-a3b-strix-halo-vulkan.log");
  EXPECT_EQ(setting_of(strix, "n_ctx_seq"), "70000");
  EXPECT_EQ(setting_of(strix, "kv_cells"), "70016");
}

TEST(LlamaCppLog, TheWorstCaseGraphsTokensAreRead) {
  // ggml-org/llama.cpp#15974: "llama_context: worst-case: n_tokens = 128,
  // n_seqs = 1, n_outputs = 1", the excerpt's only trace of n_ubatch.
  EXPECT_EQ(setting_of(read("llamacpp-15974-qwen3-30b-a3b-vulkan-2gpu-ub128.log"), "worst_case_tokens"),
            "128");
  // LostRuins/koboldcpp#1533: "graph splits = 397 (with bs=512), 160 (with
  // bs=1)"; its cache line's "kv_size = 16384".
  const RuntimeLog kobold = read("llamacpp-kobold1533-qwen3-235b-a22b-ot-cpu.log");
  EXPECT_EQ(setting_of(kobold, "worst_case_tokens"), "512");
  EXPECT_EQ(setting_of(kobold, "kv_size"), "16384");
}

TEST(LlamaCppLog, PipelineParallelismsLineGivesTheCopies) {
  // The corpus's 2024 line, "pipeline parallelism enabled (n_copies=4)";
  // later builds print it without the count (ggml-org/llama.cpp#24148:
  // "llama_context: pipeline parallelism enabled"), the build's
  // GGML_SCHED_MAX_COPIES, 4 by default.
  EXPECT_EQ(setting_of(read("llamacpp-6122-40layer-4070ti-3090ti.log"), "n_copies"), "4");
  Result<RuntimeLog> bare = read_runtime_log(
      "llama_context: pipeline parallelism enabled\n"
      "llama_context:      CUDA0 compute buffer size =   100.00 MiB\n");
  ASSERT_TRUE(bare.ok()) << bare.error().message();
  EXPECT_EQ(setting_of(*bare, "n_copies"), "4");
}

TEST(LlamaCppLog, LlamaEmbeddingIsAnEmbeddingRun) {
  // ggml-org/ci echoes "+ ./bin/llama-embedding --model ... -ngl 99 -c 0":
  // the tool sets params.embedding whatever its flags.
  const RuntimeLog log = read("llamacpp-ci4343-bge-small-f16-embd-v100-cuda.log");
  EXPECT_EQ(setting_of(log, "embedding"), "true");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "99");  // the command line, read first
}

TEST(LlamaCppLog, RepeatingLayersOffloadedAreRead) {
  // ggml-org/llama.cpp#13729: "offloading 30 repeating layers to GPU",
  // "offloaded 30/49 layers to GPU".
  const RuntimeLog log = read("llamacpp-13729-qwen3-30b-a3b-partial-offload-cuda.log");
  EXPECT_EQ(setting_of(log, "repeating_layers_offloaded"), "30");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "30");
  EXPECT_EQ(setting_of(log, "n_layers_offloadable"), "49");
}

TEST(LlamaCppLog, TheFilesGgufVersionIsASetting) {
  // "... from /models/mistral-7b-instruct-v0.1.Q4_K_M.gguf (version GGUF
  // V2)": a file written before GGUF V3; "(version GGUF V3 (latest))"
  // likewise gives 3.
  EXPECT_EQ(setting_of(read("llamacpp-telzur-mistral7b-q4km-rtx4060m-ngl20.log"), "gguf_version"), "2");
  EXPECT_EQ(setting_of(read("llamacpp-10152-qwen25-32b-3x-p40.log"), "gguf_version"), "3");
}

TEST(LlamaCppLog, KvSelfSizeSummaryIsTheTotalWhenNoBufferLineIs) {
  // ggml-org/llama.cpp#11598: the excerpt's one cache line, "KV self size
  // = 3937.50 MiB" (two spaces before "="), cut after V's size: the
  // total, 3937.50 x 2^20 = 4,128,768,000 B.
  const RuntimeLog log = read("llamacpp-11598-qwen25-7b-1m-vulkan-mi60.log");
  const PrintedFigure* kv = find_figure(log, "total", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value, 4'128'768'000u);
  EXPECT_EQ(log.figures.size(), 1u);
}

TEST(LlamaCppLog, MidTwentyTwentyFourVulkanBuffersNamedByTheDevice) {
  // A blog's Arc A770 run (build 1 (2fb9267), August 2024): the Vulkan
  // backend lists "Vulkan0: Intel(R) Arc(tm) A770 Graphics (DG2) (Intel
  // open-source Mesa driver) | uma: 0 | ..." and names its buffers by the
  // device's name: "llm_load_tensors: Intel(R) Arc(tm) A770 Graphics (DG2)
  // buffer size =  3820.93 MiB". They are Vulkan0's, not a device "(DG2)".
  const RuntimeLog log = read("llamacpp-neverlogs11-a770-vulkan-llama2-7b-q4km.log");
  EXPECT_EQ(log.backend, "Vulkan");
  ASSERT_EQ(log.devices.size(), 2u);
  EXPECT_EQ(log.devices[0].id, "Vulkan0");
  EXPECT_EQ(log.devices[0].name, "Intel(R) Arc(tm) A770 Graphics (DG2) (Intel open-source Mesa driver)");
  EXPECT_EQ(log.devices[1].id, "CPU");
  // 3820.93 x 2^20 = 4,006,535,495.68; 2048.00 MiB = 2,147,483,648;
  // 296.00 MiB = 310,378,496.
  EXPECT_EQ(find_figure(log, "Vulkan0", LogFigure::kModel)->value, 4'006'535'496u);
  EXPECT_EQ(find_figure(log, "Vulkan0", LogFigure::kKvCache)->value, 2'147'483'648u);
  EXPECT_EQ(find_figure(log, "Vulkan0", LogFigure::kCompute)->value, 310'378'496u);
  // The function that printed the device's compute buffer, as before.
  EXPECT_EQ(setting_of(log, "compute_function"), "llama_new_context_with_model");
  EXPECT_EQ(log.figures.size(), 6u);
}

TEST(LlamaCppLog, CiCaptureReadsTheEchoedCommandAndTimestampedLines) {
  // llama.cpp's own CI (ggml-org/ci, Vulkan on a Tesla T4, b4438): the
  // shell echoes the command ("+ ./bin/llama-cli ... -ngl 99 -c 0"), every
  // line after it carries a timestamp and a level ("0.00.015.229 I "), and
  // the f16 file has no general.file_type entry (22 of them), so
  // print_info guesses "all F32".
  const RuntimeLog log = read("llamacpp-ci4438-pythia28-f16-t4-vulkan.log");
  EXPECT_EQ(log.backend, "Vulkan");
  EXPECT_EQ(log.version, "b4438");
  ASSERT_EQ(log.devices.size(), 2u);
  EXPECT_EQ(log.devices[0].id, "Vulkan0");
  EXPECT_EQ(log.devices[0].name, "Tesla T4 (NVIDIA)");
  // "using device Vulkan0 (Tesla T4) - 16384 MiB free": 16384 x 2^20.
  ASSERT_TRUE(log.devices[0].free_bytes.has_value());
  EXPECT_EQ(*log.devices[0].free_bytes, 17'179'869'184u);
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "99");  // the echoed -ngl 99
  EXPECT_EQ(setting_of(log, "n_ctx"), "0");          // the echoed -c 0
  EXPECT_EQ(setting_of(log, "n_ctx_seq"), "2048");   // the training context it resolved to
  EXPECT_EQ(setting_of(log, "n_ubatch"), "512");
  EXPECT_EQ(setting_of(log, "file_type"), "all F32 (guessed)");
  const LogModel& m = log.model;
  EXPECT_EQ(m.metadata_count, 22u);
  EXPECT_EQ(m.tensor_count, 388u);
  EXPECT_TRUE(m.metadata_complete());  // 258 f32 + 130 f16 = 388 tensors
  // "file size   = 5.17 GiB": 5.17 x 2^30 = 5,551,245,230.08.
  ASSERT_TRUE(m.file_bytes.has_value());
  EXPECT_EQ(m.file_bytes->value, 5'551'245'230u);
  // 162.00 MiB = 169,869,312; the host's 9.01 MiB = 9,447,669.76.
  EXPECT_EQ(find_figure(log, "Vulkan0", LogFigure::kCompute)->value, 169'869'312u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kCompute)->value, 9'447'670u);
  EXPECT_EQ(log.figures.size(), 6u);
}

TEST(LlamaCppLog, SyclDeviceTableGivesEachDeviceItsNameAndTotalMemory) {
  // ggml-org/llama.cpp#9241 (b3616): ggml-sycl's table prints each device's
  // global memory as global_mem_size / 10^6, "M": 16704M and 8319M are
  // 16,704,000,000 and 8,319,000,000 B. Row ID i is SYCL<i>. No free
  // memory is printed.
  const RuntimeLog log = read("llamacpp-9241-qwen15-14b-q4ks-a770-a750-sycl.log");
  EXPECT_EQ(log.backend, "SYCL");
  ASSERT_GE(log.devices.size(), 2u);
  EXPECT_EQ(log.devices[0].id, "SYCL0");
  EXPECT_EQ(log.devices[0].name, "Intel Arc A770 Graphics");
  EXPECT_EQ(log.devices[0].total_bytes, std::optional<uint64_t>(16'704'000'000u));
  EXPECT_FALSE(log.devices[0].free_bytes.has_value());
  EXPECT_EQ(log.devices[1].id, "SYCL1");
  EXPECT_EQ(log.devices[1].total_bytes, std::optional<uint64_t>(8'319'000'000u));
}

TEST(LlamaCppLog, SyclTableHeaderAndRuleRowsAreNoDevices) {
  // The header ("|ID|  Device Type|...") and the rule ("|--|---...") have
  // no numeric ID; a row without a bracketed device type or an "M" size is
  // not the table's. Only the one real row makes a device.
  const std::string text =
      "|ID|        Device Type|                   Name|Version|units  |group   |group|size   |       Driver version|\n"
      "|--|-------------------|-----------------------|-------|-------|--------|-----|-------|---------------------|\n"
      "| 3|         level_zero|  Intel Arc A770 Graphics|    1.3|    512|    1024|   32| 16225M|            1.3.26241|\n"
      "| 1| [level_zero:gpu:1]|  Intel Arc A770 Graphics|    1.3|    512|    1024|   32|  16225|            1.3.26241|\n"
      "| 0| [level_zero:gpu:0]|  Intel Arc A770 Graphics|    1.3|    512|    1024|   32| 16225M|            1.3.26241|\n"
      "llama_kv_cache_init:      SYCL0 KV buffer size =   256.00 MiB\n";
  Result<RuntimeLog> log = read_runtime_log(text);
  ASSERT_TRUE(log.ok()) << log.error().message();
  std::vector<std::string> ids;
  for (const LogDevice& d : log->devices) ids.push_back(d.id);
  EXPECT_EQ(ids, std::vector<std::string>({"SYCL0"}));
  EXPECT_EQ(log->devices[0].total_bytes, std::optional<uint64_t>(16'225'000'000u));
}

TEST(LlamaCppLog, UnnamedSyclBuffersOfEarly2024AreTheMainDevices) {
  // ggml-org/llama.cpp#5469 (b2134): ggml-sycl's listing ("found 4 SYCL
  // devices:", then "Device i: ..., compute capability ...") names
  // SYCL0..SYCL3, not CUDA; its buffers report an empty name
  // ("llm_load_tensors:            buffer size =   601.02 MiB") and are
  // the main device's ("Using device 0 (...) as main device").
  const RuntimeLog log = read("llamacpp-neverllama8-5469-sycl-a750-tinyllama-q4km.log");
  EXPECT_EQ(log.version, "b2134");
  EXPECT_EQ(log.backend, "SYCL");
  ASSERT_EQ(log.devices.size(), 5u);  // SYCL0..SYCL3 and the host
  EXPECT_EQ(log.devices[0].id, "SYCL0");
  EXPECT_EQ(log.devices[0].name, "Intel(R) Arc(TM) A750 Graphics");
  EXPECT_EQ(log.devices[1].id, "SYCL1");
  EXPECT_EQ(log.devices[1].name, "Intel(R) FPGA Emulation Device");
  // 601.02 MiB = 601.02 x 1,048,576 = 630,215,147.52 -> 630,215,148.
  const PrintedFigure* model = find_figure(log, "SYCL0", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->value, 630'215'148u);
  EXPECT_EQ(model->band, kMiBBand);
  EXPECT_TRUE(model->buffers.empty());  // printed without a name
  // The host's CPU 35.16 MiB = 36,867,932.16 -> 36,867,932.
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kModel)->value, 36'867'932u);
  // "llama_kv_cache_init:            KV buffer size =    11.00 MiB":
  // 11 x 1,048,576 = 11,534,336 on SYCL0; the summary ("KV self size")
  // is then no "total" figure of its own.
  const PrintedFigure* kv = find_figure(log, "SYCL0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value, 11'534'336u);
  EXPECT_EQ(log.figures.size(), 3u);  // SYCL0 model and KV, CPU model: no "total"
}

TEST(LlamaCppLog, UnnamedBuffersOutsideSyclOrWithoutAMainDeviceNameNoDevice) {
  // The same lines under a CUDA listing, or under a SYCL listing that
  // names no main device, are no device's: no figure is read from them.
  const std::string lines =
      "llm_load_tensors:            buffer size =   601.02 MiB\n"
      "llm_load_tensors:        CPU buffer size =    35.16 MiB\n";
  for (const std::string& head :
       {std::string("ggml_cuda_init: found 1 CUDA devices:\n"
                    "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"),
        std::string("found 1 SYCL devices:\n"
                    "  Device 0: Intel(R) Arc(TM) A750 Graphics,\tcompute capability 1.3,\n")}) {
    Result<RuntimeLog> log = read_runtime_log(head + lines);
    ASSERT_TRUE(log.ok()) << log.error().message();
    ASSERT_EQ(log->figures.size(), 1u) << head;
    EXPECT_EQ(log->figures[0].device, "CPU");
    EXPECT_EQ(log->figures[0].value, 36'867'932u);  // 35.16 MiB, as above
  }
}

TEST(LlamaCppLog, TensorOverrideRulesOfTheCommandAreReadInTheOrderGiven) {
  // ik_llama.cpp#394's mainline reference run (b5331) starts with its
  // llama-server line: five --override-tensor rules, each in single
  // quotes (dropped), the experts of blocks 0-26 to CUDA0..CUDA3 and every
  // other block's to the CPU, which llama.cpp tries in that order (the
  // first match wins). The log itself names no overridden tensor.
  const RuntimeLog log = read("llamacpp-ik394-deepseek-v3-q2kxl-4gpu-ot-ub1024.log");
  EXPECT_EQ(setting_of(log, "override_tensor"),
            "blk\\.([0-7])\\..*_exps\\.=CUDA0,blk\\.([8-9]|1[0-1])\\..*_exps\\.=CUDA1,"
            "blk\\.(1[2-6])\\..*_exps\\.=CUDA2,blk\\.(1[7-9]|2[0-6])\\..*_exps\\.=CUDA3,"
            "blk\\..*_exps\\.=CPU");
  EXPECT_EQ(setting_of(log, "n_ubatch"), "1024");  // printed; -ub 1024 says the same
}

TEST(LlamaCppLog, OldModelSizeLineIsTheFileSize) {
  // ggml-org/ci, CUDA on a V100, b4343: before print_info, the file's size
  // was "llm_load_print_meta: model size       = 1.49 GiB (4.61 BPW)":
  // 1.49 x 2^30 = 1,599,875,317.76.
  const RuntimeLog log = read("llamacpp-ci4343-pythia28-q4_0-v100-cuda.log");
  EXPECT_EQ(log.devices[0].name, "Tesla V100-PCIE-16GB");
  ASSERT_TRUE(log.model.file_bytes.has_value());
  EXPECT_EQ(log.model.file_bytes->value, 1'599'875'318u);
  EXPECT_TRUE(log.model.metadata_complete());
}

TEST(LlamaCppLog, FileTypeLineIsRead) {
  // ggml-org/llama.cpp#8615: "llm_load_print_meta: model ftype      = Q2_K - Medium".
  const RuntimeLog log = read("llamacpp-8615-405b-merge-metal.log");
  EXPECT_EQ(setting_of(log, "file_type"), "Q2_K - Medium");
}

TEST(LlamaCppLog, HybridModelsPrintKvAndRecurrentStateApart) {
  // ggml-org/llama.cpp#23269: timestamps and levels before each function
  // name; Vulkan; a 41-layer hybrid with 10 attention layers.
  const RuntimeLog log = read("llamacpp-23269-hybrid-41layer-vulkan-mtp.log");
  EXPECT_EQ(log.backend, "Vulkan");
  EXPECT_EQ(setting_of(log, "n_ubatch"), "1088");
  EXPECT_EQ(setting_of(log, "kv_unified"), "true");
  EXPECT_EQ(find_figure(log, "Vulkan0", LogFigure::kKvCache)->value, 1'342'177'280u);  // 1280.00 MiB
  // 188.44 MiB = 197,593,661.44 -> 197,593,661.
  EXPECT_EQ(find_figure(log, "Vulkan0", LogFigure::kRecurrent)->value, 197'593'661u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kOutput)->value, 996'147u);  // 0.95 MiB = 996,147.2
}

TEST(LlamaCppLog, MemoryBreakdownRowsAreWholeMib) {
  // ggml-org/llama.cpp#15860: the breakdown alone, three RTX 4090s and the
  // host: "- CUDA0 (RTX 4090): 24080 = 9436 + (14193 = 13169 + 38 + 985) + 451".
  const RuntimeLog log = read("llamacpp-15860-memory-breakdown-3x4090.log");
  EXPECT_EQ(log.devices[0].name, "RTX 4090");
  EXPECT_EQ(log.devices[0].free_bytes, 9436ull << 20);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kModel)->value, 13169ull << 20);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kContext)->value, 38ull << 20);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kCompute)->value, 985ull << 20);
  EXPECT_EQ(find_figure(log, "CUDA1", LogFigure::kCompute)->value, 548ull << 20);
  // The host: "72 = 0 + 57 + 15".
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kContext)->value, 57ull << 20);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kModel)->band, 1u << 19);  // half a MiB
}

TEST(LlamaCppLog, FitTrialBreakdownsAreNotTheRun) {
  // ggml-org/llama.cpp#22673: --fit prints a breakdown per trial.
  const RuntimeLog log = read("llamacpp-22673-mtp-fit-rtx4090.log");
  EXPECT_TRUE(log.figures.empty());
  EXPECT_EQ(log.notes, (std::vector<std::string>{
                           "the memory breakdowns are --fit's trial allocations: not read"}));
}

TEST(LlamaCppLog, TheMultimodalProjectorsComputeBuffersAreNotTheContexts) {
  // ghghang2/v1.6 (llama-server with --mmproj, Qwen3.5 35B A3B): after the
  // text context's "sched_reserve: CUDA0 compute buffer size = 493.00 MiB"
  // mtmd's clip context prints "alloc_compute_meta: CUDA0 compute buffer
  // size = 248.10 MiB" and "CPU ... 24.93 MiB" for its own scheduler.
  const RuntimeLog log = read("llamacpp-ghghang2v16-qwen35-35b-a3b-q4kxl-rtxpro6000.log");
  // 493.00 MiB = 516,947,968 B, alone (with clip's it would be 741.10 MiB).
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kCompute)->value, 516'947'968u);
  // CUDA_Host 136.02 MiB = 142,627,307.52 -> 142,627,308, without clip's CPU 24.93 MiB.
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kCompute)->value, 142'627'308u);
  EXPECT_EQ(setting_of(log, "compute_function"), "sched_reserve");
}

TEST(LlamaCppLog, TheServersBuildInfoLineGivesTheBuild) {
  // ghghang2/v1.6's llama-server prints no "build:" line, only
  // "build_info: b8836-83d58e02f".
  EXPECT_EQ(read("llamacpp-ghghang2v16-qwen36-27b-q8kxl-rtxpro6000.log").version, "b8836");
}

TEST(LlamaCppLog, TheServers2024BuildInfoLineGivesTheBuildInEitherForm) {
  // ggml-org/llama.cpp#8551, the text form: "INFO [ main] build info |
  // tid=\"...\" timestamp=1721277895 build=3411 commit=\"e02b597b\"".
  const RuntimeLog text = read("llamacpp-neverllama7-8551-sycl-llama-q4_0-ngl20.log");
  EXPECT_EQ(text.version, "b3411");
  EXPECT_EQ(setting_of(text, "llama_server"), "true");
  EXPECT_EQ(setting_of(text, "form_server_build_info"), "true");
  // #8616, the JSON form: {"msg":"build info","build":2859,"commit":"7bd4ffb7"}.
  const RuntimeLog json = read("llamacpp-neverllama7-8616-3080-causallm-14b-q8_0-ngl0.log");
  EXPECT_EQ(json.version, "b2859");
  EXPECT_EQ(setting_of(json, "llama_server"), "true");
  // #9587's b3802 server prints "build: 3802 (a5b57b08)" and its thread
  // line, "system info: n_threads = 12, n_threads_batch = 12, total_threads
  // = 24": a server, without the 2024 form.
  const RuntimeLog later = read("llamacpp-neverllama7-9587-3060-gemma2-27b-q8_0-ngl0.log");
  EXPECT_EQ(later.version, "b3802");
  EXPECT_EQ(setting_of(later, "llama_server"), "true");
  EXPECT_EQ(later.setting("form_server_build_info"), nullptr);
  // #9628's llama-cli (b3808) prints none of the server's lines.
  EXPECT_EQ(read("llamacpp-neverllama7-9628-4x-h100-qwen2-57b-a14b-f16-ngl0.log").setting("llama_server"), nullptr);
}

TEST(LlamaCppLog, OllamasOldRunnerKeepsItsBuildInfoLineOutOfTheVersion) {
  // Ollama's runner of 2024 was llama.cpp's server and prints its "build
  // info | build=3171 commit=..." line: the vendored build is not the
  // version of an Ollama log.
  Result<RuntimeLog> log =
      read_runtime_log(read_test_log("ollama", "ollama-jetsoncopilot-mixtral-8x7b-q4_0-agx-orin.log"));
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->version, "b3171");
  EXPECT_EQ(log->setting("form_server_build_info"), nullptr);
}

TEST(LlamaCppLog, ACommandContinuedOverLinesIsReadWhole) {
  // ggml-org/llama.cpp#14201: the poster's llama-server command, one flag
  // a line with the shell's " \\", its --override-tensor on the last line.
  const RuntimeLog log = read("llamacpp-14201-deepseek-r1-q2k-3090.log");
  EXPECT_EQ(setting_of(log, "override_tensor"), ".ffn_.*_exps.=CPU");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "99");
  EXPECT_EQ(setting_of(log, "flash_attn"), "enabled");
}

TEST(LlamaCppLog, CannDevicesNameTheBackendAndTheirHostBufferIsTheHosts) {
  // A guide to llama-server on eight Ascend 910B NPUs (b6115): no CUDA,
  // Vulkan or Metal line; the backend is the devices' ("using device CANN0
  // (Ascend910B4) - 29812 MiB free"), and CANN_Host's output buffer is the
  // host's.
  const RuntimeLog log = read("llamacpp-neverllama5-gptoss20b-mxfp4-8x-ascend910b-cann.log");
  EXPECT_EQ(log.backend, "CANN");
  EXPECT_EQ(log.version, "b6115");
  ASSERT_EQ(log.devices.size(), 9u);  // CANN0..CANN7 and the host
  EXPECT_EQ(log.devices[0].id, "CANN0");
  EXPECT_EQ(log.devices[0].name, "Ascend910B4");
  ASSERT_TRUE(log.devices[0].free_bytes.has_value());
  EXPECT_EQ(*log.devices[0].free_bytes, 31'260'147'712u);  // 29812 x 2^20
  EXPECT_EQ(log.devices[8].id, "CPU");
  // 0.77 MiB = 807,403.52 -> 807,404 on the host.
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kOutput)->value, 807'404u);
  // CANN0's two caches, 512.00 + 3.00 MiB = 515 x 2^20 = 540,016,640.
  EXPECT_EQ(find_figure(log, "CANN0", LogFigure::kKvCache)->value, 540'016'640u);
}

TEST(LlamaCppLog, LmStudiosDebugLinesInterleaveWithTheEnginesLines) {
  // LM Studio's developer log (Metal runtime 1.44.0): a "2025-08-12
  // 00:27:55 [DEBUG]" line before a batch of the engine's lines, the
  // batch's first line indented by one space.
  const RuntimeLog log = read("llamacpp-neverllama5-gptoss120b-mxfp4-m4max-lmstudio.log");
  EXPECT_EQ(log.backend, "Metal");
  ASSERT_EQ(log.devices.size(), 2u);
  EXPECT_EQ(log.devices[0].id, "Metal");
  EXPECT_EQ(log.devices[0].name, "Apple M4 Max");
  EXPECT_EQ(*log.devices[0].free_bytes, 103'078'166'528u);  // 98303 x 2^20
  EXPECT_EQ(setting_of(log, "n_ctx"), "4096");
  EXPECT_EQ(setting_of(log, "n_batch"), "512");
  EXPECT_EQ(setting_of(log, "flash_attn"), "0");
  EXPECT_EQ(setting_of(log, "swa_full"), "true");  // "using full-size SWA cache"
  // Two Metal_Mapped buffers, one a split file: 37958.69 x 2^20 =
  // 39,802,571,325.44 -> 39,802,571,325 and 22479.80 x 2^20 =
  // 23,571,778,764.8 -> 23,571,778,765; 63,374,350,090.
  const PrintedFigure* model = find_figure(log, "Metal", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->value, 63'374'350'090u);
  EXPECT_EQ(model->band, 2 * kMiBBand);
  // The two caches, 144.00 + 144.00 MiB = 288 x 2^20.
  EXPECT_EQ(find_figure(log, "Metal", LogFigure::kKvCache)->value, 301'989'888u);
  // 819.26 MiB = 859,056,373.76 -> 859,056,374.
  EXPECT_EQ(find_figure(log, "Metal", LogFigure::kCompute)->value, 859'056'374u);
}

TEST(LlamaCppLog, AFileViewsLineNumbersPrefixEachLine) {
  // An agent's transcript of llama-server's stderr file, each line as the
  // file view shows it ("158: llama_kv_cache: ..."), b7972 on a Radeon Pro
  // VII with --fit's 21 of 29 layers and q8_0 K and V.
  const RuntimeLog log = read("llamacpp-neverllama5-qwen25vl-7b-q6kxl-rocm-provii-fit.log");
  EXPECT_EQ(log.backend, "ROCm");
  EXPECT_EQ(log.version, "b7972");
  EXPECT_EQ(log.devices[0].name, "AMD Radeon (TM) Pro VII");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "21");
  EXPECT_EQ(setting_of(log, "n_seq_max"), "4");
  EXPECT_EQ(setting_of(log, "kv_unified"), "true");
  EXPECT_EQ(setting_of(log, "cache_type_k"), "q8_0");
  EXPECT_TRUE(log.model.metadata_complete());  // 141 f32 + 106 q8_0 + 92 q6_K = 339
  // 544.00 and 1360.00 MiB: 570,425,344 and 1,426,063,360.
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kKvCache)->value, 570'425'344u);
  EXPECT_EQ(find_figure(log, "ROCm0", LogFigure::kKvCache)->value, 1'426'063'360u);
  // 4416.86 MiB = 4,631,413,391.36 -> 4,631,413,391.
  EXPECT_EQ(find_figure(log, "ROCm0", LogFigure::kModel)->value, 4'631'413'391u);
}

TEST(LlamaCppLog, AnEarlyUnifiedCachesInitLinesGiveItsBuffer) {
  // b5050 on a Jetson Nano: the unified cache's constructor printed its
  // buffers as "init:      CUDA0 KV buffer size =   104.00 MiB" (104 x 2^20
  // = 109,051,904), the total as "llama_context: KV self size".
  const RuntimeLog log = read("llamacpp-neverllama5-gemma3-1b-q4km-jetson-nano.log");
  EXPECT_EQ(log.version, "b5050");
  EXPECT_EQ(log.devices[0].name, "NVIDIA Tegra X1");
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kKvCache)->value, 109'051'904u);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kCompute)->value, 539'230'208u);  // 514.25 MiB
  // No "total" cache beside it: the buffer line is the cache. Model (CUDA0,
  // CPU_Mapped), output, KV, compute (CUDA0, CUDA_Host): six figures.
  EXPECT_EQ(log.figures.size(), 6u);
}

TEST(LlamaCppLog, MetalRunNamesItsGpu) {
  // ggml-org/llama.cpp#11083: the old kv_size line carries the cache types.
  const RuntimeLog log = read("llamacpp-11083-mac-m4-metal-28layer.log");
  EXPECT_EQ(log.backend, "Metal");
  EXPECT_EQ(log.devices[0].id, "Metal");
  EXPECT_EQ(log.devices[0].name, "Apple M4");
  EXPECT_EQ(setting_of(log, "kv_offload"), "true");
  EXPECT_EQ(find_figure(log, "Metal", LogFigure::kKvCache)->value, 117'440'512u);  // 112.00 MiB
  EXPECT_EQ(find_figure(log, "Metal", LogFigure::kCompute)->value, 314'310'656u);  // 299.75 MiB
}

TEST(LlamaCppLog, IndexedMetalBuildListsItsOneGpuOnce) {
  // urika/llama-defender (Homebrew's ggml 0.11.0): "GPU name:   MTL0
  // (Apple M5 Pro)", the device the buffer lines name (MTL0_Mapped, MTL0):
  // one GPU, not a "Metal" device beside it.
  const RuntimeLog log = read("llamacpp-urika-qwen35-9b-q8kv-m5pro-metal.log");
  EXPECT_EQ(log.backend, "Metal");
  std::vector<std::string> ids;
  for (const LogDevice& d : log.devices) ids.push_back(d.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"MTL0", "CPU"}));
  EXPECT_EQ(log.devices[0].name, "Apple M5 Pro");
  // 501.00 MiB = 525,336,576 B.
  EXPECT_EQ(find_figure(log, "MTL0", LogFigure::kCompute)->value, 525'336'576u);
}

TEST(LlamaCppLog, MetalGpuNameLineNamesTheDeviceItsBuildUses) {
  // An older build: the MTLDevice's name alone, the device "Metal"; a first
  // indexed build: "MTL0" alone, no name.
  Result<RuntimeLog> old = read_runtime_log(
      "ggml_metal_init: GPU name:   Apple M2 Pro\nllama_kv_cache: Metal KV buffer size = 64.00 MiB\n");
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->devices.size(), 1u);
  EXPECT_EQ(old->devices[0].id, "Metal");
  EXPECT_EQ(old->devices[0].name, "Apple M2 Pro");
  Result<RuntimeLog> bare = read_runtime_log(
      "ggml_metal_device_init: GPU name:   MTL0\nllama_kv_cache:       MTL0 KV buffer size = 64.00 MiB\n");
  ASSERT_TRUE(bare.ok());
  ASSERT_EQ(bare->devices.size(), 1u);
  EXPECT_EQ(bare->devices[0].id, "MTL0");
  EXPECT_EQ(bare->devices[0].name, "");
}

TEST(LlamaCppLog, DevicesAreOrderedByBackendAndIndex) {
  // ggml-org/llama.cpp#9390 prints CUDA2's buffer first.
  const RuntimeLog log = read("llamacpp-9390-deepseek-8gpu-layer-split.log");
  std::vector<std::string> ids;
  for (const LogDevice& d : log.devices) ids.push_back(d.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"CUDA0", "CUDA1", "CUDA2", "CUDA3", "CUDA4", "CUDA5",
                                           "CUDA6", "CUDA7"}));
  EXPECT_EQ(setting_of(log, "cache_type_k"), "q4_0");
  EXPECT_EQ(setting_of(log, "n_seq_max"), "8");
}

TEST(LlamaCppLog, TextOfNoRuntimeIsRefused) {
  Result<RuntimeLog> log = read_runtime_log("hello\nworld\n");
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error().message(),
            "runtime log: not a log memfit reads: no line of llama.cpp, Ollama, vLLM, SGLang or "
            "mlx-lm");
}

TEST(LlamaCppLog, ASecondModelLoadIsNotRead) {
  // Two loads, neither building a context: the first that loaded tensors
  // is read, its 100 MiB once, not 200.
  const std::string one =
      "llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from a.gguf\n"
      "load_tensors:        CUDA0 model buffer size =   100.00 MiB\n";
  Result<RuntimeLog> log = read_runtime_log(one + one);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(find_figure(*log, "CUDA0", LogFigure::kModel)->value, 100ull << 20);
  EXPECT_EQ(log->notes, (std::vector<std::string>{
                            "the log loads a model again at line 3 (a reload, a draft model): only the "
                            "load at line 1 is read, later loads are left out"}));
}

TEST(LlamaCppLog, AReloadWithoutItsHeaderIsNotAddedToTheRun) {
  // ggml-org/llama.cpp#14752: llama-server at -c 4096 (its context built),
  // then the poster's second try at -c 16384, pasted from load_tensors on
  // (no "loaded meta data" line) and failing at its compute buffers. The
  // buffers are read once, from the first load:
  // CUDA0 27419.00 MiB = 27,419 x 1,048,576 = 28,750,905,344 B (not twice that);
  // CUDA1 12915.31 MiB = 13,542,684,098.56 -> 13,542,684,099 B;
  // the KV is the first context's, 608.00 MiB = 637,534,208 B, not 2432.00 MiB.
  const RuntimeLog log = read("llamacpp-14752-nemotron-super-49b-q6kxl-5090-2gpu.log");
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kModel)->value, 28'750'905'344u);
  EXPECT_EQ(find_figure(log, "CUDA1", LogFigure::kModel)->value, 13'542'684'099u);
  EXPECT_EQ(find_figure(log, "CUDA0", LogFigure::kKvCache)->value, 637'534'208u);
  EXPECT_EQ(setting_of(log, "n_ctx"), "4096");
  EXPECT_NE(std::find(log.notes.begin(), log.notes.end(),
                      "the log loads a model again at line 174 (a reload, a draft model): only the "
                      "load at line 16 is read, later loads are left out"),
            log.notes.end());
}

// sched_reserve's summary of the graph reservation (from b7772; before
// it llama_context's): the worst-case graph's tokens, which the pricer
// takes for n_ubatch where none is printed. KlimtechRAG's b7972 llama-server
// on a Radeon Pro VII (the sidecar names the file) prints "sched_reserve:
// graph splits = 114 (with bs=512), 2 (with bs=1)".
TEST(LlamaCppLog, SchedReserveGraphSplitsGiveTheWorstCaseTokens) {
  const RuntimeLog log = read("llamacpp-neverllama5-qwen25vl-7b-q6kxl-rocm-provii-fit.log");
  EXPECT_EQ(setting_of(log, "worst_case_tokens"), "512");
  EXPECT_EQ(setting_of(log, "form_graph_summary_v050"), "<none>");
}

// v0.5.0's sched_reserve prints one summary line (#26625; src/llama-context.cpp,
// "%s: graph%s: nodes = %s, splits = %s, input objects = %s, input tensors
// = %s"), labelled " (pp bs=<n_tokens>, tg bs=<n_seqs>)" with "pp / tg"
// counts where the prompt and generation graphs differ, bare where they
// agree. No public log of a v0.5.0 build was found: the lines are written
// by the format string. The labelled form gives the worst-case tokens; both
// are kept as the dated form form_graph_summary_v050.
TEST(LlamaCppLog, V050GraphSummaryIsReadInBothForms) {
  const std::string head =
      "llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from a.gguf\n"
      "load_tensors:          CPU model buffer size =   100.00 MiB\n"
      "llama_context: n_ctx         = 4096\n"
      "llama_kv_cache:        CPU KV buffer size =     8.00 MiB\n"
      "sched_reserve:        CPU compute buffer size =    64.50 MiB\n";
  Result<RuntimeLog> labelled = read_runtime_log(
      head + "sched_reserve: graph (pp bs=512, tg bs=1): nodes = 1126 / 1126, splits = 1 / 1, "
             "input objects = 9 / 8, input tensors = 11 / 10\n");
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(setting_of(*labelled, "worst_case_tokens"), "512");
  EXPECT_EQ(setting_of(*labelled, "form_graph_summary_v050"), "true");
  // 64.50 MiB = 67,633,152 B: the summary moves no figure.
  EXPECT_EQ(find_figure(*labelled, "CPU", LogFigure::kCompute)->value, 67'633'152u);
  Result<RuntimeLog> bare = read_runtime_log(
      head + "sched_reserve: graph: nodes = 1126, splits = 1, input objects = 9, input tensors = 11\n");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(setting_of(*bare, "worst_case_tokens"), "<none>");
  EXPECT_EQ(setting_of(*bare, "form_graph_summary_v050"), "true");
}

// load_tensors prints the load mode from v0.4.0 at least ("loading model
// tensors, this can take a while... (load_mode = mmap)", the corpus's
// b9xxx logs); none, mlock and dio read the file into buffers (the
// loader's use_mmap is mmap, mmap+mlock or auto only), as does
// --load-mode (-lm) with those values, which replaced --no-mmap.
TEST(LlamaCppLog, LoadModeOtherThanMmapIsNoMmap) {
  const std::string loader =
      "llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from a.gguf\n";
  const std::string body =
      "load_tensors:          CPU model buffer size =   100.00 MiB\n"
      "llama_context: n_ctx         = 4096\n";
  // `extra` goes after the loader's line (a load's own line) or, for a
  // command, before it (the lines before the first load are every load's).
  const auto no_mmap = [&](const std::string& extra) {
    const bool command = extra.starts_with("llama-server");
    Result<RuntimeLog> log = read_runtime_log(command ? extra + loader + body : loader + extra + body);
    EXPECT_TRUE(log.ok());
    return log.ok() ? setting_of(*log, "no_mmap") : "";
  };
  const std::string loading = "load_tensors: loading model tensors, this can take a while... ";
  EXPECT_EQ(no_mmap(loading + "(load_mode = none)\n"), "true");
  EXPECT_EQ(no_mmap(loading + "(load_mode = dio)\n"), "true");
  EXPECT_EQ(no_mmap(loading + "(load_mode = mlock)\n"), "true");
  EXPECT_EQ(no_mmap(loading + "(load_mode = mmap)\n"), "<none>");
  EXPECT_EQ(no_mmap(loading + "(load_mode = mmap+mlock)\n"), "<none>");
  EXPECT_EQ(no_mmap(loading + "(mmap = false)\n"), "true");
  EXPECT_EQ(no_mmap("llama-server -m a.gguf -lm dio -c 4096\n"), "true");
  EXPECT_EQ(no_mmap("llama-server -m a.gguf --load-mode mmap -c 4096\n"), "<none>");
}

TEST(LlamaCppLog, ALoadThatBuiltNoContextGivesWayToTheNext) {
  // A first try whose context was never built (it failed), then a load
  // that built one: the second is the run, 100 MiB and its 8 MiB of KV.
  const std::string failed =
      "load_tensors:        CUDA0 model buffer size =   300.00 MiB\n"
      "error loading model: out of memory\n";
  const std::string run =
      "llama_model_loader: loaded meta data with 1 key-value pairs and 1 tensors from a.gguf\n"
      "load_tensors:        CUDA0 model buffer size =   100.00 MiB\n"
      "llama_context: n_ctx         = 512\n"
      "llama_kv_cache:      CUDA0 KV buffer size =     8.00 MiB\n";
  Result<RuntimeLog> log = read_runtime_log("build: 5894 (33f1bb9f) with cc\n" + failed + run);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->version, "b5894");  // the lines before the first load are every load's
  EXPECT_EQ(find_figure(*log, "CUDA0", LogFigure::kModel)->value, 100ull << 20);
  EXPECT_EQ(find_figure(*log, "CUDA0", LogFigure::kKvCache)->value, 8ull << 20);
  EXPECT_EQ(setting_of(*log, "n_ctx"), "512");
  EXPECT_EQ(log->notes, (std::vector<std::string>{
                            "the model load at line 2 built no context (it failed): left out; the "
                            "load at line 4 is read"}));
}

}  // namespace
}  // namespace memfit

namespace memfit {
namespace {

// A SYCL run printed under a decimal-comma locale (the comma-locale sidecar
// names the source): printf's %8.2f writes "13486,77 MiB", and every comma
// that ends a number's first digits is read as the decimal point, while
// "arr[i32,152064]" (a type and a count) keeps its comma, so the dump stays
// whole (33 entries) and the figures are the ones a point locale prints.
TEST(LlamaCppLog, DecimalCommaLocaleReadsCommasAsPoints) {
  const RuntimeLog log = read("llamacpp-neverllama6-mathtutor7b-f16-sycl-a770-comma-locale.log");
  // 1348677 x 2^20 / 100 = 14,141,903,339.52 -> 14,141,903,340.
  const PrintedFigure* model = find_figure(log, "SYCL0", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->value, 14'141'903'340u);
  EXPECT_EQ(model->band, kMiBBand);
  // 103950 x 2^20 / 100 = 1,089,994,752 (CPU_Mapped 1039,50 MiB).
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kModel)->value, 1'089'994'752u);
  // 224,00 MiB = 224 x 2^20 = 234,881,024; 304,00 MiB = 318,767,104;
  // 0,58 MiB = 58 x 2^20 / 100 = 608,174.08 -> 608,174.
  EXPECT_EQ(find_figure(log, "SYCL0", LogFigure::kKvCache)->value, 234'881'024u);
  EXPECT_EQ(find_figure(log, "SYCL0", LogFigure::kCompute)->value, 318'767'104u);
  EXPECT_EQ(find_figure(log, "CPU", LogFigure::kOutput)->value, 608'174u);
  EXPECT_EQ(model->text, "13486.77 MiB");
  // "arr[i32,152064]" read as an array: all 33 entries, the dump whole.
  EXPECT_EQ(log.model.metadata.size(), 33u);
  EXPECT_TRUE(log.model.metadata_complete());
  // "14,19 GiB": 1419 x 2^30 / 100 = 15,236,396,482.56 -> 15,236,396,483.
  ASSERT_TRUE(log.model.file_bytes.has_value());
  EXPECT_EQ(log.model.file_bytes->value, 15'236'396'483u);
  EXPECT_TRUE(std::any_of(log.notes.begin(), log.notes.end(), [](const std::string& n) {
    return n.find("decimal commas") != std::string::npos;
  }));
}

// A point-locale log is read as printed: no note, and its "0.58 MiB" stays.
TEST(LlamaCppLog, PointLocaleLogGetsNoDecimalCommaNote) {
  const RuntimeLog log = read("llamacpp-neverllama6-ipex-mistral7b-q4km-sycl-a770.log");
  EXPECT_FALSE(std::any_of(log.notes.begin(), log.notes.end(), [](const std::string& n) {
    return n.find("decimal commas") != std::string::npos;
  }));
  // 4095.05 MiB = 409505 x 2^20 / 100 = 4,293,971,148.8 -> 4,293,971,149.
  EXPECT_EQ(find_figure(log, "SYCL0", LogFigure::kModel)->value, 4'293'971'149u);
}

}  // namespace
}  // namespace memfit
