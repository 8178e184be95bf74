// Config-only parameter counts (model/config/analytical_params.h) per layer
// type, worked by hand from transformers' modules and checked against the
// real checkpoints' totals.
#include "model/config/analytical_params.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memfit/model.h"
#include "support/corpus.h"

namespace memfit {
namespace {

ModelSpec parse_ok(std::string_view json) {
  Result<ModelSpec> spec = parse_model_config(json);
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(AnalyticalParams, Lfm2ShortConvolutionBlocksAreNotMlps) {
  // LFM2-700M (transformers' modeling_lfm2.py), hidden h = 1536, 16 layers,
  // attention on layers 2, 5, 8, 10, 12 and 14, short convolutions on the
  // other 10:
  //   conv block (Lfm2ShortConv): in_proj 3h x h + depthwise conv h x 3 +
  //     out_proj h x h = 7,077,888 + 4,608 + 2,359,296 = 9,441,792
  //   attention: q 1536 x 1536, k and v 512 x 1536, out 1536 x 1536
  //     = 6,291,456, + q and k norms 2 x 64 = 6,291,584
  //   MLP (Lfm2MLP): block_ff_dim 10240 -> 2 x 10240 / 3 = 6826 -> x 1.0,
  //     up to a multiple of 256 = 6912; w1, w3, w2 = 3 x 1536 x 6912
  //     = 31,850,496 (the GGUF conversion's feed_forward_length is 6912)
  //   norms 2 x 1536 a layer; embeddings 65,536 x 1536 = 100,663,296, tied;
  //     the final norm 1536
  // 10 x 9,441,792 + 6 x 6,291,584 + 16 x (31,850,496 + 3,072)
  //   + 100,663,296 + 1,536 = 742,489,344: the model card's "742M"; before,
  //   the conv blocks were priced as 2 x 6144 x 1536 + 1536 x 6144 and the MLPs
  //   at 4h = 6144: 874,563,072, 18 % high.
  const ModelSpec spec = testing::corpus_spec("lfm2/LFM2-700M");
  EXPECT_EQ(spec.geometry.intermediate, 6912u);
  EXPECT_EQ(spec.analytical_params, 742'489'344u);
  EXPECT_EQ(spec.analytical_weights.bytes, 2 * 742'489'344u);  // bf16
}

TEST(AnalyticalParams, Gemma3TextLayersKeepFourNormsAndQueryKeyNorms) {
  // gemma-3-1b-it: h 1152, 26 layers, 4 heads and 1 KV head of 256, MLP
  // 6912, vocabulary 262,144, tied. A layer: q 1024 x 1152 + k, v 256 x 1152
  // + o 1152 x 1024 = 2,949,120; q_norm, k_norm 2 x 256; MLP 3 x 1152 x
  // 6912 = 23,887,872; input, post-attention, pre- and post-feedforward norms
  // 4 x 1152: 26,842,112. 26 x that + 262,144 x 1152 + 1152 = 999,885,952,
  // transformers' Gemma3ForCausalLM for this config.
  EXPECT_EQ(testing::corpus_spec("gemma3/gemma-3-1b-it").analytical_params, 999'885'952u);
}

TEST(AnalyticalParams, Qwen35GatedDeltaLayersAndGatedAttention) {
  // Qwen3.5-27B's text model (transformers' Qwen3_5 modules): hidden 5,120,
  // 64 layers, every 4th full attention (16), the other 48 gated delta
  // nets; MLP 17,408; vocabulary 248,320, untied (the top-level
  // tie_word_embeddings false).
  //   gated delta net: kd = 16 x 128 = 2,048, vd = 48 x 128 = 6,144;
  //     in_proj_qkvz (2 x 2,048 + 2 x 6,144) x 5,120 = 83,886,080,
  //     in_proj_ba 96 x 5,120 = 491,520, conv1d 10,240 x 4 = 40,960,
  //     dt_bias + A_log + norm 48 + 48 + 128 = 224, out_proj 5,120 x 6,144
  //     = 31,457,280: 115,876,064 (48 layers: 5,562,051,072)
  //   gated attention: q_proj 24 x 256 x 2 x 5,120 = 62,914,560 (query and
  //     output gate), k and v 2 x 1,024 x 5,120 = 10,485,760, o 31,457,280:
  //     104,857,600 (16 layers: 1,677,721,600)
  //   MLP 3 x 5,120 x 17,408 = 267,386,880 and two norms 10,240, 64 layers:
  //     17,113,415,680
  //   embeddings and lm_head 2 x 248,320 x 5,120 = 2,542,796,800; norm 5,120
  // 26,895,990,272, + the vision tower (Qwen3VLVision..., o = 5,120:
  // Qwen35VisionTowerOfTheQwen3VlKind below, with the merger's linear_fc2
  // 5,120 x 4,608 + 5,120, 460,730,096) = 27,356,720,368 ("27B"; the MTP
  // block not counted: vLLM skips its "mtp." weights).
  // Priced as Mamba mixers of 2 x 17,408 rows (the MLP's width) the delta
  // nets made it 33,665,192,960, an H100's worth of vLLM KV cache too much.
  EXPECT_EQ(testing::corpus_spec("qwen3_5/Qwen3.5-27B").analytical_params, 27'356'720'368u);
}

TEST(AnalyticalParams, Qwen35VisionTowerOfTheQwen3VlKind) {
  // Qwen3.5-35B-A3B's vision_config (transformers' Qwen3VLVisionModel; vLLM
  // loads it, qwen3_vl.py Qwen3_VisionTransformer): v 1,152, f 4,304, 27
  // blocks, 3 channels, patches 2 x 16 x 16, 2,304 positions, o 2,048,
  // merge 2 (vm 4,608), no deepstack mergers:
  //   patch_embed 1,152 x 3 x 2 x 16 x 16 + 1,152 = 1,770,624
  //   pos_embed 2,304 x 1,152 = 2,654,208
  //   a block: norms 4 x 1,152 = 4,608; qkv 3 x 1,152 x 1,152 + 3,456 =
  //     3,984,768; proj 1,152 x 1,152 + 1,152 = 1,328,256; fc1 4,304 x
  //     1,152 + 4,304 = 4,962,512; fc2 1,152 x 4,304 + 1,152 = 4,959,360:
  //     15,239,504; x 27 = 411,466,608
  //   merger: norm 2 x 1,152 = 2,304; fc1 4,608 x 4,608 + 4,608 =
  //     21,238,272; fc2 2,048 x 4,608 + 2,048 = 9,439,232: 30,679,808
  //   446,571,248 parameters, 893,142,496 B in bf16.
  // One deepstack merger (Qwen3-VL's kind) adds its norm over vm, 2 x 4,608,
  // and its two linears, 21,238,272 + 9,439,232: 30,686,720.
  const std::string text = R"("text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 64,
      "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 1,
      "num_hidden_layers": 1, "head_dim": 32, "vocab_size": 100})";
  const std::string vision = R"("vision_config": {"depth": 27, "hidden_size": 1152,
      "in_channels": 3, "intermediate_size": 4304, "num_heads": 16,
      "num_position_embeddings": 2304, "out_hidden_size": 2048, "patch_size": 16,
      "spatial_merge_size": 2, "temporal_patch_size": 2, "deepstack_visual_indexes": )";
  const ModelSpec without = parse_ok(R"({"model_type": "qwen3_5_moe", )" + text + "}");
  const ModelSpec with = parse_ok(R"({"model_type": "qwen3_5_moe", )" + text + ", " + vision + "[]}}");
  EXPECT_EQ(with.analytical_params - without.analytical_params, 446'571'248u);
  const ModelSpec deepstack =
      parse_ok(R"({"model_type": "qwen3_vl_moe", )" + text + ", " + vision + "[8]}}");
  EXPECT_EQ(deepstack.analytical_params - without.analytical_params, 446'571'248u + 30'686'720u);
}

TEST(AnalyticalParams, Gemma3MultimodalConfigCountsItsVisionTower) {
  // google/gemma-3-4b-it's config (the fields that shape weights).
  const ModelSpec spec = parse_ok(R"({
    "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
    "mm_tokens_per_image": 256, "torch_dtype": "bfloat16",
    "text_config": {"model_type": "gemma3_text", "hidden_size": 2560,
      "intermediate_size": 10240, "num_attention_heads": 8, "num_key_value_heads": 4,
      "num_hidden_layers": 34, "head_dim": 256, "vocab_size": 262208,
      "sliding_window": 1024, "query_pre_attn_scalar": 256},
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152,
      "intermediate_size": 4304, "num_attention_heads": 16, "num_hidden_layers": 27,
      "image_size": 896, "patch_size": 14, "vision_use_head": false}})");
  // Text: a layer is q 2048 x 2560 + k, v 1024 x 2560 + o 2560 x 2048
  // = 15,728,640, q/k norms 512, MLP 3 x 2560 x 10240 = 78,643,200, four
  // norms 10,240: 94,382,592; x 34 = 3,209,008,128; + embeddings 262,208 x
  // 2560 = 671,252,480 + the final norm 2560 = 3,880,263,168.
  // Vision (SigLIP, v 1152, f 4304, 27 layers, 64 x 64 patches of 14):
  //   patch embedding 1152 x 3 x 14 x 14 + 1152 = 678,528
  //   positions 4096 x 1152 = 4,718,592
  //   a layer: q, k, v, out 4 x (1152 x 1152 + 1152) = 5,313,024; fc1 4304 x
  //     1152 + 4304 = 4,962,512; fc2 1152 x 4304 + 1152 = 4,959,360; two
  //     layer norms with biases 4,608: 15,239,504; x 27 = 411,466,608
  //   post layernorm 2304
  //   projector 1152 x 2560 + the soft-embedding norm 1152 = 2,950,272
  //   -> 419,816,304
  // 3,880,263,168 + 419,816,304 = 4,300,079,472 parameters, x 2 bytes =
  // 8,600,158,944: the checkpoint index's metadata.total_size. Before, with
  // neither the tower nor the extra norms, 3,880,071,680 x 2: 10 % low.
  EXPECT_EQ(spec.analytical_params, 4'300'079'472u);
  EXPECT_EQ(spec.analytical_weights.bytes, 8'600'158'944u);
}

TEST(AnalyticalParams, Qwen25VlVisionTower) {
  // A tiny Qwen2.5-VL vision_config (transformers'
  // Qwen2_5_VisionTransformerPretrainedModel, vLLM's qwen2_5_vl.py
  // Qwen2_5_VisionTransformer): v 8, f 12, 2 blocks, 3 channels, patches 2 x
  // 2 x 2, o 16, merge 2 (vm 32):
  //   patch_embed 8 x 3 x 2 x 2 x 2 = 192 (no bias)
  //   a block: qkv 3 x 8 x 8 + 24 = 216; proj 8 x 8 + 8 = 72; gate, up 2 x
  //     (12 x 8 + 12) = 216; down 8 x 12 + 8 = 104; two RMSNorms 16: 624;
  //     x 2 = 1,248
  //   merger: ln_q 8; mlp.0 32 x 32 + 32 = 1,056; mlp.2 16 x 32 + 16 = 528:
  //     1,592
  //   3,032 parameters (window attention and the rotary table add none).
  const std::string text = R"("hidden_size": 64, "intermediate_size": 128,
      "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1,
      "vocab_size": 100)";
  const std::string tiny = R"("vision_config": {"depth": 2, "hidden_size": 8,
      "intermediate_size": 12, "num_heads": 2, "in_chans": 3, "out_hidden_size": 16,
      "patch_size": 2, "spatial_merge_size": 2, "temporal_patch_size": 2,
      "window_size": 112, "fullatt_block_indexes": [1]})";
  const ModelSpec without = parse_ok(R"({"model_type": "qwen2_5_vl", )" + text + "}");
  const ModelSpec with = parse_ok(R"({"model_type": "qwen2_5_vl", )" + text + ", " + tiny + "}");
  EXPECT_EQ(with.analytical_params - without.analytical_params, 3'032u);
  // Qwen2.5-VL-7B's (scb10x/typhoon-ocr-7b keeps it): v 1,280, f 3,420, 32
  // blocks, patches 2 x 14 x 14, o 3,584:
  //   patch_embed 1,280 x 1,176 = 1,505,280
  //   a block: qkv 4,915,200 + 3,840; proj 1,638,400 + 1,280; gate, up 2 x
  //     (4,377,600 + 3,420); down 4,377,600 + 1,280; norms 2,560:
  //     19,702,200; x 32 = 630,470,400
  //   merger: 1,280 + 5,120 x 5,120 + 5,120 + 3,584 x 5,120 + 3,584 =
  //     44,574,464
  //   676,550,144 parameters, 1,353,100,288 B in bf16.
  const std::string seven = R"("vision_config": {"depth": 32, "hidden_size": 1280,
      "intermediate_size": 3420, "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584,
      "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2})";
  EXPECT_EQ(parse_ok(R"({"model_type": "qwen2_5_vl", )" + text + ", " + seven + "}")
                    .analytical_params -
                without.analytical_params,
            676'550'144u);
  // Qwen2-VL's tower is another module (qwen2_vl.py): not counted.
  const ModelSpec qwen2_vl_without = parse_ok(R"({"model_type": "qwen2_vl", )" + text + "}");
  EXPECT_EQ(parse_ok(R"({"model_type": "qwen2_vl", )" + text + ", " + tiny + "}").analytical_params,
            qwen2_vl_without.analytical_params);
}

