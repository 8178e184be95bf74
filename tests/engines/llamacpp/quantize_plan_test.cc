// A safetensors or config-only model priced as the GGUF llama-quantize
// would write (engines/llamacpp/quantize_plan.h): the converter's tensor
// list and llama.cpp's per-tensor type choice, checked tensor by tensor.
// Block sizes (ggml): Q8_0 32 elements in 34 B, Q4_K 256 in 144 B, Q6_K
// 256 in 210 B.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "engines/llamacpp/quantize_plan.h"
#include "support/corpus.h"

namespace memfit::llamacpp {
namespace {

Model config_only(const std::string& relative) {
  return testing::corpus_model(relative, 1, WeightsSource::kAnalyticalConfig);
}

Model quantized(const std::string& relative, std::string_view file_type) {
  Result<Model> m = quantized_gguf_model(config_only(relative), *find_gguf_file_type(file_type));
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message());
  return m.ok() ? *m : Model{};
}

std::string dtype_of(const Model& m, std::string_view name) {
  for (const SafetensorsTensor& t : m.tensors) {
    if (t.name == name) return t.dtype;
  }
  return "(none)";
}

std::map<std::string, int> type_counts(const Model& m) {
  std::map<std::string, int> counts;
  for (const SafetensorsTensor& t : m.tensors) ++counts[t.dtype];
  return counts;
}

TEST(GgufFileTypes, NamesAreReadAsLlamaQuantizeReadsThem) {
  ASSERT_NE(find_gguf_file_type("q4_k_m"), nullptr);
  EXPECT_EQ(find_gguf_file_type("q4_k_m")->name, "Q4_K_M");
  EXPECT_EQ(find_gguf_file_type("Q4_K")->name, "Q4_K_M");  // llama-quantize's alias
  EXPECT_EQ(find_gguf_file_type("Q3_K")->name, "Q3_K_M");
  EXPECT_EQ(find_gguf_file_type("iq4_xs")->default_type, GgmlType::kIQ4_XS);
  EXPECT_EQ(find_gguf_file_type("int4"), nullptr);
  EXPECT_EQ(find_gguf_file_type("IQ2_XXS"), nullptr);  // needs an importance matrix
}

// Qwen3-0.6B (config only): hidden 1024, 16 heads and 8 KV heads of 128,
// intermediate 3072, vocabulary 151,936, 28 blocks, tied embeddings.
// Matrices per block (elements): q 1024 x 2048 = 2,097,152, k and v
// 1,048,576 each, output 2,097,152, gate/up/down 3,145,728 each: 15,728,640;
// x 28 = 440,401,920; token_embd 155,582,464; all 595,984,384.
// F32: output_norm 1024 x 4 = 4,096 B; per block attn_norm and ffn_norm
// 2 x 4,096 + q_norm and k_norm 2 x 512 = 9,216 B, x 28 = 258,048; 262,144 B.
TEST(QuantizePlan, Qwen3SmallQ8_0IsEveryMatrixAtQ8_0) {
  const Model m = quantized("qwen3/Qwen3-0.6B", "Q8_0");
  // 595,984,384 / 32 x 34 = 633,233,408 B + 262,144 B of F32.
  EXPECT_EQ(m.weights.bytes, 633495552u);
  EXPECT_EQ(m.weights.source, WeightsSource::kGgufHeader);
  EXPECT_FALSE(m.weights.verified);
  // 1 token_embd + 7 matrices x 28 = 197 q8_0; 1 + 4 x 28 = 113 f32.
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 113}, {"q8_0", 197}}));
  // As a GGUF model carries it: shape outermost first.
  EXPECT_EQ(m.tensors.front().name, "output_norm.weight");
  EXPECT_EQ(dtype_of(m, "token_embd.weight"), "q8_0");  // tied: output's rule, already Q8_0
}

TEST(QuantizePlan, Qwen3SmallQ4_K_MGivesMoreBitsToAnEighthAndEveryThirdBlock) {
  const Model m = quantized("qwen3/Qwen3-0.6B", "Q4_K_M");
  // use_more_bits(i, 28): i < 3, i >= 24, or (i - 3) % 3 == 2 (5, 8, ..., 23):
  // 3 + 4 + 7 = 14 blocks whose attn_v and ffn_down are Q6_K, 14 at Q4_K.
  //   token_embd (tied, the output's rule): Q6_K, 607,744 blocks x 210 = 127,626,240
  //   q, k, output, gate, up: 6,488,064 B a block at Q4_K, x 28 = 181,665,792
  //   attn_v (4,096 blocks): 14 x 860,160 + 14 x 589,824 = 20,299,776
  //   ffn_down (12,288 blocks): 14 x 2,580,480 + 14 x 1,769,472 = 60,899,328
  // 390,491,136 B + 262,144 B of F32 = 390,753,280 B.
  EXPECT_EQ(m.weights.bytes, 390753280u);
  EXPECT_EQ(dtype_of(m, "token_embd.weight"), "q6_K");
  EXPECT_EQ(dtype_of(m, "blk.2.attn_v.weight"), "q6_K");
  EXPECT_EQ(dtype_of(m, "blk.3.attn_v.weight"), "q4_K");
  EXPECT_EQ(dtype_of(m, "blk.5.ffn_down.weight"), "q6_K");
  EXPECT_EQ(dtype_of(m, "blk.6.ffn_down.weight"), "q4_K");
  EXPECT_EQ(dtype_of(m, "blk.24.ffn_down.weight"), "q6_K");
  EXPECT_EQ(dtype_of(m, "blk.0.attn_q.weight"), "q4_K");
  EXPECT_EQ(dtype_of(m, "blk.0.attn_q_norm.weight"), "f32");
  // 1 + 14 + 14 = 29 q6_K; 5 x 28 + 14 + 14 = 168 q4_K.
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 113}, {"q4_K", 168}, {"q6_K", 29}}));
}

// A published Q4_K_M of the Llama 3.1 8B architecture, as llama.cpp
// loaded it: two public Ollama server logs of deepseek-r1:8b
// (DeepSeek-R1-Distill-Llama-8B, Q4_K_M; found by a code search for
// "file size   = 4.58 GiB (4.89 BPW)") print "type f32: 66 tensors, type
// q4_K: 193 tensors, type q6_K: 33 tensors", "CUDA0 model buffer size =
// 4403.49 MiB" and "CPU_Mapped model buffer size = 281.81 MiB" (-ngl 33:
// every block and the output on the GPU, token_embd on the host).
TEST(QuantizePlan, Llama31_8BQ4_K_MMatchesAPublishedFileToTheMiB) {
  const Model m = quantized("llama3/Meta-Llama-3.1-8B", "Q4_K_M");
  // The log's 66 F32 tensors: 65 norms and rope_freqs, which the converter
  // writes from llama3 rope scaling (head_dim 128 / 2 = 64 floats, 256 B);
  // 66 + 193 + 33 = 292 tensors, the published file's count.
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 66}, {"q4_K", 193}, {"q6_K", 33}}));
  EXPECT_EQ(m.tensors.size(), 292u);
  // token_embd: 128,256 x 4,096 at Q4_K = 2,052,096 blocks x 144 =
  // 295,501,824 B = 281.81 MiB, the log's CPU_Mapped buffer exactly.
  uint64_t embd = 0;
  for (const SafetensorsTensor& t : m.tensors) {
    if (t.name == "token_embd.weight") embd = t.data_bytes;
    if (t.name == "rope_freqs.weight") {
      EXPECT_EQ(t.dtype, "f32");
      EXPECT_EQ(t.shape, (std::vector<uint64_t>{64}));
      EXPECT_EQ(t.data_bytes, 256u);
    }
  }
  EXPECT_EQ(embd, 295501824u);
  // Everything else: 4,912,898,304 - 295,501,824 = 4,617,396,480 B =
  // 4,403.488 MiB: the log's 4403.49.
  EXPECT_EQ(m.weights.bytes, 4912898304u);
  const double gpu_mib = static_cast<double>(m.weights.bytes - embd) / (1 << 20);
  EXPECT_NEAR(gpu_mib, 4403.49, 0.005);
  // Q8_0: 8,029,995,008 matrix elements / 32 x 34 = 8,531,869,696 B + F32
  // norms 32 x 2 x 16,384 + 16,384 = 1,064,960 B + rope_freqs 256 B.
  EXPECT_EQ(quantized("llama3/Meta-Llama-3.1-8B", "Q8_0").weights.bytes, 8532934912u);
}

