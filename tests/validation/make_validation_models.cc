// make_validation_models <folder>: writes the GGUF models of the llama.cpp
// validation (scripts/validate-llamacpp.sh, docs/validation-llamacpp.md)
// with memfit's own GGUF writer: small shapes, a 32000-token SentencePiece
// vocabulary (so the logits and the output buffer are visible), a mix of
// weight types (f32 norms, f16, q8_0, q6_K, and q4_0 / q4_K that the CPU
// backend repacks), and deterministic pseudo-random data.
//
//   llama-dense     llama, 4 blocks, GQA 8 heads / 2 KV heads of 64
//   qwen3moe        Qwen3 MoE, 4 blocks, 8 experts (2 used) of 256
//   qwen3moe-wide   Qwen3 MoE whose routed experts outweigh the logits: 4
//                   blocks, 16 experts (8 used) of 512, an 8000-token
//                   vocabulary, feed_forward_length 8 x 512 as converters
//                   write it for Qwen3-MoE
//   gemma3-swa      Gemma 3, 6 blocks (5 sliding, window 256, 1 global),
//                   1 KV head of 128, tied embeddings
//   deepseek2-mla   DeepSeek-V3 shape: MLA (latent 256 + rope 64), 1 dense
//                   lead block, 2 MoE blocks, 1 NextN block
//   mamba2          Mamba-2, 4 blocks, d_inner 1024, state 64, 1 group
//   granite-hybrid  Granite 4 hybrid: 6 blocks, Mamba-2 mixers except
//                   blocks 2 and 5 (attention, 8 heads / 2 KV heads of 64),
//                   a dense FFN in every block
//
// The tensor lists follow llama.cpp's loaders (src/models/<arch>.cpp,
// load_arch_tensors) at the pinned release; a tensor the loader does not
// know would fail the load.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "memfit/ggml_types.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

constexpr uint32_t kVocab = 32000;
constexpr uint32_t kLlamaTokenizerFixed = 259;  // <unk>, <s>, </s>, 256 bytes

std::string blk(int layer, const char* name) {
  return "blk." + std::to_string(layer) + "." + name;
}

// general.*, the tokenizer, and the keys every decoder reads.
GgufWriter base(const std::string& arch, const std::string& name, uint32_t context,
                uint32_t embd, uint32_t blocks, uint32_t vocab = kVocab) {
  GgufWriter w;
  w.add_string("general.architecture", arch)
      .add_string("general.name", name)
      .add_u32("general.file_type", 1)
      .add_u32(arch + ".context_length", context)
      .add_u32(arch + ".embedding_length", embd)
      .add_u32(arch + ".block_count", blocks)
      .add_f32(arch + ".attention.layer_norm_rms_epsilon", 1e-6f)
      .add_u32(arch + ".vocab_size", vocab)
      .add_tokenizer(GgufTokenizer::kLlama, vocab - kLlamaTokenizerFixed);
  return w;
}

void attention_gqa(GgufWriter& w, int i, uint64_t embd, uint64_t q, uint64_t kv, GgmlType t) {
  w.add_tensor(blk(i, "attn_q.weight"), t, {embd, q});
  w.add_tensor(blk(i, "attn_k.weight"), t, {embd, kv});
  w.add_tensor(blk(i, "attn_v.weight"), t, {embd, kv});
  w.add_tensor(blk(i, "attn_output.weight"), t, {q, embd});
}

void dense_ffn(GgufWriter& w, int i, uint64_t embd, uint64_t ff, GgmlType t) {
  w.add_tensor(blk(i, "ffn_gate.weight"), t, {embd, ff});
  w.add_tensor(blk(i, "ffn_up.weight"), t, {embd, ff});
  w.add_tensor(blk(i, "ffn_down.weight"), t, {ff, embd});
}

GgufWriter llama_dense() {
  constexpr uint64_t E = 512, H = 8, HKV = 2, D = 64, FF = 1536, L = 4;
  GgufWriter w = base("llama", "validation llama dense GQA", 8192, E, L);
  w.add_u32("llama.feed_forward_length", FF)
      .add_u32("llama.attention.head_count", H)
      .add_u32("llama.attention.head_count_kv", HKV)
      .add_u32("llama.rope.dimension_count", D)
      .add_f32("llama.rope.freq_base", 10000.0f);
  w.add_tensor("token_embd.weight", GgmlType::kF16, {E, kVocab});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    attention_gqa(w, i, E, H * D, HKV * D, GgmlType::kQ4_0);
    w.add_tensor(blk(i, "ffn_norm.weight"), GgmlType::kF32, {E});
    dense_ffn(w, i, E, FF, GgmlType::kQ4_K);
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  w.add_tensor("output.weight", GgmlType::kQ6_K, {E, kVocab});
  return w;
}