TEST(AnalyticalParams, Gemma4VisionTowerAndEmbedder) {
  // google/gemma-4-26B-A4B-it's vision_config (vllm-myoceane-gemma4's
  // config; transformers' Gemma4VisionModel, vLLM's gemma4_mm.py loads it):
  // v 1,152, f 4,304, 27 layers, 16 heads of 72 (16 KV heads), patches of
  // 16, a position table of 10,240, standardize true; a text width of 64:
  //   input_proj 1,152 x 3 x 16 x 16 = 884,736 (no bias)
  //   position table 2 x 10,240 x 1,152 = 23,592,960
  //   a layer: q, k, v, o 4 x 1,152 x 1,152 = 5,308,416; q/k norms 2 x 72 =
  //     144; gate, up, down 3 x 4,304 x 1,152 = 14,874,624; four norms
  //     4,608: 20,187,792; x 27 = 545,070,384
  //   std_bias, std_scale 2 x 1,152 = 2,304
  //   embed_vision 64 x 1,152 = 73,728
  //   569,624,112 (at the 26B's text width 2,816 the projection is
  //   3,244,032: 572,794,416, 1.15 GB in bf16)
  const std::string text = R"("text_config": {"model_type": "gemma4_text", "hidden_size": 64,
      "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 1,
      "num_hidden_layers": 1, "head_dim": 32, "vocab_size": 100})";
  const std::string vision = R"("vision_config": {"model_type": "gemma4_vision",
      "hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27,
      "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 72,
      "patch_size": 16, "position_embedding_size": 10240, "standardize": true})";
  const ModelSpec without = parse_ok(R"({"model_type": "gemma4", )" + text + "}");
  const ModelSpec with = parse_ok(R"({"model_type": "gemma4", )" + text + ", " + vision + "}");
  EXPECT_EQ(with.analytical_params - without.analytical_params, 569'624'112u);
  // Another vision model_type is not described: nothing is added.
  std::string other = vision;
  other.replace(other.find("gemma4_vision"), 13, "other_vision1");
  EXPECT_EQ(parse_ok(R"({"model_type": "gemma4", )" + text + ", " + other + "}").analytical_params,
            without.analytical_params);
}