// A config-only model of the corpus config at `relative` with `edit`
// applied to its config.json.
Model edited(const std::string& relative, void (*edit)(nlohmann::json&)) {
  nlohmann::json config =
      nlohmann::json::parse(testing::read_test_data("corpus/" + relative + "/config.json"));
  edit(config);
  Result<ModelSpec> spec = parse_model_config(config.dump());
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  Model m = config_only(relative);
  if (spec.ok()) m.spec = *spec;
  return m;
}

uint64_t bytes_as(const Model& m, std::string_view file_type) {
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type(file_type));
  EXPECT_TRUE(q.ok()) << (q.ok() ? "" : q.error().message());
  return q.ok() ? q->weights.bytes : 0;
}

TEST(QuantizePlan, RopeFreqsOnlyForLlama3RopeScaling) {
  // Qwen3-8B has no rope_scaling: no rope_freqs. Llama 3.1 without its
  // rope_scaling: 256 B less, 291 tensors.
  EXPECT_EQ(dtype_of(quantized("qwen3/Qwen3-8B", "Q8_0"), "rope_freqs.weight"), "(none)");
  const Model plain =
      edited("llama3/Meta-Llama-3.1-8B", [](nlohmann::json& c) { c.erase("rope_scaling"); });
  EXPECT_EQ(bytes_as(plain, "Q8_0"), 8532934912u - 256);
}

TEST(QuantizePlan, Qwen2MoeSharedExpertIsItsOwnWidthBehindAnF32Gate) {
  // Qwen1.5-MoE-A2.7B: shared_expert_intermediate_size 5,632 (not the
  // routed 1,408), hidden 2,048; its shared_expert_gate is
  // ffn_gate_inp_shexp, 2,048 F32 (8,192 B).
  const Model m = quantized("qwen2_moe/Qwen1.5-MoE-A2.7B", "Q8_0");
  for (const SafetensorsTensor& t : m.tensors) {
    if (t.name == "blk.0.ffn_down_shexp.weight") {
      EXPECT_EQ(t.shape, (std::vector<uint64_t>{2048, 5632}));
      // 5,632 x 2,048 = 11,534,336 elements / 32 x 34 B.
      EXPECT_EQ(t.data_bytes, 12255232u);
    }
    if (t.name == "blk.0.ffn_up_shexp.weight") {
      EXPECT_EQ(t.shape, (std::vector<uint64_t>{5632, 2048}));
    }
    if (t.name == "blk.0.ffn_gate_inp_shexp.weight") {
      EXPECT_EQ(t.dtype, "f32");
      EXPECT_EQ(t.data_bytes, 8192u);
    }
  }
  EXPECT_EQ(dtype_of(m, "blk.23.ffn_gate_inp_shexp.weight"), "f32");
  // 24 blocks of 17 (3 Q/K/V biases, 2 norms, Q/K/V/output, 4 routed,
  // 4 shared) + output, output_norm, token_embd = 411.
  EXPECT_EQ(m.tensors.size(), 411u);
}

TEST(QuantizePlan, Qwen3MoeDenseLayersAreWrittenAsADenseMlp) {
  // Qwen3-30B-A3B with mlp_only_layers [0, 47]: those two blocks are a
  // dense MLP of intermediate_size 6,144 (ffn_gate/up/down), the other 46
  // routed. Per block F16: the dense MLP 3 x 2,048 x 6,144 x 2 B =
  // 75,497,472; the experts 3 x 128 x 768 x 2,048 x 2 B = 1,207,959,552
  // plus the F32 router 2,048 x 128 x 4 B = 1,048,576. Two blocks change by
  // 2 x (1,209,008,128 - 75,497,472) = 2,267,021,312 B.
  const Model all = config_only("qwen3_moe/Qwen3-30B-A3B");
  const Model two_dense = edited("qwen3_moe/Qwen3-30B-A3B", [](nlohmann::json& c) {
    c["mlp_only_layers"] = {0, 47};
  });
  EXPECT_EQ(bytes_as(all, "F16") - bytes_as(two_dense, "F16"), 2267021312u);
  Result<Model> q = quantized_gguf_model(two_dense, *find_gguf_file_type("F16"));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(dtype_of(*q, "blk.0.ffn_down.weight"), "f16");
  EXPECT_EQ(dtype_of(*q, "blk.0.ffn_down_exps.weight"), "(none)");
  EXPECT_EQ(dtype_of(*q, "blk.47.ffn_gate_inp.weight"), "(none)");
  EXPECT_EQ(dtype_of(*q, "blk.1.ffn_down_exps.weight"), "f16");
  // 48 blocks of 12 (4 norms, Q/K/V/output, 4 routed) + 3 = 579; two
  // dense blocks of 11: 577.
  EXPECT_EQ(quantized("qwen3_moe/Qwen3-30B-A3B", "F16").tensors.size(), 579u);
  EXPECT_EQ(q->tensors.size(), 577u);
  // decoder_sparse_step 2: blocks 1, 3, ..., 47 routed ((i + 1) % 2 == 0),
  // the 24 others dense: 24 x 12 + 24 x 11 + 3 = 555 tensors.
  const Model every_other = edited("qwen3_moe/Qwen3-30B-A3B", [](nlohmann::json& c) {
    c["decoder_sparse_step"] = 2;
  });
  Result<Model> step = quantized_gguf_model(every_other, *find_gguf_file_type("F16"));
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->tensors.size(), 555u);
  EXPECT_EQ(dtype_of(*step, "blk.0.ffn_down.weight"), "f16");
  EXPECT_EQ(dtype_of(*step, "blk.1.ffn_down_exps.weight"), "f16");
}

TEST(QuantizePlan, ALlamaFamilyConfigWithoutTieWordEmbeddingsHasAnOutput) {
  // transformers' Qwen3Config defaults tie_word_embeddings to False:
  // Qwen3-0.6B's config without the key has an output.weight, 1,024 x
  // 151,936 at Q8_0 = 4,861,952 blocks x 34 B = 165,306,368 B more than
  // the tied file.
  const Model tied = config_only("qwen3/Qwen3-0.6B");
  const Model unstated =
      edited("qwen3/Qwen3-0.6B", [](nlohmann::json& c) { c.erase("tie_word_embeddings"); });
  EXPECT_FALSE(unstated.spec.tied_embeddings);
  EXPECT_EQ(bytes_as(unstated, "Q8_0") - bytes_as(tied, "Q8_0"), 165306368u);
  bool assumed = false;
  for (const std::string& a : unstated.spec.assumptions) {
    assumed = assumed || a == "tie_word_embeddings = false (qwen3 default)";
  }
  EXPECT_TRUE(assumed);
  // Llama 3.1 states false; without the key it is still untied (292).
  const Model llama = edited("llama3/Meta-Llama-3.1-8B",
                             [](nlohmann::json& c) { c.erase("tie_word_embeddings"); });
  EXPECT_FALSE(llama.spec.tied_embeddings);
  EXPECT_EQ(bytes_as(llama, "Q8_0"), 8532934912u);
}