GgufWriter qwen3moe() {
  constexpr uint64_t E = 512, H = 8, HKV = 2, D = 64, FF_EXP = 256, N_EXP = 8, L = 4;
  GgufWriter w = base("qwen3moe", "validation qwen3moe", 8192, E, L);
  w.add_u32("qwen3moe.feed_forward_length", 1536)
      .add_u32("qwen3moe.attention.head_count", H)
      .add_u32("qwen3moe.attention.head_count_kv", HKV)
      .add_u32("qwen3moe.attention.key_length", D)
      .add_u32("qwen3moe.attention.value_length", D)
      .add_f32("qwen3moe.rope.freq_base", 1000000.0f)
      .add_u32("qwen3moe.expert_count", N_EXP)
      .add_u32("qwen3moe.expert_used_count", 2)
      .add_u32("qwen3moe.expert_feed_forward_length", FF_EXP);
  w.add_tensor("token_embd.weight", GgmlType::kQ8_0, {E, kVocab});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    attention_gqa(w, i, E, H * D, HKV * D, GgmlType::kF16);
    w.add_tensor(blk(i, "attn_k_norm.weight"), GgmlType::kF32, {D});
    w.add_tensor(blk(i, "attn_q_norm.weight"), GgmlType::kF32, {D});
    w.add_tensor(blk(i, "ffn_norm.weight"), GgmlType::kF32, {E});
    w.add_tensor(blk(i, "ffn_gate_inp.weight"), GgmlType::kF32, {E, N_EXP});
    w.add_tensor(blk(i, "ffn_gate_exps.weight"), GgmlType::kQ4_0, {E, FF_EXP, N_EXP});
    w.add_tensor(blk(i, "ffn_down_exps.weight"), GgmlType::kQ4_0, {FF_EXP, E, N_EXP});
    w.add_tensor(blk(i, "ffn_up_exps.weight"), GgmlType::kQ4_0, {E, FF_EXP, N_EXP});
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  w.add_tensor("output.weight", GgmlType::kQ8_0, {E, kVocab});
  return w;
}

GgufWriter qwen3moe_wide() {
  constexpr uint64_t E = 512, H = 8, HKV = 2, D = 64, FF_EXP = 512, N_EXP = 16, USED = 8, L = 4;
  constexpr uint64_t VOCAB = 8000;
  GgufWriter w = base("qwen3moe", "validation qwen3moe wide experts", 8192, E, L, VOCAB);
  w.add_u32("qwen3moe.feed_forward_length", USED * FF_EXP)
      .add_u32("qwen3moe.attention.head_count", H)
      .add_u32("qwen3moe.attention.head_count_kv", HKV)
      .add_u32("qwen3moe.attention.key_length", D)
      .add_u32("qwen3moe.attention.value_length", D)
      .add_f32("qwen3moe.rope.freq_base", 1000000.0f)
      .add_u32("qwen3moe.expert_count", N_EXP)
      .add_u32("qwen3moe.expert_used_count", USED)
      .add_u32("qwen3moe.expert_feed_forward_length", FF_EXP);
  w.add_tensor("token_embd.weight", GgmlType::kQ8_0, {E, VOCAB});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    attention_gqa(w, i, E, H * D, HKV * D, GgmlType::kQ8_0);
    w.add_tensor(blk(i, "attn_k_norm.weight"), GgmlType::kF32, {D});
    w.add_tensor(blk(i, "attn_q_norm.weight"), GgmlType::kF32, {D});
    w.add_tensor(blk(i, "ffn_norm.weight"), GgmlType::kF32, {E});
    w.add_tensor(blk(i, "ffn_gate_inp.weight"), GgmlType::kF32, {E, N_EXP});
    w.add_tensor(blk(i, "ffn_gate_exps.weight"), GgmlType::kQ4_K, {E, FF_EXP, N_EXP});
    w.add_tensor(blk(i, "ffn_down_exps.weight"), GgmlType::kQ4_K, {FF_EXP, E, N_EXP});
    w.add_tensor(blk(i, "ffn_up_exps.weight"), GgmlType::kQ4_K, {E, FF_EXP, N_EXP});
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  w.add_tensor("output.weight", GgmlType::kQ8_0, {E, VOCAB});
  return w;
}

