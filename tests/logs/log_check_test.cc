// check_log (log_check.h): logged runs priced through run(), the model
// rebuilt from llama.cpp's metadata dump or read from a config; every
// exact figure worked by hand. The pinned logs are the real llama.cpp's
// (tests/data/logs/llamacpp/llamacpp-pinned-*.json say how they were made).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <cstdlib>
#include <utility>

#include <nlohmann/json.hpp>

#include "logs/log_pricer.h"
#include "logs/log_test_data.h"
#include "memfit/log_check.h"
#include "support/paths.h"

namespace memfit {
namespace {

using testing::read_test_log;

LogCheck check(const std::string& engine, const std::string& file, const LogCheckOptions& options = {}) {
  return testing::check_test_log(engine, file, options);
}

constexpr auto figure = &testing::find_check_figure;

TEST(CheckLog, PinnedLlamaRunRebuiltFromItsDumpIsExact) {
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  EXPECT_EQ(c.profile, "llamacpp");
  EXPECT_EQ(c.model_source, ModelSource::kLog);
  EXPECT_EQ(c.not_priced, "");
  // KV: 4 layers x 4096 cells x (2 x 64 K + 2 x 64 V) x 2 B = 8,388,608.
  const FigureCheck* kv = figure(c, "CPU", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 8'388'608u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
  EXPECT_EQ(kv->ratio, 1.0);
  EXPECT_TRUE(kv->within_print);
  // Output: 4 B x 32,000 vocab x 1 sequence = 128,000 B against the
  // printed 0.12 MiB = 125,829 +- 5,243: inside the rounding.
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  EXPECT_EQ(output->memfit, 128'000u);
  EXPECT_TRUE(output->within_print);
  // Compute: the pinned graph replayed, 67,635,200 B = 64.502 MiB, which
  // llama.cpp prints as 64.50 (67,633,152 +- 5,243).
  const FigureCheck* compute = figure(c, "CPU", LogFigure::kCompute);
  EXPECT_EQ(compute->memfit, 67'635'200u);
  EXPECT_EQ(compute->basis, FigureBasis::kExact);
  EXPECT_TRUE(compute->within_print);
  // Model: the printed file size (53,005,517 B) and the repacked copies.
  // No rebuilt list types the file (its F16 file type takes no
  // --tensor-type: llama-quantize retypes by pattern only under a
  // quantized type), but every typing of the converter's roles that holds
  // the counts repacks the same: 16 q4_0 and 12 q4_K fill the 7 block
  // roles of 4 (4.5 bits a weight either way, both repacked on AVX-512),
  // f16 and q6_K token_embd and output (neither repacked). A block: Q, O
  // 2 x 512 x 512, K, V 2 x 512 x 128 = 655,360 weights, gate, up, down 3
  // x 512 x 1,536 = 2,359,296: 3,014,656 / 32 x 18 = 1,695,744 B, every
  // row count a multiple of 8; x 4 = 6,782,976 ("CPU_REPACK 6.47 MiB" =
  // 6,784,287 +- 5,243). 53,005,517 + 6,782,976 = 59,788,493.
  const FigureCheck* model = figure(c, "CPU", LogFigure::kModel);
  EXPECT_EQ(model->memfit, 59'788'493u);
  EXPECT_EQ(model->basis, FigureBasis::kModelled);
  EXPECT_TRUE(model->within_print);
  EXPECT_TRUE(model->note.starts_with("CPU_REPACK's copies priced from the dump's type counts: every "
                                      "typing of the converter's roles that holds them and the file "
                                      "size repacks 6782976 bytes (x86-avx512)"))
      << model->note;
}

TEST(CheckLog, RepackedCopiesStayUnpricedWhereTheTypingsDisagree) {
  // The pinned DeepSeek-V2 MLA model: f16 8, q4_K 21, q6_K 1, q8_0 18
  // over the converter's 48 matrices (its routers F32, as the converter
  // keeps them). The loader's "tensor 'token_embd.weight' (q8_0) (and 36
  // others) cannot be used with preferred buffer type CPU_REPACK": 37 of
  // the 52 loaded tensors (74 less the NextN block 3's 22) stay off it, so
  // 15 are repacked. The file's own typing repacks block 0's q4_K FFN, 3 x
  // 512 x 1,536 = 2,359,296 weights, and blocks 1-2's q4_K experts and
  // shared expert, 2 x (3 x 512 x 256 x 16 + 3 x 512 x 256) = 13,369,344:
  // 15,728,640 / 256 x 144 = 8,847,360 B ("CPU_REPACK 8.44 MiB"); two
  // other typings hold the counts, the size and the 37 too (8,773,632 and
  // 14,303,232 B), so the row keeps the mapped file alone and says so.
  const LogCheck c = check("llamacpp", "llamacpp-pinned-deepseek2-mla-ctx4096.log");
  EXPECT_EQ(testing::setting_of(c.log, "repack_fallback_count"), "37");
  EXPECT_EQ(testing::setting_of(c.log, "repack_fallback_tensor"), "token_embd.weight");
  EXPECT_EQ(testing::setting_of(c.log, "repack_fallback_type"), "q8_0");
  const FigureCheck* model = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->note.starts_with("CPU_REPACK's copies need the tensor list")) << model->note;
  EXPECT_NE(model->note.find("and the loader's 37 tensors off CPU_REPACK (token_embd.weight, q8_0) repack 3 "
                             "different sizes, 8773632 to 14303232 bytes: the log does not say which"),
            std::string::npos)
      << model->note;
}

TEST(CheckLog, ADumpOfLlamaQuantizesTypesGivesItsTensorsExactlyOnCuda) {
  // ggml-org/ci, b2459: open-llama 7B v2 Q4_0, -ngl 999 on a V100. The
  // Q4_0 GGUF llama-quantize writes from the dump's hparams holds 65 f32
  // norms, 225 q4_0 matrices (7 a block x 32 + token_embd) and the q6_K
  // output: the log's counts. token_embd stays on the host (an input
  // layer): 32,000 x 4,096 / 32 x 18 B = 73,728,000 B against "70.31 MiB"
  // = 73,725,379 +- 5,243. CUDA0 holds the rest: the file's 3,825,065,984
  // B less token_embd is 3,751,337,984 B, every tensor a multiple of 128 B
  // but each ffn_down, whose 11,008-wide rows ggml-cuda pads once to
  // 11,264 (MATRIX_ROW_PADDING 512: 256 q4_0 elements = 8 x 18 = 144 B),
  // 25,362,432 + 144 rounded up to 128 B: 256 B more, x 32 blocks = 8,192.
  const LogCheck c = check("llamacpp", "llamacpp-ci2459-openllama7b-q4_0-v100-cuda.log");
  EXPECT_EQ(c.model_source, ModelSource::kLog);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 73'728'000u);
  EXPECT_EQ(host->basis, FigureBasis::kExact);
  EXPECT_TRUE(host->within_print);
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kModel);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 3'751'346'176u);
  EXPECT_EQ(gpu->basis, FigureBasis::kExact);
  EXPECT_TRUE(gpu->within_print);  // "3577.56 MiB" = 3,751,343,555 +- 5,243
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_TRUE(c.warnings[0].text.starts_with(
      "weights: the Q4_0 GGUF llama-quantize writes from the dump's hyperparameters, 291 tensors "
      "(f32 65, q4_0 225, q6_K 1)"))
      << c.warnings[0].text;
}

TEST(CheckLog, AGptNeoxDumpRebuildsPythiasTensorsExactlyOnCuda) {
  // ggml-org/ci, b4343: Pythia 2.8B Q4_0, -ngl 99 on a V100; hidden 2,560,
  // MLP 10,240, vocabulary 50,304, 32 blocks. The Q4_0 GGUF llama-quantize
  // writes: output Q6_K, every other matrix (token_embd untied, attn_qkv,
  // attn_output, ffn_up, ffn_down) Q4_0, the norms and biases F32: f32 2 +
  // 32 x 8 = 258, q4_0 1 + 32 x 4 = 129, q6_K 1, the log's counts.
  // token_embd, on the host: 2,560 x 50,304 / 32 x 18 = 72,437,760 B =
  // "69.08 MiB". CUDA0: output 128,778,240 / 256 x 210 = 105,638,400, a
  // block's matrices (19,660,800 + 6,553,600 + 2 x 26,214,400 elements) /
  // 32 x 18 = 44,236,800 and its F32 33,280 x 4 = 133,120, x 32 =
  // 1,419,837,440, the output norm 20,480: 1,525,496,320 B, no row padded
  // (2,560 and 10,240 are multiples of 512), every tensor a multiple of
  // 128 B: "1454.83 MiB" = 1,525,499,822 +- 5,243.
  const LogCheck c = check("llamacpp", "llamacpp-ci4343-pythia28-q4_0-v100-cuda.log");
  EXPECT_EQ(c.model_source, ModelSource::kLog);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 72'437'760u);
  EXPECT_EQ(host->basis, FigureBasis::kExact);
  EXPECT_TRUE(host->within_print);
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kModel);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 1'525'496'320u);
  EXPECT_EQ(gpu->basis, FigureBasis::kExact);
  EXPECT_TRUE(gpu->within_print);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_TRUE(c.warnings[0].text.starts_with(
      "weights: the Q4_0 GGUF llama-quantize writes from the dump's hyperparameters, 388 tensors "
      "(f32 258, q4_0 129, q6_K 1), 1597934080 bytes"))
      << c.warnings[0].text;
}

TEST(CheckLog, AGuessedFileTypeIsTheOneWhoseGgufHoldsTheCounts) {
  // ggml-org/ci, b4438: Pythia 2.8B F16 with no general.file_type: llama.cpp
  // prints "all F32 (guessed)" (the 258 F32 norms and biases outnumber the
  // 130 F16 matrices). Of the file types memfit rebuilds only F16 holds
  // f32 258, f16 130; token_embd on the host: 2,560 x 50,304 x 2 B =
  // 257,556,480 B = "245.62 MiB". Vulkan's alignments are not read: the
  // rows are modelled.
  const LogCheck c = check("llamacpp", "llamacpp-ci4438-pythia28-f16-t4-vulkan.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 257'556'480u);
  EXPECT_EQ(host->basis, FigureBasis::kModelled);
  EXPECT_TRUE(host->within_print);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_TRUE(c.warnings[0].text.starts_with(
      "weights: the F16 GGUF llama-quantize writes from the dump's hyperparameters, 388 tensors "
      "(f16 130, f32 258)"))
      << c.warnings[0].text;
}

TEST(CheckLog, MetalMapsTheFileRangeFromItsFirstTensorToItsLast) {
  // ggml-org/ci, b4464: Pythia 1.4B Q4_0 on an M4, every layer on Metal;
  // hidden 2,048, MLP 8,192, vocabulary 50,304, 24 blocks. llama-quantize's
  // file order: output, output_norm, token_embd, then the blocks, so the
  // Metal range from output to the last block holds the host's token_embd,
  // 2,048 x 50,304 / 32 x 18 = 57,950,208 B ("CPU_Mapped 55.27 MiB"). The
  // whole file's tensors: token_embd + output 103,022,592 / 256 x 210 =
  // 84,510,720 + 24 blocks x (50,331,648 elements of matrices / 32 x 18 =
  // 28,311,552 + 26,624 F32 x 4 = 106,496) = 682,033,152 + output_norm
  // 16,384 = 824,510,464 B against "786.33 MiB" = 824,526,766 +- 5,243:
  // 16,302 B short: ggml-metal maps from the page below the range, and the
  // print adds the range's offset in its 16 KiB page, 0 to 16,384 - 32 =
  // 16,352 B for its one buffer (the header's length decides it: not
  // priced). 16,302 lies within 16,352 + the print's 5,243.
  const LogCheck c = check("llamacpp", "llamacpp-ci4464-pythia14-q4_0-m4-metal.log");
  const FigureCheck* metal = figure(c, "Metal", LogFigure::kModel);
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->memfit, 824'510'464u);
  EXPECT_EQ(metal->basis, FigureBasis::kModelled);
  EXPECT_FALSE(metal->within_print);
  EXPECT_EQ(metal->note, "Metal maps the file's range from this device's first tensor to its last, "
                         "which holds 57950208 bytes of the host's tensors between them; the print adds "
                         "the offset of the range's start in its page (ggml-metal maps from the page "
                         "below: 0 to 16352 B over 1 buffer(s)), which the header's length decides and "
                         "the dump does not give");
  EXPECT_EQ(figure(c, "CPU", LogFigure::kModel)->memfit, 57'950'208u);
}

TEST(CheckLog, Lfm2BeforeItsTiedOutputCopyMapsItsBlocksAloneOnMetal) {
  // #14670 (b5890, LFM2 1.2B Q6_K on an M4 Max, every layer on Metal).
  // Before #15476 (b6250 taken) LFM2's graph multiplied by the input
  // layer's token_embd, on the host, and the loader made no copy: Metal
  // holds the 16 blocks. Each: ffn gate/up/down 3 x 2,048 x 8,192 at Q6_K
  // (x 210 / 256) = 41,287,680 + two norms 2 x 8,192 = 41,304,064, x 16 =
  // 660,865,024; 10 conv blocks' in_proj 2,048 x 6,144 = 10,321,920 +
  // out_proj 3,440,640 + conv 3 x 2,048 f32 = 24,576: 137,871,360; 6
  // attention blocks' q and o 2 x 3,440,640 + k and v 2 x 860,160 + q/k
  // norms 512 = 51,612,672. 850,349,056 B against "810.97 MiB" =
  // 850,363,679 +- 5,243: 14,623 B over, within the range's page offset
  // (0 to 16,352 B). With the copy it was 960,449,536 (+ token_embd
  // 65,536 x 2,048 x 210 / 256 = 110,100,480), 1.1295 of the print.
  const LogCheck c = check("llamacpp", "llamacpp-neverllama6-14670-lfm2-1.2b-q6k-metal-np2.log");
  const FigureCheck* metal = figure(c, "Metal", LogFigure::kModel);
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->memfit, 850'349'056u);
  EXPECT_EQ(metal->basis, FigureBasis::kModelled);
  EXPECT_EQ(metal->note, "Metal maps the file's range from this device's first tensor to its last, its own "
                         "tensors alone; the print adds the offset of the range's start in its page "
                         "(ggml-metal maps from the page below: 0 to 16352 B over 1 buffer(s)), which the "
                         "header's length decides and the dump does not give");
  // The host: token_embd 110,100,480 + token_embd_norm 8,192.
  EXPECT_EQ(figure(c, "CPU", LogFigure::kModel)->memfit, 110'108'672u);
}

TEST(CheckLog, AMetalRangePastItsPageNamesTheConvertersOrder) {
  // llamacpp-yeti (b6050, Mistral Nemo Q5_K_M on an M2 Pro): memfit's
  // range, in llama-quantize's order since #9935, spans the host's
  // token_embd (131,072 x 5,120 at Q6_K: 671,088,640 x 210 / 256 =
  // 461,373,440 B), 8,719,749,120 B against "7875.80 MiB" = 8,258,374,861
  // +- 5,243: past the page's 16,352 B. In the converter's order (a file
  // quantized before #9935) the range is the device's tensors alone:
  // 8,719,749,120 - 461,373,440 = 8,258,375,680 B, 819 B from the print.
  const LogCheck c = check("llamacpp", "llamacpp-yeti-mistral-nemo-q5km-m2pro-metal.log");
  const FigureCheck* metal = figure(c, "Metal", LogFigure::kModel);
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->memfit, 8'719'749'120u);
  EXPECT_TRUE(metal->note.ends_with("a file quantized before #9935 (2024-10) keeps the converter's order, "
                                    "token_embd first and output last, where the range is this device's "
                                    "tensors alone, 8258375680 B; the dump does not say which"));
}

TEST(CheckLog, AGgufV2FilesHostRangeIsTheWholeFile) {
  // TheBloke's mistral-7b-instruct-v0.1.Q4_K_M.gguf ("version GGUF V2":
  // written before #9935 sorted llama-quantize's output, in the
  // converter's order, token_embd first and output last) at -ngl 20 of
  // 33: blocks 12-31 on CUDA0, the host block 0-11 and the output layer.
  // The rebuilt Q4_K_M list, by hand: 4,096 wide, 14,336 ffn, 8 KV heads
  // of 128, 32 blocks, 32,000 tokens. A block's Q, O 2 x 16,777,216, K
  // 4,194,304, gate, up 2 x 58,720,256 at Q4_K (144 B / 256): 87,293,952
  // B, norms 32,768; V and ffn_down at Q4_K 2,359,296 + 33,030,144, or at
  // Q6_K (210 B / 256) 3,440,640 + 48,168,960 in the 16 use_more_bits
  // blocks (0-3, 28-31, 6, 9, ..., 27): 16 x 122,716,160 + 16 x
  // 138,936,320 = 4,186,439,680. token_embd Q4_K 73,728,000, output Q6_K
  // 107,520,000, output_norm 16,384: 4,367,704,064 B, within "4165.37 MiB"
  // (4,367,708,733 +- 5,243). The host's tensors alone (memfit's before):
  // 181,264,384 + blocks 0-11 (6 of each kind) 1,569,914,880 =
  // 1,751,179,264 (0.40).
  const LogCheck c = check("llamacpp", "llamacpp-telzur-mistral7b-q4km-rtx4060m-ngl20.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 4'367'704'064u);
  EXPECT_EQ(host->basis, FigureBasis::kExact);
  EXPECT_TRUE(host->within_print);
  EXPECT_TRUE(host->note.starts_with("the host maps the file's range from its first tensor to its last"))
      << host->note;
}

TEST(CheckLog, APhi3DumpRebuildsItsFusedMatricesAndLongRopeFactors) {
  // An Ollama run of Phi-3 mini 128k Q4_0 on an M3 Max, every layer on
  // Metal; hidden 3,072 (32 heads of 96), MLP 8,192, vocabulary 32,064, 32
  // blocks. The Q4_0 GGUF llama-quantize writes: f32 32 x 2 norms +
  // output_norm + rope_factors_long/_short = 67, q4_0 token_embd + 32 x 4
  // (attn_qkv, attn_output, ffn_up of gate and up, ffn_down) = 129, the
  // output q6_K: the log's counts. Bytes: token_embd 98,500,608 / 32 x 18
  // = 55,406,592 ("52.84 MiB" on the host); output 98,500,608 / 256 x 210 =
  // 80,801,280; a block's matrices (28,311,552 + 9,437,184 + 50,331,648 +
  // 25,165,824 elements) / 32 x 18 = 63,700,992 and its norms 24,576, x 32
  // = 2,039,218,176; output_norm 12,288, the factors 2 x 48 x 4 = 384:
  // 2,175,438,720 B ("2.03 GiB"). Metal holds all but token_embd (the
  // factors with block 0, as llama.cpp creates them): 2,120,032,128 B, and
  // memfit's 128-B GPU tensor alignment rounds each 192-B factor tensor up
  // to 256: 2,120,032,256 B against "2021.82 MiB" = 2,120,031,928 +-
  // 5,243 (Ollama's files are not in llama-quantize's order: no mapped
  // range is priced; modelled).
  const LogCheck c = check("ollama", "ollama-nexus-phi3-mini-128k-q4_0-m3max-metal.log");
  EXPECT_EQ(figure(c, "CPU", LogFigure::kModel)->memfit, 55'406'592u);
  const FigureCheck* metal = figure(c, "Metal", LogFigure::kModel);
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->memfit, 2'120'032'256u);
  EXPECT_TRUE(metal->within_print);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_TRUE(c.warnings[0].text.starts_with(
      "weights: the Q4_0 GGUF llama-quantize writes from the dump's hyperparameters, 197 tensors "
      "(f32 67, q4_0 129, q6_K 1), 2175438720 bytes"))
      << c.warnings[0].text;
}

TEST(CheckLog, AFlashAttentionGpuHoldsTheMasksCopyAndItsCastAtOnce) {
  // Phi-3 mini 128k on Metal, 131,072 cells, U 512, flash attention, a
  // llama.cpp from before #18898: the host's 262.01 MiB is the F32 mask,
  // 4 B x 131,072 x 512 = 268,435,456, and the input rows, 4 B x 512 x
  // 3,072 = 6,291,456. The GPU that runs the first block reads copies of
  // both and casts the mask to F16 (2 B x 131,072 x 512 = 134,217,728)
  // while the first block's query (4 B x 512 x 32 x 96 = 6,291,456) waits
  // for it, beside the copies of the positions (2,048), the K and V
  // indices (4,096 each) and the output ids (2,048), 12,288 B (the device
  // replay of phi3's graph, decoder.cc): 268,435,456 + 134,217,728 +
  // 6,291,456 + 6,291,456 + 12,288 = 415,248,384 B = 396.01 MiB, the print
  // (compute.cc's mask_cast_phase, without the small copies, gave 396.00;
  // the phases alone, the F16 mask, 200.00 MiB).
  const LogCheck c = check("ollama", "ollama-nexus-phi3-mini-128k-q4_0-m3max-metal.log");
  const FigureCheck* metal = figure(c, "Metal", LogFigure::kCompute);
  ASSERT_NE(metal, nullptr);
  EXPECT_EQ(metal->memfit, 415'248'384u);
  EXPECT_EQ(metal->basis, FigureBasis::kModelled);
  EXPECT_EQ(metal->note, "");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(host->within_print);  // 268,435,456 + 6,291,456 + the ids
}

TEST(CheckLog, AnArchitectureWithoutAConverterSaysSoOnItsModelRow) {
  const LogCheck c = check("llamacpp", "llamacpp-ik377-nemotron-ultra-253b-q3kxl-4gpu.log");
  // deci has one now, from the dump's per-layer arrays: the Unsloth mix's
  // types are not rebuilt, the list shapes the blocks' weights.
  EXPECT_TRUE(figure(c, "CPU", LogFigure::kModel)
                  ->note.starts_with("the blocks' weights are shaped by the converter's tensors, their types "
                                     "not rebuilt from the dump (the Q3_K_M GGUF memfit rebuilds holds"));
  // gemma4 has one now, from the dump's gemma4.* widths: the E4B Q8_0's
  // host maps token_embd alone, 2,560 x 262,144 x 34 / 32 = 713,031,680 B
  // (680.00 MiB as printed; per_layer_token_embd follows the output layer).
  const LogCheck gemma4 = check("llamacpp", "llamacpp-acdtrx-gemma4-e4b-q8_0-m4-metal.log");
  EXPECT_EQ(figure(gemma4, "CPU", LogFigure::kModel)->memfit, 713'031'680u);
  // gemma3_text has one now: its synthetic file's mix is what keeps it
  // from a rebuild, and the counts still price its repacked copies: 24
  // q4_0 and 18 q4_K over the 7 block roles of 6, a block's Q, O 2 x 512 x
  // 512, K, V 2 x 512 x 128, gate, up, down 3 x 512 x 1,536: 3,014,656 /
  // 32 x 18 = 1,695,744 B, x 6 = 10,174,464; the tied q8_0 token_embd
  // is not repacked on x86.
  const LogCheck gemma3 = check("llamacpp", "llamacpp-pinned-gemma3-swa-ctx4096.log");
  const FigureCheck* host = figure(gemma3, "CPU", LogFigure::kModel);
  EXPECT_TRUE(host->note.starts_with("CPU_REPACK's copies priced from the dump's type counts: every "
                                     "typing of the converter's roles that holds them and the file size "
                                     "repacks 10174464 bytes"))
      << host->note;
  EXPECT_TRUE(host->note.ends_with("the tensor list is not rebuilt from the dump (the F16 GGUF memfit "
                                   "rebuilds holds f16 44, f32 37; the log's file f32 37, q4_0 24, q4_K "
                                   "18, q8_0 1; of llama-quantize's options an F16 file takes only "
                                   "--token-embedding-type and --output-tensor-type, and none gives "
                                   "them with the file size)"))
      << host->note;
}

TEST(CheckLog, AnOutputBufferBefore6122HoldsEveryBatchRow) {
  // b2459 < b2537: the output buffer holds n_batch rows of logits,
  // 4 B x 512 x 32,000 = 65,536,000 B = "62.50 MiB" exactly.
  const LogCheck c = check("llamacpp", "llamacpp-ci2459-openllama7b-q4_0-v100-cuda.log");
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->memfit, 65'536'000u);
  EXPECT_EQ(output->printed.value, 65'536'000u);
  // Its build prints no flash attention line and predates "auto": off.
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "the log prints no flash attention setting: build 2459 ran without it unless "
                      "asked (its default was off before b6327)"),
            c.log.notes.end());
}

TEST(CheckLog, ABuildBefore6122IsPricedByItsEarlyGraph) {
  // b2459's graph keeps every row to the logits: the printed 70.50 MiB =
  // 73,924,608 B is its output head exactly, the final norm 512 x 4,096 x
  // 4 B = 8,388,608 and the logits 512 x 32,000 x 4 B = 65,536,000. Its
  // early graph's other phases are below it (engines/llamacpp/compute.cc):
  // the FFN's SiLU and product run in place, 4 B x 512 x (3 x 4,096 + 2 x
  // 11,008) + the 512 x 512 F32 mask = 71,303,168; the attention 4 B x 512
  // x 4 x 4,096 + 4 B x 512 x 512 x 32 + the mask = 68,157,440. (The pinned
  // phases peak in the FFN at 102,236,160 B = 97.50 MiB.)
  const LogCheck c = check("llamacpp", "llamacpp-ci2459-openllama7b-q4_0-v100-cuda.log");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->printed.value, 73'924'608u);
  EXPECT_EQ(gpu->memfit, 73'924'608u);
  EXPECT_EQ(gpu->basis, FigureBasis::kModelled);
  EXPECT_EQ(gpu->note, "");
  // The host's row keeps its own basis: no reason is added there.
  EXPECT_EQ(figure(c, "CPU", LogFigure::kCompute)->note, "");
}