TEST(QuantizePlan, ADeepSeekConfigWithoutTieWordEmbeddingsHasAnOutput) {
  // transformers' DeepseekV2Config (and V3's) default tie_word_embeddings
  // to False; DeepSeek-V2-Lite's config copy leaves the key out. Its
  // output.weight is 102,400 x 2,048 at F16 = 419,430,400 B more than the
  // same config stating true (vllm#4650's load figure, 29.3010 GiB, holds it).
  const Model unstated = config_only("deepseek_v2/DeepSeek-V2-Lite");
  const Model tied =
      edited("deepseek_v2/DeepSeek-V2-Lite", [](nlohmann::json& c) { c["tie_word_embeddings"] = true; });
  EXPECT_FALSE(unstated.spec.tied_embeddings);
  EXPECT_TRUE(tied.spec.tied_embeddings);
  EXPECT_EQ(bytes_as(unstated, "F16") - bytes_as(tied, "F16"), 419430400u);
  bool assumed = false;
  for (const std::string& a : unstated.spec.assumptions) {
    assumed = assumed || a == "tie_word_embeddings = false (deepseek_v2 default)";
  }
  EXPECT_TRUE(assumed);
}

TEST(QuantizePlan, ARowThatIsNotWholeBlocksFallsBackAsLlamaQuantizeDoes) {
  Model m = config_only("qwen3/Qwen3-0.6B");
  m.spec.geometry.hidden = 896;  // 896 = 3.5 x 256 = 28 x 32
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_K_M"));
  ASSERT_TRUE(q.ok()) << q.error().message();
  // Rows of 896: Q4_K -> Q5_0, Q6_K -> Q8_0; the tied output rule sees the
  // row first and takes Q8_0.
  EXPECT_EQ(dtype_of(*q, "blk.3.attn_k.weight"), "q5_0");
  EXPECT_EQ(dtype_of(*q, "blk.0.attn_v.weight"), "q8_0");
  EXPECT_EQ(dtype_of(*q, "token_embd.weight"), "q8_0");
  // attn_output and ffn_down rows are 2,048 and 3,072: whole K blocks.
  EXPECT_EQ(dtype_of(*q, "blk.3.attn_output.weight"), "q4_K");
  EXPECT_EQ(dtype_of(*q, "blk.0.ffn_down.weight"), "q6_K");
  // Q8_0 has no fallback: a row of 100 is an error, as in llama-quantize.
  m.spec.geometry.hidden = 100;
  q = quantized_gguf_model(m, *find_gguf_file_type("Q8_0"));
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message().find("llama-quantize has no fallback"), std::string::npos);
}

TEST(QuantizePlan, ExpertsAreThreeDimensionalAndTheRouterStaysF32) {
  // Qwen3-30B-A3B: 48 blocks of 128 experts of 768, hidden 2048.
  const Model m = quantized("qwen3_moe/Qwen3-30B-A3B", "Q4_K_M");
  for (const SafetensorsTensor& t : m.tensors) {
    if (t.name == "blk.0.ffn_down_exps.weight") {
      EXPECT_EQ(t.shape, (std::vector<uint64_t>{128, 2048, 768}));
      // use_more_bits(0, 48): Q6_K; 128 x 2048 x 768 / 256 x 210 B.
      EXPECT_EQ(t.dtype, "q6_K");
      EXPECT_EQ(t.data_bytes, 128ull * 2048 * 768 / 256 * 210);
    }
  }
  EXPECT_EQ(dtype_of(m, "blk.0.ffn_gate_inp.weight"), "f32");
  EXPECT_EQ(dtype_of(m, "blk.7.ffn_down_exps.weight"), "q4_K");  // (7 - 6) % 3 != 2
  EXPECT_EQ(dtype_of(m, "blk.8.ffn_down_exps.weight"), "q6_K");  // (8 - 6) % 3 == 2
  // MXFP4_MOE: the 3-D experts MXFP4, every other matrix Q8_0.
  const Model mx = quantized("qwen3_moe/Qwen3-30B-A3B", "MXFP4_MOE");
  EXPECT_EQ(dtype_of(mx, "blk.0.ffn_up_exps.weight"), "mxfp4");
  EXPECT_EQ(dtype_of(mx, "blk.0.attn_q.weight"), "q8_0");
  EXPECT_EQ(dtype_of(mx, "output.weight"), "q8_0");
}

TEST(QuantizePlan, EightExpertsGetLlamaCppsMixtralExceptions) {
  const Model m = quantized("mixtral/Mixtral-8x7B-v0.1", "Q4_K_M");
  EXPECT_EQ(dtype_of(m, "blk.10.attn_v.weight"), "q8_0");
  EXPECT_EQ(dtype_of(m, "blk.10.attn_k.weight"), "q8_0");
  EXPECT_EQ(dtype_of(m, "blk.10.attn_output.weight"), "q5_K");
  EXPECT_EQ(dtype_of(m, "blk.10.attn_q.weight"), "q4_K");
}

// A tiny GPT-NeoX (Pythia's layout): hidden 256, 4 heads of 64, MLP 1024,
// vocabulary 512, 2 blocks, an output matrix of its own.
Model tiny_gpt_neox() {
  Model m;
  m.spec.model_type = "gpt_neox";
  m.spec.geometry.hidden = 256;
  m.spec.geometry.heads = 4;
  m.spec.geometry.kv_heads = 4;
  m.spec.geometry.head_dim = 64;
  m.spec.geometry.intermediate = 1024;
  m.spec.geometry.vocab = 512;
  m.spec.layers.assign(2, LayerCache{LayerKind::kFullAttention, 2 * 4 * 64});
  m.spec.tied_embeddings = false;
  return m;
}

TEST(QuantizePlan, GptNeoxFusesQkvAndBiasesEveryLinearLayer) {
  Result<Model> q = quantized_gguf_model(tiny_gpt_neox(), *find_gguf_file_type("Q4_0"));
  ASSERT_TRUE(q.ok()) << q.error().message();
  // Outside the blocks: output, output_norm.bias/.weight, token_embd; per
  // block 12: norms (weight, bias) x 2, attn_qkv, attn_output, ffn_up,
  // ffn_down each with its bias. 4 + 2 x 12 = 28 tensors.
  ASSERT_EQ(q->tensors.size(), 28u);
  EXPECT_EQ(q->tensors[0].name, "output.weight");
  EXPECT_EQ(q->tensors[3].name, "token_embd.weight");
  EXPECT_EQ(q->tensors[4].name, "blk.0.attn_norm.bias");
  // attn_qkv: 256 -> 3 x 256 (shape outermost first).
  for (const SafetensorsTensor& t : q->tensors) {
    if (t.name == "blk.1.attn_qkv.weight") {
      EXPECT_EQ(t.shape, (std::vector<uint64_t>{768, 256}));
    }
    if (t.name == "blk.1.attn_qkv.bias") {
      EXPECT_EQ(t.shape, (std::vector<uint64_t>{768}));
    }
  }
  // Q4_0: the output Q6_K, every other matrix (token_embd untied) Q4_0.
  EXPECT_EQ(dtype_of(*q, "output.weight"), "q6_K");
  EXPECT_EQ(dtype_of(*q, "token_embd.weight"), "q4_0");
  EXPECT_EQ(dtype_of(*q, "blk.0.attn_qkv.weight"), "q4_0");
  // F32: 2 output_norm + 8 a block (4 norm, 4 bias) = 18; Q4_0: token_embd
  // + 4 a block = 9.
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"f32", 18}, {"q4_0", 9}, {"q6_K", 1}}));
  // Bytes. output 256 x 512 = 131,072 elements / 256 x 210 = 107,520;
  // token_embd 131,072 / 32 x 18 = 73,728. A block's matrices: qkv
  // 196,608 + attn_output 65,536 + up 262,144 + down 262,144 = 786,432
  // elements / 32 x 18 = 442,368 B; its F32: norms 4 x 256, biases 768 +
  // 256 + 1,024 + 256 = 3,328 floats = 13,312 B. 107,520 + 2 x 1,024 (the
  // output norm) + 73,728 + 2 x (442,368 + 13,312) = 1,094,656 B.
  EXPECT_EQ(q->weights.bytes, 1'094'656u);
}