GgufWriter gemma3_swa() {
  constexpr uint64_t E = 512, H = 4, HKV = 1, D = 128, FF = 1536, L = 6;
  GgufWriter w = base("gemma3", "validation gemma3 sliding window", 8192, E, L);
  w.add_u32("gemma3.feed_forward_length", FF)
      .add_u32("gemma3.attention.head_count", H)
      .add_u32("gemma3.attention.head_count_kv", HKV)
      .add_u32("gemma3.attention.key_length", D)
      .add_u32("gemma3.attention.value_length", D)
      .add_u32("gemma3.attention.sliding_window", 256)
      .add_f32("gemma3.rope.freq_base", 1000000.0f);
  // Tied: no output.weight; q8_0 is not repacked on x86, so the output
  // copy shares the mapped embedding.
  w.add_tensor("token_embd.weight", GgmlType::kQ8_0, {E, kVocab});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    attention_gqa(w, i, E, H * D, HKV * D, GgmlType::kQ4_0);
    w.add_tensor(blk(i, "post_attention_norm.weight"), GgmlType::kF32, {E});
    w.add_tensor(blk(i, "attn_k_norm.weight"), GgmlType::kF32, {D});
    w.add_tensor(blk(i, "attn_q_norm.weight"), GgmlType::kF32, {D});
    w.add_tensor(blk(i, "ffn_norm.weight"), GgmlType::kF32, {E});
    dense_ffn(w, i, E, FF, GgmlType::kQ4_K);
    w.add_tensor(blk(i, "post_ffw_norm.weight"), GgmlType::kF32, {E});
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  return w;
}

GgufWriter deepseek2_mla() {
  constexpr uint64_t E = 512, H = 8, Q_LORA = 256, KV_LORA = 256, ROPE = 64, NOPE = 128,
                     V_HEAD = 128, FF = 1536, FF_EXP = 256, N_EXP = 16, L = 4;
  GgufWriter w = base("deepseek2", "validation deepseek2 MLA", 8192, E, L);
  w.add_u32("deepseek2.feed_forward_length", FF)
      .add_u32("deepseek2.attention.head_count", H)
      .add_u32("deepseek2.attention.head_count_kv", 1)
      .add_u32("deepseek2.attention.key_length", KV_LORA + ROPE)
      .add_u32("deepseek2.attention.value_length", KV_LORA)
      .add_u32("deepseek2.attention.key_length_mla", NOPE + ROPE)
      .add_u32("deepseek2.attention.value_length_mla", V_HEAD)
      .add_u32("deepseek2.attention.q_lora_rank", Q_LORA)
      .add_u32("deepseek2.attention.kv_lora_rank", KV_LORA)
      .add_u32("deepseek2.rope.dimension_count", ROPE)
      .add_f32("deepseek2.rope.freq_base", 10000.0f)
      .add_u32("deepseek2.leading_dense_block_count", 1)
      .add_u32("deepseek2.expert_count", N_EXP)
      .add_u32("deepseek2.expert_used_count", 4)
      .add_u32("deepseek2.expert_shared_count", 1)
      .add_u32("deepseek2.expert_feed_forward_length", FF_EXP)
      .add_f32("deepseek2.expert_weights_scale", 2.5f)
      .add_bool("deepseek2.expert_weights_norm", true)
      .add_u32("deepseek2.expert_gating_func", 2)
      .add_u32("deepseek2.nextn_predict_layers", 1);
  w.add_tensor("token_embd.weight", GgmlType::kQ8_0, {E, kVocab});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    w.add_tensor(blk(i, "attn_q_a_norm.weight"), GgmlType::kF32, {Q_LORA});
    w.add_tensor(blk(i, "attn_kv_a_norm.weight"), GgmlType::kF32, {KV_LORA});
    w.add_tensor(blk(i, "attn_q_a.weight"), GgmlType::kQ8_0, {E, Q_LORA});
    w.add_tensor(blk(i, "attn_q_b.weight"), GgmlType::kQ8_0, {Q_LORA, H * (NOPE + ROPE)});
    w.add_tensor(blk(i, "attn_kv_a_mqa.weight"), GgmlType::kQ8_0, {E, KV_LORA + ROPE});
    w.add_tensor(blk(i, "attn_k_b.weight"), GgmlType::kF16, {NOPE, KV_LORA, H});
    w.add_tensor(blk(i, "attn_v_b.weight"), GgmlType::kF16, {KV_LORA, V_HEAD, H});
    w.add_tensor(blk(i, "attn_output.weight"), GgmlType::kQ8_0, {H * V_HEAD, E});
    w.add_tensor(blk(i, "ffn_norm.weight"), GgmlType::kF32, {E});
    if (i == 0) {
      dense_ffn(w, i, E, FF, GgmlType::kQ4_K);
    } else {
      w.add_tensor(blk(i, "ffn_gate_inp.weight"), GgmlType::kF32, {E, N_EXP});
      w.add_tensor(blk(i, "exp_probs_b.bias"), GgmlType::kF32, {N_EXP});
      w.add_tensor(blk(i, "ffn_gate_exps.weight"), GgmlType::kQ4_K, {E, FF_EXP, N_EXP});
      w.add_tensor(blk(i, "ffn_down_exps.weight"), GgmlType::kQ4_K, {FF_EXP, E, N_EXP});
      w.add_tensor(blk(i, "ffn_up_exps.weight"), GgmlType::kQ4_K, {E, FF_EXP, N_EXP});
      w.add_tensor(blk(i, "ffn_gate_shexp.weight"), GgmlType::kQ4_K, {E, FF_EXP});
      w.add_tensor(blk(i, "ffn_down_shexp.weight"), GgmlType::kQ4_K, {FF_EXP, E});
      w.add_tensor(blk(i, "ffn_up_shexp.weight"), GgmlType::kQ4_K, {E, FF_EXP});
    }
    if (i == static_cast<int>(L) - 1) {  // the NextN (MTP) block
      w.add_tensor(blk(i, "nextn.eh_proj.weight"), GgmlType::kQ8_0, {2 * E, E});
      w.add_tensor(blk(i, "nextn.enorm.weight"), GgmlType::kF32, {E});
      w.add_tensor(blk(i, "nextn.hnorm.weight"), GgmlType::kF32, {E});
      w.add_tensor(blk(i, "nextn.shared_head_norm.weight"), GgmlType::kF32, {E});
    }
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  w.add_tensor("output.weight", GgmlType::kQ6_K, {E, kVocab});
  return w;
}