// google/gemma-4-26B-A4B's text config (vllm-myoceane-gemma4's config,
// without its vision tower), 30 layers: five sliding, then one full, five
// times.
std::string gemma4_26b_text(std::string_view extra) {
  std::string types;
  for (int i = 0; i < 30; ++i) {
    types += i == 0 ? "" : ", ";
    types += i % 6 == 5 ? R"("full_attention")" : R"("sliding_attention")";
  }
  return R"({"model_type": "gemma4", "tie_word_embeddings": true, "text_config": {
      "model_type": "gemma4_text", "hidden_size": 2816, "intermediate_size": 2112,
      "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
      "global_head_dim": 512, "num_global_key_value_heads": 2, "attention_k_eq_v": true,
      "num_hidden_layers": 30, "vocab_size": 262144, "sliding_window": 1024,
      "max_position_embeddings": 262144, "num_experts": 128, "top_k_experts": 8,
      "moe_intermediate_size": 704, "layer_types": [)" +
         types + "]" + std::string(extra) + "}}";
}

TEST(AnalyticalParams, Gemma4LayersHoldTheMlpBesideTheExpertsAndWideGlobalHeads) {
  // transformers' Gemma4TextDecoderLayer, vLLM's models/gemma4.py
  // (Gemma4DecoderLayer): the dense MLP runs on every layer, the MoE block
  // beside it; the full layers have heads of global_head_dim 512 and 2 KV
  // heads, no v_proj (attention_k_eq_v). h = 2,816:
  //   embed_tokens 262,144 x 2,816 = 738,197,504 (tied)
  //   sliding layer: q 4,096 x h = 11,534,336; k, v 2,048 x h = 5,767,168
  //     each; o 11,534,336; q/k norms 2 x 256: 34,603,520
  //   full layer: q 8,192 x h = 23,068,672; k 1,024 x h = 2,883,584; o
  //     23,068,672; q/k norms 2 x 512: 49,021,952
  //   every layer: MLP 3 x 2,112 x h = 17,842,176; experts 128 x 3 x 704 x h
  //     = 761,266,176; router proj 128 x h = 360,448, its scale h and
  //     per_expert_scale 128 = 2,944; seven norms of h = 19,712;
  //     layer_scalar 1: 779,491,457
  //   final norm 2,816
  // 738,197,504 + 25 x 34,603,520 + 5 x 49,021,952 + 30 x 779,491,457 +
  // 2,816 = 25,233,141,790. Before: no MLP, every layer sliding-shaped,
  // two norms a layer: 24,625,258,240; before layer_scalar, 30 fewer.
  const ModelSpec spec = parse_ok(gemma4_26b_text(R"(, "enable_moe_block": true)"));
  EXPECT_EQ(spec.analytical_params, 25'233'141'790u);
  // Without the MoE block: each layer loses 761,266,176 + 360,448 + 2,944
  // + 3 x 2,816 = 761,638,016; 30 of them 22,849,140,480.
  const ModelSpec dense = parse_ok(gemma4_26b_text(""));
  EXPECT_EQ(spec.analytical_params - dense.analytical_params, 22'849'140'480u);
}

TEST(AnalyticalParams, Gemma4PerLayerInputsAddTheirEmbeddingAndProjections) {
  // hidden_size_per_layer_input p = 256 (E2B's and E4B's; transformers'
  // Gemma4TextModel, mlx-lm's gemma4_text.py), vocab_size_per_layer_input
  // 262,144, 30 layers, h = 2,816:
  //   embed_tokens_per_layer 262,144 x (30 x 256 = 7,680) = 2,013,265,920
  //   per_layer_model_projection 7,680 x 2,816 = 21,626,880
  //   per_layer_projection_norm 256
  //   per layer: per_layer_input_gate 256 x 2,816 = 720,896,
  //     per_layer_projection 720,896, post_per_layer_input_norm 2,816:
  //     1,444,608; 30 of them 43,338,240
  // 2,013,265,920 + 21,626,880 + 256 + 43,338,240 = 2,078,231,296.
  const ModelSpec plain = parse_ok(gemma4_26b_text(""));
  const ModelSpec per_layer = parse_ok(gemma4_26b_text(
      R"(, "hidden_size_per_layer_input": 256, "vocab_size_per_layer_input": 262144)"));
  EXPECT_EQ(per_layer.analytical_params - plain.analytical_params, 2'078'231'296u);
  // hidden_size_per_layer_input 0 (the 26B-A4B's and 31B's): nothing.
  EXPECT_EQ(parse_ok(gemma4_26b_text(R"(, "hidden_size_per_layer_input": 0)")).analytical_params,
            plain.analytical_params);
}

TEST(AnalyticalParams, AVisionConfigGemma3DoesNotDescribeIsLeftOut) {
  // Only a SigLIP tower is counted: another vision model_type adds nothing.
  const ModelSpec spec = parse_ok(R"({"model_type": "gemma3",
    "text_config": {"model_type": "gemma3_text", "hidden_size": 64, "intermediate_size": 128,
      "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1,
      "head_dim": 32, "vocab_size": 100},
    "vision_config": {"model_type": "other_vision", "hidden_size": 64, "patch_size": 2,
      "image_size": 8, "num_hidden_layers": 1, "intermediate_size": 128}})");
  // A layer: q 64 x 64 + k, v 32 x 64 + o 64 x 64 = 12,288; q/k norms 64;
  // MLP 3 x 64 x 128 = 24,576; 4 norms 256: 37,184; + 100 x 64 + 64 = 43,648.
  EXPECT_EQ(spec.analytical_params, 43'648u);
}

TEST(AnalyticalParams, SparseAttentionIndexerAndMlaDownProjectionsAreWholeOnEveryRank) {
  // A one-layer MLA config, hidden 64, q_lora_rank 32, kv_lora_rank 16,
  // rope 4. With index_topk (DeepSeek-V3.2, GLM-5), vLLM's Indexer adds
  // wq_b 4 heads x 16 x 32 = 2,048, wk 16 x 64 = 1,024, weights_proj
  // 4 x 64 = 256 and k_norm's weight and bias 2 x 16 = 32: 3,360, all
  // ReplicatedLinear. The MLA down-projections are replicated either way:
  // q_a_proj 32 x 64 = 2,048 and kv_a_proj_with_mqa (16 + 4) x 64 = 1,280.
  const std::string base =
      R"({"model_type": "deepseek_v32", "hidden_size": 64, "num_hidden_layers": 1,
          "num_attention_heads": 2, "num_key_value_heads": 2, "q_lora_rank": 32,
          "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8,
          "intermediate_size": 128, "vocab_size": 256, "tie_word_embeddings": false,
          "n_routed_experts": null, "first_k_dense_replace": 1)";
  const ModelSpec dense = parse_ok(base + "}");
  const ModelSpec sparse = parse_ok(base + R"(, "index_topk": 8, "index_n_heads": 4, "index_head_dim": 16})");
  EXPECT_EQ(sparse.analytical_params - dense.analytical_params, 3'360u);
  EXPECT_EQ(sparse.replicated_params - dense.replicated_params, 3'360u);
  // The dense one's whole part: the two MLA down-projections, 3,328, and
  // its norms: the layer's two of 64, q_a_layernorm 32, kv_a_layernorm 16,
  // the final 64: 240.
  EXPECT_EQ(dense.replicated_params, 3'328u + 240u);
}

TEST(AnalyticalParams, QwenVisionEmbeddingsAndNormsAreWholeOnEveryRank) {
  // Qwen3.5-27B's tower as vLLM's qwen3_vl.py builds it: the patch
  // embedding (Conv3d [1,152, 3 x 2 x 16 x 16] + bias: 1,770,624), the
  // position embedding [2,304, 1,152] (2,654,208), 27 blocks' norm1 and
  // norm2 with biases (27 x 4 x 1,152 = 124,416) and the merger's norm
  // (2 x 1,152 = 2,304) are whole on every rank: 4,551,552 more replicated
  // parameters than the same config without its vision_config.
  const std::string text = testing::read_test_data("corpus/qwen3_5/Qwen3.5-27B/config.json");
  nlohmann::json config = nlohmann::json::parse(text);
  config.erase("vision_config");
  const ModelSpec with = testing::corpus_spec("qwen3_5/Qwen3.5-27B");
  const ModelSpec without = parse_ok(config.dump());
  EXPECT_EQ(with.replicated_params - without.replicated_params, 4'551'552u);
}

}  // namespace
}  // namespace memfit