TEST(QuantizePlan, AFusedQkvTakesItsOwnRuleBeforeTheTensorCategories) {
  QuantizeRules older;
  older.qkv_own_rule = true;
  Result<Model> q = quantized_gguf_model(tiny_gpt_neox(), *find_gguf_file_type("Q4_K_M"), nullptr, older);
  ASSERT_TRUE(q.ok()) << q.error().message();
  // The older attn_qkv rule: Q5_K under Q4_K_M, in every block
  // (not attn_v's use_more_bits); ffn_down Q6_K where use_more_bits(i, 2):
  // i < 2 / 8 = 0 (none), i >= 7 x 2 / 8 = 1, or (i - 0) % 3 == 2: block 1
  // only, block 0 keeps Q4_K.
  EXPECT_EQ(dtype_of(*q, "blk.0.attn_qkv.weight"), "q5_K");
  EXPECT_EQ(dtype_of(*q, "blk.1.attn_qkv.weight"), "q5_K");
  EXPECT_EQ(dtype_of(*q, "blk.0.ffn_down.weight"), "q4_K");
  EXPECT_EQ(dtype_of(*q, "blk.1.ffn_down.weight"), "q6_K");
  EXPECT_EQ(dtype_of(*q, "blk.0.attn_output.weight"), "q4_K");
  Result<Model> q3 = quantized_gguf_model(tiny_gpt_neox(), *find_gguf_file_type("Q3_K_M"), nullptr, older);
  ASSERT_TRUE(q3.ok()) << q3.error().message();
  EXPECT_EQ(dtype_of(*q3, "blk.1.attn_qkv.weight"), "q4_K");
}

TEST(QuantizePlan, AFusedQkvTypedAsAttnVUnderTheTensorCategories) {
  // 007dbbf's category_is_attn_v() holds ATTENTION_QKV: attn_qkv takes
  // attn_v's Q4_K_M rule, use_more_bits(i, n_attention_wv = 2): i < 0,
  // i >= 7 x 2 / 8 = 1, or i % 3 == 2: block 1 Q6_K, block 0 Q4_K
  // (not the own rule's Q5_K in both).
  Result<Model> q = quantized_gguf_model(tiny_gpt_neox(), *find_gguf_file_type("Q4_K_M"));
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(dtype_of(*q, "blk.0.attn_qkv.weight"), "q4_K");
  EXPECT_EQ(dtype_of(*q, "blk.1.attn_qkv.weight"), "q6_K");
  // Q3_K_M: attn_v's i < 2 gives Q5_K to both (the own rule: Q4_K).
  Result<Model> q3 = quantized_gguf_model(tiny_gpt_neox(), *find_gguf_file_type("Q3_K_M"));
  ASSERT_TRUE(q3.ok()) << q3.error().message();
  EXPECT_EQ(dtype_of(*q3, "blk.1.attn_qkv.weight"), "q5_K");
}

TEST(QuantizePlan, AnImportanceMatrixChangesTheFfnDownLifts) {
  // Qwen3-0.6B, 28 blocks: n_layer / 8 = 3 ffn_down tensors (blocks 0-2).
  Model m = config_only("qwen3/Qwen3-0.6B");
  QuantizeRules with_matrix;
  with_matrix.imatrix = true;
  // IQ4_XS (GQA 16 / 8 = 2 < 4: attn_v keeps IQ4_XS): without a matrix
  // the first 3 ffn_down are Q5_K; with one none is.
  Result<Model> plain = quantized_gguf_model(m, *find_gguf_file_type("IQ4_XS"));
  Result<Model> imat = quantized_gguf_model(m, *find_gguf_file_type("IQ4_XS"), nullptr, with_matrix);
  ASSERT_TRUE(plain.ok() && imat.ok());
  EXPECT_EQ(dtype_of(*plain, "blk.2.ffn_down.weight"), "q5_K");
  EXPECT_EQ(dtype_of(*plain, "blk.3.ffn_down.weight"), "iq4_xs");
  EXPECT_EQ(dtype_of(*imat, "blk.2.ffn_down.weight"), "iq4_xs");
  // Q4_0 with a matrix: the first 3 ffn_down Q4_1 ("guard against
  // craziness"), the rest Q4_0; the tied token_embd Q6_K as ever.
  // Counts: f32 113; q4_1 3; q6_K 1; q4_0 7 x 28 - 3 = 193.
  Result<Model> q40 = quantized_gguf_model(m, *find_gguf_file_type("Q4_0"), nullptr, with_matrix);
  ASSERT_TRUE(q40.ok());
  EXPECT_EQ(type_counts(*q40),
            (std::map<std::string, int>{{"f32", 113}, {"q4_0", 193}, {"q4_1", 3}, {"q6_K", 1}}));
}

TEST(QuantizePlan, TheOlderKQuantFallbackIsIq4Nl) {
  Model m = config_only("qwen3/Qwen3-0.6B");
  m.spec.geometry.hidden = 896;  // 3.5 blocks of 256, 28 of 32
  // Q2_K: attn_q (row 896) is Q2_K's default, no whole 256-block: Q4_0
  // at 007dbbf, IQ4_NL in the releases before (the older
  // convert_incompatible_tensor switch).
  QuantizeRules older;
  older.k_fallback_iq4_nl = true;
  Result<Model> now = quantized_gguf_model(m, *find_gguf_file_type("Q2_K"));
  Result<Model> then = quantized_gguf_model(m, *find_gguf_file_type("Q2_K"), nullptr, older);
  ASSERT_TRUE(now.ok() && then.ok());
  EXPECT_EQ(dtype_of(*now, "blk.0.attn_q.weight"), "q4_0");
  EXPECT_EQ(dtype_of(*then, "blk.0.attn_q.weight"), "iq4_nl");
  // attn_v is Q3_K under Q2_K at GQA 16 / 8 = 2 (< 4), row 896: Q3_K
  // falls back as Q2_K does.
  EXPECT_EQ(dtype_of(*then, "blk.0.attn_v.weight"), "iq4_nl");
}

// Qwen3-0.6B (above: 28 blocks, GQA 16 / 8 = 2, dense, tied; 113 F32
// tensors, 1 + 7 x 28 = 197 matrices) under the importance-matrix mixes,
// rule by rule from llama_tensor_get_type_impl (src/llama-quant.cpp).
Model quantized_with_matrix(std::string_view file_type) {
  const GgufFileType* type = find_rebuilt_file_type(file_type);
  EXPECT_NE(type, nullptr) << file_type;
  EXPECT_EQ(find_gguf_file_type(file_type), nullptr) << file_type;  // not offered to --quant
  if (type == nullptr) return Model{};
  EXPECT_TRUE(needs_importance_matrix(*type));
  Result<Model> m = quantized_gguf_model(config_only("qwen3/Qwen3-0.6B"), *type);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message());
  return m.ok() ? *m : Model{};
}

TEST(QuantizePlan, Iq3XxsWithItsMatrix) {
  const Model m = quantized_with_matrix("IQ3_XXS");
  // The tied token_embd takes the output's Q5_K (rows of 1,024: whole
  // blocks); attn_v IQ3_XXS (GQA < 4, a matrix); attn_k and attn_q IQ2_S;
  // attn_output IQ3_S; ffn_down (no lift with a matrix), ffn_gate, ffn_up
  // IQ3_XXS. iq3_xxs 28 x 4 = 112, iq2_s 56, iq3_s 28.
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{
                                {"f32", 113}, {"iq2_s", 56}, {"iq3_s", 28}, {"iq3_xxs", 112}, {"q5_K", 1}}));
  // Bytes: token_embd 607,744 Q5_K blocks x 176 = 106,962,944; a block's
  // IQ3_XXS (v, down, gate, up: 10,485,760 elements) 40,960 x 98 =
  // 4,014,080, IQ2_S (q, k) 12,288 x 82 = 1,007,616, IQ3_S (output)
  // 8,192 x 110 = 901,120: 5,922,816 x 28 = 165,838,848; + 262,144 F32.
  EXPECT_EQ(m.weights.bytes, 273'063'936u);
}