GgufWriter mamba2() {
  constexpr uint64_t E = 512, D_INNER = 1024, D_STATE = 64, GROUPS = 1, DT_RANK = 16,
                     D_CONV = 4, L = 4;
  constexpr uint64_t CONV_DIM = D_INNER + 2 * GROUPS * D_STATE;
  constexpr uint64_t IN_PROJ = D_INNER + CONV_DIM + DT_RANK;
  GgufWriter w = base("mamba2", "validation mamba2", 8192, E, L);
  w.add_u32("mamba2.feed_forward_length", 0)
      .add_u32("mamba2.attention.head_count", 0)
      .add_u32("mamba2.ssm.conv_kernel", D_CONV)
      .add_u32("mamba2.ssm.inner_size", D_INNER)
      .add_u32("mamba2.ssm.state_size", D_STATE)
      .add_u32("mamba2.ssm.time_step_rank", DT_RANK)
      .add_u32("mamba2.ssm.group_count", GROUPS);
  w.add_tensor("token_embd.weight", GgmlType::kF16, {E, kVocab});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    w.add_tensor(blk(i, "ssm_in.weight"), GgmlType::kQ4_0, {E, IN_PROJ});
    w.add_tensor(blk(i, "ssm_conv1d.weight"), GgmlType::kF32, {D_CONV, CONV_DIM});
    w.add_tensor(blk(i, "ssm_conv1d.bias"), GgmlType::kF32, {CONV_DIM});
    w.add_tensor(blk(i, "ssm_dt.bias"), GgmlType::kF32, {DT_RANK});
    w.add_tensor(blk(i, "ssm_a"), GgmlType::kF32, {1, DT_RANK});
    w.add_tensor(blk(i, "ssm_d"), GgmlType::kF32, {1, DT_RANK});
    w.add_tensor(blk(i, "ssm_norm.weight"), GgmlType::kF32, {D_INNER / GROUPS, GROUPS});
    w.add_tensor(blk(i, "ssm_out.weight"), GgmlType::kQ4_0, {D_INNER, E});
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  w.add_tensor("output.weight", GgmlType::kQ8_0, {E, kVocab});
  return w;
}