TEST(CheckLog, APartialOffloadPricesOpOffloadOnBothComputeRows) {
  // Ollama 0.19.0, Qwen2.5 Coder 32B Q4_K_M, 49 of 64 blocks on a 3090 and
  // the output layer on the host (Ollama's llama.cpp: i_gpu_start =
  // n_layer - n_gpu_layers). Op offload runs the host's ops on the GPU, so
  // the host keeps the graph's inputs alone (placement.cc, place_compute):
  // the input rows 4 B x 512 x 5,120 = 10,485,760, token ids, positions and
  // output ids 3 x 2,048, the F32 mask 4 B x 32,768 x 512 = 67,108,864,
  // the KV store's k_idxs and v_idxs (i64, flash attention; #14959 is in
  // the runner's b7108) 2 x 4,096: 77,608,960 B = 74.01 MiB, the log's.
  // The GPU runs the logits product: its output phase, the logits and
  // result_norm, 4 B x 512 x (152,064 + 5,120) = 321,912,832 B, with the
  // copy of the host's output.weight that product reads, Q6_K 152,064 x
  // 5,120 / 256 x 210 B = 638,668,800 B: 960,581,632 B = 916.08 MiB, the
  // log's figure.
  const LogCheck c = check("ollama", "ollama-nithin-qwen25-coder-32b-q4km-partial-3090.log");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 960'581'632u);
  EXPECT_EQ(gpu->note, "");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 77'608'960u);
  EXPECT_EQ(host->note, "");
}

TEST(CheckLog, EveryLayerOffloadedIsNoPartialOffloadWhateverTheRepeatingCount) {
  // rusteze's llama-server b7780: "offloading 27 repeating layers",
  // "offloaded 29/29 layers" for Qwen2.5 Coder 7B's 28 blocks, its 28
  // layers' KV (28 x 64 MiB = 1,792 MiB) on CUDA0: every block is on the
  // GPU (builds from #18148 print one repeating layer fewer at full
  // offload). memfit replays the GPU's split (device_split): the logits,
  // 4 x 512 x 152,064 = 311,427,072 B, land above the last block's rows at
  // 81,801,216 (the input copies below them, the rows 7,340,032, 10,240 B
  // of positions and indices, the F32 mask 67,108,864, out_ids 2,048, then
  // ffn_inp's row and l_out's, result_norm in place over it): 400,568,320 B
  // against 382.01 MiB printed (400,566,518), within the print; no note.
  const LogCheck c = check("llamacpp", "llamacpp-rusteze-qwen25-coder-7b-q8_0-rtx5080.log");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 400'568'320u);
  EXPECT_EQ(gpu->note, "");
}

TEST(CheckLog, AForksOwnBuildNumberUnderKvUnifiedIsSetAside) {
  // ROCm/ROCm#5901: AMD's llama-b7146 ROCm build prints its own count,
  // "build: 1239 (b8372ee)", and llama_context's kv_unified line, which
  // llama.cpp prints from b5913 on: read as b1239, the output buffer would
  // be pre-#6122's n_batch rows. Set aside, its compute lines
  // (llama_context's, printed up to b7771) price it as b7771: llama-server's
  // 4 slots, 4 B x 4 x 151,669 = 2,426,704 B (2.31 MiB).
  const LogCheck c = check("llamacpp", "llamacpp-rocm5901-rx7900xtx-qwen3-14b-q6k-kvu.log");
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->memfit, 2'426'704u);
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "the log prints build 1239 but kv_unified, which llama.cpp prints from b5913 on "
                      "(#14363): not llama.cpp's build number (a fork's own); its compute buffers are "
                      "printed by llama_context, as builds up to b7771 print them: priced as b7771"),
            c.log.notes.end());
}

TEST(CheckLog, ABuildNumberOlderThanItsComputeLinesIsSetAside) {
  // ggml-org/llama.cpp#14740: a packaged llama-server prints "build: 941
  // (eb39499)" with llama_context's compute lines, which llama.cpp prints
  // only after b4730. Read as b941 (before #6122), the output buffer would
  // hold n_batch rows, 2,048 x 200,064 x 4 B = 1563.00 MiB. Set aside, it
  // is priced as b7771: one sequence's logits, 200,064 x 4 = 800,256 B
  // (0.76 MiB printed), and -nkvo's 16384.00 MiB of KV on the host. Its
  // lines (the server's "system info: n_threads", llama_kv_cache_unified's,
  // n_ctx_per_seq and the cache summary's "1 seqs" without streams) date it
  // to b4731..b5912: priced as b5912.
  LogCheckOptions options;
  options.command = "llama-server -m models/Phi-4-mini-instruct.BF16.gguf -ngl 80 --host :: --port 31420 "
                    "--jinja --ctx-size 0 --no-kv-offload -t 2";
  const LogCheck c = check("llamacpp", "llamacpp-14740-phi4-mini-bf16-m60-nkvo.log", options);
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->memfit, 800'256u);
  EXPECT_EQ(figure(c, "CPU", LogFigure::kKvCache)->memfit, 16384ull << 20);
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "the log prints build 941 but its compute buffers are printed by llama_context, as "
                      "llama.cpp's builds print them from b4731 on: not llama.cpp's build number (a fork's "
                      "or a packager's own); its lines date it to b4731 to b5912 (llama-server's 'system "
                      "info: n_threads' line, llama_kv_cache_unified's lines, llama_context's n_ctx_per_seq, "
                      "the KV cache summary's sequences without streams): priced as b5912, by the rules every "
                      "build of that range shares, the pinned release's where they differ"),
            c.log.notes.end());
}

TEST(CheckLog, ABuildBeforeTheF16MaskCastsTheF32MaskOnTheFirstGpu) {
  // ghghang2/v1.6, llama-server b8836 (before #23764): Qwen3.6 27B on one
  // RTX PRO 6000, 262,144 cells, U 512, flash attention. The F32 mask is an
  // input (CUDA_Host 532.02 MiB holds its 512 MiB) cast to F16 on CUDA0,
  // which holds at the cast the input rows' copy 4 x 512 x 5,120 =
  // 10,485,760, the F32 mask's copy and its F16 cast (4 + 2) x 262,144 x
  // 512 = 805,306,368 and the query 4 x 512 x 24 x 256 = 12,582,912:
  // 828,375,040 B; below the cast the holes of block 0's norm and K, 4 x
  // 512 x (5,120 + 4 x 256) = 12,582,912 (a CUDA GPU reads its inputs as
  // the scheduler's copies): 840,957,952 B (802.00 MiB) against 824.02
  // printed, where the pinned F16 input priced the gated delta net's
  // 495.00 MiB.
  const LogCheck c = check("llamacpp", "llamacpp-ghghang2v16-qwen36-27b-q8kxl-rtxpro6000.log");
  EXPECT_EQ(c.log.version, "b8836");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 840'957'952u);
}

TEST(CheckLog, AnUnbuiltLogIsDatedByItsLineForms) {
  // ghghang2/v1.6, llama-server with no build line: Qwen3.6 35B A3B on one
  // RTX PRO 6000, 262,144 cells, U 512, flash attention. It prints
  // sched_reserve's fused Gated Delta Net probe (b8199 on) and the
  // server's "system info: n_threads" line (to b8679): priced as b8679,
  // before #23764 (b9444) like every build of the range, so CUDA0 casts
  // the F32 mask: the input rows' copy 4 x 512 x 2,048 = 4,194,304, the
  // F32 mask's copy and its F16 cast (4 + 2) x 262,144 x 512 = 805,306,368,
  // the query 4 x 512 x 16 x 256 = 8,388,608, and below them the holes of
  // block 0's norm and K, 4 x 512 x (2,048 + 2 x 256) = 5,242,880:
  // 823,132,160 B (785.00 MiB) against 804.02 printed, where the pinned
  // F16 input priced 489.00 MiB.
  const LogCheck c = check("llamacpp", "llamacpp-ghghang2v16-qwen36-35b-a3b-q6kxl-rtxpro6000.log");
  EXPECT_EQ(c.log.version, "");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 823'132'160u);
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "the log prints no build; its lines date it to b8199 to b8679 (sched_reserve's fused "
                      "Gated Delta Net probe, llama-server's 'system info: n_threads' line): priced as b8679, "
                      "by the rules every build of that range shares, the pinned release's where they differ"),
            c.log.notes.end());
}

TEST(CheckLog, AFormWithNoLastBuildLeavesTheLogToThePinnedRules) {
  // The same log without its "system info: n_threads" line: the Gated
  // Delta Net probe alone says b8199 or later, which every build up to the
  // pinned release prints, so the pinned F16 mask input prices CUDA0 (the
  // gated delta net's phase, 512,753,664 B = 489.00 MiB, as before the log
  // was dated) and no note dates the log.
  std::string text = read_test_log("llamacpp", "llamacpp-ghghang2v16-qwen36-35b-a3b-q6kxl-rtxpro6000.log");
  const size_t at = text.find("system info: n_threads");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) - at);
  Result<LogCheck> c = check_log(text, {}, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message();
  const FigureCheck* gpu = figure(*c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 512'753'664u);
  EXPECT_TRUE(std::none_of(c->log.notes.begin(), c->log.notes.end(),
                           [](const std::string& n) { return n.find("date it") != std::string::npos; }));
}

TEST(CheckLog, AFormNewerThanThePinnedReleaseDatesTheLogFromIt) {
  // The same log without its "system info: n_threads" line, and with
  // sched_reserve's one-line graph summary of v0.5.0 (#26625) written by
  // its format string ("%s: graph%s: nodes = %s, splits = %s, input
  // objects = %s, input tensors = %s": no public log of a v0.5.0 build
  // was found): the line says b11300 or later, past every pinned rule, so
  // the log is priced as b11300, v0.5.0's rules. None of them moves this
  // model (its context is given, it has no NextN block, it runs on the
  // GPU), so CUDA0 keeps the pinned 512,753,664 B (489.00 MiB).
  std::string text = read_test_log("llamacpp", "llamacpp-ghghang2v16-qwen36-35b-a3b-q6kxl-rtxpro6000.log");
  const size_t at = text.find("system info: n_threads");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) - at);
  text += "sched_reserve: graph: nodes = 3468, splits = 2, input objects = 11, input tensors = 14\n";
  Result<LogCheck> c = check_log(text, {}, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message();
  const FigureCheck* gpu = figure(*c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 512'753'664u);
  EXPECT_NE(std::find(c->log.notes.begin(), c->log.notes.end(),
                      "the log prints no build; its lines date it to b11300 or later (sched_reserve's fused "
                      "Gated Delta Net probe, sched_reserve's one-line graph summary): priced as b11300, "
                      "by the newest rules memfit reads"),
            c->log.notes.end());
}

TEST(CheckLog, AnIswaModelBeforeTheF16MaskCastsBothMasksOnItsGpu) {
  // ghghang2/v1.6, llama-server b8836: Gemma 4 26B A4B on one RTX PRO
  // 6000, 262,144 full and 1,536 SWA cells, U 512, flash attention. Its
  // first layer is windowed, so the SWA mask is cast first; at the full
  // mask's cast CUDA0 holds the rows' (or residual's) 4 x 512 x 2,816 =
  // 5,767,168, the query 4 x 512 x 16 x 256 = 8,388,608, the full mask's
  // F32 copy 4 x 262,144 x 512 = 536,870,912 and both F16 casts 2 x
  // (1,536 + 262,144) x 512 = 270,008,320: 821,035,008 B; below the
  // casts the holes of block 0's norm and K, 4 x 512 x (2,816 + 8 x 256) =
  // 9,961,472 (a CUDA GPU reads its inputs as the scheduler's copies):
  // 830,996,480 B (792.50 MiB) against 829.02 printed, where the logits
  // priced 517.50.
  const LogCheck c = check("llamacpp", "llamacpp-ghghang2v16-gemma4-26b-a4b-q4kxl-rtxpro6000.log");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 830'996'480u);
}