TEST(QuantizePlan, Iq3XsLowersTheMiddleBlocksGateAndUp) {
  const Model m = quantized_with_matrix("IQ3_XS");
  // The default IQ3_S; the tied token_embd Q6_K (IQ3_XS is not among the
  // Q5_K outputs); attn_k and attn_q IQ3_XXS; ffn_gate and ffn_up IQ3_XXS
  // for 28/8 = 3 <= i < 7 x 28 / 8 = 24: 21 blocks, 42 tensors.
  // iq3_xxs 28 + 28 + 42 = 98; iq3_s v, output, down 84 + 14 = 98.
  EXPECT_EQ(type_counts(m),
            (std::map<std::string, int>{{"f32", 113}, {"iq3_s", 98}, {"iq3_xxs", 98}, {"q6_K", 1}}));
  EXPECT_EQ(dtype_of(m, "blk.2.ffn_up.weight"), "iq3_s");
  EXPECT_EQ(dtype_of(m, "blk.3.ffn_gate.weight"), "iq3_xxs");
  EXPECT_EQ(dtype_of(m, "blk.23.ffn_up.weight"), "iq3_xxs");
  EXPECT_EQ(dtype_of(m, "blk.24.ffn_up.weight"), "iq3_s");
}

TEST(QuantizePlan, TwoAndOneBitMixesWithTheirMatrix) {
  // IQ2_XXS: output rule Q5_K; attn_v Q2_K (GQA < 4, no experts); the
  // first 28 / 8 = 3 ffn_down Q2_K; the rest IQ2_XXS: 196 - 31 = 165.
  EXPECT_EQ(type_counts(quantized_with_matrix("IQ2_XXS")),
            (std::map<std::string, int>{{"f32", 113}, {"iq2_xxs", 165}, {"q2_K", 31}, {"q5_K", 1}}));
  // IQ1_S: the same, and attn_output IQ2_XXS: 165 - 28 = 137 IQ1_S.
  EXPECT_EQ(type_counts(quantized_with_matrix("IQ1_S")),
            (std::map<std::string, int>{
                {"f32", 113}, {"iq1_s", 137}, {"iq2_xxs", 28}, {"q2_K", 31}, {"q5_K", 1}}));
  // IQ2_S (default IQ2_XS): attn_v, the first 3 ffn_down and attn_output
  // IQ3_S: 28 + 3 + 28 = 59; IQ2_XS 196 - 59 = 137.
  EXPECT_EQ(type_counts(quantized_with_matrix("IQ2_S")),
            (std::map<std::string, int>{{"f32", 113}, {"iq2_xs", 137}, {"iq3_s", 59}, {"q5_K", 1}}));
  // Q2_K_S: output Q6_K; attn_v Q2_K (GQA < 4); the first 3 ffn_down
  // Q4_K; attn_output Q2_K (only Q2_K lifts it): q2_K 196 - 3 = 193.
  EXPECT_EQ(type_counts(quantized_with_matrix("Q2_K_S")),
            (std::map<std::string, int>{{"f32", 113}, {"q2_K", 193}, {"q4_K", 3}, {"q6_K", 1}}));
}

// OpenLLaMA 3B v2's geometry (ggml-org/ci's open_llama_3b_v2 runs):
// hidden 3,200 (12.5 blocks of 256, 50 of 64), 32 heads of 100, 8,640
// intermediate, 32,000 vocabulary, 26 blocks, untied.
Model open_llama_3b() {
  Model m;
  m.spec.model_type = "llama";
  m.spec.geometry.hidden = 3200;
  m.spec.geometry.heads = 32;
  m.spec.geometry.kv_heads = 32;
  m.spec.geometry.head_dim = 100;
  m.spec.geometry.intermediate = 8640;
  m.spec.geometry.vocab = 32000;
  m.spec.layers.assign(26, LayerCache{LayerKind::kFullAttention, 2 * 32 * 100});
  m.spec.tied_embeddings = false;
  return m;
}

TEST(QuantizePlan, AQkK64BuildKeepsA3200WideOutputAtQ6_K) {
  // QK_K = 256: output's row of 3,200 is no whole Q6_K block: Q8_0.
  Result<Model> q = quantized_gguf_model(open_llama_3b(), *find_gguf_file_type("Q4_0"));
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(dtype_of(*q, "output.weight"), "q8_0");
  // QK_K = 64 (LLAMA_QKK_64): 50 blocks of 54 B a row: Q6_K.
  QuantizeRules qkk64;
  qkk64.qk_k_64 = true;
  q = quantized_gguf_model(open_llama_3b(), *find_gguf_file_type("Q4_0"), nullptr, qkk64);
  ASSERT_TRUE(q.ok()) << q.error().message();
  EXPECT_EQ(dtype_of(*q, "output.weight"), "q6_K");
  EXPECT_EQ(type_counts(*q), (std::map<std::string, int>{{"f32", 53}, {"q4_0", 183}, {"q6_K", 1}}));
  // token_embd 102,400,000 elements / 32 x 18 = 57,600,000; output
  // 102,400,000 / 64 x 54 = 86,400,000; a block's matrices 4 x 10,240,000
  // + 3 x 27,648,000 = 123,904,000 / 32 x 18 = 69,696,000, x 26 =
  // 1,812,096,000; F32 (1 + 2 x 26) x 3,200 x 4 = 678,400. The sum,
  // 1,956,774,400 B, is ggml-org/ci b2308's "1.82 GiB" file
  // (llamacpp-ci2308-openllama3b-q4_0-x86-cpu.log, CPU buffer 1866.13 MiB).
  EXPECT_EQ(q->weights.bytes, 1'956'774'400u);
  // The other K types' 64-element layouts are not priced.
  const std::vector<uint64_t> ne = {3200, 3200};
  EXPECT_FALSE(quantized_tensor_bytes(GgmlType::kQ4_K, ne, qkk64).ok());
}

// gpt-oss-20b (its config.json): hidden 2,880, 64 heads and 8 KV heads of
// 64, 32 experts of 2,880, vocabulary 201,088, 24 blocks, untied.
TEST(QuantizePlan, GptOssKeepsItsMxfp4ExpertsUnderAFloatFileType) {
  const Model m = quantized("gpt_oss/gpt-oss-20b", "F16");
  // 24 blocks of 19 + output, output_norm, token_embd = 459: F16 the 4
  // attention matrices a block + token_embd and output (98); MXFP4 the 3
  // expert tensors a block (72); F32 the rest (289): 5 biases of
  // attention, sinks, 2 norms, the router and its bias, 3 expert biases a
  // block + output_norm. The log's `- type` lines for the F16 file
  // (llamacpp-ghghang2-gpt-oss-20b-f16-t4.log).
  EXPECT_EQ(m.tensors.size(), 459u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 98}, {"f32", 289}, {"mxfp4", 72}}));
  EXPECT_EQ(dtype_of(m, "blk.0.ffn_down_exps.bias"), "f32");
  EXPECT_EQ(dtype_of(m, "blk.23.ffn_up_exps.weight"), "mxfp4");
  EXPECT_EQ(dtype_of(m, "blk.0.attn_sinks.weight"), "f32");
  // A block: F16 q and o 2,880 x 4,096 x 2 B = 23,592,960 each, k and v
  // 2,880 x 512 x 2 B = 2,949,120 each (53,084,160); MXFP4 3 x 2,880 x
  // 2,880 x 32 / 32 x 17 B = 423,014,400; F32 biases q 16,384, k and v
  // 2,048 each, o 11,520, sinks 256, norms 2 x 11,520, router 368,640 and
  // its bias 128, expert biases 3 x 368,640 (1,529,984). 477,628,544 x 24
  // = 11,463,085,056; token_embd and output 2 x 1,158,266,880, output_norm
  // 11,520: 13,779,630,336 B, the log's "file size = 12.83 GiB".
  EXPECT_EQ(m.weights.bytes, 13779630336u);
}