GgufWriter granite_hybrid() {
  constexpr uint64_t E = 512, H = 8, HKV = 2, D = 64, FF = 1536, L = 6;
  constexpr uint64_t D_INNER = 2 * E, D_STATE = 64, GROUPS = 1, SSM_HEADS = 16, D_CONV = 4;
  constexpr uint64_t CONV_DIM = D_INNER + 2 * GROUPS * D_STATE;
  constexpr uint64_t IN_PROJ = 2 * D_INNER + 2 * GROUPS * D_STATE + SSM_HEADS;
  auto attention_layer = [](int i) { return i == 2 || i == 5; };
  std::vector<uint32_t> kv_heads;
  for (int i = 0; i < static_cast<int>(L); ++i) kv_heads.push_back(attention_layer(i) ? HKV : 0);
  GgufWriter w = base("granitehybrid", "validation granite hybrid", 8192, E, L);
  w.add_u32("granitehybrid.feed_forward_length", FF)
      .add_u32("granitehybrid.attention.head_count", H)
      .add_u32_array("granitehybrid.attention.head_count_kv", kv_heads)
      .add_f32("granitehybrid.rope.freq_base", 10000.0f)
      .add_u32("granitehybrid.ssm.conv_kernel", D_CONV)
      .add_u32("granitehybrid.ssm.inner_size", D_INNER)
      .add_u32("granitehybrid.ssm.state_size", D_STATE)
      .add_u32("granitehybrid.ssm.time_step_rank", SSM_HEADS)
      .add_u32("granitehybrid.ssm.group_count", GROUPS);
  w.add_tensor("token_embd.weight", GgmlType::kQ8_0, {E, kVocab});
  for (int i = 0; i < static_cast<int>(L); ++i) {
    w.add_tensor(blk(i, "attn_norm.weight"), GgmlType::kF32, {E});
    if (attention_layer(i)) {
      attention_gqa(w, i, E, H * D, HKV * D, GgmlType::kQ4_0);
    } else {
      w.add_tensor(blk(i, "ssm_in.weight"), GgmlType::kQ4_0, {E, IN_PROJ});
      w.add_tensor(blk(i, "ssm_conv1d.weight"), GgmlType::kF32, {D_CONV, CONV_DIM});
      w.add_tensor(blk(i, "ssm_conv1d.bias"), GgmlType::kF32, {CONV_DIM});
      w.add_tensor(blk(i, "ssm_dt.bias"), GgmlType::kF32, {SSM_HEADS});
      w.add_tensor(blk(i, "ssm_a"), GgmlType::kF32, {1, SSM_HEADS});
      w.add_tensor(blk(i, "ssm_d"), GgmlType::kF32, {1, SSM_HEADS});
      w.add_tensor(blk(i, "ssm_norm.weight"), GgmlType::kF32, {D_INNER / GROUPS, GROUPS});
      w.add_tensor(blk(i, "ssm_out.weight"), GgmlType::kQ4_0, {D_INNER, E});
    }
    w.add_tensor(blk(i, "ffn_norm.weight"), GgmlType::kF32, {E});
    dense_ffn(w, i, E, FF, GgmlType::kQ4_K);
  }
  w.add_tensor("output_norm.weight", GgmlType::kF32, {E});
  return w;  // tied: the q8_0 embedding is the output
}

}  // namespace
}  // namespace memfit

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_validation_models <folder>\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) {
    std::fprintf(stderr, "make_validation_models: %s: %s\n", argv[1], error.message().c_str());
    return 1;
  }
  struct Named {
    const char* name;
    memfit::GgufWriter writer;
  };
  const std::vector<Named> models = {
      {"llama-dense", memfit::llama_dense()}, {"qwen3moe", memfit::qwen3moe()},
      {"qwen3moe-wide", memfit::qwen3moe_wide()},
      {"gemma3-swa", memfit::gemma3_swa()},   {"deepseek2-mla", memfit::deepseek2_mla()},
      {"mamba2", memfit::mamba2()},           {"granite-hybrid", memfit::granite_hybrid()},
  };
  for (const Named& model : models) {
    const std::string path = (folder / (std::string(model.name) + ".gguf")).string();
    const uint64_t bytes = model.writer.write(path, memfit::GgufTensorData::kRandom);
    std::printf("%s %llu\n", path.c_str(), static_cast<unsigned long long>(bytes));
  }
  return 0;
}
