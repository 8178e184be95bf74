// check-log on the host's model buffer beside a GPU (docs/llamacpp-rules.md,
// "Model weights"): a build before #12498 repacks the host's Q4_0 weights
// into CPU_AARCH64 on top of the mapped file, and a partial offload's
// CPU_Mapped range depends on the file's tensor order, which a dump does
// not print.
#include <gtest/gtest.h>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"

namespace memfit {
namespace {

TEST(CheckLogHostBuffers, ABuildBeforeTwelve498RepacksTheHostsQ4_0BesideAGpu) {
  // #10850 (b4334, SYCL, -ngl 0, Llama 2 7B Q4_0 on an AVX-512 host): the
  // mapped file, 3,825,065,984 B (3647.87 MiB), and CPU_AARCH64 holding
  // the 224 block matrices, 32 x (4 x 4096 x 4096 + 3 x 4096 x 11008)
  // = 6,476,005,376 weights x 18 / 32 B = 3,642,753,024 B (3474.00 MiB);
  // token_embd (a lookup) and the q6_K output stay mapped only.
  // 3,825,065,984 + 3,642,753,024 = 7,467,819,008 B.
  const LogCheck c = testing::check_test_log("llamacpp", "llamacpp-10850-llama2-7b-q4_0-sycl-ngl0.log");
  const FigureCheck* model = testing::find_check_figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, std::optional<uint64_t>(7'467'819'008u));
  EXPECT_TRUE(model->within_print);
}

TEST(CheckLogHostBuffers, APartialOffloadsMappedRangeSaysTheConvertersOrderSpansTheFile) {
  // #12213 (b4783, 10 of 32 blocks on a 4070 Laptop, a Q4_K_M file
  // quantized before #9935): CPU_Mapped 4685.30 MiB is the whole file, the
  // host's 3,588,415,744 B (memfit's, in llama-quantize's sorted order)
  // and CUDA0's 1263.13 MiB between them; every loaded tensor of the
  // rebuilt list: 4,912,898,304 B (4685.30 MiB), said on the row.
  const LogCheck c = testing::check_test_log("llamacpp", "llamacpp-12213-functionary-q4km-4070-laptop.log");
  const FigureCheck* model = testing::find_check_figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, std::optional<uint64_t>(3'588'415'744u));
  EXPECT_NE(model->note.find("a file quantized before it keeps the converter's order"), std::string::npos)
      << model->note;
  EXPECT_NE(model->note.find("4912898304 B in all"), std::string::npos) << model->note;
}

TEST(CheckLogHostBuffers, AShapedOutputMatrixsCopyIsSaidWhereItSetsTheGpusFigure) {
  // #11635 (b4625, DeepSeek-R1 UD-IQ1_S, 16 of 62 blocks on an L40S, the
  // output layer on the host): the weights are shaped to the printed size,
  // output.weight (129,280 x 7,168 = 926,679,040 weights, q5_K in the
  // rebuilt list) at 2,225,783,674 B where q5_K's 176 B a 256 give
  // 637,091,840 B; with the logits, 4 x 512 x (129,280 + 7,168) =
  // 279,445,504 B, op offload's logits phase is 2,505,229,178 B on CUDA0
  // (2389.17 MiB against the printed 2218.00).
  LogCheckOptions options;
  options.version = "b4625";
  const LogCheck c = testing::check_test_log("llamacpp", "llamacpp-11635-deepseek-r1-iq1s-l40s.log", options);
  const FigureCheck* compute = testing::find_check_figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->memfit, std::optional<uint64_t>(2'505'229'178u));
  EXPECT_NE(compute->note.find("the host's logits, 279445504 B"), std::string::npos) << compute->note;
  EXPECT_NE(compute->note.find("(2225783674 B:"), std::string::npos) << compute->note;
  EXPECT_NE(compute->note.find("its q5_K bytes are 637091840 B"), std::string::npos) << compute->note;
}

TEST(CheckLogHostBuffers, AShapedFilesInputAndOutputLayersKeepTheirRuleTypes) {
  // Unsloth's Qwen3.5 files (a per-layer mix no rules rebuild; the
  // weights shaped): token_embd and output at the Q4_K_M rules' types,
  // q4_K and q6_K, both printed by the dump. urika's 9B, every layer on
  // MTL0, the host holding token_embd alone: 248,320 x 4,096 =
  // 1,017,118,720 weights = 3,973,120 q4_K blocks x 144 B = 572,129,280 B
  // (545.62 MiB printed; the even share was 5.55 GiB / 34 = 175 MB).
  const LogCheck urika = testing::check_test_log("llamacpp", "llamacpp-urika-qwen35-9b-q8kv-m5pro-metal.log");
  const FigureCheck* embd = testing::find_check_figure(urika, "CPU", LogFigure::kModel);
  ASSERT_NE(embd, nullptr);
  EXPECT_EQ(embd->memfit, std::optional<uint64_t>(572'129'280u));
  EXPECT_TRUE(embd->within_print);
  // ROCm#6027's 27B at -ngl 1: the one offloaded layer is the output
  // layer, 248,320 x 5,120 = 1,271,398,400 weights = 4,966,400 q6_K
  // blocks x 210 B = 1,042,944,000 B, and output_norm's 5,120 F32,
  // 20,480 B: 1,042,964,480 B (994.65 MiB printed).
  const LogCheck rocm = testing::check_test_log("llamacpp", "llamacpp-neverllama4-rocm6027-gfx1151-qwen35-27b-q4km-ngl1.log");
  const FigureCheck* output = testing::find_check_figure(rocm, "ROCm0", LogFigure::kModel);
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->memfit, std::optional<uint64_t>(1'042'964'480u));
  EXPECT_TRUE(output->within_print);
}

TEST(CheckLogHostBuffers, AQwen35MtpBlockIsLoadedBefore26296AndSkippedFromIt) {
  // Unsloth's Qwen3.8-27B UD-Q4_K_XL, every layer on a Radeon 8060S
  // (b11151, ROCm): the dump's 866 tensors hold the MTP block 64
  // (nextn_predict_layers 1), which the build skips (#26296, b10212): the
  // log prints "model has unused tensor blk.64.*" for its 15 tensors,
  // 351,008,768 B. memfit's weights are modelled, the printed file size
  // over the converter's tensors at Q4_K_M's types: block 64's share is
  // 276,359,552 B (less than the file's own bytes: its q5_K / q6_K / q8_0
  // mix is wider than those types). Priced as b10211 (its build line
  // edited) ROCm0 holds the block, 16,829,820,800 B (1.0211 of the printed
  // 15718.48 MiB); as the b11151 it printed, without it, 16,553,461,248 B
  // (1.0043).
  const std::string log = "llamacpp-neverlogs13-halo-b11151-rocm-8060s-qwen38-27b-udq4kxl.log";
  const LogCheck skipped = testing::check_test_log("llamacpp", log);
  const FigureCheck* without = testing::find_check_figure(skipped, "ROCm0", LogFigure::kModel);
  ASSERT_NE(without, nullptr);
  EXPECT_EQ(without->memfit, std::optional<uint64_t>(16'553'461'248u));
  // The same log as a b10211 run's: its build line edited.
  std::string text = testing::read_test_log("llamacpp", log);
  const size_t at = text.find("build 11151 (");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "build 10211");
  Result<LogCheck> edited = check_log(text, LogCheckOptions{}, nullptr);
  ASSERT_TRUE(edited.ok()) << edited.error().message();
  const LogCheck& loaded = *edited;
  const FigureCheck* with = testing::find_check_figure(loaded, "ROCm0", LogFigure::kModel);
  ASSERT_NE(with, nullptr);
  EXPECT_EQ(with->memfit, std::optional<uint64_t>(16'553'461'248u + 276'359'552u));
  // The host's token_embd is the same either way.
  const FigureCheck* host = testing::find_check_figure(skipped, "CPU", LogFigure::kModel);
  const FigureCheck* host_loaded = testing::find_check_figure(loaded, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  ASSERT_NE(host_loaded, nullptr);
  EXPECT_EQ(host->memfit, host_loaded->memfit);
}

TEST(CheckLogHostBuffers, AForksQwen35RunPricedByThePinnedRulesSkipsItsMtpBlock) {
  // Qwen3.6-27B-MTP UD-Q4_K_XL, every layer on a 5090, from a fork's image
  // ("build_info: b484-...", kv_unified printed: not llama.cpp's build
  // number, so the pinned v0.4.0 prices it, which skips the MTP block 64
  // unless MTP drafting is asked for). The run asked for it (--spec-type
  // mtp in its sidecar's command; the excerpt ends before the draft
  // context), so CUDA0 printed the block, 16386.94 MiB: memfit, which has
  // no setting for MTP drafting, is block 64's modelled share short of it
  // (0.9836; it matched, 1.0001, while memfit loaded Qwen3.5's block in
  // every build). The host holds token_embd alone either way, 248,320 x
  // 5,120 = 1,271,398,400 weights = 4,966,400 q4_K blocks x 144 B =
  // 715,161,600 B (682.03 MiB printed).
  const LogCheck c = testing::check_test_log("llamacpp", "llamacpp-neverllama4-qwen36-27b-mtp-q4kxl-5090-q8kv.log");
  const FigureCheck* host = testing::find_check_figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, std::optional<uint64_t>(715'161'600u));
  const FigureCheck* gpu = testing::find_check_figure(c, "CUDA0", LogFigure::kModel);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, std::optional<uint64_t>(16'901'602'688u));
  EXPECT_LT(*gpu->memfit, gpu->printed.value);
}

TEST(CheckLogHostBuffers, IkLlamaPadsEveryLayersQuantizedKRowOnCuda) {
  // ik_llama.cpp#377 (ik_llama.cpp build 3671, Nemotron Ultra 253B, 162
  // layers, -ts 6.5,6,10,4, K q8_0 at 12,288 cells): the fork's K is rows
  // of 128 elements, each padded by ggml-cuda to 512, ggml_row_size(q8_0,
  // 384) = 12 x 34 = 408 B, which the 128-B alignment makes 512 B more a
  // layer (13,369,344 + 408 -> 13,369,856), an empty K (no KV heads) 0 +
  // 408 -> 512 too. CUDA0's 40 layers: 449,839,104 + 40 x 512 =
  // 449,859,584 B, within the printed 429.02 MiB.
  LogCheckOptions options;
  options.command = "./llama-server -m .../Llama-3_1-Nemotron-Ultra-253B-v1-UD-Q3_K_XL-00001-of-00003.gguf "
                    "-c 12228 -ngl 163 -ts 6.5,6,10,4 --no-warmup -fa -ctk q8_0 -ctv q4_0 -mg 2";
  const LogCheck c = testing::check_test_log("llamacpp", "llamacpp-ik377-nemotron-ultra-253b-q3kxl-4gpu.log", options);
  EXPECT_EQ(testing::setting_of(c.log, "fork"), "ik_llama.cpp");
  const FigureCheck* kv = testing::find_check_figure(c, "CUDA0", LogFigure::kKvCache);
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->memfit, std::optional<uint64_t>(449'859'584u));
  EXPECT_TRUE(kv->within_print);
  // Its GPUs' compute rows are priced with the fork's FFN, gate, up and
  // their product (ggml_fused_mul_unary, not in place) live at once, at
  // each GPU's widest FFN, where the build priced (before #14158) keeps
  // two: CUDA2's blocks 77..138 hold the widest, 425,984 (block 134):
  // 4 x 512 x (3 x 425,984 + 4 x 16,384) + 2 x 12,288 x 512 (the F16 mask)
  // = 2,751,463,424 + 12,582,912 = 2,764,046,336 B (1.030 of the printed
  // 2,560 MiB; the in-place phase, 4 x 512 x (2 x 425,984 + 2 x 16,384) +
  // 12,582,912 = 1,824,522,240 B, was 0.680). CUDA0's widest is 53,248:
  // 4 x 512 x (3 x 53,248 + 4 x 16,384) + 12,582,912 = 461,373,440 +
  // 12,582,912 = 473,956,352 B (1.097 of 412 MiB).
  const FigureCheck* compute = testing::find_check_figure(c, "CUDA2", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->memfit, std::optional<uint64_t>(2'764'046'336u));
  EXPECT_EQ(compute->basis, FigureBasis::kModelled);
  EXPECT_NE(compute->note.find("widest FFN (425984)"), std::string::npos) << compute->note;
  const FigureCheck* first = testing::find_check_figure(c, "CUDA0", LogFigure::kCompute);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->memfit, std::optional<uint64_t>(473'956'352u));
}

TEST(CheckLogHostBuffers, OnlyIkLlamasLogKeepsThreeFfnRowsLive) {
  // ik_llama.cpp#377's log with the fork's three context lines (mla_attn,
  // attn_max_b, fused_moe) taken out reads as llama.cpp's, priced as a
  // build before #14158 whose SiLU and product run in place: CUDA2's FFN
  // phase at its widest FFN, 4 x 512 x (2 x 425,984 + 2 x 16,384) +
  // 2 x 12,288 x 512 = 1,811,939,328 + 12,582,912 = 1,824,522,240 B, not
  // the fork's 2,764,046,336.
  std::string text = testing::read_test_log("llamacpp", "llamacpp-ik377-nemotron-ultra-253b-q3kxl-4gpu.log");
  for (const std::string_view line : {"llama_new_context_with_model: mla_attn   = 0\n",
                                 "llama_new_context_with_model: attn_max_b = 0\n",
                                 "llama_new_context_with_model: fused_moe  = 0\n"}) {
    const size_t at = text.find(line);
    ASSERT_NE(at, std::string::npos) << line;
    text.erase(at, line.size());
  }
  LogCheckOptions options;
  options.command = "./llama-server -m .../Llama-3_1-Nemotron-Ultra-253B-v1-UD-Q3_K_XL-00001-of-00003.gguf "
                    "-c 12228 -ngl 163 -ts 6.5,6,10,4 --no-warmup -fa -ctk q8_0 -ctv q4_0 -mg 2";
  Result<LogCheck> c = check_log(text, options, nullptr);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(testing::setting_of(c->log, "fork"), "<none>");
  const FigureCheck* compute = testing::find_check_figure(*c, "CUDA2", LogFigure::kCompute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->memfit, std::optional<uint64_t>(1'824'522'240u));
}

TEST(CheckLogHostBuffers, ExpertsKeptOnTheHostMapTheRangeAcrossEveryBlocksAttention) {
  // A CANN guide's run (b6115, eight Ascend 910B4, every layer offloaded,
  // ggml-org's gpt-oss-20b MXFP4_MOE file): CANN runs no MXFP4, so every
  // block's experts (3 x 141,004,800 B mxfp4 + 3 x 368,640 B f32 biases
  // = 424,120,320 B a block) stay on the host with token_embd (q8_0,
  // 2,880 x 201,088 x 34 / 32 = 615,329,280 B). In llama-quantize's order
  // (output, output_norm, token_embd, then blk.0 to blk.23, each by name)
  // the host's range runs from token_embd to blk.23.ffn_up_exps.weight and
  // holds every block's other tensors, 28,625,024 B a block (q8_0 attn_q,
  // attn_output 12,533,760 each, attn_k, attn_v 1,566,720 each; f32 norms,
  // biases, sinks, router 424,064), all but blk.23's post_attention_norm
  // (11,520 B), which follows its last expert. Every size is whole 32 B,
  // so no padding: 615,329,280 + 24 x (424,120,320 + 28,625,024) - 11,520
  // = 11,481,206,016 B (10949.33 MiB, as printed), of which
  // 24 x 28,625,024 - 11,520 = 686,989,056 B are the GPUs' tensors.
  LogCheckOptions options;
  options.command = "llama-server -a gpt-oss-20b -m gpt-oss-20b-mxfp4.gguf -c 0 -fa --jinja "
                    "--reasoning-format none --gpu-layers 60";
  const LogCheck c =
      testing::check_test_log("llamacpp", "llamacpp-neverllama5-gptoss20b-mxfp4-8x-ascend910b-cann.log", options);
  const FigureCheck* model = testing::find_check_figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, std::optional<uint64_t>(11'481'206'016u));
  EXPECT_TRUE(model->within_print);
  EXPECT_NE(model->note.find("holds 686989056 B of the GPUs' tensors"), std::string::npos) << model->note;
}

TEST(CheckLogHostBuffers, GptOssQ4KMKeepsTheConvertersMxfp4Experts) {
  // Unsloth's gpt-oss-20b Q4_K_M on an M5 (b8198): 72 mxfp4, 24 q4_K,
  // 61 q5_0, 13 q8_0 -- llama-quantize's Q4_K_M rules with the experts kept
  // as the converter wrote them. token_embd (2,880 columns, not whole Q4_K
  // blocks) falls back to Q5_0: 2,880 x 201,088 x 22 / 32 = 398,154,240 B,
  // the host's whole buffer (379.71 MiB printed).
  LogCheckOptions options;
  options.command = "llama-server -hf unsloth/gpt-oss-20b-GGUF";
  const LogCheck c =
      testing::check_test_log("llamacpp", "llamacpp-neverllama5-gptoss20b-q4km-m5-metal-np4.log", options);
  const FigureCheck* model = testing::find_check_figure(c, "CPU", LogFigure::kModel);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->memfit, std::optional<uint64_t>(398'154'240u));
  EXPECT_TRUE(model->within_print);
}

TEST(CheckLogHostBuffers, AutoResolvedOffKeepsTheCacheAutoCreated) {
  // neverllama6's b7300 SYCL run (Qwen2.5 7B F16 on an A770, 4,096 cells,
  // U 512, -fa auto): ggml-sycl had no FLASH_ATTN_EXT, and llama_context
  // resolved auto off after it had created the cache with V untransposed,
  // so v_idxs holds one index a token. The host's inputs: input rows
  // 3,584 x 512 x 4 = 7,340,032, the F32 mask 4,096 x 512 x 4 = 8,388,608,
  // token ids, positions and output ids 3 x 512 x 4 = 6,144, k_idxs and
  // v_idxs 2 x 512 x 8 = 8,192: 15,742,976 B ("15,01 MiB"; with V
  // transposed v_idxs would be 512 x 512 x 8 = 2,097,152, 17.01 MiB). The
  // GPU's buffer stays the logits 152,064 x 512 x 4 + result_norm 3,584 x
  // 512 x 4 = 318,767,104 B ("304,00 MiB").
  const LogCheck c =
      testing::check_test_log("llamacpp", "llamacpp-neverllama6-mathtutor7b-f16-sycl-a770-comma-locale.log");
  const FigureCheck* host = testing::find_check_figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, std::optional<uint64_t>(15'742'976u));
  EXPECT_TRUE(host->within_print);
  const FigureCheck* gpu = testing::find_check_figure(c, "SYCL0", LogFigure::kCompute);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->memfit, std::optional<uint64_t>(318'767'104u));
}

}  // namespace
}  // namespace memfit