TEST(QuantizePlan, Iq2MTypesAsLlamaQuantizesTwoBitMixes) {
  // IQ2_M needs an importance matrix (not offered to --quant) but its
  // per-tensor types read none: rebuilt from a dump only.
  EXPECT_EQ(find_gguf_file_type("IQ2_M"), nullptr);
  ASSERT_NE(find_rebuilt_file_type("iq2_m"), nullptr);
  EXPECT_EQ(find_rebuilt_file_type("IQ2_M")->default_type, GgmlType::kIQ2_S);
  Result<Model> m =
      quantized_gguf_model(config_only("qwen3/Qwen3-0.6B"), *find_rebuilt_file_type("IQ2_M"));
  ASSERT_TRUE(m.ok()) << m.error().message();
  // Qwen3-0.6B: 28 blocks, GQA 16 / 8 = 2, dense, tied. The tied
  // token_embd Q5_K (row 1,024, whole 256-blocks); the 28 attn_v IQ3_S
  // (GQA under 4, no experts); the first 28 / 8 = 3 ffn_down (blocks 0, 1,
  // 2) IQ3_S; the 28 attn_output IQ3_S: 59 IQ3_S; the other 196 - 59 =
  // 137 block matrices IQ2_S; 113 F32 (4 norms a block + output_norm).
  EXPECT_EQ(type_counts(*m), (std::map<std::string, int>{
                                 {"f32", 113}, {"iq2_s", 137}, {"iq3_s", 59}, {"q5_K", 1}}));
  EXPECT_EQ(dtype_of(*m, "blk.2.ffn_down.weight"), "iq3_s");
  EXPECT_EQ(dtype_of(*m, "blk.3.ffn_down.weight"), "iq2_s");
  EXPECT_EQ(dtype_of(*m, "blk.27.attn_v.weight"), "iq3_s");
  EXPECT_EQ(dtype_of(*m, "blk.0.attn_q.weight"), "iq2_s");
  EXPECT_EQ(dtype_of(*m, "token_embd.weight"), "q5_K");
}

// Qwen3.5-35B-A3B's text config (its config.json's text_config, without
// the multi-token-prediction layer the converter leaves out): 40 blocks,
// every 4th full attention (16 heads and 2 KV heads of 256), the others a
// gated delta net; 256 experts of 512 and a shared expert of 512; hidden
// 2,048; untied. Its delta nets: 16 key heads and 32 value heads of 128,
// kernel 4 (what a dump's ssm.* keys give).
Model qwen35_moe_text() {
  nlohmann::json config = nlohmann::json::parse(
      testing::read_test_data("corpus/qwen3_5/Qwen3.5-35B-A3B/config.json"))["text_config"];
  config.erase("mtp_num_hidden_layers");
  config["tie_word_embeddings"] = false;
  Result<ModelSpec> spec = parse_model_config(config.dump());
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  Model m = config_only("qwen3_5/Qwen3.5-35B-A3B");
  if (spec.ok()) m.spec = *spec;
  return m;
}

constexpr GatedDeltaWidths kQwen35Delta{16, 32, 128, 128, 4};

TEST(QuantizePlan, Qwen35MoeHybridBlocksAsLlamaCppLoadsThem) {
  // The config's linear_* fields are the spec's delta-net widths.
  EXPECT_EQ(qwen35_moe_text().spec.gated_delta, kQwen35Delta);
  Result<Model> m =
      quantized_gguf_model(qwen35_moe_text(), *find_gguf_file_type("Q8_0"), &kQwen35Delta);
  ASSERT_TRUE(m.ok()) << m.error().message();
  // 10 attention blocks of 16 (2 norms, Q/K/V/output, Q/K norms, 8 of the
  // experts) and 30 delta-net blocks of 19 (2 norms, attn_qkv, attn_gate,
  // ssm_conv1d, ssm_dt, ssm_a, ssm_beta, ssm_alpha, ssm_norm, ssm_out, 8 of
  // the experts) + 3 = 733; F32 per attention block 6 (norms, Q/K norms,
  // router, shared gate), per delta-net block 8 (+ conv1d, dt, a,
  // ssm_norm): 60 + 240 + output_norm = 301; the other 432 Q8_0: the dump
  // of the Q8_0 file (llamacpp-mrsnow-qwen35-35b-a3b-q8_0-4x-a6000.log).
  EXPECT_EQ(type_counts(*m), (std::map<std::string, int>{{"f32", 301}, {"q8_0", 432}}));
  for (const SafetensorsTensor& t : m->tensors) {
    // key_dim 16 x 128 = 2,048, value_dim 32 x 128 = 4,096: conv width
    // 2 x 2,048 + 4,096 = 8,192; attn_q 2 x 16 x 256 = 8,192 wide.
    if (t.name == "blk.0.attn_qkv.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{8192, 2048}));
    if (t.name == "blk.0.ssm_conv1d.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{8192, 4}));
    if (t.name == "blk.3.attn_q.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{8192, 2048}));
  }
  EXPECT_EQ(dtype_of(*m, "blk.0.ssm_conv1d.weight"), "f32");
  EXPECT_EQ(dtype_of(*m, "blk.0.ssm_a"), "f32");
  EXPECT_EQ(dtype_of(*m, "blk.3.attn_gate.weight"), "(none)");
  // The log's "file size = 34.36 GiB": 36,892,150,272 B (301 F32 tensors
  // and 432 Q8_0 at 34 B per 32 elements, summed tensor by tensor).
  EXPECT_EQ(m->weights.bytes, 36892150272u);
}

// Qwen3.5-27B's text config with the multi-token prediction block a
// dump's nextn_predict_layers key announces (spec.nextn_layers; a config's
// mtp_num_hidden_layers is informational only): 64 blocks of 5,120, every
// 4th full attention (24 heads and 4 KV heads of 256), FFN 17,408, delta
// nets of 16 key and 48 value heads of 128; untied. llama.cpp's qwen35
// loader (load_block_mtp) reads block 64 as a full-attention block with
// the NextN tensors (#20533's converter names): 16 attention blocks of 11
// and 48 delta-net blocks of 14 = 848, + token_embd, output, output_norm
// = 851 (the 27B dumps'), + the MTP block's 11 + eh_proj, enorm, hnorm,
// shared_head_norm = 866, the Qwen3.6-27B-MTP dump's. F32: 16 x 4 + 48 x
// 6 + output_norm = 353, + the MTP block's 4 norms and 3 NextN norms =
// 360; the other 506 Q8_0. The MTP block's matrices: attn_q 5,120 x
// 12,288 (2 x 24 x 256) = 62,914,560, attn_k and attn_v 2 x 5,120 x 1,024
// = 10,485,760, attn_output 6,144 x 5,120 = 31,457,280, the FFN 3 x 5,120
// x 17,408 = 267,386,880, eh_proj 10,240 x 5,120 = 52,428,800:
// 424,673,280 x 34 / 32 = 451,215,360 B; its norms 2 x 5,120 + 2 x 256 +
// 3 x 5,120 = 26,112 x 4 = 104,448 B: 451,319,808 B.
TEST(QuantizePlan, Qwen35MtpBlockAsLlamaCppLoadsIt) {
  nlohmann::json config = nlohmann::json::parse(
      testing::read_test_data("corpus/qwen3_5/Qwen3.5-27B/config.json"))["text_config"];
  config["tie_word_embeddings"] = false;
  Result<ModelSpec> spec = parse_model_config(config.dump());
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  Model model = config_only("qwen3_5/Qwen3.5-27B");
  model.spec = *spec;
  model.spec.nextn_layers = 1;
  const GatedDeltaWidths widths{16, 48, 128, 128, 4};
  EXPECT_EQ(model.spec.gated_delta, widths);
  Result<Model> m = quantized_gguf_model(model, *find_gguf_file_type("Q8_0"), &widths);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(type_counts(*m), (std::map<std::string, int>{{"f32", 360}, {"q8_0", 506}}));
  uint64_t mtp_bytes = 0;
  for (const SafetensorsTensor& t : m->tensors) {
    if (t.name.starts_with("blk.64.")) mtp_bytes += t.data_bytes;
    if (t.name == "blk.64.nextn.eh_proj.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{5120, 10240}));
  }
  EXPECT_EQ(mtp_bytes, 451319808u);
  EXPECT_EQ(dtype_of(*m, "blk.64.attn_q.weight"), "q8_0");
  EXPECT_EQ(dtype_of(*m, "blk.64.nextn.shared_head_norm.weight"), "f32");
  EXPECT_EQ(dtype_of(*m, "blk.64.ssm_out.weight"), "(none)");
}

// The Hugging Face checkpoint as it ships (model_type qwen3_5_moe, the
// multimodal wrapper: its text_config is the language model, the vision
// tower goes to the converter's mmproj file), config only: the spec carries
// the delta nets' widths, so --quant builds the same 733 tensors as the
// Q8_0 dump's, 36,892,150,272 B (the published "34.36 GiB").
TEST(QuantizePlan, Qwen35MoeConfigOnlyPricesTheTextGguf) {
  const Model config = config_only("qwen3_5/Qwen3.5-35B-A3B");
  EXPECT_TRUE(config.spec.multimodal);
  EXPECT_EQ(config.spec.gated_delta, kQwen35Delta);
  const Model m = quantized("qwen3_5/Qwen3.5-35B-A3B", "Q8_0");
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 301}, {"q8_0", 432}}));
  EXPECT_EQ(m.weights.bytes, 36892150272u);
}