TEST(CheckLog, AMeanPoolingMatrixKeepsTheLogitsAboveTheGpusInputCopies) {
  // ROCm/ROCm#4903 (b5618, Qwen3-Embedding 8B, --embeddings --pooling
  // mean, U 2048, 40,960 cells, flash attention): ROCm0 holds, in the
  // order its split reads them, the rows 4 x 2,048 x 4,096 = 33,554,432,
  // positions and output ids 8,192 each and the F32 mask 4 x 40,960 x
  // 2,048 = 335,544,320, then the square mean matrix 4 x 2,048 x 2,048 =
  // 16,777,216, read after the logits 4 x 2,048 x 151,665 = 1,242,439,680,
  // which do not fit the freed copies below it: 1,628,332,032 B, the
  // printed 1552.90 MiB.
  LogCheckOptions options;
  options.command = "llama-server.exe -m Qwen3-Embedding-8B-Q8_0.gguf -a qwen3 -b 2048 -ub 2048 -c 0 -fa "
                    "--no-mmap -ngl 999 --embeddings --pooling mean --no-webui -mg 0 -sm none -dev ROCm0";
  const LogCheck c = check("llamacpp", "llamacpp-rocm4903-rx7900xt-qwen3-embedding-8b-q8_0.log", options);
  const FigureCheck* gpu = figure(c, "ROCm0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 1'628'332'032u);
  EXPECT_EQ(gpu->note, "");
}

TEST(CheckLog, ARowSplitBufferIsPrintedUnderTheGpuWhoseBlocksItHolds) {
  // ggml-org/llama.cpp#14075 (b5605, -sm row, four Quadro RTX 5000,
  // DeepSeek-R1-Distill-Llama-70B Q6_K): the blocks go to the GPUs as a
  // layer split would put them (KV 168/160/160/152 MiB: 21, 20, 20, 19
  // blocks of 8 MiB), and each GPU's split buffer type holds its blocks'
  // matrices, spread by rows over all four. A block's matrices: q and o
  // 8,192 x 8,192, k and v 1,024 x 8,192, gate, up and down 28,672 x
  // 8,192, 855,638,016 weights x 210 / 256 B = 701,890,560 B; CUDA0_Split
  // prints 21 of them, 14,739,701,760 B (14056.88 MiB), and CUDA0 its
  // norms, 21 x 2 x 8,192 x 4 = 1,376,256 B, and block 0's rope_freqs, 64 x
  // 4 = 256 B (1.31 MiB): 14,741,078,272 B.
  const LogCheck c = check("llamacpp", "llamacpp-14075-r1-distill-70b-q6k-4x-rtx5000.log");
  const FigureCheck* gpu0 = figure(c, "CUDA0", LogFigure::kModel);
  ASSERT_NE(gpu0, nullptr);
  EXPECT_EQ(gpu0->memfit, 14'741'078'272u);
  EXPECT_TRUE(gpu0->within_print);
}

TEST(CheckLog, TheCommandsTensorOverridesKeepTheExpertsOnTheHost) {
  // ik_llama.cpp#514's mainline run (b5622): Qwen3-30B-A3B Q4_K_M with
  // -ot ".ffn_.*_exps.=CPU" on an RTX 4090 and an RTX 5090, the config
  // beside it. Every expert tensor stays on the host, so each GPU holds its
  // blocks' attention, norms and routers (and CUDA1 the output layer):
  // printed 135.76 and 648.66 MiB, where memfit read without the rule put
  // the experts there too (4419.76 and 13104.67 MiB). Read from the
  // command, the rule prices both within the print (5,243 B a line).
  LogCheckOptions options;
  options.config_json = read_test_log("llamacpp", "llamacpp-ik514-qwen3-30b-a3b-q4km-4090-5090-ot.config.json");
  options.command = "./llama.cpp/llama-cli --model Qwen3-30B-A3B-Q4_K_M.gguf --ctx-size 16384 "
                    "--n-gpu-layers 99 -ot \".ffn_.*_exps.=CPU\" -no-cnv";
  const LogCheck c = check("llamacpp", "llamacpp-ik514-qwen3-30b-a3b-q4km-4090-5090-ot.log", options);
  for (const char* gpu : {"CUDA0", "CUDA1"}) {
    const FigureCheck* model = figure(c, gpu, LogFigure::kModel);
    ASSERT_NE(model, nullptr) << gpu;
    ASSERT_TRUE(model->memfit.has_value()) << gpu;
    const uint64_t printed = model->printed.value;
    const uint64_t gap = *model->memfit > printed ? *model->memfit - printed : printed - *model->memfit;
    EXPECT_LE(gap, 5'243u) << gpu << ": " << *model->memfit << " against " << printed;
  }
  // 135.76 MiB = 142,354,677.76 B, rounded once.
  EXPECT_EQ(figure(c, "CUDA0", LogFigure::kModel)->printed.value, 142'354'678u);
}

TEST(CheckLog, TheOverridesFitSetKeepTheExpertsOnTheHost) {
  // The same run as if --fit had placed it (llamacpp_fit.cc): its KV
  // buffers (384 and 1152 MiB, 32 MiB a block at 16,384 cells) put 12
  // blocks on CUDA0 and 36 and the output layer on CUDA1, so the fit's
  // lines for it are "12 layers (12 overflowing)" and "37 layers (37
  // overflowing)". The fit's overrides: il0 = 49 - 49 = 0; CUDA0 no full
  // layer, partial 0..11; CUDA1 il0 = 12, partial 12..48 (48 the output's
  // index): every block's experts to the CPU, as -ot exps=CPU above, and
  // the split 12,37. Read from the fit's lines, with no command, both GPUs
  // price within the print (5,243 B a line).
  LogCheckOptions options;
  options.config_json = read_test_log("llamacpp", "llamacpp-ik514-qwen3-30b-a3b-q4km-4090-5090-ot.config.json");
  const std::string fit =
      "llama_params_fit_impl:   - CUDA0 (NVIDIA GeForce RTX 4090): 12 layers (12 overflowing),   9000 MiB used\n"
      "llama_params_fit_impl:   - CUDA1 (NVIDIA GeForce RTX 5090): 37 layers (37 overflowing),  20000 MiB used\n"
      "llama_params_fit: successfully fit params to free device memory\n";
  Result<LogCheck> c = check_log(
      fit + read_test_log("llamacpp", "llamacpp-ik514-qwen3-30b-a3b-q4km-4090-5090-ot.log"), options, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(testing::setting_of(c->log, "tensor_split"), "12,37");
  for (const char* gpu : {"CUDA0", "CUDA1"}) {
    const FigureCheck* model = figure(*c, gpu, LogFigure::kModel);
    ASSERT_NE(model, nullptr) << gpu;
    ASSERT_TRUE(model->memfit.has_value()) << gpu;
    const uint64_t printed = model->printed.value;
    const uint64_t gap = *model->memfit > printed ? *model->memfit - printed : printed - *model->memfit;
    EXPECT_LE(gap, 5'243u) << gpu << ": " << *model->memfit << " against " << printed;
  }
}

TEST(CheckLog, CpuMoeAndNCpuMoeOfTheCommandAreRead) {
  // --cpu-moe is the rule llama.cpp's common/arg.cpp adds for it (every
  // block's routed experts to the CPU), after the -ot rules given;
  // -ncmoe N is memfit's n_cpu_moe.
  LogCheckOptions options;
  options.command = "llama-server -m m.gguf -ot exps=CUDA0 --cpu-moe -ncmoe 12";
  const LogCheck c = check("llamacpp", "llamacpp-ci4897-pythia28-q8_0-v100-cuda.log", options);
  EXPECT_EQ(testing::setting_of(c.log, "override_tensor"),
            "exps=CUDA0,\\.ffn_(up|down|gate)_exps=CPU");
  EXPECT_EQ(testing::setting_of(c.log, "n_cpu_moe"), "12");
}

TEST(CheckLog, WithoutKvOffloadTheAttentionComputesOnTheHost) {
  // ggml-org/llama.cpp#12946 (b5121): GLM-Z1-9B, every layer on an RTX
  // 3080, -nkvo, 32,000 cells, no flash attention. llama.cpp runs every
  // node between the KV store and the attention output on the CPU when
  // the cache is the host's (llama-graph.cpp, build_attn_mha), so the
  // scores are in the host's buffer (printed 2071.51 MiB) and CUDA0 keeps
  // the output layer's logits and result_norm: 4 B x 512 rows x (151,552
  // vocabulary + 4,096 hidden) = 318,767,104 B, 304.00 MiB against the
  // printed 312.00 (memfit put the scores there: 2103.50 MiB).
  const LogCheck c = check("llamacpp", "llamacpp-12946-glm-z1-9b-rtx3080.log");
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  ASSERT_TRUE(gpu->memfit.has_value());
  EXPECT_EQ(*gpu->memfit, 318'767'104u);
  // The host holds the scores at least: 4 B x 32,000 cells x 512 x 32
  // heads = 2,097,152,000 B.
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  ASSERT_TRUE(host->memfit.has_value());
  EXPECT_GE(*host->memfit, 2'097'152'000u);
}

TEST(CheckLog, TensorOverridesOfAModelWithoutATensorListAreSaidAndTheRestPriced) {
  // ik_llama.cpp#394's mainline run (b5331): DeepSeek-V3-0324 from its
  // config, whose tensors memfit's converter does not build, with -ot
  // rules for its experts. The rules move tensors by GGUF names, which
  // this model has none of: the run is priced without them, with a note,
  // so the KV cache still is. CUDA0's 15 MLA layers at 16,384 cells keep
  // the latent K (576 x 2 B) and, b5331 being before llama.cpp #19067, a V
  // tensor of kv_lora_rank (512 x 2 B): 15 x (576 + 512) x 2 x 16,384 =
  // 534,773,760 B, the printed 510.00 MiB.
  LogCheckOptions options;
  options.config_json = read_test_log("llamacpp", "llamacpp-ik394-deepseek-v3-q2kxl-4gpu-ot-ub1024.config.json");
  const LogCheck c = check("llamacpp", "llamacpp-ik394-deepseek-v3-q2kxl-4gpu-ot-ub1024.log", options);
  EXPECT_TRUE(c.not_priced.empty()) << c.not_priced;
  const FigureCheck* kv = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  ASSERT_TRUE(kv->memfit.has_value());
  EXPECT_EQ(*kv->memfit, 534'773'760u);
  EXPECT_EQ(kv->printed.value, 534'773'760u);
  // Priced as b5331 itself: no note of a V tensor memfit left out.
  EXPECT_EQ(kv->note.find("V tensor"), std::string::npos) << kv->note;
  // CUDA3's 22 layers: 22 x 1,088 x 2 x 16,384 = 784,334,848 B (748.00 MiB).
  const FigureCheck* kv3 = figure(c, "CUDA3", LogFigure::kKvCache);
  ASSERT_NE(kv3, nullptr);
  ASSERT_TRUE(kv3->memfit.has_value());
  EXPECT_EQ(*kv3->memfit, 784'334'848u);
  // The config's MLA widths (ModelSpec::mla) build its Q2_K tensor list,
  // so the command's tensor overrides are priced, not set aside.
  EXPECT_FALSE(std::any_of(c.log.notes.begin(), c.log.notes.end(), [](const std::string& n) {
    return n.starts_with("the tensor overrides (the command's, or those --fit set) are not priced: override_tensor");
  }));
}

TEST(CheckLog, TheCommandLinesEmbeddingsAndPoolingPriceTheOutputBuffer) {
  // ggml-org/ci's b4897 Pythia-2.8B run (n_embd 2560, n_ctx = n_batch =
  // 2048, one sequence) checked as if llama-server had been given
  // --embeddings: b4897 precedes #14208, so the output buffer keeps no
  // logits. With --pooling mean it keeps nothing (0 B: ROCm/ROCm#4903's
  // "0.00 MiB" at b5618); with --pooling none one embedding a sequence
  // at start-up, 4 B x 1 x 2560 = 10,240 B, which the first full batch
  // grows to every token's, 4 B x 2048 x 2560 = 20,971,520 B (memfit's
  // estimate, said in the note).
  const std::string log = "llamacpp-ci4897-pythia28-q8_0-v100-cuda.log";
  // The host's output row of the log checked with `options`, copied out of
  // the check (which the caller does not keep).
  const auto output_of = [&](const LogCheckOptions& options) -> std::optional<FigureCheck> {
    const LogCheck c = check("llamacpp", log, options);
    const FigureCheck* f = figure(c, "CPU", LogFigure::kOutput);
    return f != nullptr ? std::optional<FigureCheck>(*f) : std::nullopt;
  };
  LogCheckOptions mean;
  mean.command = "llama-server -m m.gguf --embeddings --pooling mean";
  const std::optional<FigureCheck> pooled = output_of(mean);
  ASSERT_TRUE(pooled.has_value());
  EXPECT_EQ(pooled->memfit, 0u);
  LogCheckOptions none;
  none.command = "llama-server -m m.gguf --embedding --pooling=none";
  const std::optional<FigureCheck> tokens = output_of(none);
  ASSERT_TRUE(tokens.has_value());
  EXPECT_EQ(tokens->memfit, 10'240u);
  EXPECT_NE(tokens->note.find("grows it to 2048 rows, 20971520 B"), std::string::npos) << tokens->note;
  // --reranking is --embedding with rank pooling: pooled, so nothing.
  LogCheckOptions rerank;
  rerank.command = "llama-server -m m.gguf --reranking";
  const std::optional<FigureCheck> ranked = output_of(rerank);
  ASSERT_TRUE(ranked.has_value());
  EXPECT_EQ(ranked->memfit, 0u);
  // A reranker is priced with rank pooling whatever --pooling says beside
  // it: pooled, nothing, not 10,240 B.
  LogCheckOptions both;
  both.command = "llama-server -m m.gguf --pooling none --reranking";
  const std::optional<FigureCheck> rank_wins = output_of(both);
  ASSERT_TRUE(rank_wins.has_value());
  EXPECT_EQ(rank_wins->memfit, 0u);
  // Without the flags the run's own logits: 4 B x 1 x 50,304 = 201,216 B.
  const std::optional<FigureCheck> logits = output_of(LogCheckOptions{});
  ASSERT_TRUE(logits.has_value());
  EXPECT_EQ(logits->memfit, 201'216u);
  // llama-bench's "--embeddings 0" is the switch off: the logits again,
  // 201,216 B; "--embeddings 1" on, pooled by mean: nothing.
  LogCheckOptions bench_off;
  bench_off.command = "llama-bench -m m.gguf --embeddings 0 --pooling mean";
  const std::optional<FigureCheck> off = output_of(bench_off);
  ASSERT_TRUE(off.has_value());
  EXPECT_EQ(off->memfit, 201'216u);
  LogCheckOptions bench_on;
  bench_on.command = "llama-bench -m m.gguf --embeddings 1 --pooling mean";
  const std::optional<FigureCheck> on = output_of(bench_on);
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(on->memfit, 0u);
}

TEST(CheckLog, APooledEmbeddingRunBeforeTheReworkPrintsAnEmptyOutputBuffer) {
  // ROCm/ROCm#4903: llama-server.exe b5618 serving Qwen3-Embedding-8B
  // Q8_0 with --embeddings --pooling mean, its command line in the log.
  // b5618 precedes #14208: no logits with --embeddings, no embeddings
  // under pooling, so "output buffer size = 0.00 MiB" is memfit's 0 B
  // (it priced 4 x 1 x 151,665 = 606,660 B before reading the flags).
  const LogCheck c = check("llamacpp", "llamacpp-rocm4903-rx7900xt-qwen3-embedding-8b-q8_0.log");
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->printed.value, 0u);
  EXPECT_EQ(output->memfit, 0u);
  // The cache is a generation model's: 40,960 cells x 36 layers x (K +
  // V) 2 x 1,024 x 2 B (f16) = 6,039,797,760 B = "5760.00 MiB".
  const FigureCheck* kv = figure(c, "ROCm0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 6'039'797'760u);
  EXPECT_EQ(kv->printed.value, 6'039'797'760u);
  // The host keeps the graph inputs (n_tok 2048, n_kv 40,960): the input
  // rows 4 x 2048 x 4096 = 33,554,432, token ids and positions 2 x 8,192,
  // output ids 8,192, the f32 mask 4 x 40,960 x 2048 = 335,544,320 and
  // mean pooling's matrix, n_tok x n_tok before the rework: 4 x 2048 x
  // 2048 = 16,777,216; 385,900,544 B in "368.02 MiB" (385,896,940 +-
  // 5,243).
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 385'900'544u);
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLog, VulkansOpOffloadLeavesTheHostItsInputs) {
  // b5398 on a Radeon 8060S (Vulkan), Qwen3 235B-A22B Q3_K_S with 93 of 94
  // blocks (block 0 and the output layer on the host, the old -ngl rule):
  // the host keeps the graph inputs, the input rows 4 B x 512 x 4,096 =
  // 8,388,608, token ids, positions and output ids 3 x 2,048 and the F32
  // mask 4 B x 4,096 x 512 = 8,388,608: 16,783,360 B, the log's 16.01 MiB.
  // The GPU runs the logits: the logits and result_norm, 4 B x 512 x
  // (151,936 + 4,096) = 319,553,536, with the copy of the host's Q6_K
  // output.weight, 151,936 x 4,096 / 256 x 210 B = 510,504,960: 830,058,496
  // B = 791.61 MiB, the log's figure.
  const LogCheck c = check("llamacpp", "llamacpp-tosukui-vulkan-gfx1151-qwen3-235b-q3ks-ngl93.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 16'783'360u);
  const FigureCheck* gpu = figure(c, "Vulkan0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 830'058'496u);
}

TEST(CheckLog, ADumpQuantizedOtherwiseKeepsTheSpreadAndSaysWhy) {
  // The pinned dense model says F16 but mixes q4_0, q4_K and q6_K.
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "the weights per device are modelled (spread by blocks), not rebuilt tensor by "
                      "tensor: the F16 GGUF memfit rebuilds holds f16 30, f32 9; the log's file f16 "
                      "1, f32 9, q4_0 16, q4_K 12, q6_K 1; of llama-quantize's options an F16 file "
                      "takes only --token-embedding-type and --output-tensor-type, and none gives "
                      "them with the file size"),
            c.log.notes.end());
  EXPECT_EQ(figure(c, "CPU", LogFigure::kModel)->basis, FigureBasis::kModelled);
}

// bartowski's Phi-4-mini Q4_K_L (phi3, 32 blocks, tied): f32 67, q8_0 1,
// q4_K 80, q5_K 32, q6_K 16 is Q4_K_M under the releases before #19770
// (attn_qkv's own rule, Q5_K) with --token-embedding-type q8_0, but also
// the pinned release's rules with ffn_down at q5_K by
// --tensor-type: attn_qkv's 15,728,640 and ffn_down's 25,165,824 elements
// a block trade Q5_K (0.6875 B an element) for half Q6_K, half Q4_K
// (0.6914), about 1.2 MB in all, inside "2.45 GiB"'s +- 5 MiB. The Metal
// row would differ by that: the spread stays, and the note says so.
TEST(CheckLog, OptionsThatHoldTheCountsButSplitDifferentlyKeepTheSpread) {
  const LogCheck c = check("llamacpp", "llamacpp-danbev-phi4mini-q4kl-m3-metal.log");
  const FigureCheck* gpu = figure(c, "Metal", LogFigure::kModel);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->basis, FigureBasis::kModelled);
  EXPECT_NE(gpu->note.find("6 assignments of llama-quantize's options hold the log's counts and size "
                           "but give the devices different bytes"),
            std::string::npos)
      << gpu->note;
}

// Granite 3B Code (llama with LlamaConfig's attention and MLP biases):
// the Q4_0 GGUF with the seven biases a block holds the dump's counts
// (f32 289, q4_0 224, q6_K 1) and 1,995,581,440 B (converted_decoders_
// test.cc, LlamaWithAttentionAndMlpBiases); the host keeps the tied
// token_embd, Q6_K: 125,829,120 / 256 x 210 = 103,219,200 B.
TEST(CheckLog, AGraniteCodeDumpRebuildsWithItsBiases) {
  const LogCheck c = check("llamacpp", "llamacpp-11500-granite-code-sycl.log");
  const FigureCheck* cpu = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->memfit, 103'219'200u);
  EXPECT_TRUE(cpu->within_print);
}

// b4129's SYCL build takes the token table's get_rows to the GPU (#10133
// to #10432): NeoZhangJianyu/ci_log's llama-2-7b Q4_0 on a UHD 770, every
// layer offloaded, 4,096 cells, 512 tokens, no flash attention. The host
// keeps the graph inputs alone: the 4,096 x 512 F32 mask (8 MiB) and the
// 512 token ids, positions and output ids (3 x 2 KiB), 8.01 MiB printed;
// the GPU's one split reads a copy of the Q4_0 table, 342.32 MiB printed
// (296.00 at b4220, which keeps the get_rows on the host): the replay of
// the split's allocations gives it to the byte of the print's rounding.
TEST(CheckLog, SyclTakesTheTokenRowsToTheGpuFrom10133To10432) {
  const LogCheck c = check("llamacpp", "llamacpp-neverllama9-ci-sycl-uhd770-llama2-7b-q4_0.log");
  const FigureCheck* gpu = figure(c, "SYCL0", LogFigure::kCompute);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(host, nullptr);
  // 358,946,816 B = 342.32 MiB (342.3203...).
  EXPECT_EQ(gpu->memfit, std::optional<uint64_t>(358'946'816u));
  EXPECT_TRUE(gpu->within_print);
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLog, ADumpOfANamedQuantizersMixSaysSo) {
  // Mungert's Mistral Small 3.1 Q4_K_M: 24 q5_K, which llama-quantize's
  // Q4_K_M never gives a llama of 40 blocks (no attn_qkv, not 70B, no
  // experts), under any release's rules; its dump names an importance
  // matrix and general.quantized_by 'Mungert'.
  const LogCheck c = check("llamacpp", "llamacpp-jonsjoberg-mistral-small31-24b-q4km-m3pro-np4.log");
  const FigureCheck* gpu = figure(c, "MTL0", LogFigure::kModel);
  ASSERT_NE(gpu, nullptr);
  // Nor does any assignment of llama-quantize's options by role: no role
  // of its 40 blocks, at one type or by Q4_K_M's rules, gives 24 q5_K.
  EXPECT_NE(gpu->note.find("the log's file f32 81, q4_K 232, q5_K 24, q6_K 26; no assignment of "
                           "llama-quantize's options (--token-embedding-type, --output-tensor-type, "
                           "--pure, --tensor-type by role) gives them with the file size; no rules of "
                           "a llama-quantize release memfit knows give those counts: the file names an "
                           "importance matrix (quantize.imatrix keys) and its quantizer, 'Mungert' "
                           "(general.quantized_by): types chosen per tensor"),
            std::string::npos)
      << gpu->note;
}

// The weights warning of a dump rebuilt tensor by tensor.
std::string rebuilt_weights_warning(const LogCheck& c) {
  for (const Warning& w : c.warnings) {
    if (w.text.find("GGUF llama-quantize writes from the dump") != std::string::npos) return w.text;
  }
  return "(none)";
}

TEST(CheckLog, ADumpIsRebuiltUnderTheRulesOfTheReleaseThatWroteIt) {
  // The Qwen3.5-35B-A3B IQ2_M file's q4_K 10 are its 10 attn_v: its 30
  // gated delta nets' attn_qkv kept the 2-bit default, as before #19770
  // (the pinned rules give them Q4_K: q4_K 40). Its dump names a matrix.
  const LogCheck iq2m = check("llamacpp", "llamacpp-lota09-qwen35-35b-a3b-iq2m-rtx4060ti.log");
  EXPECT_TRUE(rebuilt_weights_warning(iq2m).ends_with(
      "agree; with an importance matrix (its quantize.imatrix keys); attn_qkv by its own rule "
      "(llama-quantize before #19770)"))
      << rebuilt_weights_warning(iq2m);
  // ggml-org/ci's b2308 OpenLLaMA 3B Q4_0: a LLAMA_QKK_64 build's Q6_K
  // output (3,200 = 50 x 64), 1,956,774,400 B in "1.82 GiB": the CPU row
  // to the print.
  const LogCheck qkk64 = check("llamacpp", "llamacpp-ci2308-openllama3b-q4_0-x86-cpu.log");
  EXPECT_NE(rebuilt_weights_warning(qkk64).find("(f32 53, q4_0 183, q6_K 1), 1956774400 bytes"),
            std::string::npos)
      << rebuilt_weights_warning(qkk64);
  EXPECT_TRUE(rebuilt_weights_warning(qkk64).ends_with(
      "; K types of 64-element blocks (a build with LLAMA_QKK_64)"));
  const FigureCheck* cpu = figure(qkk64, "CPU", LogFigure::kModel);
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->within_print);
}

TEST(CheckLog, AnOldRunnersOneCacheForEverySequenceIsSaidOnCompute) {
  // ollama#9352: n_ctx 81,920 = 10 x 8,192, "llama_kv_cache_init: kv_size
  // = 81920": one cache for all 10 sequences. KV 32 layers x 81,920 x
  // 2 x 1,024 x 2 B = 10,737,418,240 B either way.
  const std::string slug = "ollama-9352-llama-8b-class-parallel10-cuda";
  LogCheckOptions options;
  options.config_json = read_test_log("ollama", slug + ".config.json");
  const LogCheck c = check("ollama", slug + ".log", options);
  EXPECT_EQ(figure(c, "CUDA0", LogFigure::kKvCache)->memfit, 10'737'418'240u);
  const FigureCheck* compute = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  // No release printed: the one cache says a release before v0.11.5,
  // whose last, v0.11.4, prices it (the request's note, not the row's).
  EXPECT_EQ(compute->note, "");
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "Ollama's version is not in the log, but its runner kept one cache for every "
                      "sequence, as releases before v0.11.5 did: v0.11.4's rules price it"),
            c.log.notes.end());
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "n_seq_max is not in the log: n_ctx 81920 over n_ctx_per_seq 8192 is 10 sequences"),
            c.log.notes.end());
}

TEST(CheckLog, AnOllamaCpuRunRebuiltFromItsDumpIsExact) {
  // A committed Ollama 0.18.2 log (blue-terminal/ChaosGPT): Llama 3.2 1B
  // Q8_0 on the CPU. The Q8_0 GGUF llama-quantize writes: token_embd
  // (tied, no output.weight) 128,256 x 2,048 / 32 x 34 B = 279,085,056;
  // 16 blocks of q, o 2,048 x 2,048, k, v 2,048 x 512, gate, up, down
  // 2,048 x 8,192 at 34 B a 32-block and two 2,048-float norms: 64,634,880
  // each; output_norm 8,192 B and the llama3 rope's rope_freqs 32 x 4 B:
  // 1,313,251,456 B, and the dump counts f32 34, q8_0 113. "1252.41 MiB"
  // = 1,313,247,068 +- 5,243.
  const LogCheck c = check("ollama", "ollama-chaosgpt-llama32-1b-q8_0-cpu.log");
  EXPECT_EQ(c.profile, "ollama");
  const FigureCheck* model = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, 1'313'251'456u);
  EXPECT_EQ(model->basis, FigureBasis::kExact);
  EXPECT_TRUE(model->within_print);
  // The output buffer keeps embeddings too (the runner's embeddings =
  // true, the model pools nothing): 4 x 1 x (128,256 + 2,048) = 521,216 B,
  // in "0.50 MiB" (524,288 +- 5,243); the logits alone, 513,024, are not.
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  EXPECT_EQ(output->memfit, 521'216u);
  EXPECT_EQ(output->basis, FigureBasis::kExact);
  EXPECT_TRUE(output->within_print);
  EXPECT_TRUE(output->note.starts_with("Ollama's runner keeps each output's embedding too")) << output->note;
}

TEST(CheckLog, OllamasRunnerRepacksNoWeights) {
  // Sriyush/CortexCLI, Ollama 0.15.6 on an AVX-512 host: Qwen2.5 1.5B
  // Q4_K_M's "CPU model buffer size = 934.69 MiB" is the file alone (no
  // CPU_REPACK line though q4_K repacks on AVX-512): 980,097,536 B
  // against 980,093,501 +- 5,243.
  LogCheckOptions options;
  options.version = "0.15.6";
  const LogCheck c = check("ollama", "ollama-cortexcli-qwen25-15b-q4km-cpu.log", options);
  const FigureCheck* model = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, 980'097'536u);
  EXPECT_TRUE(model->within_print);
}

TEST(CheckLog, TheHostOfAFullOffloadHoldsTheInputsAndAnF32Mask) {
  // bercaakbayir/MacCare, Ollama 0.21.0 on an M2: Llama 3.2 3B, every
  // layer on Metal, 4096 cells, n_ubatch 512, flash attention on. The
  // host's compute buffer is the graph's inputs: the input rows 3,072 x
  // 512 x 4 = 6,291,456, the mask F32 (llama-graph.cpp casts it to F16 on
  // the GPU) 4,096 x 512 x 4 = 8,388,608, token ids and positions 2 x 512
  // x 4 = 4,096, output ids 512 x 4 = 2,048: 14,686,208 B in "14.01 MiB"
  // (14,690,550 +- 5,243); an F16 mask would be 4 MiB short.
  // The KV store's indices (#14959, in the runner's b7108): k_idxs and,
  // under flash attention, v_idxs, 8 x 512 = 4,096 each: 14,694,400 B.
  LogCheckOptions options;
  options.version = "0.21.0";
  const LogCheck c = check("ollama", "ollama-maccare-llama32-3b-q4km-m2-metal.log", options);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 14'694'400u);
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLog, WithoutFlashAttentionTheHostHoldsAnIndexPerElementOfV) {
  // LuisArmando-TestCoder/Alfred, Ollama 0.12.6 on an M1: Llama 3.1 8B on
  // Metal, 4,096 cells, U 512, flash attention off, so the cache stores V
  // transposed and set_rows takes one I64 index per element (llama-kv-
  // cache's build_input_v_idxs: 512 x 1,024 x 8 = 4,194,304). With the
  // input rows 4,096 x 512 x 4 = 8,388,608, the F32 mask 8,388,608, token
  // ids and positions 4,096, output ids 2,048 and k_idxs 4,096: 20,981,760
  // B in "20.01 MiB" (20,982,006 +- 5,243); without the indices 4 MiB short.
  const LogCheck c = check("ollama", "ollama-alfred-llama31-8b-q4km-m1-metal.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 20'981'760u);
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLog, ASourceBuildWithoutItsHistoryIsPricedAsThePinnedRelease) {
  // lota09/local_LLM_llama prints "build: 1 (ebbf544)": a shallow clone's
  // `git rev-list --count HEAD` (cmake/build-info.cmake), not b1.
  const LogCheck c = check("llamacpp", "llamacpp-lota09-qwen35-35b-a3b-iq2m-rtx4060ti.log");
  // Its compute lines are sched_reserve's (no older bound), but its
  // fused Gated Delta Net probe (b8199 on) and the server's "system info:
  // n_threads" line (to b8679) date it: priced as b8679, said in the notes
  // and on every priced row.
  const std::string note = "a source build without its history (a shallow clone counts 1 commit), not a "
                           "release's number";
  EXPECT_NE(std::find(c.log.notes.begin(), c.log.notes.end(),
                      "the log prints build b1: " + note + "; its lines date it to b8199 to b8679 "
                      "(sched_reserve's fused Gated Delta Net probe, llama-server's 'system info: n_threads' "
                      "line): priced as b8679, by the rules every build of that range shares, the pinned "
                      "release's where they differ"),
            c.log.notes.end());
  const FigureCheck* kv = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_NE(kv->note.find("build b1 is " + note + ": priced as b8679"), std::string::npos) << kv->note;
}

TEST(CheckLog, ARunnerWithTheOldContextLinesKeptOneCacheForEverySequence) {
  // jack-tsao/jetson-copilot: Ollama's C++ runner (no version printed),
  // "llama_new_context_with_model: n_ctx = 8192" for 4 sequences: one
  // cache of 8,192 cells (#14363 came long after those lines), which its
  // attention and mask span: priced as v0.11.4, the last release with one
  // cache (ollama_check_test.cc works the host's bytes).
  const LogCheck c = check("ollama", "ollama-jetsoncopilot-mixtral-8x7b-q4_0-agx-orin.log");
  for (const char* device : {"CUDA0", "CPU"}) {
    const FigureCheck* compute = figure(c, device, LogFigure::kCompute);
    ASSERT_NE(compute, nullptr);
    EXPECT_EQ(compute->note, "");
  }
}

TEST(CheckLog, PipelineParallelismWithoutItsCountIsTheDefaultFourCopies) {
  // MrSnowNB/nemoclaw-setup: "llama_context: pipeline parallelism enabled"
  // (newer builds print no n_copies): GGML_SCHED_MAX_COPIES, 4.
  const LogCheck c = check("llamacpp", "llamacpp-mrsnow-qwen35-35b-a3b-q8_0-4x-a6000.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(host->note.starts_with("pipeline parallelism (n_copies=4)")) << host->note;
}

TEST(CheckLog, GpusWithoutModelBuffersSayTheRunsSplitIsNotPrinted) {
  // The same log lists CUDA0 to CUDA3 with their free memory, but only
  // CUDA2 and CUDA3 print model buffers (17931.70 and 16736.08 MiB): the
  // run's device list or tensor split is not in it, and memfit's even
  // spread over four (8541.43 MiB on CUDA2) says so.
  const LogCheck c = check("llamacpp", "llamacpp-mrsnow-qwen35-35b-a3b-q8_0-4x-a6000.log");
  const FigureCheck* cuda2 = figure(c, "CUDA2", LogFigure::kModel);
  ASSERT_NE(cuda2, nullptr);
  EXPECT_EQ(cuda2->note,
            "the log lists 4 GPUs and 2 of them hold its model buffers: the run was given a device "
            "list or tensor split it does not print; memfit spreads the layers over all 4");
  // The host holds no GPU's layers: no such note.
  EXPECT_EQ(figure(c, "CPU", LogFigure::kModel)->note.find("GPUs"), std::string::npos);
}

TEST(CheckLog, SyclGpusSplitTheLayersByTheTotalTheirTablePrints) {
  // ggml-org/llama.cpp#9241 (b3616, Qwen1.5 14B, 40 blocks, -ngl 41 by
  // default of the log's "offloaded 41/41", 32,768 cells, f16 K and V):
  // no free memory printed; ggml-sycl gives the total as the free memory,
  // so the split is 16704 : 8319 (decimal MB). 41 slots; slot j on SYCL0
  // while j / 41 < 16704 / 25023 = 0.66755, i.e. j <= 27: 28 blocks.
  // One block's cache: 32,768 x 5,120 x 2 (K, V) x 2 B = 640 MiB; SYCL0
  // 28 x 640 = 17,920 MiB = 18,790,481,920 B, SYCL1 12 x 640 = 7,680 MiB =
  // 8,053,063,680 B: the printed figures.
  const LogCheck c = check("llamacpp", "llamacpp-9241-qwen15-14b-q4ks-a770-a750-sycl.log");
  const FigureCheck* sycl0 = figure(c, "SYCL0", LogFigure::kKvCache);
  const FigureCheck* sycl1 = figure(c, "SYCL1", LogFigure::kKvCache);
  ASSERT_NE(sycl0, nullptr);
  ASSERT_NE(sycl1, nullptr);
  EXPECT_EQ(sycl0->memfit, std::optional<uint64_t>(18'790'481'920u));
  EXPECT_EQ(sycl1->memfit, std::optional<uint64_t>(8'053'063'680u));
  EXPECT_EQ(sycl0->note.find("free memory"), std::string::npos) << sycl0->note;
}

TEST(CheckLog, ARowSplitBefore14158RunsItsSwigluInPlace) {
  // ggml-org/llama.cpp#14075 (b5605, -sm row, flash attention, 70B: hidden
  // 8,192, FFN 28,672; 2,048 cells, U 512): CUDA1 runs blocks alone, its
  // peak the FFN of a build before #14158: 4 x 512 x (2 x 8,192 + 2 x
  // 28,672) = 150,994,944 and the F16 mask's copy 2 x 2,048 x 512 =
  // 2,097,152: 153,092,096 B = 146.00 MiB, the print.
  const LogCheck c = check("llamacpp", "llamacpp-14075-r1-distill-70b-q6k-4x-rtx5000.log");
  const FigureCheck* cuda1 = figure(c, "CUDA1", LogFigure::kCompute);
  ASSERT_NE(cuda1, nullptr);
  EXPECT_EQ(cuda1->memfit, std::optional<uint64_t>(153'092'096u));
}

TEST(CheckLog, PipelineCopiesOfTheOutputGpuAreAllAddedAndCopyTheF16Cast) {
  // ggml-org/llama.cpp#11200 (b4462, Qwen2.5 32B over two GPUs, pipeline
  // parallelism, 32,768 cells, U 256, flash attention with the F32 mask
  // cast on CUDA0). CUDA1's peak is its logits and result_norm, 4 x 256 x
  // (152,064 + 5,120) = 160,956,416, which hold no input: all 4 copies of
  // the rows (4 x 256 x 5,120 = 5,242,880) and of the F16 cast it reads
  // from CUDA0 (2 x 32,768 x 256 = 16,777,216) are added, 88,080,384, and
  // 3 more of the positions and output ids (1,024 B each): 249,042,944 B,
  // against the printed 237.51 MiB (249,047,286).
  const LogCheck c = check("llamacpp", "llamacpp-11200-qwen2-spec-2gpu.log");
  const FigureCheck* cuda1 = figure(c, "CUDA1", LogFigure::kCompute);
  ASSERT_NE(cuda1, nullptr);
  EXPECT_EQ(cuda1->memfit, std::optional<uint64_t>(249'042'944u));
}

TEST(CheckLog, TheMaskCastOnAGpuThatCopiesItsInputsLandsAboveTheNormAndK) {
  // ggml-org/llama.cpp#11500 (b4524, Granite Code 3B on SYCL: hidden
  // 2,560, 32 heads of 80 and 32 KV heads; 32,768 cells, U 512), the GPU's
  // split replayed (device_split): the copies of the rows 4 x 512 x 2,560 =
  // 5,242,880, positions 2,048, the F32 mask 4 x 32,768 x 512 = 67,108,864
  // and out_ids 2,048 (no KV indices before #14959), block 0's norm and Q
  // product (freed: holes K fits) and the roped Q, 3 x 5,242,880, then the
  // F16 cast 33,554,432: 121,638,912 B = 116.00 MiB, the print (121,634,816
  // at its 0.01 MiB).
  const LogCheck c = check("llamacpp", "llamacpp-11500-granite-code-sycl.log");
  const FigureCheck* sycl0 = figure(c, "SYCL0", LogFigure::kCompute);
  ASSERT_NE(sycl0, nullptr);
  EXPECT_EQ(sycl0->memfit, std::optional<uint64_t>(121'638'912u));
}

TEST(CheckLog, AnInputBufferOfItsOwnBoundsTheBuildBelow6017) {
  // ggml-org/llama.cpp#5619: a server of February 2024 with a build count
  // of its own (1037, in its JSON "build info" line) prints "CUDA_Host
  // input buffer size": priced as b1037, before #6017 as b2412 would be
  // (the rules of every build before b2413 are one), whose early graph
  // holds on CUDA0 (block 0, no flash attention, 512 cells) 4 x 512 x
  // (3 x 4,096 + 2 x 14,336) = 83,886,080 and the f32 mask 4 x 512 x 512
  // = 1,048,576: 84,934,656 B against 80.30 MiB.
  const LogCheck c = check("llamacpp", "llamacpp-5619-mistral-7b-q5km-8x-p6000.log");
  EXPECT_EQ(c.log.version, "b1037");
  const FigureCheck* cuda0 = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(cuda0, nullptr);
  EXPECT_EQ(cuda0->memfit, std::optional<uint64_t>(84'934'656u));
  // Before #6122 the output buffer is n_batch rows: the server's extra
  // sequence is not priced (nor said).
  EXPECT_EQ(std::find_if(c.log.notes.begin(), c.log.notes.end(),
                         [](const std::string& n) { return n.find("one sequence more") != std::string::npos; }),
            c.log.notes.end());
}

TEST(CheckLog, ExpertsMovedToTheHostSayTheirCopiesAreTheRebuildsOnTheFirstGpu) {
  // ik_llama.cpp#394's mainline b5331 run: every block offloaded, the
  // experts of blocks 27..60 moved to the CPU by --override-tensor; op
  // offload copies them into CUDA0's buffer (3285.00 MiB printed), which
  // memfit prices from the config's rebuilt tensor list: the row says so.
  // CUDA1 (within 10 %) and the host say nothing of it.
  LogCheckOptions options;
  options.config_json = read_test_log("llamacpp", "llamacpp-ik394-deepseek-v3-q2kxl-4gpu-ot-ub1024.config.json");
  options.command = "./llama-server -m DeepSeek-V3-0324-UD-Q2_K_XL-merged.gguf -c 16384 -ngl 99 "
                    "--override-tensor 'blk\\.([0-7])\\..*_exps\\.=CUDA0' "
                    "--override-tensor 'blk\\..*_exps\\.=CPU' -fa --ubatch-size 1024";
  const LogCheck c = check("llamacpp", "llamacpp-ik394-deepseek-v3-q2kxl-4gpu-ot-ub1024.log", options);
  const FigureCheck* cuda0 = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(cuda0, nullptr);
  EXPECT_TRUE(cuda0->note.starts_with("op offload copies the weights -ot or --n-cpu-moe moved to the host"))
      << cuda0->note;
  EXPECT_EQ(figure(c, "CUDA1", LogFigure::kCompute)->note.find("op offload"), std::string::npos);
}

TEST(CheckLog, ThreeSequencesKeepTheirStreams) {
  // n_ctx 3000 over 3 sequences: 1,000 a stream, padded to 1,024 cells (256),
  // 3 streams: 4 x 3,072 x 256 x 2 B = 6,291,456 = "6.00 MiB"; output 3 x
  // 128,000 = 384,000 against 0.37 MiB = 387,973 +- 5,243.
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx3000-seq3-fa.log");
  EXPECT_EQ(figure(c, "CPU", LogFigure::kKvCache)->memfit, 6'291'456u);
  EXPECT_EQ(figure(c, "CPU", LogFigure::kOutput)->memfit, 384'000u);
  EXPECT_TRUE(figure(c, "CPU", LogFigure::kOutput)->within_print);
}

TEST(CheckLog, HybridModelComparesKvAndStateAsTotals) {
  // A CPU run: the host holds the whole context, so its KV and state are
  // compared on it too (memfit places a device's KV and state together).
  const LogCheck c = check("llamacpp", "llamacpp-pinned-granite-hybrid-ctx4096.log");
  const FigureCheck* cpu_kv = figure(c, "CPU", LogFigure::kKvCache);
  ASSERT_NE(cpu_kv, nullptr);
  EXPECT_EQ(cpu_kv->memfit, cpu_kv->printed.value);  // 4.00 MiB, exactly
  EXPECT_TRUE(figure(c, "CPU", LogFigure::kRecurrent)->within_print);
  const FigureCheck* kv = figure(c, "total", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->note, "the sum of the devices' buffers");
  EXPECT_EQ(kv->memfit, kv->printed.value);  // 4.00 MiB, exactly
  EXPECT_TRUE(figure(c, "total", LogFigure::kRecurrent)->within_print);
}

TEST(CheckLog, VllmWeightsFromTheConfigBesideTheLog) {
  // vllm-project/vllm#10517: Llama 3.1 8B, bf16: 8,030,261,248 parameters x
  // 2 B + the rope cache 131,072 positions x 128 x 2 B (33,554,432) =
  // 16,094,076,928 B, against "14.9888 GB" = 16,094,101,452 +- 53,688.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-10517-llama31-8b-rtx3090-20k.config.json");
  const LogCheck c = check("vllm", "vllm-10517-llama31-8b-rtx3090-20k.log", options);
  EXPECT_EQ(c.model_source, ModelSource::kConfig);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 16'094'076'928u);
  EXPECT_TRUE(weights->within_print);
  EXPECT_EQ(weights->basis, FigureBasis::kModelled);
  // "GPU blocks: 1952" (its "# " cut in the post) is read.
  EXPECT_EQ(figure(c, "total", LogFigure::kKvBlocks)->printed.value, 1952u);
}

TEST(CheckLog, VllmLoraSlotsFromTheLogsArgsAreInTheLoadedWeights) {
  // trietnguyeminh's Qwen3-8B run (vLLM 0.22.1, TP 2, fp16): its
  // non-default args set 'enable_lora': True and leave max_loras and
  // max_lora_rank at 1 and 16. memfit's weights without LoRA are
  // 8,202,559,488 B a rank (expected.tsv before the slots were priced);
  // the slots add 835,584 elements x 2 B x 36 layers = 60,162,048
  // (tests/engines/vllm/lora_test.cc): 8,262,721,536 B, within "7.7 GiB"
  // (8,267,812,045 +- 0.05 GiB).
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-neverfiles-exact-qwen3-8b-tp2.config.json");
  const LogCheck c = check("vllm", "vllm-neverfiles-exact-qwen3-8b-tp2.log", options);
  for (const char* rank : {"rank0", "rank1"}) {
    const FigureCheck* weights = figure(c, rank, LogFigure::kWeights);
    ASSERT_NE(weights, nullptr) << rank;
    EXPECT_EQ(weights->memfit, 8'262'721'536u) << rank;
    EXPECT_TRUE(weights->within_print) << rank;
  }
  // The command fills in what the log did not print: two slots of rank
  // 32 are 2 x 2 x 60,162,048 = 240,648,192 B.
  options.command = "vllm serve m --enable-lora --max-loras 2 --max-lora-rank 32";
  const LogCheck wider = check("vllm", "vllm-neverfiles-exact-qwen3-8b-tp2.log", options);
  EXPECT_EQ(figure(wider, "rank0", LogFigure::kWeights)->memfit, 8'202'559'488u + 240'648'192u);
}

TEST(CheckLog, VllmMambaCacheDtypeFromTheCommandSizesTheGatedDeltaState) {
  // The neverlogs13 Qwen3-Next-80B-A3B run (vLLM 0.10.2, TP 2) given
  // --mamba-cache-dtype float32: both of its gated delta states take it
  // (0.10.2 predates vllm#34489): conv 12,288 x 4 = 49,152 + recurrent
  // 262,144 x 4 = 1,048,576: 1,097,728 B a rank, 67 x 16 x 1,024 exactly:
  // 1,072-token blocks of 1,097,728 B, 12 x 1,097,728 = 13,172,736 B a
  // block (6,684,672 without the flag): 3,686 blocks where 7,263 were. The
  // KV memory is the profile's, which the flag leaves alone, so the blocks
  // are that memory over the larger block.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-neverlogs13-v0102-qwen3-next-80b-tp2-h200.config.json");
  const std::string log = "vllm-neverlogs13-v0102-qwen3-next-80b-tp2-h200.log";
  const LogCheck plain = check("vllm", log, options);
  options.command = "vllm serve m --tensor-parallel-size 2 --mamba-cache-dtype float32";
  const LogCheck f32 = check("vllm", log, options);
  const FigureCheck* memory = figure(f32, "rank0", LogFigure::kKvCacheAvailable);
  const FigureCheck* blocks = figure(f32, "total", LogFigure::kKvBlocks);
  ASSERT_NE(memory, nullptr);
  ASSERT_NE(blocks, nullptr);
  ASSERT_TRUE(memory->memfit.has_value());
  EXPECT_EQ(memory->memfit, figure(plain, "rank0", LogFigure::kKvCacheAvailable)->memfit);
  EXPECT_EQ(blocks->memfit, *memory->memfit / 13'172'736u);
  EXPECT_EQ(figure(plain, "total", LogFigure::kKvBlocks)->memfit, *memory->memfit / 6'684'672u);
}

TEST(CheckLog, VllmInFlightBitsandbytesOfAFloat32ConfigServedAt16Bits) {
  // Captain-Jay29/vllm (v0.8.3): TinyLlama-1.1B-Chat-v1.0 with
  // --quantization bitsandbytes on its 16-bit checkpoint, given a copy of
  // its config re-saved with "dtype": "float32"; the engine line serves it
  // as torch.bfloat16. NF4 with double quantization on the 22 layers'
  // Linear weights (q 2048x2048, k and v 256x2048, o 2048x2048, gate, up
  // and down 5632x2048: 44,040,192 a layer, 968,884,224 in all) at half a
  // byte = 484,442,112, plus a uint8 absmax a 64 weights and a float32 a
  // 256 absmaxes, matrix by matrix (q and o 65,536 + 1,024, k and v
  // 8,192 + 128, each MLP matrix 180,224 + 2,816: 698,880 a layer) =
  // 15,375,360; the embedding and LM head 16-bit, 2 x 32,000 x 2,048 x 2 =
  // 262,144,000; the 45 norms 45 x 2,048 x 2 = 184,320; the rope cache
  // 2,048 x 64 x 2 = 262,144. Sum: 762,407,936 B of tensors. PyTorch's
  // allocator holds 24 MiB more (allocations_test.cc: each 11 MiB uint8
  // gate_up_proj and each 125 MiB table takes its 2 MiB-rounded block
  // whole, 1 MiB over): 787,573,760 B against "0.7318 GiB" (785,764,267
  // B), 1.0023 (0.9703 without). At 32 bits the 16-bit parts alone would
  // add 262,328,320 B.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-nevervllm8-captainjay-tinyllama-bnb-v083.config.json");
  const LogCheck c = check("vllm", "vllm-nevervllm8-captainjay-tinyllama-bnb-v083.log", options);
  EXPECT_EQ(c.not_priced, "");
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 762'407'936u + 25'165'824u);
  EXPECT_EQ(weights->basis, FigureBasis::kModelled);
}

TEST(CheckLog, VllmInFlightBitsandbytesFromV092HoldsAFloat32Absmax) {
  // neverlogs12, file id 53396499857 (v0.18.0): Qwen2.5-3B-Instruct with
  // --quantization bitsandbytes on its 16-bit checkpoint. From v0.9.2 the
  // loader dequantizes the nested absmax to float32 (dequantize_dq, vLLM
  // PR #19742). The 36 layers' Linear weights (q and o 2048x2048, k and v
  // 256x2048, gate, up and down 11008x2048: 77,070,336 a layer,
  // 2,774,532,096 in all) at half a byte = 1,387,266,048, plus a float32
  // absmax a 64 weights, 2,774,532,096 / 64 x 4 = 173,408,256 (double
  // quantization would hold 43,352,064 + 677,376 = 44,029,440); the tied
  // embedding 151,936 x 2,048 x 2 = 622,329,856; the 73 norms 73 x 2,048
  // x 2 = 299,008; the q/k/v biases 36 x (2,048 + 256 + 256) x 2 = 184,320;
  // the rope cache 32,768 x 128 x 2 = 8,388,608. Sum: 2,191,876,096 B of
  // tensors (0.9279 of the print with the 8-bit absmax). The allocator's rounding: each uint8 gate_up_proj, 2 x 11,008
  // x 2,048 / 2 = 21.5 MiB, takes 22 whole (0.5 MiB left), +524,288 x 36;
  // down_proj 10.75 MiB takes 12, 1.25 left: split; the tied table 593.5
  // MiB takes 594, +524,288: 19,398,656 B. 2,211,274,752 B against "2.07
  // GiB" (2,222,645,576 B): 0.9949 (0.9861 without).
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-neverlogs12-v0180-qwen25-3b-bnb-wsl.config.json");
  const LogCheck c = check("vllm", "vllm-neverlogs12-v0180-qwen25-3b-bnb-wsl.log", options);
  EXPECT_EQ(c.not_priced, "");
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 2'191'876'096u + 19'398'656u);
}

TEST(CheckLog, AVllmV2RunnersWeightsUnderTheTargetSayWhatWasRuledOut) {
  // eslam-ahmed43/llm-lab (v0.30.0, "Using V2 Model Runner"):
  // Qwen2.5-1.5B-Instruct at fp16. memfit's tensors from the config,
  // 1,543,714,304 parameters (the q/k/v biases 28 x 2,048 among them) x 2 B
  // = 3,087,428,608, the rope cache 32,768 x 128 x 2 B = 8,388,608, the
  // tied table's 445.125 MiB held in 446 (+917,504): 3,096,734,720 B
  // against "2.98 GiB", 0.9678; the note names the V2 runner's untraced gap.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-nevervllm9-llmlab-qwen25-15b-t4-v0300.config.json");
  const LogCheck c = check("vllm", "vllm-nevervllm9-llmlab-qwen25-15b-t4-v0300.log", options);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 3'096'734'720u);
  EXPECT_NE(weights->note.find("V2 model runner's load figure"), std::string::npos) << weights->note;
}

TEST(CheckLog, AVllmRocmWeightsOverTheTargetNameRocmsModelledTerms) {
  // rocm-compose's v0.16.1 dev build on an RX 7900 GRE: Qwen2.5-0.5B at
  // fp16. The tensors 988,065,536 B (the config count, the q/k/v biases
  // 24 x 1,152 x 2 B = 55,296 among them) + the rope cache 32,768 x 64 x
  // 2 B = 4,194,304; ROCm's allocator part 50,024,704 B (each 16.625 MiB
  // gate_up_proj in an 18 MiB segment, 24 x 1,441,792 = 34,603,008; the
  // tied table 259.66 MiB in 260, +360,448; the 1 to 10 MiB parameters and
  // the rope cache, 301,465,600 B, in 15 shared 20 MiB segments,
  // +13,107,200; the norms' 49 x 2,048 B and the biases' 24 x 2,560 B
  // blocks in one 2 MiB small segment, +1,935,360, and their blocks'
  // rounding, 12,544 + 6,144) and the 64 MiB runtime, 67,108,864:
  // 1,109,393,408 B against "0.99 GiB", 1.0436 (the biases fill the small
  // segment's hole). The note names both modelled terms.
  LogCheckOptions options;
  options.config_json =
      read_test_log("vllm", "vllm-nevervllm7-rocmcompose-qwen25-05b-rx7900gre-v0161.config.json");
  options.gpu_name = "AMD Radeon RX 7900 GRE";
  options.command =
      "vllm serve Qwen/Qwen2.5-0.5B-Instruct --dtype float16 --max-model-len 2048 "
      "--gpu-memory-utilization 0.75 --enforce-eager";
  const LogCheck c = check("vllm", "vllm-nevervllm7-rocmcompose-qwen25-05b-rx7900gre-v0161.log", options);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 988'065'536u + 4'194'304u + 50'024'704u + 67'108'864u);
  EXPECT_NE(weights->note.find("47.7 MiB, packed without holes"), std::string::npos) << weights->note;
  EXPECT_NE(weights->note.find("HIP runtime (64.0 MiB)"), std::string::npos) << weights->note;
}

TEST(CheckLog, AVllmExcerptsTensorParallelIsItsProcessesNotItsFigureLines) {
  // genlm/genlm-backend#10 (v0.7.0): Llama-3-8B bf16 over four processes,
  // two of whose weights lines the excerpt keeps. memfit's weights at TP 1
  // are 16,060,522,496 B (8,030,261,248 parameters x 2 B; the config's
  // 8,192 positions' rope cache, 8,192 x 128 x 2 B = 2,097,152 B, on every
  // rank). TP 4 splits the 16,060,522,496 B of tensors: the 32 layers'
  // attention and MLP (218,103,808 x 32 = 6,979,321,856 params) and the
  // vocabulary-parallel embedding and head (128,256 x 4,096 x 2 =
  // 1,050,673,152) over 4, the norms (65 x 4,096 = 266,240) whole:
  // (6,979,321,856 + 1,050,673,152) / 4 + 266,240 = 2,007,764,992 params,
  // x 2 B = 4,015,529,984, + the rope cache 2,097,152 = 4,017,627,136 B,
  // against "3.7418 GB" = 37418 x 2^30 / 10^4 = 4,017,727,157 +- 53,688:
  // 100,021 B short, the rank's own buffers (modelled).
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-genlm10-llama3-8b-tp4-v070.config.json");
  const LogCheck c = check("vllm", "vllm-genlm10-llama3-8b-tp4-v070.log", options);
  for (const char* rank : {"rank0", "rank2"}) {
    const FigureCheck* weights = figure(c, rank, LogFigure::kWeights);
    ASSERT_NE(weights, nullptr) << rank;
    EXPECT_EQ(weights->printed.value, 4'017'727'157u) << rank;
    EXPECT_EQ(weights->memfit, 4'017'627'136u) << rank;
  }
  // The printed setting wins over the lines: --tensor-parallel-size 2.
  options.command = "vllm serve m --tensor-parallel-size 2";
  const LogCheck two = check("vllm", "vllm-genlm10-llama3-8b-tp4-v070.log", options);
  EXPECT_GT(figure(two, "rank0", LogFigure::kWeights)->memfit, 8'000'000'000u);
}

TEST(CheckLog, AVllmRowOffItsTargetSaysWhatTheLogLeavesOut) {
  // vllm#17122's V1 log (Llama 3.1 8B on an L40S) prints no settings line
  // and no profile term: its KV tokens, 1.247 of the print, are priced
  // after the release's default sequences and batched tokens, and the row
  // says so. (The OCI A10 log prints none either, but its V0 worker prints
  // the profile's terms, which its row names instead:
  // AV0RunsMissNamesTheTermsItsWorkerPrinted.)
  LogCheckOptions l40s;
  l40s.config_json = read_test_log("vllm", "vllm-17122-llama31-8b-l40s-v1.config.json");
  l40s.gpu_name = "NVIDIA L40S";
  const LogCheck v1 = check("vllm", "vllm-17122-llama31-8b-l40s-v1.log", l40s);
  const FigureCheck* kv = figure(v1, "total", LogFigure::kKvTokens);
  ASSERT_NE(kv, nullptr);
  ASSERT_TRUE(kv->ratio.has_value());
  EXPECT_GT(*kv->ratio, 1.05);
  EXPECT_EQ(kv->note.rfind("the log prints neither max_num_seqs nor max_num_batched_tokens", 0), 0u)
      << kv->note;
  // Qwen3.5-27B's weights at TP 4 (a v0.19 run) were 0.989 of the print
  // and said the run loaded no drafter (speculative_config=None); with the
  // allocator's rounding of the hybrid layers and the vision tower's whole
  // parts they are 13,971,465,016 of 13,969,381,130 B (1.0001), within the
  // print, and the row carries no such note.
  LogCheckOptions foam;
  foam.config_json = read_test_log("vllm", "vllm-neverfiles-foam-qwen35-27b-tp4.config.json");
  const LogCheck qwen35 = check("vllm", "vllm-neverfiles-foam-qwen35-27b-tp4.log", foam);
  const FigureCheck* weights = figure(qwen35, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit.value_or(0), 13971465016u);
  EXPECT_EQ(weights->note.rfind("the run serves no drafter", 0), std::string::npos) << weights->note;
  // Open-Reasoner-Zero#23's V0 Ray excerpt prints no tensor-parallel size;
  // its two processes (a Ray worker and the LLMActor driver) give TP 2, a
  // floor: 15.41 GiB a rank is a quarter of Qwen2.5-32B, and the row says so.
  LogCheckOptions orz;
  orz.config_json = read_test_log("vllm", "vllm-orz23-qwen25-32b-v0-80gb.config.json");
  const LogCheck ray = check("vllm", "vllm-orz23-qwen25-32b-v0-80gb.log", orz);
  const FigureCheck* floor = figure(ray, "rank1", LogFigure::kWeights);
  ASSERT_NE(floor, nullptr);
  EXPECT_EQ(floor->note.rfind("the log prints no tensor-parallel size", 0), 0u) << floor->note;
  EXPECT_EQ(floor->input_gap, "tensor_parallel_size");
  // The same miss under max_num_seqs' defaults names that input; the Gemma
  // row's gap is not an input the log lacks.
  EXPECT_EQ(kv->input_gap, "max_num_seqs");
  EXPECT_EQ(weights->input_gap, "");
  // A row within its target gets no such note: #10517's weights, exact to
  // the print above.
  LogCheckOptions within;
  within.config_json = read_test_log("vllm", "vllm-10517-llama31-8b-rtx3090-20k.config.json");
  const LogCheck llama = check("vllm", "vllm-10517-llama31-8b-rtx3090-20k.log", within);
  EXPECT_EQ(figure(llama, "rank0", LogFigure::kWeights)->note, "");
}

TEST(CheckLog, AVllmLogWithoutItsGpuTotalTakesTheNamedGpusFromTheHardwareTable) {
  // A blog's gpt-oss-20b run on an A100 (vLLM 0.19.0) prints its weights
  // and "Available KV cache memory: 36.56 GiB" and no GPU total: the GPU
  // named beside it, NVIDIA A100-SXM4-80GB, is 81,920 MiB in the hardware
  // table, 81,920 x 1,048,576 = 85,899,345,920 B, and that total prices the
  // available KV memory (modelled) instead of standing as its input.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-myoceane-gpt-oss-20b-a100-80gb-v0190.config.json");
  options.gpu_name = "NVIDIA A100-SXM4-80GB";
  options.version = "0.19.0";
  options.command = "vllm serve openai/gpt-oss-20b --max-model-len 131072 --gpu-memory-utilization 0.65";
  const LogCheck c = check("vllm", "vllm-myoceane-gpt-oss-20b-a100-80gb-v0190.log", options);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  ASSERT_TRUE(kv->memfit.has_value());
  EXPECT_EQ(kv->basis, FigureBasis::kModelled);
  EXPECT_TRUE(std::any_of(c.log.notes.begin(), c.log.notes.end(), [](const std::string& note) {
    return note ==
           "the GPU's total memory is not in the log: the hardware table's for "
           "'NVIDIA A100-SXM4-80GB', 85899345920 B (docs/hardware.md), prices the available KV memory";
  }));
  // A log that prints a KV count beside its available KV memory keeps that
  // memory as the input the count is priced from exactly: vllm#21348's
  // "GPU KV cache size: 178,880 tokens" on an H100 the table knows too.
  LogCheckOptions h100;
  h100.config_json = read_test_log("vllm", "vllm-21348-qwen3-235b-a22b-fp8-tp4-h100.config.json");
  h100.gpu_name = "H100";
  h100.command = "vllm serve /path/to/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4";
  const LogCheck tp4 = check("vllm", "vllm-21348-qwen3-235b-a22b-fp8-tp4-h100.log", h100);
  const FigureCheck* input = figure(tp4, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(input, nullptr);
  EXPECT_FALSE(input->memfit.has_value());
  EXPECT_EQ(figure(tp4, "total", LogFigure::kKvTokens)->basis, FigureBasis::kExact);
  // vllm#44376: DeepSeek-V4-Flash at TP 2 on GH200s (97,871 MiB in the
  // table) had 5.44 GiB of KV memory. Its routed experts are MXFP4
  // (expert_dtype "fp4"), 75.5 GiB of weights a rank, so memfit prices KV
  // memory; read as FP8 experts (the Flash-Base checkpoints' expert_dtype
  // "fp8") the weights are 137 GiB a rank, more than the GPU, and memfit's
  // 0 says that, not a profile default.
  LogCheckOptions gh200;
  gh200.config_json = read_test_log("vllm", "vllm-44376-deepseek-v4-flash-tp2-ep-gh200.config.json");
  gh200.gpu_name = "NVIDIA GH200 480GB";
  gh200.command = "vllm serve DeepSeek-V4-Flash --tensor-parallel-size 2 --gpu-memory-utilization 0.95";
  const LogCheck v4 = check("vllm", "vllm-44376-deepseek-v4-flash-tp2-ep-gh200.log", gh200);
  const FigureCheck* priced = figure(v4, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(priced, nullptr);
  ASSERT_TRUE(priced->memfit.has_value());
  EXPECT_GT(*priced->memfit, 0u);
  nlohmann::json base = nlohmann::json::parse(gh200.config_json);
  base["expert_dtype"] = "fp8";
  gh200.config_json = base.dump();
  const LogCheck fp8 = check("vllm", "vllm-44376-deepseek-v4-flash-tp2-ep-gh200.log", gh200);
  const FigureCheck* none = figure(fp8, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->memfit, 0u);
  EXPECT_EQ(none->note.rfind("memfit leaves no KV memory: its weights, ", 0), 0u) << none->note;
}

LogCheckOptions vllm_10517_29k() {
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-10517-llama31-8b-rtx3090-29k.config.json");
  options.gpu_name = "NVIDIA GeForce RTX 3090";
  return options;
}

TEST(CheckLog, AV0LogProfilesMaxModelLenTokensAtOnce) {
  // vllm-project/vllm#10517, V0 (its "# GPU blocks: 1478, # CPU blocks:
  // 2048" line), max_model_len 29,000 (< 32,768: chunked prefill off), so
  // V0 batched max(29,000, 2,048) = 29,000 tokens in its profile, where the
  // current line's default on a 24 GiB GPU is 2,048.
  const LogCheck c = check("vllm", "vllm-10517-llama31-8b-rtx3090-29k.log", vllm_10517_29k());
  bool noted = false;
  for (const std::string& n : c.log.notes) noted |= n.starts_with("vLLM's V0 engine (its lines show it): max_num_batched_tokens 29000");
  EXPECT_TRUE(noted);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 3'097'141'117u);  // pinned: 0.9981 of the printed 2.89 GiB
  EXPECT_EQ(figure(c, "total", LogFigure::kKvBlocks)->memfit, 1476u);  // printed 1478
  // The same run with the current line's 2,048 tokens leaves more for KV:
  // the activation of 26,952 more batched tokens.
  LogCheckOptions small = vllm_10517_29k();
  small.command = "vllm serve m --max-num-batched-tokens 2048";
  const LogCheck v1_default = check("vllm", "vllm-10517-llama31-8b-rtx3090-29k.log", small);
  EXPECT_GT(*figure(v1_default, "rank0", LogFigure::kKvCacheAvailable)->memfit, *kv->memfit);
}

TEST(CheckLog, AV0LogSamplesItsDefault256Sequences) {
  // vllm-project/vllm#10511: V0's profiling summary (Llama-3-8B, 80 GB
  // GPU, no max_num_seqs given) prints an activation peak of 1.26 GiB,
  // which V0's default of 256 sequences gives (1024, the current line's,
  // gives 4.83 GiB): its KV memory is 1.031 of the printed 53.29 GiB, the
  // rest being the non-torch memory it prints (1.79 GiB, memfit 144 MiB).
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-10511-llama3-8b-tp1-80gb.config.json");
  const LogCheck c = check("vllm", "vllm-10511-llama3-8b-tp1-80gb.log", options);
  bool noted = false;
  for (const std::string& n : c.log.notes) {
    noted |= n == "vLLM's V0 engine (its lines show it): max_num_seqs 256, its default";
  }
  EXPECT_TRUE(noted);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 58'994'413'207u);  // pinned: 1.031 of the printed 53.29 GiB
  // 1024 sampled rows take 3.57 GiB more activation from the KV memory.
  options.command = "vllm serve m --max-num-seqs 1024";
  const LogCheck more = check("vllm", "vllm-10511-llama3-8b-tp1-80gb.log", options);
  EXPECT_LT(*figure(more, "rank0", LogFigure::kKvCacheAvailable)->memfit, *kv->memfit);
}

TEST(CheckLog, AV0LogOfV07IsPricedByItsWorkersAccounting) {
  // daxdelvira's V0 log of v0.7.2: Qwen2.5-14B-Instruct, TP 2 on two 40 GB
  // A100s (39.50 GiB printed), fp16, 32,768 batched tokens, 256 sequences.
  // V0's worker left 35.55 - 13.93 - 1.54 - 2.84 = 17.24 GiB (its summary).
  // Its profile sampled each sequence's last token, so memfit's activation
  // is the forward pass of 32,768 tokens on a rank, V0's eager model under
  // TP holding five hidden states (the all-reduce's output beside the down
  // projection's): 5 x 32,768 x 5,120 x 2 B + the MLP's 32,768 x 3 x 6,912
  // x 2 B = 1,677,721,600 + 1,358,954,496 = 3,036,676,096 B (2.83 GiB,
  // printed 2.84; the sampler's 256 x 152,064 x 39 B + the hidden states is
  // 1,853,751,296), where v0.7's V1 rule (logits over all 32,768 rows) held
  // 14.55 GiB. KV memory: 39.50 GiB x 0.9 = 38,171,521,843 less the weights
  // 14,980,245,504 (the q/k/v biases 48 x 7,168 x 2 B / 2 ranks = 344,064
  // of them), that activation and non-torch 144 + 420 MiB = 591,396,864:
  // 19,563,203,379 B, 1.057 of the print (the rest: the printed non-torch
  // 1.54 GiB).
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-nevervllm7-daxdelvira-qwen25-14b-tp2-a100-v072.config.json");
  options.gpu_name = "NVIDIA A100-PCIE-40GB";
  const LogCheck c = check("vllm", "vllm-nevervllm7-daxdelvira-qwen25-14b-tp2-a100-v072.log", options);
  bool noted = false;
  for (const std::string& n : c.log.notes) noted |= n.starts_with("vLLM 0.7.2's V0 engine (its lines show it)");
  EXPECT_TRUE(noted);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 19'563'203'379u);
  // 19,563,203,379 / (16 x 48 x 2 x 4 x 128 x 2 B = 1,572,864 B a block).
  EXPECT_EQ(figure(c, "total", LogFigure::kKvBlocks)->memfit, 12437u);  // printed 11770
}

TEST(CheckLog, AConfigOfAnotherQuantizationIsNotPriced) {
  // vllm-project/vllm#23066 served GPTQ weights (quantization=gptq_marlin);
  // the base Mixtral config beside it declares none: memfit would price a
  // 16-bit checkpoint, so no figure is priced, and each says why.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-23066-mixtral-8x7b-gptq-tp2.config.json");
  options.command = "vllm serve m --tensor-parallel-size 2 --quantization gptq_marlin";
  const LogCheck c = check("vllm", "vllm-23066-mixtral-8x7b-gptq-tp2.log", options);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_FALSE(weights->memfit.has_value());
  EXPECT_EQ(weights->note, "the log serves gptq weights and the model priced declares no "
                           "quantization: memfit would price another checkpoint; give the served "
                           "checkpoint's config.json or -m");
  // Without the method named, the same config prices the weights.
  options.command = "vllm serve m --tensor-parallel-size 2";
  EXPECT_TRUE(figure(check("vllm", "vllm-23066-mixtral-8x7b-gptq-tp2.log", options), "rank0",
                     LogFigure::kWeights)->memfit.has_value());
  // A method the config declares agrees: DeepSeek-V3's fp8 served as fp8.
  LogCheckOptions fp8;
  fp8.config_json = read_test_log("vllm", "vllm-14447-deepseek-r1-awq-tp16-rtx3090.config.json");
  fp8.command = "vllm serve m --tensor-parallel-size 16 --quantization fp8";
  EXPECT_TRUE(figure(check("vllm", "vllm-14447-deepseek-r1-awq-tp16-rtx3090.log", fp8), "rank1",
                     LogFigure::kWeights)->memfit.has_value());
}

TEST(CheckLog, AMethodNamedAfterItsModelAgreesWithTheCheckpointsFormat) {
  // uv-xiao/pto-cu's DeepSeek-V4-Flash probe serves --quantization
  // deepseek_v4_fp8: vLLM's name for the checkpoint whose config declares
  // quant_method "fp8" (ModelConfig rewrites it for model_type
  // deepseek_v4, DeepseekV4FP8Config.get_name()). It is the same
  // checkpoint, so the weights are priced (AConfigOfAnotherQuantization-
  // IsNotPriced keeps another method unpriced).
  LogCheckOptions options;
  options.config_json =
      read_test_log("vllm", "vllm-ptocu-deepseek-v4-flash-tp2-h200nvl-4k-v0230.config.json");
  const LogCheck c = check("vllm", "vllm-ptocu-deepseek-v4-flash-tp2-h200nvl-4k-v0230.log", options);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_TRUE(weights->memfit.has_value());
  // Its note is the model type's, not a mismatch of methods.
  EXPECT_EQ(weights->note.find("memfit would price another checkpoint"), std::string::npos);
}

TEST(CheckLog, AWeightsGapAnMtpLayerExplainsAndTheProfilesTermsAreNamed) {
  // vllm#50722: Qwen3.5-35B-A3B at TP 4 (v0.26.0, config only). Printed
  // 16.92 GiB = 18,167,711,662 B; memfit 17,729,965,688 B, 437,745,974 B
  // under. The config declares mtp_num_hidden_layers 1, and one such layer's
  // TP-4 share is, in bf16: 256 experts x 3 x 512 x 2048 x 2 B / 4 =
  // 402,653,184; shared expert 3 x 512 x 2048 x 2 / 4 = 1,572,864; its gate
  // 2048 x 2 = 4,096; router 256 x 2048 x 2 = 1,048,576; gated attention:
  // q with its gate 2 x 16 x 256 and o 16 x 256, by 2048, x 2 B / 4 =
  // 12,582,912, k and v one whole head each (2 KV heads over 4 ranks are
  // replicated) 2 x 256 x 2048 x 2 = 2,097,152, q and k norms 2 x 256 x 2
  // = 1,024: 14,681,088; five norms 5 x 2048 x 2 = 20,480; the fc
  // 2048 x 4096 x 2 / 4 = 4,194,304:
  // 424,174,592 B, 97 % of the gap, so the weights row names the drafter.
  // memfit's 17,729,965,688 B grow by the vision tower's parts vLLM keeps
  // whole on every rank (4,551,552 parameters, 3/4 of them x 2 B more than
  // the split: 6,827,328) and the allocator's rounding of the 30 gated
  // delta nets' dt_bias (8 x 2 B), A_log (8 x 4 B) and norm (256 B) to 512
  // B each (30 x 1,232 = 36,960): 17,736,829,976.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-50722-qwen35-35b-a3b-tp4-h100-v0260.config.json");
  const LogCheck c = check("vllm", "vllm-50722-qwen35-35b-a3b-tp4-h100-v0260.log", options);
  const FigureCheck* weights = figure(c, "rank1", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 17'736'829'976u);
  EXPECT_NE(weights->note.find("declares 1 multi-token-prediction layer,"), std::string::npos)
      << weights->note;
  // The KV memory, 43.40 GiB printed: the summary's terms are 5.66, 0.13
  // and 1.34 GiB (6,077,378,724, 139,586,437 and 1,438,814,044 B, each
  // 2^30 x the printed hundredths / 100); memfit's activation is more than
  // 64 MiB off, so the row names them with memfit's beside.
  const FigureCheck* kv = figure(c, "rank1", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->note.rfind("the run's profile printed peak activation 5.66 GiB (memfit ", 0), 0u)
      << kv->note;
  EXPECT_NE(kv->note.find("non-torch memory 133.1 MiB"), std::string::npos) << kv->note;
  // memfit's graphs: 1,024 sequences capture 51 + 51, x 40 layers x 256
  // KiB = 1,069,547,520 B, 1020.0 MiB (engines/vllm/cuda_graphs.h).
  EXPECT_NE(kv->note.find("CUDA graphs 1.34 GiB (memfit 1020.0 MiB)"), std::string::npos) << kv->note;
}

TEST(CheckLog, AV0RunsMissNamesTheTermsItsWorkerPrinted) {
  // OCI AQUA's A10 (V0): 22.07 GiB x 0.90 = 19.86 GiB less the weights
  // 14.99, non-torch 0.05 and activation 0.22 GiB left 4.60 GiB. memfit
  // profiles V0's default 2,048 tokens and 256 sampled rows: 1.21 GiB of
  // activation, 144 MiB of non-torch, so its KV memory is 0.766 of the
  // print and the row names the two printed terms: 0.22 GiB = 22 x 2^30 /
  // 100 = 236,223,201 B = 225.3 MiB; 0.05 GiB = 53,687,091 B = 51.2 MiB.
  // memfit's peak is the sampler's: the forward pass alone is 2,048 x (4 x
  // 4,096 + 3 x 14,336) x 2 B = 243,269,632 B = 232.0 MiB, about the
  // print, and the log prints no max_num_seqs, so the row says a run given
  // fewer sequences samples fewer rows.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-oci-aqua-llama31-8b-a10.config.json");
  options.gpu_name = "NVIDIA A10";
  const LogCheck c = check("vllm", "vllm-oci-aqua-llama31-8b-a10.log", options);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->note.rfind("the run's profile printed peak activation 225.3 MiB (memfit 1.21 GiB), "
                           "non-torch memory 51.2 MiB (memfit 144.0 MiB)",
                           0),
            0u)
      << kv->note;
  EXPECT_NE(kv->note.find("; memfit's peak is the dummy sampler run over 256 rows, its default "
                          "max_num_seqs, which the log does not print (the forward pass alone is "
                          "232.0 MiB): a run given fewer sequences samples fewer rows"),
            std::string::npos)
      << kv->note;
}

TEST(CheckLog, AKvRowWithinTargetNamesTheNonTorchMemoryItsWorkerPrinted) {
  // vllm#12663 (V0, Qwen2.5-32B at TP 2 on two RTX A6000s): the worker
  // printed non_torch_memory 0.29 GiB = 29 x 2^30 / 100 = 311,385,128 B =
  // 297.0 MiB, where memfit's is 144 + 420 = 564 MiB: 267 MiB more, taken
  // from the KV memory byte for byte, so the row (0.973, within 5 %) names
  // the term and its cause. Its activation, 1.54 GiB printed, is memfit's
  // within 64 MiB: V0's eager forward under TP, 12,288 tokens x (5 x 5,120
  // + 3 x 13,824) x 2 B = 1,648,361,472 B = 1.535 GiB, over the sampler's
  // 12,288 x 5,120 x 2 B + 256 x 152,064 x 39 B = 1,644,036,096.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-12663-qwen25-32b-tp2-a6000.config.json");
  options.command = "vllm serve /home/bruce/Downloads/models/Qwen2.5-32B-Instruct "
                    "--tensor-parallel-size 2 --max-model-len 12288 --enforce-eager --port 5000";
  const LogCheck c = check("vllm", "vllm-12663-qwen25-32b-tp2-a6000.log", options);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->note.rfind("the run's profile printed non-torch memory 297.0 MiB (memfit 564.0 MiB); "
                           "vLLM's non-torch memory is what the device holds outside torch's "
                           "allocator beyond the snapshot the worker takes in init_device",
                           0),
            0u)
      << kv->note;
  // The weights row is not a capacity row: no such note.
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->note.find("non-torch"), std::string::npos) << weights->note;
}

TEST(CheckLog, APipelineParallelRunSaysWhyItsWeightsAreNotPriced) {
  // vllm-project/vllm#12258: DeepSeek-V3 at TP 16 x PP 2 under Ray; the
  // two stages print two weights (61 layers as [31, 30]), and the workers
  // are named by pid only, so no weights row can be given its stage: each
  // is unpriced, its note giving both stages' weights.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-12258-deepseek-v3-fp8-tp16-pp2-l20.config.json");
  options.command = "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 16 "
                    "--pipeline-parallel-size 2";
  const LogCheck c = check("vllm", "vllm-12258-deepseek-v3-fp8-tp16-pp2-l20.log", options);
  EXPECT_EQ(c.not_priced, "");
  ASSERT_FALSE(c.figures.empty());
  for (const FigureCheck& f : c.figures) {
    EXPECT_FALSE(f.memfit.has_value());
    EXPECT_EQ(f.note.rfind("the log does not say which pipeline stage this rank is; memfit's "
                           "stages hold ",
                           0),
              0u)
        << f.note;
  }
}

TEST(CheckLog, KtransformersRunsLeaveTheirWeightsAndPoolUnpriced) {
  // kvcache-ai/ktransformers#1804: DeepSeek-V3 under SGLang with the
  // routed experts on the CPU (--kt-method AMXINT8): rank 0 loaded 13.06
  // GB of a 671B checkpoint. The weights and the pool are not priced; the
  // KV per token still is: MLA caches kv_lora_rank 512 + rope 64 = 576
  // values x 2 bytes x 61 layers = 70,272 B a token, x 10,000 tokens =
  // 702,720,000 B (printed 0.65 GB = 0.65 x 2^30 = 697,932,186 B).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-kt1804-deepseek-v3-kt-tp2.config.json");
  options.command = "python -m sglang.launch_server --model /m --kt-method AMXINT8 "
                    "--kt-num-gpu-experts 2 --tensor-parallel-size 2";
  const LogCheck c = check("sglang", "sglang-kt1804-deepseek-v3-kt-tp2.log", options);
  const std::string why = "the run keeps its routed experts on the CPU under ktransformers "
                          "(--kt-method AMXINT8): the sglang profile prices a checkpoint held on "
                          "the GPUs, so this figure is not priced";
  for (LogFigure f : {LogFigure::kWeights, LogFigure::kTokenPool}) {
    const FigureCheck* row = figure(c, "rank0", f);
    ASSERT_NE(row, nullptr);
    EXPECT_FALSE(row->memfit.has_value());
    EXPECT_EQ(row->note, why);
  }
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 702720000u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);

  // ktransformers#1971 names no kt flag; its rank loaded 2.91 GB of
  // Qwen3-30B-A3B's 57 GiB, under half its share: the same verdict.
  LogCheckOptions qwen;
  qwen.config_json = read_test_log("sglang", "sglang-kt1971-qwen3-30b-a3b-kt-rtx3090.config.json");
  const LogCheck offloaded = check("sglang", "sglang-kt1971-qwen3-30b-a3b-kt-rtx3090.log", qwen);
  const FigureCheck* weights = figure(offloaded, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_FALSE(weights->memfit.has_value());
  EXPECT_EQ(weights->note, "the rank loaded 2.91 GB, under half of its share of the checkpoint "
                           "(weights held elsewhere, such as ktransformers' CPU experts): the "
                           "sglang profile prices a checkpoint held on the GPUs, so this figure is "
                           "not priced");
}

TEST(CheckLog, EachSglangRankChecksItsOwnPrintedTokens) {
  // sgl-project/sglang#11716: Llama-3.3-70B at TP 8; the excerpt holds the
  // "KV Cache is allocated" lines of ranks 1, 3, 5 and 6, not rank 0's.
  // Each rank's KV row is its own #tokens at memfit's bytes per token: 8
  // KV heads / TP 8 = 1 a rank, x head dim 128 x (K + V) 2 x 80 layers x
  // 2 bytes = 40,960 B; x 2,795,207 tokens = 114,491,678,720 B (printed
  // K 53.31 + V 53.31 GB, SGLang's GB being 2^30 B: 114,482,353,274 B).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-11716-llama33-70b-tp8-h200.config.json");
  options.command = "python3 -m sglang.launch_server --model meta-llama/Llama-3.3-70B-Instruct --tp 8";
  options.gpu_name = "NVIDIA H200";
  const LogCheck c = check("sglang", "sglang-11716-llama33-70b-tp8-h200.log", options);
  for (const char* rank : {"rank1", "rank3", "rank5", "rank6"}) {
    const FigureCheck* kv = figure(c, rank, LogFigure::kKvCache);
    ASSERT_NE(kv, nullptr) << rank;
    EXPECT_EQ(kv->memfit, 114491678720u) << rank;
    EXPECT_EQ(kv->basis, FigureBasis::kExact) << rank;
  }
}

TEST(CheckLog, AnSglangMaxTotalTokensCapsThePricedPool) {
  // SGLang's docs CI: Qwen2.5-0.5B-Instruct on an H100 with the CI's
  // max_total_tokens=20480 (server_args). The memory allows far more
  // (78.43 GB free, 0.98 GB of weights, fraction 0.841: about 5.68 million
  // tokens of 24 layers x 2 KV heads x 64 x (K + V) x 2 B = 12,288 B),
  // and init_memory_pool keeps min(that, 20480): the pool SGLang printed.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-neversgmlx-docs-qwen25-05b-maxtokens.config.json");
  options.gpu_name = "NVIDIA H100 80GB HBM3";
  const LogCheck c = check("sglang", "sglang-neversgmlx-docs-qwen25-05b-maxtokens.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 20'480u);
  // 20,480 x 12,288 = 251,658,240 B of K + V (printed 0.12 + 0.12 GB).
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 251'658'240u);
}

TEST(CheckLog, AnSglangRankWithoutFiguresStillCountsTowardsTheTp) {
  // sgl-project/sglang#27537: Qwen3-30B-A3B FP8 on two MUSA ranks; rank 0
  // prints "#tokens: 1106304", rank 1 only a capture line. At TP 2 a token
  // holds 48 layers x 4 / 2 = 2 KV heads x 128 x (K + V) x 2 B = 49,152 B;
  // x 1,106,304 = 54,377,054,208 B (printed K 25.32 + V 25.32 GB =
  // 54,374,285,968 B, +- 10,737,418: within the print). Read as TP 1 (the
  // one rank with figures) it was twice that.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-27537-qwen3-30b-a3b-fp8-tp2-musa.config.json");
  const LogCheck c = check("sglang", "sglang-27537-qwen3-30b-a3b-fp8-tp2-musa.log", options);
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 54'377'054'208u);
  EXPECT_TRUE(kv->within_print);
}

TEST(CheckLog, AnSglangConfigWhoseQuantizationIsNotPricedLeavesThePoolUnpriced) {
  // sgl-project/sglang#11309's DeepSeek-V3.2-Exp run on 8 x B200, with the
  // only public config of its geometry, whose quantization_config is AMD
  // Quark's ("quark"): memfit sizes the checkpoint at 16 bits, 1.22 TiB a
  // rank, which leaves no pool where the run held 975,424 tokens. The pool
  // is not priced and says why. The KV bytes a token do not depend on the
  // weights and are still checked: an fp8 NSA pool (the default on SM 10)
  // stores, a layer, the latent's 512 fp8 bytes + 512 / 128 x 4 B of
  // scales + the rope part's 64 x 2 B + the indexer's 128 + 128 / 128 x 4
  // B = 788 B; x 61 layers = 48,068 B a token; x 975,424 tokens =
  // 46,886,680,832 B (printed KV size 43.67 GB = 46,890,305,454 B).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-11309-deepseek-v32-exp-dp8-b200.config.json");
  options.command = "python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --dp 8 "
                    "--enable-dp-attention";
  options.gpu_name = "NVIDIA B200";
  const LogCheck c = check("sglang", "sglang-11309-deepseek-v32-exp-dp8-b200.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_FALSE(pool->memfit.has_value());
  EXPECT_NE(pool->note.find("the config declares quantization 'quark'"), std::string::npos) << pool->note;
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 46'886'680'832u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
}

TEST(CheckLog, AnSglangPoolWithoutItsFractionSaysWhichFractionItImplies) {
  // sgl-project/sglang#21395 (Qwen3-4B, PD prefill with the hierarchical
  // cache, 2026-03-25) prints no --mem-fraction-static. Its load line:
  // avail 36.61 GB = 39,309,500,170 B after the weights, + mem usage 7.56
  // GB = 8,117,488,189 B: 47,426,988,359 B before them; its pool K 7.26 + V
  // 7.26 GB = 15,590,731,284 B. The rest SGLang took is free_after - free
  // before x (1 - f), so f = 1 - (39,309,500,170 - 15,590,731,284) /
  // 47,426,988,359 = 1 - 0.50011 = 0.49989: 0.500. memfit's default: GPU
  // 47,426,988,359 + 1,258,291,200 B of startup = 46,430 MiB; reserved
  // 512 + 4,096 x 1.5 + 32 x 2 + 1 / 8 x 1,024 = 6,848 MiB; (46,430 -
  // 6,848) / 46,430 = 0.85251: 0.853.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.config.json");
  const LogCheck c = check("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_NE(pool->note.find("the printed pool implies --mem-fraction-static 0.500 (1 - (free after the weights - "
                            "the pools' bytes) / free before them), where memfit took 0.853"),
            std::string::npos)
      << pool->note;
  // Its pool line prints the chunked prefill memfit took (4,096, the tier
  // of a GPU under 60 GiB), so a larger one is not among the unseen causes;
  // its graph batch is not printed.
  EXPECT_NE(pool->note.find("or a setting the log does not show (a larger --cuda-graph-max-bs or a speculative "
                            "draft's reserve) lowered the default"),
            std::string::npos)
      << pool->note;
  // A log that prints its fraction gets no such clause.
  std::string text = read_test_log("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.log");
  text += "[2026-03-25 09:32:20] server_args=ServerArgs(mem_fraction_static=0.5, tp_size=1)\n";
  Result<LogCheck> given = check_log(text, options, nullptr);
  ASSERT_TRUE(given.ok()) << given.error().message();
  pool = figure(*given, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->note.find("implies"), std::string::npos) << pool->note;
}

TEST(CheckLog, AnSglangServersPdRoleMovesItsDefaultFractionOnlyFrom29615) {
  // sgl-project/sglang#21395's lines (46,430 MiB by its free memory, the
  // hierarchical cache shown: no piecewise graphs; chunked prefill 4,096,
  // graph batch 32): memfit's default 0.853 (the test above). Its role is
  // not in the excerpt; a decode server's warning added to it, on its date
  // (2026-03-25, before #29615), leaves the fraction at 0.853. Redated to
  // 2026-07-01: a decode server's activations are max(2,048 running
  // requests, 2,048) x 1.5 = 3,072 MiB, reserved 512 + 3,072 + 32 x 2 +
  // 128 = 3,776; (46,430 - 3,776) / 46,430 = 0.91867 -> 0.919. A prefill
  // server's drops the graphs' 64: 6,784; 39,646 / 46,430 = 0.85389 ->
  // 0.854.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.config.json");
  const std::string log = read_test_log("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.log");
  const auto taken = [&](const std::string& text) {
    Result<LogCheck> c = check_log(text, options, nullptr);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
    if (!c.ok()) return std::string();
    const FigureCheck* pool = figure(*c, "rank0", LogFigure::kTokenPool);
    if (pool == nullptr) return std::string();
    const size_t at = pool->note.find("where memfit took ");
    return at == std::string::npos ? std::string() : pool->note.substr(at + 18, 5);
  };
  const std::string decode = "[2026-03-25 09:32:18] KV cache is forced as chunk cache for decode server\n";
  EXPECT_EQ(taken(decode + log), "0.853");
  std::string later = decode + log;
  for (size_t at = later.find("2026-03-25"); at != std::string::npos; at = later.find("2026-03-25", at)) {
    later.replace(at, 10, "2026-07-01");
  }
  EXPECT_EQ(taken(later), "0.919");
  const std::string prefill =
      "[2026-07-01 09:32:18] Cuda graph is disabled for prefill server when piecewise cuda graph is not enabled.\n";
  EXPECT_EQ(taken(prefill + later.substr(decode.size())), "0.854");
}

TEST(CheckLog, AnSglangDpLmHeadFromTheCommandKeepsTheHeadAtTheAttentionTp) {
  // sgl-project/sglang#17392's ranks (Qwen3-30B-A3B, TP 4, DP attention 4)
  // load 16.39 GB = 17,598,628,495 B. memfit's DP-attention weights are
  // 17,134,129,152 B (0.974; with the float32 rotary cache's 40,960 x 128 x
  // 2 B = 10,485,760 B second half, held_weights.h): the allocator's
  // rounding with each parameter shaped by its group (allocator_rounding.h)
  // is the whole embedding's 593.5 MiB -> 594 (+0.5 MiB) and the head's
  // 37,984 rows, 148.375 MiB -> 150 (+1.625), 2,228,224 B, not TP 4's
  // 3,407,872. Launched with --enable-dp-lm-head the untied head is split
  // by the attention TP (1) rather than TP 4: 151,936 x 2,048 x 2 B x 3 / 4
  // = 466,747,392 B more, its rounding +0.5 MiB rather than +1.625 MiB
  // (-1,179,648): 17,599,696,896 B (1.0001).
  // The excerpt does not show the flag, so the corpus row stays at 0.974.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-17392-qwen3-30b-a3b-dp4-attn-tp4.config.json");
  const LogCheck plain = check("sglang", "sglang-17392-qwen3-30b-a3b-dp4-attn-tp4.log", options);
  EXPECT_EQ(figure(plain, "rank0", LogFigure::kWeights)->memfit, 17'134'129'152u);
  options.command = "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 4 --dp 4 "
                    "--enable-dp-attention --enable-dp-lm-head";
  const LogCheck head = check("sglang", "sglang-17392-qwen3-30b-a3b-dp4-attn-tp4.log", options);
  EXPECT_EQ(figure(head, "rank0", LogFigure::kWeights)->memfit, 17'599'696'896u);
}

TEST(CheckLog, AnSglangMusaBuildsLogKeepsTheRotaryCache2Byte) {
  // sgl-project/sglang#17246's Qwen3-0.6B run was a MUSA one, but its
  // excerpt shows no MUSA line, so it is priced as CUDA's: 1,214,367,744 B,
  // with the float32 rotary cache 40,960 x 128 x 4 B = 20 MiB. Given a line
  // only a MUSA build prints (server_args' device='musa'), SGLang's
  // is_cuda() is false and the cache is the model's bf16: 10,485,760 B
  // less, 1,203,881,984 B.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-17246-qwen3-06b-musa.config.json");
  const LogCheck cuda = check("sglang", "sglang-17246-qwen3-06b-musa.log", options);
  EXPECT_EQ(figure(cuda, "rank0", LogFigure::kWeights)->memfit, 1'214'367'744u);
  std::string text = "[2026-01-17 11:18:30] server_args=ServerArgs(device='musa', tp_size=1)\n";
  text += read_test_log("sglang", "sglang-17246-qwen3-06b-musa.log");
  Result<LogCheck> musa = check_log(text, options, nullptr);
  ASSERT_TRUE(musa.ok()) << musa.error().message();
  EXPECT_EQ(musa->log.backend, "MUSA");
  EXPECT_EQ(figure(*musa, "rank0", LogFigure::kWeights)->memfit, 1'203'881'984u);
}

TEST(CheckLog, AnSglangDeepEpCommandShapesTheExpertsRounding) {
  // DeepSeek-R1 FP8 at TP 16 (sglang-neverlogs11's prefill node): 40.62 GB
  // printed, memfit 43,496,756,160 B with the allocator's rounding at TP 16,
  // 187,564,032 B. Had the command given --moe-a2a-backend deepep (EP = TP
  // = 16), each rank's 16 whole experts and whole shared MLP round nothing,
  // 103,940,096 B (allocator_rounding.h): 83,623,936 B less; and the shared
  // MLP is whole on every rank, 2,395,270,080 B more (held_weights.h):
  // 45,808,402,304 B. (Not what ran: the run's command has no such flag.)
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-neverlogs11-slurmv4-r1-tp16-prefill-h100.config.json");
  options.version = "0.5.8.post1";
  options.gpu_name = "NVIDIA H100 80GB HBM3";
  const std::string command = "python3 -m sglang.launch_server --model-path /app/models/Deepseek-R1/ "
                              "--tp-size 16 --mem-fraction-static 0.8 --disable-cuda-graph";
  options.command = command;
  const LogCheck plain = check("sglang", "sglang-neverlogs11-slurmv4-r1-tp16-prefill-h100.log", options);
  EXPECT_EQ(figure(plain, "rank0", LogFigure::kWeights)->memfit, 43'496'756'160u);
  options.command = command + " --moe-a2a-backend deepep";
  const LogCheck deepep = check("sglang", "sglang-neverlogs11-slurmv4-r1-tp16-prefill-h100.log", options);
  EXPECT_EQ(figure(deepep, "rank0", LogFigure::kWeights)->memfit, 45'808'402'304u);
  // --ep-size 16 alone: the same experts, the shared one unfused and split
  // by TP (1.75 MiB and less, held as the TP share has it): 43,413,132,224 B.
  options.command = command + " --ep-size 16";
  const LogCheck ep = check("sglang", "sglang-neverlogs11-slurmv4-r1-tp16-prefill-h100.log", options);
  EXPECT_EQ(figure(ep, "rank0", LogFigure::kWeights)->memfit, 43'413'132'224u);
}

TEST(CheckLog, AnSglangSwaPoolsLineIsPricedAtItsOwnLayersBytes) {
  // sgl-project/sglang#18039's main-branch run: MiMo-V2-Flash at TP 4.
  // "Use sliding window memory pool. full_layer_tokens=375360,
  // swa_layer_tokens=300288" on every rank: the full pool's 375,360 is the
  // rank's token pool. Ranks 1 and 2 print the SWA pool's line, "#tokens:
  // 300288, K size: 8.38 GB, V size: 5.59 GB": 39 window layers x 8 / 4 =
  // 2 KV heads x (K 192 + V 128) x 2 B = 49,920 B a token; x 300,288 =
  // 14,990,376,960 B against 1,397 x 2^30 / 100 = 15,000,173,281 +-
  // 10,737,418 (two prints of +- 0.005 GiB): within the print.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-18039-mimo-v2-flash-tp4-main.config.json");
  const LogCheck c = check("sglang", "sglang-18039-mimo-v2-flash-tp4-main.log", options);
  for (const char* rank : {"rank1", "rank2"}) {
    const FigureCheck* kv = figure(c, rank, LogFigure::kKvCache);
    ASSERT_NE(kv, nullptr) << rank;
    EXPECT_EQ(kv->printed.value, 15'000'173'281u) << rank;
    EXPECT_EQ(kv->memfit, 14'990'376'960u) << rank;
    EXPECT_EQ(kv->basis, FigureBasis::kExact) << rank;
    EXPECT_TRUE(kv->within_print) << rank;
  }
  for (const char* rank : {"rank0", "rank1", "rank2", "rank3"}) {
    const FigureCheck* pool = figure(c, rank, LogFigure::kTokenPool);
    ASSERT_NE(pool, nullptr) << rank;
    EXPECT_EQ(pool->printed.value, 375'360u) << rank;
    EXPECT_FALSE(pool->memfit.has_value()) << rank;  // the GPU is not named
  }
}

TEST(CheckLog, AnSglangRankPrintingBothSwaPoolsOfOneSizeIsTheirSum) {
  // sgl-project/sglang#15464 (MiMo-V2-Flash, TP 4, 2025-12-19): rank 2
  // prints both pools' lines, then "SWAKVPool mem usage: 77.63 GB, swa
  // size: 1496958, full size: 1496958": pools of the same tokens, so no
  // line is told apart, but the two summed are 1,496,958 x (49,920 +
  // 5,760) = 83,350,621,440 B against 41.76 + 27.84 + 4.82 + 3.21 GB =
  // 83,354,577,797 B +- 21,474,836 (four prints): within the print. Rank 0
  // prints only its full pool's line: not priced.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-18039-mimo-v2-flash-tp4-main.config.json");
  const LogCheck c = check("sglang", "sglang-15464-mimo-v2-flash-swa-tp4.log", options);
  const FigureCheck* kv = figure(c, "rank2", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->printed.value, 83'354'577'797u);
  EXPECT_EQ(kv->memfit, 83'350'621'440u);
  EXPECT_TRUE(kv->within_print);
  EXPECT_FALSE(figure(c, "rank0", LogFigure::kKvCache)->memfit.has_value());
}

TEST(CheckLog, AnSglangRunOnAnAmdGpuKeepsAitersShareOfTheFraction) {
  // sgl-project/sglang#18263's crash run: Qwen3-30B-A3B FP8 at TP 1 on an
  // MI355X (294,896 MiB), default fraction: (294,896 - 26,240) / 294,896
  // = 0.911, x 0.85 under aiter (the AMD default; the config's context
  // 40,960 > 8,192) = 0.77435. Free before the weights 309,220,868,096 -
  // 1,258,291,200 = 307,962,576,896; after memfit's 31,186,055,168 B of
  // weights 276,776,521,728; reserved 307,962,576,896 x 0.22565 =
  // 69,491,755,476; rest 207,284,766,252 / 98,304 B a token = 2,108,609
  // tokens against the printed 2,227,073 (at 0.911: 2,536,700).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-18263-qwen3-30b-a3b-2507-fp8-mi355x.config.json");
  options.command = "sglang serve --model-path Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 --tensor-parallel-size 1";
  options.gpu_name = "AMD Instinct MI355X";
  const LogCheck c = check("sglang", "sglang-18263-qwen3-30b-a3b-2507-fp8-mi355x.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 2'108'609u);
  EXPECT_NE(pool->note.find("aiter"), std::string::npos) << pool->note;
  // Another backend named keeps the whole fraction.
  options.command += " --attention-backend triton";
  const LogCheck triton = check("sglang", "sglang-18263-qwen3-30b-a3b-2507-fp8-mi355x.log", options);
  EXPECT_EQ(figure(triton, "rank0", LogFigure::kTokenPool)->memfit, 2'536'700u);
}

TEST(CheckLog, AnSglangLogOnAnAmdGpuPrintingItsFreeMemoryKeepsAitersCut) {
  // An inference_llm_sglang README's MI355X run (SGLang 0.5.17, Qwen3-0.6B,
  // --mem-fraction-static 0.6; "Attention backend not specified. Use aiter
  // backend by default."). Free before the weights: the load line's avail
  // 286.05 GB + mem usage 1.21 GB = 307,143,848,755 + 1,299,227,607 =
  // 308,443,076,362 B. Under aiter the context 40,960 > 8,192 cuts the given
  // 0.6 to 0.6 x 0.85 = 0.51 (server_args.py, "AMD platforms backends"):
  // reserved 308,443,076,362 x 0.49 = 151,137,107,417; after memfit's
  // 1,203,881,984 B of weights 307,239,194,378 free, rest 156,102,086,961 /
  // 114,688 B a token (28 layers x 8 KV heads x 128 x 2 x 2 B) = 1,361,102
  // tokens against the printed 1,360,288. At 0.6 uncut on an NVIDIA GPU,
  // whose rotary cache is float32 (40,960 x 128 x 2 B = 10,485,760 B more
  // weights, held_weights.h): reserved 123,377,230,544, rest
  // 183,851,478,074 / 114,688 = 1,603,057.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-nevervllm7-mi355x-qwen3-06b-mf06-v0517.config.json");
  options.command = "python -m sglang.launch_server --model-path Qwen/Qwen3-0.6B --mem-fraction-static 0.6";
  options.version = "0.5.17";
  options.gpu_name = "AMD Instinct MI355X";
  const LogCheck c = check("sglang", "sglang-nevervllm7-mi355x-qwen3-06b-mf06-v0517.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 1'361'102u);
  EXPECT_NE(pool->note.find("x 0.85"), std::string::npos) << pool->note;

  // Without the line, the named AMD GPU gives SGLang's ROCm default.
  std::string text = read_test_log("sglang", "sglang-nevervllm7-mi355x-qwen3-06b-mf06-v0517.log");
  const size_t line = text.find("Attention backend not specified.");
  ASSERT_NE(line, std::string::npos);
  text.erase(line, text.find('\n', line) - line);
  Result<LogCheck> amd = check_log(text, options, nullptr);
  ASSERT_TRUE(amd.ok());
  EXPECT_EQ(figure(*amd, "rank0", LogFigure::kTokenPool)->memfit, 1'361'102u);
  // An NVIDIA GPU named instead: no aiter, the 0.6 uncut.
  options.gpu_name = "NVIDIA H200";
  Result<LogCheck> nvidia = check_log(text, options, nullptr);
  ASSERT_TRUE(nvidia.ok());
  EXPECT_EQ(figure(*nvidia, "rank0", LogFigure::kTokenPool)->memfit, 1'603'057u);
}

TEST(CheckLog, AnSglangPoolEndBoundsAFractionTheLogDoesNotPrint) {
  // sgl-project/sglang#21395 (Qwen3-4B, PD prefill with HiCache, one GPU
  // of 35-60 GiB, 2026-03-25, no --mem-fraction-static printed): free before
  // the weights 36.61 + 7.56 = 44.17 GB, "Memory pool end. avail mem=21.66
  // GB": what is left after the pools is at least free_before x (1 - f), so
  // f <= 1 - 21.66 / 44.17 = 0.5096 -> "0.510", where SGLang's computed
  // default is memfit's 0.853 ((46,431 - 6,848) / 46,431 MiB: 512 + 4,096 x
  // 1.5 + 32 x 2 + 128 reserved; PD and HiCache turn the piecewise graphs
  // off and change no fraction): the run set its own.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.config.json");
  const LogCheck c = check("sglang", "sglang-21395-qwen3-4b-pd-prefill-hicache.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_NE(pool->note.find("implies --mem-fraction-static 0.500"), std::string::npos) << pool->note;
  EXPECT_NE(pool->note.find("at most 0.510"), std::string::npos) << pool->note;
  EXPECT_NE(pool->note.find("memfit's 0.853"), std::string::npos) << pool->note;
}

TEST(CheckLog, AnSglangFractionTakesTheNamedGpusTotalAndThePiecewiseReserve) {
  // sgl-project/sglang#22537 (Qwen3-32B, 4 x B200, 2026-04-10, piecewise
  // CUDA graphs on, no --mem-fraction-static): TP0's load line, avail
  // 160.78 GB = 172,636,210,463 B + mem usage 15.50 GB = 16,642,998,272 B:
  // 189,279,208,735 B free before the weights. SGLang's fraction divides by
  // the B200's 183,359 MiB (nvidia-smi), not that + memfit's startup: 512 +
  // 16,384 x 1.5 + 512 x 2 + 4 / 8 x 1,024 + 74 token sizes x 8 = 27,216
  // MiB; (183,359 - 27,216) / 183,359 = 0.852. Reserved 189,279,208,735 x
  // 0.148 = 28,013,322,892; rest 189,279,208,735 - memfit's 16,640,124,928
  // of weights (with the float32 rotary cache, held_weights.h) -
  // 28,013,322,892 = 144,625,760,915 B / 65,536 B a token (64 layers x 2 KV
  // heads a rank x 128 x 2 x 2 B) = 2,206,813 tokens, printed 2,206,208
  // (1.0003; 1.0017 at the startup-based total's 0.853 without the
  // reserve, before the float32 cache).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-22537-qwen3-32b-tp4-b200.config.json");
  options.gpu_name = "B200";
  const LogCheck c = check("sglang", "sglang-22537-qwen3-32b-tp4-b200.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 2'206'813u);
  EXPECT_EQ(c.log.setting("piecewise_cuda_graph")->value, "True");
}

TEST(CheckLog, AnSglangLogWithoutPiecewiseLinesTakesItsDatesDefault) {
  // sglang-22537 (2026-04-10) without its "piecewise cuda graph is
  // enabled" lines: the date, past sgl-project/sglang#16331's merge
  // (2026-03-02), stands for a release that turns them on by default for a
  // Qwen3 on CUDA, so the pool is the test above's, 2,206,813 tokens at
  // 0.852. With "Disable piecewise CUDA graph because
  // --disable-piecewise-cuda-graph is set": no reserve, (183,359 - 26,624)
  // / 183,359 = 0.85480 -> 0.855; reserved 189,279,208,735 x 0.145 =
  // 27,445,485,266; rest 189,279,208,735 - 16,640,124,928 - 27,445,485,266
  // = 145,193,598,541 / 65,536 = 2,215,478 tokens. Dated before #16331 it is
  // off as well.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-22537-qwen3-32b-tp4-b200.config.json");
  options.gpu_name = "B200";
  std::string text = read_test_log("sglang", "sglang-22537-qwen3-32b-tp4-b200.log");
  std::string plain;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    if (line.find("piecewise cuda graph is enabled") == std::string_view::npos) {
      plain.append(line).append("\n");
    }
    at = end + 1;
  }
  const auto pool_of = [&](const std::string& log) -> uint64_t {
    Result<LogCheck> c = check_log(log, options, nullptr);
    EXPECT_TRUE(c.ok());
    if (!c.ok()) return 0;
    const FigureCheck* pool = figure(*c, "rank0", LogFigure::kTokenPool);
    return pool != nullptr && pool->memfit ? *pool->memfit : 0;
  };
  Result<LogCheck> dated = check_log(plain, options, nullptr);
  ASSERT_TRUE(dated.ok());
  EXPECT_EQ(dated->log.setting("piecewise_cuda_graph"), nullptr);
  const FigureCheck* pool = figure(*dated, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 2'206'813u);
  EXPECT_NE(pool->note.find("on by default from 0.5.10"), std::string::npos) << pool->note;
  EXPECT_EQ(pool_of(plain + "[2026-04-10 23:19:06] Disable piecewise CUDA graph because "
                            "--disable-piecewise-cuda-graph is set\n"),
            2'215'478u);
  std::string older = plain;
  for (size_t at = older.find("2026-04-10"); at != std::string::npos; at = older.find("2026-04-10", at)) {
    older.replace(at, 10, "2026-02-20");
  }
  EXPECT_EQ(pool_of(older), 2'215'478u);
}

TEST(CheckLog, AnSglangPoolEndBoundsTheFractionOfARunWithoutFreeMemoryBefore) {
  // sgl-project/sglang#11830's B200 run prints no free memory before its
  // weights, only its pools, K 59.91 + V 59.91 GB = 2 x 5,991 x 2^30 / 100
  // = 128,655,745,352 B, and "Memory pool end. avail mem=40.03 GB" =
  // 4,003 x 2^30 / 100 = 42,981,885,214.72 -> 42,981,885,215 B. SGLang
  // leaves free_before x (1 - f) beside its pools, and free_before is at
  // most the B200's 183,359 MiB = 192,265,846,784 B: f <= 1 -
  // 42,981,885,215 / 192,265,846,784 = 1 - 0.22355 = 0.776. memfit's
  // default: reserved 512 + 16,384 x 1.5 + 512 x 2 + 1 / 8 x 1,024 =
  // 26,240 MiB, + the piecewise CUDA graphs' 1,024 (the log shows them on;
  // sgl-project/sglang#12996's reserve then) = 27,264; (183,359 - 27,264) /
  // 183,359 = 0.85131: 0.851. The room
  // left for the weights, 192,265,846,784 - 128,655,745,352 -
  // 42,981,885,215 = 20,628,216,217 B, holds memfit's 7.6B weights, so the
  // weights are not in question.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-11830-qwen2-7b-geometry-b200.config.json");
  options.gpu_name = "B200";
  const LogCheck c = check("sglang", "sglang-11830-qwen2-7b-geometry-b200.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_NE(pool->note.find("so the run's fraction is at most 0.776 (1 - 40.03 GiB / the GPU's 179.06 GiB), "
                            "where memfit took 0.851: the run set its own"),
            std::string::npos)
      << pool->note;
  EXPECT_EQ(pool->note.find("less than memfit's"), std::string::npos) << pool->note;
  EXPECT_EQ(pool->input_gap, "mem_fraction_static");
}

TEST(CheckLog, AnSglangPoolEndBoundsTheWeightsOfARunWithoutFreeMemoryBefore) {
  // sgl-project/sglang#18263's MI355X run: pools K 101.95 + V 101.95 GB =
  // 2 x 10,195 x 2^30 / 100 = 218,935,957,914 B and "Memory pool end.
  // avail mem=60.65 GB" = 6,065 x 2^30 / 100 = 65,122,441,626 B on the
  // MI355X's 294,896 MiB = 309,220,868,096 B leave 309,220,868,096 -
  // 218,935,957,914 - 65,122,441,626 = 25,162,468,556 B (23.43 GiB) for
  // the weights, the request table and the startup: less than memfit's
  // 31,186,055,168 B (29.04 GiB) of FP8 weights. Its fraction's bound, 1 -
  // 65,122,441,626 / 309,220,868,096 = 0.789, is above memfit's 0.911 x
  // 0.85 = 0.774, so the note says only the weights' bound. At that
  // fraction the pools are free_before x 0.77435 - the weights, free_before
  // at most the total: the weights are at most 309,220,868,096 x 0.77435 -
  // 218,935,957,914 = 20,509,221,297 B (19.10 GiB), the sharper bound.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-18263-qwen3-30b-a3b-2507-fp8-mi355x.config.json");
  options.gpu_name = "AMD Instinct MI355X";
  const LogCheck c = check("sglang", "sglang-18263-qwen3-30b-a3b-2507-fp8-mi355x.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_NE(pool->note.find("(Memory pool end: 60.65 GiB) leave 23.43 GiB of the GPU's 287.98 GiB for the "
                            "weights, the request table and the startup (at memfit's --mem-fraction-static "
                            "0.774, at most 19.10 GiB: the GPU's total x the fraction - the pools), less than "
                            "memfit's 29.04 GiB of weights"),
            std::string::npos)
      << pool->note;
  EXPECT_EQ(pool->note.find("the run's fraction is at most"), std::string::npos) << pool->note;
}

TEST(CheckLog, AnSglangPoolStartsFromTheLoadWeightBeginFreeMemory) {
  // SGLang's docs run (0.4.x): no "mem usage" on the load line, so the
  // free memory before the weights is "Load weight begin. avail
  // mem=78.81 GB" = 84,621,593,149 B. memfit's weights (config only):
  // 8,030,261,248 params x 2 B + the rotary cache 131,072 x 128 x 2 B =
  // 16,094,076,928 B; free after = 68,527,516,221 B; reserved =
  // 84,621,593,149 x (1 - 0.88) = 10,154,591,177 B; rest =
  // 58,372,925,044 B / 131,072 B a token (32 layers x 8 KV heads x 128 x
  // 2 x 2 B) = 445,350 tokens (printed max_total_num_tokens=444500).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-docs-llama31-8b-h100.config.json");
  options.gpu_name = "NVIDIA H100 80GB HBM3";
  const LogCheck c = check("sglang", "sglang-docs-llama31-8b-h100.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 445'350u);
  EXPECT_EQ(pool->note, "");  // not the "rests on the GPU's total" note
  // The KV line's K + V against the pool line's 444,500 x 131,072 B.
  const FigureCheck* kv = figure(c, "rank0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 58'261'504'000u);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
}

TEST(CheckLog, AnSglangCaptureIsPricedAtTheLargestBatchItsServerArgsPrint) {
  // didier-durand/llms-in-clouds' QwQ-32B run on 4 x L4 prints
  // cuda_graph_max_bs=80 in server_args, also memfit's default there (a
  // GPU under 35 GiB at TP 4): 80 x 2 MiB = 167,772,160 B. Printed as 48
  // instead, the row follows the print: 48 x 2 MiB = 100,663,296 B.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-aws-qwq-32b-tp4-l4.config.json");
  std::string text = read_test_log("sglang", "sglang-aws-qwq-32b-tp4-l4.log");
  Result<LogCheck> printed = check_log(text, options, nullptr);
  ASSERT_TRUE(printed.ok()) << printed.error().message();
  const FigureCheck* graphs = figure(*printed, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->memfit, 167'772'160u);
  EXPECT_EQ(graphs->basis, FigureBasis::kModelled);
  EXPECT_NE(graphs->note.find("--cuda-graph-max-bs 80 (the 0.5 line's coefficient)"), std::string::npos)
      << graphs->note;
  const size_t at = text.find("cuda_graph_max_bs=80");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string_view("cuda_graph_max_bs=80").size(), "cuda_graph_max_bs=48");
  Result<LogCheck> smaller = check_log(text, options, nullptr);
  ASSERT_TRUE(smaller.ok()) << smaller.error().message();
  graphs = figure(*smaller, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->memfit, 100'663'296u);
}

TEST(CheckLog, AnSglangCaptureWithoutServerArgsIsPricedAtTheLargestBatchItCaptured) {
  // sgl-project/sglang#6291 (Qwen3-8B, SGLang 0.4.6, an 80 GB GPU) prints
  // no server_args; cuda_graph_runner.py logs the batches it captures,
  // "Capture cuda graph bs [1, 2, 4, 8, 16, ..., 152, 160]": the largest,
  // 160, not the 0.5 default for that GPU (256), is the graph batch. The
  // row: 160 x 2 MiB = 335,544,320 B (the default's 256 x 2 MiB =
  // 536,870,912 B before), against the printed 1.39 GB.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-6291-qwen3-8b-80gb-v046.config.json");
  const LogCheck c = check("sglang", "sglang-6291-qwen3-8b-80gb-v046.log", options);
  const FigureCheck* graphs = figure(c, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->memfit, 335'544'320u);
  EXPECT_EQ(graphs->basis, FigureBasis::kModelled);
  EXPECT_NE(graphs->note.find("the largest batch captured, 160"), std::string::npos) << graphs->note;
  // A tagged rank's list, unordered and with a capped last size as a
  // DP-attention run prints it: the largest, 159 x 2 MiB = 333,447,168 B.
  std::string text = read_test_log("sglang", "sglang-6291-qwen3-8b-80gb-v046.log");
  const size_t at = text.find("Capture cuda graph bs [");
  ASSERT_NE(at, std::string::npos);
  const size_t end = text.find('\n', at);
  text.replace(at, end - at, "Capture cuda graph bs [8, 1, 159, 2, 4]");
  Result<LogCheck> capped = check_log(text, options, nullptr);
  ASSERT_TRUE(capped.ok()) << capped.error().message();
  graphs = figure(*capped, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->memfit, 333'447'168u);
  // server_args' cuda_graph_max_bs, when printed, still decides: 48 x 2 MiB
  // = 100,663,296 B.
  text += "[2025-05-14 09:29:11] server_args=ServerArgs(cuda_graph_max_bs=48, tp_size=1)\n";
  Result<LogCheck> given = check_log(text, options, nullptr);
  ASSERT_TRUE(given.ok()) << given.error().message();
  graphs = figure(*given, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->memfit, 100'663'296u);
}

TEST(CheckLog, AnSglangPiecewiseCaptureIsPricedAtItsReserveBesideTheDecodeGraphs) {
  // sglang-neversgl-skilldoc (Qwen3-8B, 2026-04-27, one Blackwell GPU, 177.57
  // GB free before the weights): its cuda_graph figure sums the decode
  // capture's 0.60 GB and the piecewise capture's 2.32 GB (3,135,326,126 B;
  // other_readers_test.cc). Its batch list "[1, 2, 4, ...]" is cut, so the
  // decode graphs take the default for a GPU over 160 GiB, 512 x 2 MiB =
  // 1,073,741,824 B; the piecewise graphs their reserve of that date: the
  // token sizes up to the chunked prefill's 16,384, 8 + 14 + 8 + 8 + 12 +
  // 4,608..16,384 by 512 (24) = 74, x 8 MiB = 620,756,992 B; 1,694,498,816
  // B in all (0.5405; 8 MiB, 0.0027 of the figure, at the cut list's 4).
  LogCheckOptions options;
  options.config_json =
      read_test_log("sglang", "sglang-neversgl-skilldoc-qwen3-8b-blackwell-trtllm.config.json");
  const LogCheck c = check("sglang", "sglang-neversgl-skilldoc-qwen3-8b-blackwell-trtllm.log", options);
  const FigureCheck* graphs = figure(c, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->printed.value, 3'135'326'126u);
  EXPECT_EQ(graphs->memfit, 1'694'498'816u);
  EXPECT_EQ(graphs->basis, FigureBasis::kModelled);
  EXPECT_NE(graphs->note.find("the piecewise graphs' reserve, 592 MiB"), std::string::npos) << graphs->note;
  // The piecewise capture alone, where memfit has the graphs off (a log
  // dated before sgl-project/sglang#12996): not compared.
  const std::string alone =
      "[2025-10-01 00:00:00] Load weight begin. avail mem=177.57 GB\n"
      "[2025-10-01 00:00:01] Load weight end. type=Qwen3ForCausalLM, avail mem=162.30 GB, mem usage=15.28 GB.\n"
      "[2025-10-01 00:00:02] KV Cache is allocated. #tokens: 992896, K size: 68.18 GB, V size: 68.18 GB\n"
      "[2025-10-01 00:00:03] Capture piecewise CUDA graph end. Time elapsed: 1.00 s. mem usage=2.32 GB.\n";
  Result<LogCheck> off = check_log(alone, options, nullptr);
  ASSERT_TRUE(off.ok()) << off.error().message();
  graphs = figure(*off, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_FALSE(graphs->memfit.has_value());
  EXPECT_NE(graphs->note.find("not compared"), std::string::npos) << graphs->note;
}

TEST(CheckLog, AnSglangLogWithoutServerArgsTakesTheDefaultFractionOfItsDate) {
  // sgl-project/sglang#4760 (lines dated 2025-03-25, H100, TP 1) prints no
  // server_args: before #7054 (2025-06-10) the default was the TP table's
  // 0.88. Free before the weights = "avail mem=63.48 GB" + "mem usage=15.11
  // GB" = 68,161,130,988 + 16,224,238,961 = 84,385,369,949 B; memfit's
  // weights 16,127,631,360 B (the rotary cache float32 since #3134, dated
  // 2025-01-26: held_weights.h) leave 68,257,738,589 B; reserved
  // 84,385,369,949 x 0.12 = 10,126,244,393.9 B; rest 58,131,494,195.1 B /
  // 131,072 B a token = 443,508 tokens (printed 442,750; the 0.5.3
  // computed rule's 0.835 priced 414,792 before the float32 cache).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-4760-llama31-8b-fa3-h100.config.json");
  const LogCheck c = check("sglang", "sglang-4760-llama31-8b-fa3-h100.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 443'508u);
  // MaxUhl98/Thesis (dated 2025-07-14, a 24 GB GPU, TP 1): after #7054,
  // before #10975 (2025-09-27): reserved (2.8 + 1/10) x 1,024 = 2,969.6
  // MiB of the GPU's 24,127 MiB (free before 7.37 + 15.02 GB =
  // 24,041,079,439 B + the 1,200 MiB startup), round((24,127 - 2,969.6) /
  // 24,127, 3) = 0.877; rest = 24,041,079,439 - 16,127,631,360 -
  // 24,041,079,439 x 0.123 = 4,956,395,308 B / 131,072 = 37,814 tokens
  // (printed 38,141; the weights, 15.02 GB printed, are memfit's to the
  // byte's rounding: the pool's miss is in another term).
  options.config_json = read_test_log("sglang", "sglang-maxuhl98-llama31-8b-24gb.config.json");
  const LogCheck later = check("sglang", "sglang-maxuhl98-llama31-8b-24gb.log", options);
  pool = figure(later, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 37'814u);
  // A fraction the log prints wins over the date's default: at 0.81,
  // 68,257,738,589 - 84,385,369,949 x 0.19 = 52,224,518,298.7 B = 398,441
  // tokens.
  std::string text = read_test_log("sglang", "sglang-4760-llama31-8b-fa3-h100.log");
  text += "[2025-03-25 16:37:07] server_args=ServerArgs(mem_fraction_static=0.81, tp_size=1)\n";
  options.config_json = read_test_log("sglang", "sglang-4760-llama31-8b-fa3-h100.config.json");
  Result<LogCheck> given = check_log(text, options, nullptr);
  ASSERT_TRUE(given.ok()) << given.error().message();
  pool = figure(*given, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->memfit, 398'441u);
}

TEST(CheckLog, AnSglangPoolWithoutFreeMemoryAtWideTpSaysTheStartupIsNotKnown) {
  // vllm-project/vllm#21348 quotes SGLang's KV line alone (Qwen3-235B-A22B
  // FP8, TP 4, H100): the pool rests on the GPU's total less the 1,200 MiB
  // startup, measured at TP 1 and 2, and the row says a TP 4 rank's
  // communicators are not in it.
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-21348-qwen3-235b-a22b-fp8-tp4-h100.config.json");
  options.command = "python3 -m sglang.launch_server --model /m --tp 4 --mem-fraction-static 0.93";
  options.gpu_name = "H100";
  const LogCheck c = check("sglang", "sglang-21348-qwen3-235b-a22b-fp8-tp4-h100.log", options);
  const FigureCheck* pool = figure(c, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_NE(pool->note.find("what a TP 4 rank's communicators hold beyond it is NCCL's, not sized by "
                            "SGLang's source"),
            std::string::npos)
      << pool->note;
  // At TP 2 or less the startup term is the measured one: no such clause.
  options.command = "python3 -m sglang.launch_server --model /m --tp 2 --mem-fraction-static 0.93";
  const LogCheck narrow = check("sglang", "sglang-21348-qwen3-235b-a22b-fp8-tp4-h100.log", options);
  pool = figure(narrow, "rank0", LogFigure::kTokenPool);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->note.find("communicators"), std::string::npos) << pool->note;
}

TEST(CheckLog, AnSglangStatePoolIsItsSlotsPlusThePaddedOne) {
  // kvcache-ai/ktransformers#1870 with Qwen3.5-397B-A17B's config at TP 2:
  // a slot holds, in each of the 45 linear-attention layers, the conv
  // state (12,288 channels / 2 x kernel 4 - 1 x 2 B = 36,864 B) and the
  // ssm state (64 value heads / 2 x 128 x 128 x 4 B = 2,097,152 B):
  // 96,030,720 B. MambaPool allocates max_mamba_cache_size 82 + 1 slots:
  // 7,970,549,760 B (printed 0.13 + 7.29 GB = 7,967,164,334 B).
  LogCheckOptions options;
  options.config_json = read_test_log("sglang", "sglang-kt1870-qwen35-moe-kt-tp2-rtx4090.config.json");
  options.gpu_name = "NVIDIA GeForce RTX 4090";
  const LogCheck c = check("sglang", "sglang-kt1870-qwen35-moe-kt-tp2-rtx4090.log", options);
  for (const char* rank : {"rank0", "rank1"}) {
    const FigureCheck* state = figure(c, rank, LogFigure::kRecurrent);
    ASSERT_NE(state, nullptr) << rank;
    EXPECT_EQ(state->memfit, 7'970'549'760u) << rank;
    EXPECT_EQ(state->basis, FigureBasis::kExact) << rank;
  }
}

TEST(CheckLog, AnOllamaLogPrintingZeroSequencesIsPricedAsOne) {
  // A fuzzing find (tests/data/hostile/runtime_log/ollama_zero_sequences):
  // an Ollama runner's lines with "n_seq_max = 0" divided num_ctx by 0.
  // The printed 0 is read as one sequence: n_ctx 4096 is num_ctx 4096,
  // and the dump's 4 layers x 4096 cells x 128 (n_embd_k_gqa) x K and V x
  // 2 bytes = 8,388,608 B of KV.
  std::ifstream in(std::string(MEMFIT_TEST_DATA_DIR) + "/hostile/runtime_log/ollama_zero_sequences",
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  Result<LogCheck> c = check_log(text.str(), {}, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->profile, "ollama");
  const FigureCheck* kv = figure(*c, "CUDA1", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 8388608u);
}

TEST(CheckLog, AnOllamaLogIsPricedByTheReleaseItPrints) {
  // Kcsciso/auto-doc-tool's Ollama 0.6.8 log ("Listening on ... (version
  // 0.6.8)"): Qwen2.5 7B, 2 sequences of 4096 cells, one cache of 8192
  // ("kv_size = 8192"), ubatch 512, flash attention off. 0.6.8's llama.cpp
  // (before v0.11.5) attends over all 8192 cells: the host's F32 mask is
  // 8192 x 512 x 4 B = 16 MiB, where the pinned runner's two streams of
  // 4096 cells and 256 tokens hold 4096 x 256 x 2 x 4 B = 8 MiB: the
  // host's compute is 8 MiB more, 15,734,784 + 8,388,608 = 24,123,392 B
  // (printed 23.01 MiB).
  const std::string text = read_test_log("ollama", "ollama-kcsciso-qwen25-7b-q4km-a100.log");
  Result<LogCheck> at_release = check_log(text, {}, nullptr);
  ASSERT_TRUE(at_release.ok()) << at_release.error().message();
  const FigureCheck* host = figure(*at_release, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 24123392u);
  EXPECT_EQ(host->note, "");
  // The same log without its version line: its one cache says a release
  // before v0.11.5, and the last of them, v0.11.4, prices it; its
  // llama.cpp (b5423) attends over all 8192 cells as 0.6.8's did: the
  // same 24,123,392 B, with the request's note. (The pinned v0.24.0's
  // streams gave 17,836,032.)
  std::string unversioned = text;
  const size_t at = unversioned.find("(version 0.6.8)");
  ASSERT_NE(at, std::string::npos);
  unversioned.erase(at, std::string_view("(version 0.6.8)").size());
  Result<LogCheck> pinned = check_log(unversioned, {}, nullptr);
  ASSERT_TRUE(pinned.ok()) << pinned.error().message();
  const FigureCheck* pinned_host = figure(*pinned, "CPU", LogFigure::kCompute);
  ASSERT_NE(pinned_host, nullptr);
  EXPECT_EQ(pinned_host->memfit, 24123392u);
  EXPECT_EQ(pinned_host->note, "");
  EXPECT_NE(std::find(pinned->log.notes.begin(), pinned->log.notes.end(),
                      "Ollama's version is not in the log, but its runner kept one cache for every "
                      "sequence, as releases before v0.11.5 did: v0.11.4's rules price it"),
            pinned->log.notes.end());
  // A sidecar's version (options.version) stands for the printed one.
  LogCheckOptions options;
  options.version = "0.6.8";
  Result<LogCheck> given = check_log(unversioned, options, nullptr);
  ASSERT_TRUE(given.ok()) << given.error().message();
  EXPECT_EQ(figure(*given, "CPU", LogFigure::kCompute)->memfit, 24123392u);
}

TEST(CheckLog, ATensorTypeNameTheLogPrintedIsEscapedInTheNote) {
  // A fuzzing find (tests/data/hostile/runtime_log/
  // llamacpp_type_name_control_bytes): a "- type <name>: N tensors" line
  // whose name holds control bytes reached the note on the rebuilt tensor
  // list raw; it is escaped ("8\x02\x00..."), as all untrusted text.
  std::ifstream in(std::string(MEMFIT_TEST_DATA_DIR) +
                       "/hostile/runtime_log/llamacpp_type_name_control_bytes",
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const auto control_bytes = [](const std::string& table) {
    return std::count_if(table.begin(), table.end(),
                         [](char ch) { return (ch >= 0 && ch < 0x20 && ch != '\n') || ch == 0x7f; });
  };
  Result<LogCheck> whole = check_log(text.str(), {}, nullptr);
  ASSERT_TRUE(whole.ok()) << whole.error().message();
  EXPECT_EQ(control_bytes(render_log_check_text(*whole)), 0);
  // The fuzzed lines before the dump's header form a load of their own,
  // tensors then a context, which is the one read (llamacpp_loads.cc);
  // from the header on, the dump's load is read and its type name noted.
  const size_t header = text.str().find("llama_model_loader: loaded meta data with 20");
  ASSERT_NE(header, std::string::npos);
  Result<LogCheck> c = check_log(text.str().substr(header), {}, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message();
  const std::string table = render_log_check_text(*c);
  EXPECT_NE(table.find("the log's file 8\\x02\\x00"), std::string::npos) << table;
  EXPECT_EQ(control_bytes(table), 0);
}

TEST(CheckLog, TheGpuTotalOfALogCutBeforeRankZero) {
  // vllm-project/pull/14447's chunk holds three workers (rank1 to rank3)
  // and no rank 0; each prints total_gpu_memory (23.58GiB), which sizes
  // the KV capacity.
  LogCheckOptions options;
  options.config_json = read_test_log("vllm", "vllm-14447-deepseek-r1-awq-tp16-rtx3090.config.json");
  const LogCheck c = check("vllm", "vllm-14447-deepseek-r1-awq-tp16-rtx3090.log", options);
  const FigureCheck* kv = figure(c, "rank1", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  ASSERT_TRUE(kv->memfit.has_value());  // priced: the total is known
  EXPECT_EQ(kv->note.find("total memory is not known"), std::string::npos) << kv->note;
  EXPECT_EQ(kv->basis, FigureBasis::kModelled);
}

// A llama.cpp log with the config beside it (its sidecar's "config").
LogCheckOptions with_config(const std::string& slug, const std::string& file_type = "") {
  LogCheckOptions options;
  options.config_json = read_test_log("llamacpp", slug + ".config.json");
  options.file_type = file_type;
  return options;
}

TEST(CheckLog, GpuLogKvFromTheConfigBesideIt) {
  // ROCm/TheRock#2595, Qwen3-Next-80B-A3B on gfx1151: the excerpt prints no
  // n_ctx; the cache's 300032 cells are the context. 12 attention layers
  // of 2 KV heads x 256, K and V in f16: 2 x 2 x 256 x 2 B = 2,048 B a
  // cell and layer; 300,032 x 12 x 2,048 = 7,373,586,432 B = 7032.00 MiB.
  // Its file, Q4_K_M, is the GGUF memfit builds for qwen3_next from the
  // config (843 tensors, 45.15 GiB: quantize_plan_test.cc), so the model
  // is priced and no note says otherwise.
  const std::string slug = "llamacpp-2595-therock-qwen3-next-80b-gfx1151";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug, "Q4_K_M"));
  EXPECT_EQ(c.model_source, ModelSource::kConfig);
  EXPECT_NE(c.model_detail.find("weights 45.15 GiB"), std::string::npos) << c.model_detail;
  EXPECT_FALSE(std::any_of(c.log.notes.begin(), c.log.notes.end(), [](const std::string& n) {
    return n.starts_with("the model buffers are not priced");
  }));
  const FigureCheck* kv = figure(c, "total", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 7'373'586'432u);
  EXPECT_TRUE(kv->within_print);
  EXPECT_EQ(kv->basis, FigureBasis::kExact);
}

TEST(CheckLog, AnExcerptWithoutNCtxTakesTheCachesKvSize) {
  // LostRuins/koboldcpp#1533, Qwen3-235B-A22B with its experts on the CPU:
  // the excerpt starts at "llama_kv_cache_unified: kv_size = 16384": the
  // one cache of n_ctx cells. 94 layers x 16,384 cells x (4 KV heads x 128
  // x 2 x 2 B = 2,048 B) = 3,154,116,608 B = 3008.00 MiB, as printed (the
  // training context, 40,960, would be 2.5 times that).
  const std::string slug = "llamacpp-kobold1533-qwen3-235b-a22b-ot-cpu";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* kv = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 3'154'116'608u);
  EXPECT_TRUE(kv->within_print);
}

TEST(CheckLog, TheWorstCaseGraphsTokensStandForAnUnprintedUbatch) {
  // ggml-org/llama.cpp#15974, Qwen3-30B-A3B over two Vulkan GPUs: no
  // n_ubatch line, but "worst-case: n_tokens = 128" (min(n_ctx 256,
  // n_ubatch)). The host runs no layer and holds the graph's inputs: the
  // rows 4 B x 128 x 2,048 = 1,048,576, token ids and positions 2 x 512,
  // output ids 512, the f32 mask 4 B x 256 cells x 128 = 131,072, and (the
  // log prints no build: its llama_context lines price it as b7771, with
  // #14959's set_rows, before #18898's vector input) k_idxs and v_idxs
  // (flash attention) 8 x 128 = 1,024 each: 1,183,232 B against the
  // printed 1.13 MiB (1,184,891 +- 5,243). At the default 512 (n_tokens
  // 256) it would be twice that.
  const std::string slug = "llamacpp-15974-qwen3-30b-a3b-vulkan-2gpu-ub128";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 1'183'232u);
  EXPECT_TRUE(host->within_print);
  EXPECT_TRUE(std::any_of(c.log.notes.begin(), c.log.notes.end(), [](const std::string& n) {
    return n == "n_ubatch is not in the log: the worst-case graph's 128 tokens are taken for it";
  }));
}

TEST(CheckLog, AnEncoderBeforeTheCachelessContextKeepsAKvCache) {
  // ggml-org/ci's b4343 llama-embedding run of bge-small (bert, 12 layers,
  // n_embd 384, 12 KV heads x 32): before #13108 the context made a cache
  // of n_ctx 512 cells for it: 512 x 12 x (384 x 2 x 2 B) = 9,437,184 B =
  // 9.00 MiB, as printed. llama-embedding runs with embeddings and (before
  // #14208) pooled vectors keep no logits: the output buffer is 0.00 MiB.
  const LogCheck c = check("llamacpp", "llamacpp-ci4343-bge-small-f16-embd-v100-cuda.log");
  const FigureCheck* kv = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 9'437'184u);
  EXPECT_TRUE(kv->within_print);
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->memfit, 0u);
}

TEST(CheckLog, BertsComputeBuffersAreItsEncodersPhases) {
  // The same run, 512 tokens: at the scores the GPU holds the residual, Q,
  // K and V's copy (4 x 4 B x 512 x 384 = 3,145,728), the scores (4 B x
  // 512 x 512 x 12 = 12,582,912) and the mask (4 B x 512 x 512 =
  // 1,048,576): 16,777,216 = 16.00 MiB, the print. The host gathers the
  // token and the position rows (2 x 786,432) beside the mask and the
  // token ids, positions and output ids (3 x 2,048): 2,627,584 against
  // 2.51 MiB.
  const LogCheck c = check("llamacpp", "llamacpp-ci4343-bge-small-f16-embd-v100-cuda.log");
  EXPECT_EQ(figure(c, "CUDA0", LogFigure::kCompute)->memfit, 16'777'216u);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 2'627'584u);
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLog, AJinaBertEncoderAttendsOverItsBatch) {
  // ggml-org/ci's b4438 jina-reranker-v1-tiny (jina-bert-v2, 4 layers,
  // n_embd 384, 12 heads x 32), n_ctx 8192, n_ubatch 2048: an encoder, so
  // its scores span the 2,048 tokens of the batch, not the 8,192 cells of
  // the cache it still keeps: 4 B x 2,048 x 2,048 x 12 = 201,326,592 B of
  // scores, with the mask (16,777,216 B) and an encoder's four rows (the
  // residual, Q, K, V's copy: 4 x 4 B x 2,048 x 384 = 12,582,912 B),
  // 220.00 MiB against the printed 223.00 MiB (8,192 cells would be
  // 844.00 MiB).
  const LogCheck c = check("llamacpp", "llamacpp-ci4438-jina-rerank-tiny-f16-t4-vulkan.log");
  const FigureCheck* gpu = figure(c, "Vulkan0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, 230'686'720u);
  // Its cache: 8,192 x 4 x (384 x 2 x 2 B) = 50,331,648 B = 48.00 MiB.
  EXPECT_EQ(figure(c, "Vulkan0", LogFigure::kKvCache)->memfit, 50'331'648u);
}

TEST(CheckLog, AFullKCacheOfAnMlaModelIsSaidOnItsRow) {
  // lmstudio-ai/lmstudio-bug-tracker#1454, DeepSeek-R1 with its cache on
  // the CPU: "size = 78080.00 MiB (16384 cells, 61 layers, 1/1 seqs), K
  // (f16): 46848.00 MiB": 46,848 x 2^20 / (16,384 x 61) = 49,152 B a cell
  // and layer, 128 heads x 192 x 2 B, against the MLA latent's 576 x 2 B =
  // 1,152 B: the file has no split attn_k_b/attn_v_b.
  const std::string slug = "llamacpp-lmstudio1454-deepseek-r1-cpu-kv";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* kv = figure(c, "CPU", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_NE(kv->note.find("the log's K cache keeps 49152 B a cell and layer, memfit's MLA latent 1152 B"),
            std::string::npos)
      << kv->note;
}

TEST(CheckLog, ADeepSeekCacheThatCannotShiftIsPricedDecompressed) {
  // ggml-org/llama.cpp#9390, DeepSeek-R1 over eight GPUs, "kv_size = 16384,
  // ..., type_k = 'q4_0', type_v = 'f16', n_layer = 61, can_shift = 0": a
  // build before MLA (#12801), so its config is priced as every head's K
  // and V. A layer: 16,384 cells x (24,576 / 32 x 18 B of q4_0 K + 16,384 x
  // 2 B of f16 V) = 16,384 x 46,592 = 763,363,328 B; CUDA0's 8 layers
  // 6,106,906,624 B = 5824.00 MiB, CUDA3's 7 layers 5096.00 MiB.
  const std::string slug = "llamacpp-9390-deepseek-8gpu-layer-split";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  EXPECT_EQ(c.not_priced, "");
  const FigureCheck* gpu0 = figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(gpu0, nullptr);
  EXPECT_EQ(gpu0->memfit, 6'106'906'624u);
  const FigureCheck* gpu3 = figure(c, "CUDA3", LogFigure::kKvCache);
  ASSERT_NE(gpu3, nullptr);
  EXPECT_EQ(gpu3->memfit, 5'343'543'296u);
}

TEST(CheckLog, RowsThatHangOnWhatTheLogLeavesOutSaySo) {
  // ggml-org/llama.cpp#8035 (a mid-2024 build, two GPUs, no free memory
  // printed, no command): the GPUs' KV rows say the split is memfit's
  // even one; the output buffer, 0.98 MiB, is two rows of 128,256 logits
  // (4 B x 128,256 = 513,024 B a row): n_seq_max is not printed.
  const std::string slug = "llamacpp-8035-llama3-70b-4060ti-3060-partial";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* kv = figure(c, "CUDA1", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_NE(kv->note.find("the log names neither the GPUs' free memory nor a tensor split"), std::string::npos)
      << kv->note;
  EXPECT_EQ(kv->input_gap, "tensor split");
  const FigureCheck* output = figure(c, "CPU", LogFigure::kOutput);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->memfit, 513'024u);
  EXPECT_NE(output->note.find("n_seq_max is not in the log: memfit's buffer is one sequence's row, the "
                              "printed one 2.00 rows"),
            std::string::npos)
      << output->note;
  EXPECT_EQ(output->input_gap, "n_seq_max");
}

TEST(CheckLog, NemotronHConfigCountsItsLayersFromTheirTypes) {
  // ggml-org/llama.cpp#24175, Nemotron 3 Ultra: its config lists 108
  // layers_block_type entries and no num_hidden_layers. "4/1 seqs": four
  // sequences in one stream (the unified cache) of 16128 cells.
  // KV: 12 attention layers x 16,128 cells x (2 KV heads x 128 x 2 x 2 B =
  // 1,024 B) = 198,180,864 B = 189.00 MiB.
  // State, per Mamba layer and sequence: conv 3 x (16,384 + 2 x 8 x 128) x
  // 4 B = 221,184 B, SSM 128 x 16,384 x 4 B = 8,388,608 B; x 48 layers x 4
  // sequences = 1,653,080,064 B = 1576.50 MiB.
  const std::string slug = "llamacpp-24175-nemotron-ultra-rtx5090";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* kv = figure(c, "total", LogFigure::kKvCache);
  const FigureCheck* state = figure(c, "total", LogFigure::kRecurrent);
  ASSERT_NE(kv, nullptr);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(kv->memfit, 198'180'864u);
  EXPECT_EQ(state->memfit, 1'653'080'064u);
  EXPECT_TRUE(kv->within_print && state->within_print);
  // One GPU holds the whole context: its own KV and RS rows are the same.
  EXPECT_EQ(figure(c, "CUDA0", LogFigure::kKvCache)->memfit, 198'180'864u);
  EXPECT_EQ(figure(c, "CUDA0", LogFigure::kRecurrent)->memfit, 1'653'080'064u);
}

TEST(CheckLog, CellsPaddedLessThanMemfitsAreSaid) {
  // ggml-org/llama.cpp#15009, Qwen3-30B-A3B on Vulkan: 70016 cells
  // printed; memfit pads to 256: 70,144 cells x 48 layers x (2 x 4 x 128
  // x 2 B = 2,048 B) = 6,895,435,776 B = 6576.00 MiB against 6564.00.
  const std::string slug = "llamacpp-15009-qwen3-30b-a3b-strix-halo-vulkan";
  const LogCheck c = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* kv = figure(c, "Vulkan0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 6'895'435'776u);
  EXPECT_FALSE(kv->within_print);
  EXPECT_NE(kv->note.find("holds 70016 cells, memfit's 70144"), std::string::npos) << kv->note;
}

TEST(CheckLog, ModelBuffersFromTheConfigAtTheRunsFileType) {
  // ggml-org/llama.cpp#13661, Qwen3-30B-A3B Q8_0 row-split over 4 GPUs.
  const std::string slug = "llamacpp-13661-qwen3-30b-a3b-rowsplit-4x-k80";
  const LogCheck none = check("llamacpp", slug + ".log", with_config(slug));
  const FigureCheck* unknown = figure(none, "CUDA1", LogFigure::kModel);
  ASSERT_NE(unknown, nullptr);
  EXPECT_FALSE(unknown->memfit.has_value());
  EXPECT_EQ(unknown->note, "the GGUF file type is neither in the log nor given (--file-type)");

  const LogCheck q8 = check("llamacpp", slug + ".log", with_config(slug, "Q8_0"));
  // CUDA1: 241.50 + 7344.20 MiB, memfit's 12 blocks to the MiB printed.
  const FigureCheck* cuda1 = figure(q8, "CUDA1", LogFigure::kModel);
  ASSERT_NE(cuda1, nullptr);
  EXPECT_TRUE(cuda1->within_print);
  EXPECT_EQ(cuda1->basis, FigureBasis::kModelled);
  // CUDA3's own buffer line is cut from the excerpt: its share alone is
  // not its model buffers.
  const FigureCheck* cuda3 = figure(q8, "CUDA3", LogFigure::kModel);
  ASSERT_NE(cuda3, nullptr);
  EXPECT_FALSE(cuda3->memfit.has_value());
  EXPECT_NE(cuda3->note.find("row-split"), std::string::npos) << cuda3->note;

  const LogCheck iq = check("llamacpp", slug + ".log", with_config(slug, "IQ2_XXS"));
  EXPECT_EQ(figure(iq, "CUDA1", LogFigure::kModel)->note,
            "the file type 'IQ2_XXS' is not one memfit prices as llama-quantize writes it");
}

TEST(CheckLog, AnOlderOffloadRuleIsSaidOnTheRow) {
  // ggml-org/llama.cpp#13729 (b5466), Qwen3-30B-A3B Q4_K_M, -ngl 30 of 48
  // blocks: "offloading 30 repeating layers", blocks 18..47 on CUDA0 and
  // the output layer on the host. memfit's pinned release puts blocks
  // 19..47 and the output layer there. Block 18 (not a more-bits block:
  // (18 - 6) % 3 = 0) in Q4_K (144 B a 256-element block): q and o 2 x
  // 4,718,592, k and v 2 x 589,824, three expert tensors 3 x 113,246,208,
  // router 2,048 x 128 x 4 B = 1,048,576, norms 17,408: 351,421,440 B;
  // output Q6_K 151,936 x 2,048 x 210 / 256 = 255,252,480 B; block 18 less
  // the output: 96,168,960 B, the whole of the gap (the printed total is
  // memfit's), to within the two prints' rounding (2 x 5,243 B) and the
  // row padding memfit gives its 29 blocks' ffn_down_exps on CUDA (768-
  // element rows padded to 1,024: 29 x 256 B = 7,424 B).
  // Priced as a build from #18148 on (given as b7600), the gap is said.
  const std::string slug = "llamacpp-13729-qwen3-30b-a3b-partial-offload-cuda";
  LogCheckOptions newer = with_config(slug, "Q4_K_M");
  newer.version = "b7600";
  const LogCheck c = check("llamacpp", slug + ".log", newer);
  const FigureCheck* gpu = figure(c, "CUDA0", LogFigure::kModel);
  ASSERT_NE(gpu, nullptr);
  ASSERT_TRUE(gpu->memfit.has_value());
  const int64_t gap = int64_t(gpu->printed.value) - int64_t(*gpu->memfit);
  EXPECT_LT(std::abs(gap - 96'168'960), 2 * 5'243 + 7'424) << gap;
  EXPECT_TRUE(gpu->note.starts_with("the log's release offloaded 30 blocks for 30 GPU layers"))
      << gpu->note;

  // No build given or printed: the log's own lines ("offloading 30
  // repeating layers" for "offloaded 30/49 layers") are the rule before
  // #18148, so it is priced as b7590, blocks 18..47 on CUDA0: the gap is
  // the prints' rounding and the padding alone, and the note says why.
  // (Its llama_kv_cache_unified and n_ctx_per_seq lines date it to b6698,
  // tighter still and before #18148 too: renamed to the later forms here,
  // so that the offload lines alone date it.)
  std::string text = read_test_log("llamacpp", slug + ".log");
  for (auto [from, to] : {std::pair<std::string, std::string>{"llama_kv_cache_unified:", "llama_kv_cache:"},
                          {"n_ctx_per_seq", "n_ctx_seq"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }
  Result<LogCheck> renamed = check_log(text, with_config(slug, "Q4_K_M"), nullptr);
  ASSERT_TRUE(renamed.ok()) << renamed.error().message();
  const LogCheck dated = *renamed;
  const FigureCheck* dated_gpu = figure(dated, "CUDA0", LogFigure::kModel);
  ASSERT_NE(dated_gpu, nullptr);
  ASSERT_TRUE(dated_gpu->memfit.has_value());
  const int64_t left = int64_t(dated_gpu->printed.value) - int64_t(*dated_gpu->memfit);
  EXPECT_LT(std::abs(left), 2 * 5'243 + 7'424) << left;
  EXPECT_EQ(dated_gpu->note.find("release offloaded"), std::string::npos) << dated_gpu->note;
  const auto& notes = dated.log.notes;
  const bool said = std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("the rule before #18148 (b7591), so build 7590 prices it") != std::string::npos;
  });
  EXPECT_TRUE(said);

  // Every block offloaded: both rules place the same; the pinned release
  // prints one block fewer than it offloads (min(ngl, n_layer) - 1).
  std::string full = read_test_log("llamacpp", slug + ".log");
  for (auto [from, to] : {std::pair<std::string, std::string>{"offloading 30 repeating", "offloading 47 repeating"},
                          {"offloaded 30/49", "offloaded 49/49"}}) {
    full.replace(full.find(from), from.size(), to);
  }
  Result<LogCheck> all = check_log(full, with_config(slug, "Q4_K_M"), nullptr);
  ASSERT_TRUE(all.ok());
  const FigureCheck* all_gpu = figure(*all, "CUDA0", LogFigure::kModel);
  ASSERT_NE(all_gpu, nullptr);
  EXPECT_EQ(all_gpu->note.find("release offloaded"), std::string::npos) << all_gpu->note;
}

TEST(GgufFileTypeName, LlamaCppsPrintedNamesAreLlamaQuantizesNames) {
  // llama_model_ftype_name's texts (src/llama-model-loader.cpp).
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q4_K - Medium"), "Q4_K_M");
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q3_K - Large"), "Q3_K_L");
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q5_K - Small"), "Q5_K_S");
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q2_K - Medium"), "Q2_K");
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q2_K - Small"), "Q2_K_S");
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q8_0"), "Q8_0");
  EXPECT_EQ(logs::gguf_file_type_of_printed("IQ4_XS - 4.25 bpw"), "IQ4_XS");
  EXPECT_EQ(logs::gguf_file_type_of_printed("all F32"), "F32");
  EXPECT_EQ(logs::gguf_file_type_of_printed("MXFP4 MoE"), "MXFP4_MOE");
  EXPECT_EQ(logs::gguf_file_type_of_printed("Q6_K (guessed)"), "Q6_K");
  // LLAMA_FTYPE_MOSTLY_IQ3_M's text names its default type, IQ3_S.
  EXPECT_EQ(logs::gguf_file_type_of_printed("IQ3_S mix - 3.66 bpw"), "IQ3_M");
  EXPECT_EQ(logs::gguf_file_type_of_printed("IQ3_S - 3.4375 bpw"), "IQ3_S");
  EXPECT_EQ(logs::gguf_file_type_of_printed("IQ3_XXS - 3.0625 bpw"), "IQ3_XXS");
}

TEST(CheckLog, LogsThatCannotBePricedSayWhyInOneLine) {
  const LogCheck sglang = check("sglang", "sglang-4826-gemma3-h200.log");
  // SGLang's logs print no geometry: without -m or --config, no model.
  EXPECT_EQ(sglang.not_priced,
            "no model: a SGLang log does not describe the model's geometry; give -m MODEL or --config "
            "config.json");
  EXPECT_EQ(sglang.figures.size(), 3u);
  for (const FigureCheck& f : sglang.figures) EXPECT_EQ(f.note, "not priced");

  const LogCheck cut = check("llamacpp", "llamacpp-6122-40layer-4070ti-3090ti.log");
  EXPECT_EQ(cut.not_priced, "no model: the log holds no metadata dump (llama_model_loader: - kv "
                            "lines); the log names no model: give -m MODEL (the GGUF file), or "
                            "--config with that model's config.json and --file-type");
  // One that names its file says which model's config would price it:
  // the pinned log cut after its first 15 lines (9 of its 20 entries).
  const std::string whole = read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  size_t end = 0;
  for (int line = 0; line < 15; ++line) end = whole.find('\n', end) + 1;
  Result<LogCheck> named = check_log(whole.substr(0, end), {}, nullptr);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->not_priced,
            "no model: the metadata dump is cut: 9 of the 20 entries the loader announced; give -m "
            "MODEL (the GGUF file), or --config with the config.json of the model the log loads "
            "('/tmp/vmodels/llama-dense.gguf') and --file-type");

  const LogCheck mlx = check("mlx-lm", "mlxlm-examples1122-llama31-8b-4bit-2k.log");
  EXPECT_EQ(mlx.not_priced, "no model: a mlx-lm log does not describe the model's geometry; give "
                            "-m MODEL or --config config.json");
}

TEST(CheckLog, AModelByNameNeedsAContextToOpenIt) {
  LogCheckOptions options;
  options.model = "some/model";
  Result<LogCheck> c = check_log(read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log"),
                                 options, nullptr);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->not_priced, "the llamacpp profile refused the run: model: this front end opens no "
                           "model by name");
}

TEST(ModelFromLog, ACutDumpSaysWhatIsMissing) {
  // The pinned log's first 15 lines: the loader announces 20 entries and
  // the excerpt holds 9 of them.
  const std::string whole = read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  size_t end = 0;
  for (int line = 0; line < 15; ++line) end = whole.find('\n', end) + 1;
  Result<RuntimeLog> log = read_runtime_log(whole.substr(0, end));
  ASSERT_TRUE(log.ok());
  Result<Model> model = model_from_log(log->model);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message(), "the metadata dump is cut: 9 of the 20 entries the loader announced");
}

TEST(ModelFromLog, WholeDumpGivesTheGgufSpecAndThePrintedWeights) {
  Result<RuntimeLog> log = read_runtime_log(read_test_log("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log"));
  ASSERT_TRUE(log.ok());
  Result<Model> model = model_from_log(log->model);
  ASSERT_TRUE(model.ok()) << model.error().message();
  // llama: 4 layers of 2 KV heads x 64: 2 x 2 x 64 = 256 elements a token.
  EXPECT_EQ(model->spec.model_type, "llama");
  ASSERT_EQ(model->spec.layers.size(), 4u);
  EXPECT_EQ(model->spec.layers[0].elems_per_token, 256u);
  EXPECT_EQ(model->spec.geometry.vocab, 32000u);  // llama.vocab_size
  EXPECT_EQ(model->weights.bytes, 53'005'517u);   // "50.55 MiB"
  EXPECT_EQ(model->weights.source, WeightsSource::kGgufHeader);
  EXPECT_FALSE(model->weights.verified);
}

TEST(CheckLogRequest, ReadsTheBodyAndRefusesStrangers) {
  Result<LogCheckRequest> r = parse_log_check_request_json(
      R"({"log": "x", "model": "m", "config": {"model_type": "llama"}, "gpu_memory_total": "80GiB",
          "gpu_name": "NVIDIA H100 80GB HBM3", "version": "0.7.3", "file_type": "Q4_K_M"})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->log, "x");
  EXPECT_EQ(r->options.model, "m");
  EXPECT_EQ(r->options.config_json, R"({"model_type":"llama"})");
  EXPECT_EQ(r->options.gpu_memory_total, 80ull << 30);
  EXPECT_EQ(r->options.version, "0.7.3");
  EXPECT_EQ(r->options.file_type, "Q4_K_M");
  Result<LogCheckRequest> missing = parse_log_check_request_json(R"({"model": "m"})");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "log: required");
  EXPECT_EQ(missing.error().field(), "log");
  Result<LogCheckRequest> stranger = parse_log_check_request_json(R"({"log": "x", "lgo": 1})");
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.error().kind(), ErrorKind::kUsage);
}

TEST(CheckLogJson, HoldsTheKeysOfItsSchema) {
  const LogCheck c = check("llamacpp", "llamacpp-pinned-llama-dense-ctx4096.log");
  const nlohmann::ordered_json j = log_check_to_json(c);
  for (const char* key : {"engine", "version", "backend", "devices", "settings", "model",
                          "model_source", "model_detail", "profile", "not_priced", "figures",
                          "notes", "warnings"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["engine"], "llamacpp");
  EXPECT_EQ(j["model_source"], "log");
  EXPECT_EQ(j["settings"]["n_ctx"], "4096");
  const auto& kv = j["figures"][2];
  EXPECT_EQ(kv["figure"], "kv_cache");
  EXPECT_EQ(kv["device"], "CPU");
  EXPECT_EQ(kv["unit"], "bytes");
  EXPECT_EQ(kv["printed"], 8'388'608u);
  EXPECT_EQ(kv["memfit"], 8'388'608u);
  EXPECT_EQ(kv["ratio"], 1.0);
  EXPECT_EQ(kv["basis"], "exact");
  // The host's KV of a llama.cpp log: exact to the print (no ratio range),
  // and met, 8 MiB priced for 8 MiB printed.
  EXPECT_EQ(kv["target"]["name"], "llama.cpp and Ollama: KV cache per device, exact to the print");
  EXPECT_EQ(kv["target"]["exact"], true);
  EXPECT_FALSE(kv["target"].contains("low"));
  EXPECT_EQ(kv["target"]["met"], true);
}

TEST(CheckLog, EachFigureCarriesTheTargetOfItsEngineFigureAndGpuCount) {
  // ggml-org/llama.cpp#12213: one GPU (CUDA0), so its compute rows take
  // the one-GPU bound, |ratio - 1| <= 5 %: the range [0.95, 1.05]. The
  // host's model row is exact to the print, and missed (0.7304).
  const LogCheck c = check("llamacpp", "llamacpp-12213-functionary-q4km-4070-laptop.log");
  const FigureCheck* compute = figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  ASSERT_TRUE(compute->target.has_value());
  EXPECT_EQ(compute->target->name, "llama.cpp and Ollama: compute per device, one GPU or none, within 5 %");
  EXPECT_EQ(compute->target->text, "within 5 % on one GPU");
  EXPECT_FALSE(compute->target->exact);
  EXPECT_DOUBLE_EQ(compute->target->low, 0.95);
  EXPECT_DOUBLE_EQ(compute->target->high, 1.05);
  EXPECT_EQ(compute->target->met, *compute->ratio >= 0.95 && *compute->ratio <= 1.05);
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  ASSERT_TRUE(host->target.has_value());
  EXPECT_TRUE(host->target->exact);
  EXPECT_FALSE(host->target->met);
  // Four GPUs: the split bound, [0.90, 1.10] (ggml-org/llama.cpp#14075,
  // four RTX 5000s).
  const LogCheck split = check("llamacpp", "llamacpp-14075-r1-distill-70b-q6k-4x-rtx5000.log");
  const FigureCheck* first = figure(split, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->target.has_value());
  EXPECT_EQ(first->target->text, "within 10 % under a split");
  EXPECT_DOUBLE_EQ(first->target->low, 0.90);
  EXPECT_DOUBLE_EQ(first->target->high, 1.10);
}


TEST(CheckLog, AnOllamaLogWithTheOldLoaderLinesIsPricedByAReleaseBeforeSharedDuplicates) {
  // A Kaggle T4 run of Llama 3.1 8B Q4_0 (August 2024) prints no Ollama
  // release, and its loader's lines say "CUDA0 buffer size", without
  // "model": llama.cpp before b4020, so Ollama v0.5.1 or older (3f1ae2e,
  // before #10026). That llama.cpp gives blocks 1 to 31 their own copy of
  // rope_freqs (64 floats, 256 B each): 4,357,873,920 B of the device's
  // tensors + 31 x 256 B = 4,357,881,856 B = 4156.00 MiB, as printed (v0.11.4's
  // rules, which shared one copy, gave 4155.99).
  const LogCheck c = check("ollama", "ollama-neverllama8-kaggle-t4-llama31-8b-q4_0-np4.log");
  const FigureCheck* model = figure(c, "CUDA0", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, 4'357'881'856u);
  EXPECT_TRUE(model->within_print);
  EXPECT_EQ(c.log.setting("form_loader_buffer_without_model")->value, "true");
}

TEST(CheckLog, ANoMmapHostBeforeSharedDuplicatesHoldsTheTiedOutputTwice) {
  // An Ollama runner (llama.cpp b3871, before #10026) on an M1 Pro,
  // --no-mmap, Granite 8B Code Q4_0 with 20 of 37 layers on Metal: the
  // output layer stays on the host, and its tied output is a tensor of its
  // own beside token_embd in the host's context, allocated without mmap.
  // token_embd is q6_K: 49,152 x 4,096 / 256 x 210 B = 165,150,720 B, so
  // the host holds 2,131,378,176 + 165,150,720 = 2,296,528,896 B, the
  // printed 2190.14 MiB (0.928 of it with one copy).
  const LogCheck c = check("ollama", "ollama-neverllama8-m1pro-granite8b-code-128k-q4_0-20of37.log");
  const FigureCheck* host = figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, 2'296'528'896u);
  EXPECT_TRUE(host->within_print);
}

TEST(CheckLog, AFigureOffItsTargetWithNoReasonSaysItsCauseIsNotTraced) {
  // llama.cpp#7060's LLaVA 1.5 7B Q4_K on an M3 Max (llama-server, build
  // not printed): Metal's compute buffer, 164.00 MiB printed, is 0.90 of
  // it in memfit's (155,193,344 B), off "within 5 % on one GPU", and no
  // rule of the pricer says why, so the row says that. (#9451's Phi-3.5
  // row said so until phi3's copies of Q, K and V were dated by build:
  // #14568, #15662; #14670's LFM2 Metal row until its tied output copy
  // was: #15476.)
  const LogCheck c = check("llamacpp", "llamacpp-neverllama8-7060-m3max-llava15-7b-q4k-server.log");
  const FigureCheck* compute = figure(c, "Metal", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  ASSERT_TRUE(compute->ratio.has_value());
  EXPECT_LT(*compute->ratio, 0.95);
  EXPECT_TRUE(compute->note.starts_with("off its target (within 5 % on one GPU) by a cause memfit has not traced"))
      << compute->note;
}

TEST(CheckLog, AContextSizedFigureOffItsTargetWithoutNCtxSaysTheContextWasChosen) {
  // An Ollama report's excerpt (Qwen2.5-7B-Instruct Q4_K_M on a gfx1151)
  // prints the KV cache, 448.00 MiB, but no n_ctx. memfit's context is one
  // it chose: 32,768 cells x 28 layers x (K + V: 2 x 4 heads x 128) x 2 B =
  // 1,879,048,192 B, 4.0 x the print (the run's 8,192). The row says the
  // context was chosen, not that a rule's cause is untraced.
  LogCheckOptions options;
  options.config_json =
      read_test_log("ollama", "ollama-neverllama8-gfx1151-qwen25-7b-instruct-rocm.config.json");
  options.file_type = "Q4_K_M";
  const LogCheck c = check("ollama", "ollama-neverllama8-gfx1151-qwen25-7b-instruct-rocm.log", options);
  const FigureCheck* kv = figure(c, "ROCm0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, 1'879'048'192u);
  EXPECT_TRUE(kv->note.starts_with("off its target (exact to the print): the log prints no n_ctx"))
      << kv->note;
}

TEST(CheckLog, AQwen3VlRowUnderItsTargetWithoutRopeScalingNamesMrope) {
  // vllm-project/vllm#27706 (Qwen3-VL 2B on an RX 7800 XT, ROCm): rank 0's
  // weights print 4.4570 GiB; memfit's, its deepstack buffers priced (3 x
  // 2,048 x 2,048 x 2 B = 25,165,824 at the 2,048 batched tokens it takes),
  // are 4,433,598,464 B, 0.9264 of it. The config copy has no
  // rope_scaling, so vLLM's M-RoPE cache (4 x the rows) is not priced, and
  // the row says so (docs/engine-vllm.md, "Rows off target"). The device
  // named as the sidecar names it, as the replay does (ROCm's load terms
  // follow the card).
  LogCheckOptions options;
  options.config_json = testing::read_test_log("vllm", "vllm-27706-qwen3-vl-2b-rx7800xt-rocm.config.json");
  options.gpu_name = "AMD Radeon RX 7800 XT";
  const LogCheck c = check("vllm", "vllm-27706-qwen3-vl-2b-rx7800xt-rocm.log", options);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  ASSERT_TRUE(weights->memfit.has_value());
  EXPECT_EQ(*weights->memfit, 4433598464u);
  EXPECT_TRUE(weights->note.starts_with("the config copy declares no rope_scaling")) << weights->note;
}

TEST(CheckLog, AHybridRunsKvTokensArePricedInTheFormItsLogPrinted) {
  // Michal1337/clinician-co-pilot's v0.20.2 run of Gemma 4 26B-A4B on an
  // H200 prints "GPU KV cache size: 984,297 tokens" one source line before
  // its 30.04x (vllm#41069's int(concurrency x max_model_len)). Its 71.67
  // GiB (76,955,076,526 B) make floor(76,955,076,526 / (131,072 B a page x
  // 5 layers a group)) = 117,424 blocks; a request of 32,768 tokens takes
  // five sliding groups of cdiv(1,023 + 8,192, 16) + 1 = 577 blocks and the
  // global group 32,768 / 32 = 1,024: 3,909. floor(117,424 x 32,768 /
  // 3,909) = 984,330 (1.00003 of the print). The per-group form, 117,424 //
  // 6 groups x 16 = 313,120, was 0.318 of it.
  LogCheckOptions o;
  o.config_json = read_test_log("vllm", "vllm-nevervllm6-michal-gemma4-26b-a4b-h200-v0202.config.json");
  o.gpu_name = "NVIDIA H200";
  const LogCheck c = check("vllm", "vllm-nevervllm6-michal-gemma4-26b-a4b-h200-v0202.log", o);
  const FigureCheck* tokens = figure(c, "total", LogFigure::kKvTokens);
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->memfit, 984'330u);
}

TEST(CheckLog, OnlineFp8OfA16BitCheckpointIsPricedAsTheFp8OneVllmMakes) {
  // NnamdiOdozi/mlops-assignment's v0.22.1 run serves the bf16
  // Qwen3-30B-A3B-Instruct-2507 with --quantization fp8 on an H100; the
  // 16-bit config given beside it was refused before. As FP8 of one scale
  // a tensor: 29,896,998,912 linear and expert parameters at 1 B; the
  // embedding and head (2 x 151,936 x 2,048), the routers (48 x 128 x
  // 2,048) and the norms (48 x 2 x 2,048 + 2,048), 635,111,424 at 2 B =
  // 1,270,222,848; 48 x (4 + 128 x 3) = 18,624 fp32 scales = 74,496; the
  // rotary cache 40,960 x 128 x 2 B = 10,485,760: 31,177,782,016 B, 0.9985
  // of the printed 29.08 GiB (31,224,412,242).
  LogCheckOptions o;
  o.config_json = read_test_log("vllm", "vllm-nevervllm6-nnamdi-qwen3-30b-a3b-2507-fp8-h100-v0221.config.json");
  o.gpu_name = "NVIDIA H100 80GB HBM3";
  const LogCheck c = check("vllm", "vllm-nevervllm6-nnamdi-qwen3-30b-a3b-2507-fp8-h100-v0221.log", o);
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->memfit, 31'177'782'016u);
  EXPECT_EQ(weights->note, "");
}

TEST(CheckLog, AnFp8RocmRowUnderItsTargetNamesTheRocmLoadNotAnUnservedDrafter) {
  // fpolica91/triton-example's v0.16.0 MiniMax-M2.5 (FP8) TP 4 on MI300X:
  // 53.70 GiB of the printed 54.97 (0.977). Its engine line says
  // speculative_config=None, so vLLM skipped the config's MTP layer
  // (deepseek_v2.py / minimax_m2.py load_weights): the row names what
  // ROCm's FP8 load does instead.
  LogCheckOptions o;
  o.config_json = read_test_log("vllm", "vllm-nevervllm6-fpolica-minimax-m25-tp4-mi300x-v0160.config.json");
  o.gpu_name = "AMD Instinct MI300X";
  const LogCheck c = check("vllm", "vllm-nevervllm6-fpolica-minimax-m25-tp4-mi300x-v0160.log", o);
  EXPECT_EQ(testing::setting_of(c.log, "speculative_config"), "None");
  const FigureCheck* weights = figure(c, "rank0", LogFigure::kWeights);
  ASSERT_NE(weights, nullptr);
  ASSERT_TRUE(weights->ratio.has_value());
  EXPECT_LT(*weights->ratio, 0.99);
  EXPECT_EQ(weights->note.rfind("an FP8 checkpoint on ROCm", 0), 0u) << weights->note;
}

}  // namespace
}  // namespace memfit