// Qwen3-Next-80B-A3B (config only; Qwen/Qwen3-Next-80B-A3B-Thinking's
// config, the Instruct model's geometry): 48 blocks, every 4th full
// attention (16 heads and 2 KV heads of 256, attn_q 2 x 16 x 256 = 8,192
// wide), the other 36 gated delta nets of 16 key and 32 value heads of 128
// (key_dim 2,048, value_dim 4,096), kernel 4; 512 experts of 512 and a
// shared expert of 512 in every block; hidden 2,048; vocabulary 151,936;
// untied.
Model qwen3_next() {
  Result<ModelSpec> spec = parse_model_config(testing::read_test_data(
      "logs/llamacpp/llamacpp-2595-therock-qwen3-next-80b-gfx1151.config.json"));
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  Model m = config_only("qwen3/Qwen3-0.6B");
  if (spec.ok()) m.spec = *spec;
  return m;
}

// llama.cpp's qwen3next load_arch_tensors: a delta-net block holds
// attn_qkv (hidden -> 2 x 2,048 + 4,096 = 8,192), attn_gate (-> 4,096),
// ssm_conv1d (4 x 8,192, F32), ssm_dt.bias and ssm_a (32, F32),
// ssm_beta_alpha (hidden -> 2 x 32 = 64: one matrix, unlike Qwen3.5),
// ssm_norm (128, F32) and ssm_out (4,096 -> hidden).
// Tensors: 12 attention blocks of 16 (2 norms, Q/K/V/output, Q/K norms,
// router, 3 expert tensors, shared gate, 3 shared-expert matrices) and 36
// delta-net blocks of 18 (2 norms, the 8 above, the 8 of the experts) + 3
// = 843. F32: 12 x 6 (norms, Q/K norms, router, shared gate) + 36 x 8
// (norms, conv1d, dt, a, ssm_norm, router, shared gate) + output_norm =
// 361. Q4_K_M: output Q6_K; ffn_down_exps and _shexp Q6_K at
// use_more_bits of the block (i < 6, i >= 42, (i - 6) % 3 == 2: 6 + 6 + 12
// = 24 blocks): 48; the pinned release's fused attn_qkv takes attn_v's rule
// (llama-quant.cpp at 007dbbf), so the 36 attn_qkv and 12 attn_v are the 48
// attn_v-like tensors, i the block: Q6_K at use_more_bits(i, 48), the same
// 24 blocks, of them the attention blocks 3, 11, 23, 35, 43 and 47: 18
// attn_qkv and 6 attn_v; the other 24 Q4_K. q6_K 1 + 48 + 24 = 73, q4_K
// 409.
// lmstudio-community's Q4_K_M (lmstudio-ai/lmstudio-bug-tracker#1266)
// is a legacy conversion: ssm_in (2 x 2,048 + 2 x 4,096 wide, Q4_K) in
// place of attn_qkv and attn_gate, and its shared gate F16: 807 tensors,
// f32 313, f16 48, q4_K 391, q6_K 55 (its attn_v: 6, as of n = 12), "45.08
// GiB" (by hand: 48,405,005,312 B). Split, with attn_qkv at Q5_K (the
// older fused-QKV rule) it would be 48,481,240,064 B: attn_qkv's 36 x
// 2,048 x 8,192 elements at Q5_K's 176 B per 256 in place of Q4_K's 144:
// + 75,497,472 B; the gate's 48 x 2,048 F32 in place of F16: + 196,608 B;
// two more attn_v (2,048 x 512) at Q6_K's 210 B per 256: + 540,672 B. With
// attn_v's rule: 18 attn_qkv at Q6_K (+ 18 x 65,536 blocks x 34 B =
// 40,108,032) and 18 at Q4_K (- 18 x 65,536 x 32 = 37,748,736), and two
// attn_v fewer at Q6_K (- 540,672): 48,483,058,688 B ("45.15 GiB").
TEST(QuantizePlan, Qwen3NextHybridBlocksAsLlamaCppLoadsThem) {
  const Model config = qwen3_next();
  EXPECT_EQ(config.spec.gated_delta, (GatedDeltaWidths{16, 32, 128, 128, 4}));
  Result<Model> m = quantized_gguf_model(config, *find_gguf_file_type("Q4_K_M"));
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->tensors.size(), 843u);
  EXPECT_EQ(type_counts(*m),
            (std::map<std::string, int>{{"f32", 361}, {"q4_K", 409}, {"q6_K", 73}}));
  for (const SafetensorsTensor& t : m->tensors) {
    if (t.name == "blk.0.attn_qkv.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{8192, 2048}));
    if (t.name == "blk.0.attn_gate.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{4096, 2048}));
    if (t.name == "blk.0.ssm_beta_alpha.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{64, 2048}));
    if (t.name == "blk.3.attn_q.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{8192, 2048}));
  }
  EXPECT_EQ(dtype_of(*m, "blk.0.ssm_beta.weight"), "(none)");
  EXPECT_EQ(dtype_of(*m, "blk.0.ffn_gate_inp_shexp.weight"), "f32");
  EXPECT_EQ(dtype_of(*m, "blk.0.attn_qkv.weight"), "q6_K");  // i = 0
  EXPECT_EQ(dtype_of(*m, "blk.6.attn_qkv.weight"), "q4_K");  // i = 6
  EXPECT_EQ(dtype_of(*m, "blk.3.attn_v.weight"), "q6_K");    // i = 3
  EXPECT_EQ(dtype_of(*m, "blk.39.attn_v.weight"), "q4_K");   // (39 - 6) % 3 == 0
  EXPECT_EQ(m->weights.bytes, 48483058688u);
}

// A gated delta net config that leaves a width out keeps no widths, and
// --quant refuses it rather than building tensors of zero width.
TEST(QuantizePlan, AHybridWithoutDeltaWidthsIsRefused) {
  Model m = qwen3_next();
  m.spec.gated_delta.value_dim = 0;
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type("Q4_K_M"));
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().kind(), ErrorKind::kUsage);
}

// Mamba-Codestral-7B (config only, model_type mamba2): 64 Mamba-2 blocks,
// hidden 4,096, 128 heads of 64 (inner 8,192), 8 groups of state 128,
// kernel 4, vocabulary 32,768, untied. llama_model_mamba2's tensors: conv
// width 8,192 + 2 x 8 x 128 = 10,240; ssm_in 4,096 x (8,192 + 10,240 + 128
// = 18,560); ssm_out 8,192 x 4,096; ssm_norm 1,024 x 8. 9 a block x 64 + 3
// = 579; F32 7 a block (attn_norm, ssm_a, ssm_d, ssm_dt.bias, ssm_conv1d
// and its bias, ssm_norm) x 64 + output_norm = 449; Q8_0 the 128 ssm_in and
// ssm_out, token_embd and output. Bytes: ssm_in 76,021,760 elements / 32 x
// 34 = 80,773,120, ssm_out 33,554,432 -> 35,651,584: x 64 =
// 7,451,181,056; token_embd and output 134,217,728 -> 142,606,336 each;
// F32 (4,096 + 128 + 128 + 128 + 40,960 + 10,240 + 8,192 = 63,872 floats)
// x 4 x 64 = 16,351,232 + output_norm 16,384: 7,752,761,344 B.
TEST(QuantizePlan, Mamba2BlocksAsLlamaCppLoadsThem) {
  const Model m = quantized("mamba2/Mamba-Codestral-7B-hfconv", "Q8_0");
  EXPECT_EQ(m.tensors.size(), 579u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 449}, {"q8_0", 130}}));
  for (const SafetensorsTensor& t : m.tensors) {
    if (t.name == "blk.0.ssm_in.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{18560, 4096}));
    if (t.name == "blk.0.ssm_conv1d.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{10240, 4}));
    if (t.name == "blk.0.ssm_norm.weight") EXPECT_EQ(t.shape, (std::vector<uint64_t>{8, 1024}));
    if (t.name == "blk.0.ssm_a") EXPECT_EQ(t.shape, (std::vector<uint64_t>{128, 1}));
  }
  EXPECT_EQ(dtype_of(m, "blk.0.ssm_d"), "f32");
  EXPECT_EQ(m.weights.bytes, 7752761344u);
}

// Widths whose rows would pass 64 bits (an untrusted config's) are refused,
// not wrapped into small tensors.
TEST(QuantizePlan, WidthsPastSixtyFourBitsAreRefused) {
  Model mamba = config_only("mamba2/Mamba-Codestral-7B-hfconv");
  mamba.spec.mamba2.inner = uint64_t{1} << 62;  // 2 x inner x hidden wraps
  EXPECT_FALSE(quantized_gguf_model(mamba, *find_gguf_file_type("Q8_0")).ok());
  Model next = qwen3_next();
  next.spec.gated_delta.value_dim = uint64_t{1} << 62;
  EXPECT_FALSE(quantized_gguf_model(next, *find_gguf_file_type("Q8_0")).ok());
}

TEST(QuantizePlan, Iq2MOfAManyExpertHybrid) {
  // The release that wrote the corpus file typed attn_qkv by its own rule
  // (the 2-bit mixes: the default IQ2_S).
  QuantizeRules older;
  older.qkv_own_rule = true;
  Result<Model> m = quantized_gguf_model(qwen35_moe_text(), *find_rebuilt_file_type("IQ2_M"),
                                         &kQwen35Delta, older);
  ASSERT_TRUE(m.ok()) << m.error().message();
  // 256 experts (>= 4): the 10 attn_v Q4_K; output Q5_K; untied
  // token_embd IQ3_S; the first 40 / 8 = 5 ffn_down tensors in order
  // (blk.0 routed and shared, blk.1 both, blk.2 routed) IQ3_S; the 10
  // attn_output IQ3_S (not an 8-expert model): 16 IQ3_S; the other 405
  // quantized tensors IQ2_S: the dump of an IQ2_M file
  // (llamacpp-lota09-qwen35-35b-a3b-iq2m-rtx4060ti.log).
  EXPECT_EQ(type_counts(*m), (std::map<std::string, int>{{"f32", 301},
                                                        {"iq2_s", 405},
                                                        {"iq3_s", 16},
                                                        {"q4_K", 10},
                                                        {"q5_K", 1}}));
  EXPECT_EQ(dtype_of(*m, "blk.2.ffn_down_exps.weight"), "iq3_s");
  EXPECT_EQ(dtype_of(*m, "blk.2.ffn_down_shexp.weight"), "iq2_s");
  EXPECT_EQ(dtype_of(*m, "blk.3.attn_v.weight"), "q4_K");
  EXPECT_EQ(dtype_of(*m, "blk.0.attn_qkv.weight"), "iq2_s");
  EXPECT_EQ(dtype_of(*m, "output.weight"), "q5_K");
  EXPECT_EQ(dtype_of(*m, "token_embd.weight"), "iq3_s");
  // The pinned release: the 30 gated delta nets' attn_qkv are attn_v-like,
  // Q4_K with 256 experts: q4_K 10 + 30 = 40, iq2_s 405 - 30 = 375.
  Result<Model> now =
      quantized_gguf_model(qwen35_moe_text(), *find_rebuilt_file_type("IQ2_M"), &kQwen35Delta);
  ASSERT_TRUE(now.ok()) << now.error().message();
  EXPECT_EQ(type_counts(*now), (std::map<std::string, int>{{"f32", 301},
                                                          {"iq2_s", 375},
                                                          {"iq3_s", 16},
                                                          {"q4_K", 40},
                                                          {"q5_K", 1}}));
  EXPECT_EQ(dtype_of(*now, "blk.0.attn_qkv.weight"), "q4_K");
}

// DeepSeek-V3 converts from its config since ModelSpec::mla; Mamba-1 does
// not.
TEST(QuantizePlan, OtherArchitecturesAreRefusedNamingTheOnesBuilt) {
  Result<Model> q = quantized_gguf_model(config_only("mamba/mamba-2.8b-hf-finetune"),
                                         *find_gguf_file_type("Q4_K_M"));
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(q.error().message().find("model_type llama, mistral, qwen2"), std::string::npos)
      << q.error().message();
}

TEST(QuantizePlan, AGgufModelKeepsItsOwnFileType) {
  EstimateRequest r;
  r.quant = "Q4_K_M";
  PreparedRequest p;
  p.model = std::make_shared<const Model>(
      testing::corpus_model("qwen3/Qwen3-0.6B", 1, WeightsSource::kGgufHeader));
  Status s = apply_gguf_file_type(r, p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("is this GGUF's own file type"), std::string::npos);
  r.quant = "int4";
  p.model = std::make_shared<const Model>(config_only("qwen3/Qwen3-0.6B"));
  s = apply_gguf_file_type(r, p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("is not a GGUF file type memfit prices under llamacpp; one "
                                     "of: F32, F16, BF16, Q8_0"),
            std::string::npos)
      << s.error().message();
  r.quant = "Q8_0";
  ASSERT_TRUE(apply_gguf_file_type(r, p).ok());
  EXPECT_EQ(p.model->weights.bytes, 633495552u);  // as above
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].text.find("weights priced as the Q8_0 GGUF llama-quantize would write"),
            std::string::npos);
}

}  // namespace
}  // namespace memfit::llamacpp
