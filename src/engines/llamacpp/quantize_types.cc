// The type llama-quantize gives each tensor for a file type: llama.cpp's
// llama_tensor_get_type() and its helpers (src/llama-quant.cpp), for the
// file types memfit prices (no importance matrix) and those it rebuilds
// from a dump (an importance matrix: the IQ1/IQ2/IQ3_XXS/IQ3_XS mixes and
// Q2_K_S) (engines/llamacpp/quantize_plan.h; docs/engine-llamacpp.md, "GGUF
// file types for a safetensors or config-only model").
#include <fmt/format.h>

#include <initializer_list>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

using enum GgmlType;

enum class Category {
  kTokenEmbd, kOutput, kAttnQkv, kAttnV, kAttnK, kAttnQ, kAttnOutput, kFfnUp, kFfnGate, kFfnDown, kOther
};

Category category_of(std::string_view name) {
  if (name == "output.weight") return Category::kOutput;
  if (name == "token_embd.weight") return Category::kTokenEmbd;
  // A fused attn_qkv has its own rule (it is counted among the attn_v-like
  // tensors, but does not advance their index); attn_kv_b is attn_v-like.
  if (name.find("attn_qkv.weight") != std::string_view::npos) return Category::kAttnQkv;
  for (std::string_view v : {"attn_kv_b.weight", "attn_v.weight"}) {
    if (name.find(v) != std::string_view::npos) return Category::kAttnV;
  }
  if (name.find("attn_k.weight") != std::string_view::npos) return Category::kAttnK;
  if (name.find("attn_q.weight") != std::string_view::npos) return Category::kAttnQ;
  if (name.find("attn_output.weight") != std::string_view::npos) return Category::kAttnOutput;
  // tensor_get_category()'s order: ffn_up, ffn_gate, then ffn_down.
  if (name.find("ffn_up") != std::string_view::npos) return Category::kFfnUp;
  if (name.find("ffn_gate") != std::string_view::npos) return Category::kFfnGate;
  if (name.find("ffn_down") != std::string_view::npos) return Category::kFfnDown;
  return Category::kOther;
}

// tensor_allows_quantization(), for the names the converter writes here:
// matrices whose name ends in "weight", not a norm, not a router, not a
// Mamba-style convolution (ssm_conv1d, "small conv1d weights") or LFM2's
// short convolution kernel (shortconv.conv.weight), not T5's relative
// position bias (attn_rel_b.weight), and not
// BERT's position or token-type embeddings ("do not quantize positional
// embeddings and token types (BERT)": they stay as the converter wrote
// them, F32), and not Gemma 3n's and Gemma 4's per_layer_model_proj
// ("these are not too big so keep them as it is": the converter's BF16
// or F16), nor Gemma 3n's AltUp and LAuReL tensors ("these are very
// small (e.g. 4x4)": any name holding "altup" or "laurel", since the
// architecture came in, #14400). Under QuantizeRules::mamba1_small_f32, not Mamba-1's ssm_x
// and ssm_dt either (the first Mamba support's "small yet 2D weights").
bool quantizable(const ConvertedTensor& t, const QuantizeRules& rules) {
  if (rules.mamba1_small_f32 && (t.name.find("ssm_x.weight") != std::string::npos ||
                                 t.name.find("ssm_dt.weight") != std::string::npos)) {
    return false;
  }
  return t.ne.size() >= 2 && t.name.ends_with("weight") &&
         t.name.find("_norm.weight") == std::string::npos &&
         t.name.find("ffn_gate_inp.weight") == std::string::npos &&
         t.name.find("ssm_conv1d") == std::string::npos &&
         t.name.find("shortconv.conv.weight") == std::string::npos &&
         t.name.find("attn_rel_b.weight") == std::string::npos &&
         t.name.find("per_layer_model_proj") == std::string::npos &&
         t.name.find("altup") == std::string::npos && t.name.find("laurel") == std::string::npos &&
         t.name != "position_embd.weight" && t.name != "token_types.weight";
}

bool is_quantized(GgmlType t) { return t != kF32 && t != kF16 && t != kBF16; }

bool is_k_type(GgmlType t) { return t == kQ2_K || t == kQ3_K || t == kQ4_K || t == kQ5_K || t == kQ6_K; }

// Elements per block of `t` in the quantizing build (QuantizeRules::qk_k_64).
uint64_t block_elements(const QuantizeRules& rules, GgmlType t) {
  return rules.qk_k_64 && is_k_type(t) ? 64 : ggml_type_traits(t).block_elements;
}

// The layers that get more bits: the first and last eighth, and every
// third between.
bool use_more_bits(uint64_t i, uint64_t n) {
  return i < n / 8 || i >= 7 * n / 8 || (i >= n / 8 && (i - n / 8) % 3 == 2);
}

struct Mix {
  std::string_view ftype;  // the file type's name
  uint64_t ffn_down_seen = 0;  // ffn_down tensors typed so far (the IQ2 mixes' counter)
  uint64_t ffn_down_i = 0;     // i_ffn_down: ffn_down tensors typed so far
  uint64_t ffn_gate_i = 0;     // i_ffn_gate
  uint64_t ffn_up_i = 0;       // i_ffn_up
  uint64_t layers = 0;     // n_layer
  uint64_t gqa = 0;        // heads / kv_heads
  uint64_t experts = 0;    // routed experts (0: dense)
  bool llama_70b = false;  // llama.cpp's LLM_TYPE_70B (llama, 80 blocks, GQA)
  bool tied = true;        // no output.weight: token_embd is the output
  uint64_t wv_seen = 0;    // attn_v-like tensors typed so far
  uint64_t wv_count = 0;   // attn_v-like tensors in the model
  QuantizeRules rules;     // the matrix and the release's rules
  bool is(std::string_view name) const { return ftype == name; }
  bool is_any(std::initializer_list<std::string_view> names) const {
    for (std::string_view n : names) {
      if (ftype == n) return true;
    }
    return false;
  }
  // The branch of llama_tensor_get_type_impl for the 1- and 2-bit mixes.
  bool two_bit() const { return is_any({"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}); }
};

GgmlType output_type(const Mix& m, GgmlType t, uint64_t row) {
  if (m.is("MXFP4_MOE")) return kQ8_0;
  if (row % block_elements(m.rules, t) != 0) return kQ8_0;
  if (m.is_any({"IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"})) return kQ5_K;
  return t != kQ8_0 ? kQ6_K : t;
}

// An untied token_embd (the output's own matrix exists).
GgmlType token_embd_type(const Mix& m, GgmlType t) {
  if (m.is_any({"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"})) return kQ2_K;
  if (m.is_any({"IQ2_S", "IQ2_M", "IQ3_XXS"})) return kIQ3_S;
  return t;
}

GgmlType attn_v_type(Mix& m, GgmlType t) {
  const uint64_t i = m.wv_seen++;
  if (m.is("Q2_K")) t = m.gqa >= 4 ? kQ4_K : kQ3_K;
  else if (m.is("Q2_K_S") && m.gqa >= 4) t = kQ4_K;
  else if (m.is("IQ3_XXS")) t = m.gqa >= 4 ? kQ4_K : (m.rules.imatrix ? kIQ3_XXS : kIQ3_S);
  else if (m.is_any({"IQ3_XS", "IQ3_S"}) && m.gqa >= 4) t = kQ4_K;
  else if (m.is("IQ3_M")) t = kQ4_K;
  else if (m.is("Q3_K_M")) t = i < 2 ? kQ5_K : kQ4_K;
  else if (m.is("Q3_K_L")) t = kQ5_K;
  else if ((m.is("IQ4_NL") || m.is("IQ4_XS")) && m.gqa >= 4) t = kQ5_K;
  else if ((m.is("Q4_K_M") || m.is("Q5_K_M")) && use_more_bits(i, m.wv_count)) t = kQ6_K;
  else if (m.is("Q4_K_S") && i < 4) t = kQ5_K;
  if (m.llama_70b && (t == kQ3_K || t == kQ4_K)) t = kQ5_K;
  if (m.experts == 8) t = kQ8_0;
  return t;
}

GgmlType attn_qkv_type(const Mix& m, GgmlType t) {
  if (m.is("Q3_K_M") || m.is("Q3_K_L") || m.is("IQ3_M")) return kQ4_K;
  if (m.is("Q4_K_M")) return kQ5_K;
  if (m.is("Q5_K_M")) return kQ6_K;
  return t;
}

GgmlType attn_k_type(const Mix& m, GgmlType t) {
  if (m.experts == 8) return kQ8_0;
  if (m.is("IQ3_XS")) return kIQ3_XXS;
  if (m.is("IQ3_XXS")) return kIQ2_S;
  return t;
}

GgmlType attn_q_type(const Mix& m, GgmlType t) {
  if (m.is("IQ3_XS")) return kIQ3_XXS;
  if (m.is("IQ3_XXS")) return kIQ2_S;
  return t;
}

// ffn_gate and ffn_up at block i of n: IQ3_XS gives the middle blocks
// (n/8 <= i < 7n/8) IQ3_XXS.
GgmlType ffn_gate_up_type(const Mix& m, GgmlType t, uint64_t i) {
  const uint64_t n = m.layers;
  return m.is("IQ3_XS") && i >= n / 8 && i < 7 * n / 8 ? kIQ3_XXS : t;
}

GgmlType ffn_down_type(const Mix& m, GgmlType t, uint64_t i) {
  const uint64_t n = m.layers;
  if (m.is("Q2_K")) return kQ3_K;
  if (m.is("Q2_K_S")) return i < n / 8 ? kQ4_K : t;
  if (m.is("IQ3_XXS") && !m.rules.imatrix) return i < n / 8 ? kQ4_K : kQ3_K;
  if (m.is("Q3_K_M")) return i < n / 16 ? kQ5_K : kQ4_K;
  if (m.is("IQ3_M") && (i < n / 8 || (m.experts == 8 && use_more_bits(i, n)))) return kQ4_K;
  if (m.is("Q3_K_L")) return kQ5_K;
  if (m.is("Q4_K_M")) return use_more_bits(i, n) ? kQ6_K : t;
  if (i < n / 8 && (m.is("IQ4_NL") || m.is("IQ4_XS")) && !m.rules.imatrix) return kQ5_K;
  if (m.is("Q5_K_M") && use_more_bits(i, n)) return kQ6_K;
  if (m.is("Q4_K_S") && i < n / 8) return kQ5_K;
  // With a matrix, "guard against craziness in the first few ffn_down
  // layers" of Q4_0 and Q5_0 (src/llama-quant.cpp).
  if (m.rules.imatrix && i < n / 8 && m.is("Q4_0")) return kQ4_1;
  if (m.rules.imatrix && i < n / 8 && m.is("Q5_0")) return kQ5_1;
  return t;
}

GgmlType attn_output_type(const Mix& m, GgmlType t) {
  if (m.experts == 8) {
    return m.is_any({"Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S", "Q4_K_M",
                     "IQ3_S", "IQ3_M", "IQ4_XS"})
               ? kQ5_K
               : t;
  }
  if (m.is("Q2_K")) return kQ3_K;
  if (m.is("IQ3_XXS")) return kIQ3_S;
  if (m.is("Q3_K_M") || m.is("IQ3_M")) return kQ4_K;
  if (m.is("Q3_K_L")) return kQ5_K;
  return t;
}

// The block index of "blk.N.": ffn_down's layer.
uint64_t block_of(std::string_view name) {
  uint64_t i = 0;
  for (size_t k = 4; k < name.size() && name[k] >= '0' && name[k] <= '9'; ++k) i = i * 10 + (name[k] - '0');
  return i;
}

// The layer index llama-quantize reads for an ffn_down (ffn_gate,
// ffn_up) tensor: layer_info() in src/llama-quant.cpp parses "blk.N." when
// the model has more than one expert, and otherwise takes its counter of
// those tensors typed so far (`seen`, advanced here), which is the block's
// index only where every block has one: Nemotron-H's MLP blocks, a few
// among its Mamba-2 and attention blocks, count 0, 1, 2, ...
uint64_t ffn_layer(const Mix& m, uint64_t& seen, std::string_view name) {
  const uint64_t i = seen++;
  return m.experts > 1 ? block_of(name) : i;
}

// The 1- and 2-bit importance-matrix mixes' own branch of
// llama_tensor_get_type_impl (src/llama-quant.cpp; IQ2_XXS, IQ2_XS,
// IQ2_S, IQ2_M, IQ1_S, IQ1_M): attn_v-like tensors Q4_K on a model of GQA
// 4 or more or of 4 or more experts, else IQ3_S (IQ2_S, IQ2_M) or Q2_K;
// attn_k Q4_K on an 8-expert model; the first n_layer / 8 ffn_down
// tensors counted in the loader's order (a routed and a shared expert's
// each count: llama-quantize sets n_ffn_down to n_layer and advances
// i_ffn_down per tensor) IQ3_S or Q2_K likewise; attn_output Q5_K on an
// 8-expert model, else IQ2_XXS (IQ1_S, IQ1_M), IQ3_S (IQ2_S, IQ2_M) or
// the default; every other tensor (attn_q, ffn_gate/up, ssm_out, ...) the
// default. The choice reads no importance matrix, only categories and
// counters.
GgmlType two_bit_mix_type(Mix& m, Category c, GgmlType t) {
  const bool s_or_m = m.is_any({"IQ2_S", "IQ2_M"});
  switch (c) {
    case Category::kAttnV: {
      ++m.wv_seen;
      if (m.gqa >= 4 || m.experts >= 4) return kQ4_K;
      return s_or_m ? kIQ3_S : kQ2_K;
    }
    case Category::kAttnK: return m.experts == 8 ? kQ4_K : t;
    case Category::kFfnDown:
      if (m.ffn_down_seen++ < m.layers / 8) return s_or_m ? kIQ3_S : kQ2_K;
      return t;
    case Category::kAttnOutput:
      if (m.experts == 8) return kQ5_K;
      if (m.is_any({"IQ1_S", "IQ1_M"})) return kIQ2_XXS;
      return s_or_m ? kIQ3_S : t;
    default: return t;
  }
}

// llama_tensor_get_type_impl() for one tensor of a quantized file type.
GgmlType mixed_type(Mix& m, const ConvertedTensor& t, GgmlType base) {
  Category c = category_of(t.name);
  if (c == Category::kAttnQkv && !m.rules.qkv_own_rule) c = Category::kAttnV;
  // Before #19770 the attn_v branch matched "attn_v.weight" alone: a
  // deepseek2 attn_kv_b, though counted among the attn_v-like tensors
  // (n_attention_wv), took the default type.
  if (m.rules.qkv_own_rule && t.name.find("attn_kv_b.weight") != std::string::npos) c = Category::kOther;
  if (c == Category::kOutput || (m.tied && c == Category::kTokenEmbd)) return output_type(m, base, t.ne[0]);
  if (m.is("MXFP4_MOE")) return t.ne.size() > 2 && t.ne[2] > 1 ? kMXFP4 : kQ8_0;
  // Gemma 3n's and Gemma 4's per-layer embedding table takes token_embd's
  // rule (llama_tensor_get_type_impl: name == "token_embd.weight" || name
  // == "per_layer_token_embd.weight"), never the tied output's.
  if (c == Category::kTokenEmbd || t.name == "per_layer_token_embd.weight") return token_embd_type(m, base);
  if (m.two_bit()) return two_bit_mix_type(m, c, base);
  switch (c) {
    case Category::kAttnQkv: return attn_qkv_type(m, base);
    case Category::kAttnV: return attn_v_type(m, base);
    case Category::kAttnK: return attn_k_type(m, base);
    case Category::kAttnQ: return attn_q_type(m, base);
    case Category::kFfnUp: return ffn_gate_up_type(m, base, ffn_layer(m, m.ffn_up_i, t.name));
    case Category::kFfnGate: return ffn_gate_up_type(m, base, ffn_layer(m, m.ffn_gate_i, t.name));
    case Category::kFfnDown: return ffn_down_type(m, base, ffn_layer(m, m.ffn_down_i, t.name));
    case Category::kAttnOutput: return attn_output_type(m, base);
    default: return base;
  }
}

// tensor_type_fallback(): a row that is not a whole number of the type's
// blocks takes a type with smaller blocks, else F16.
Result<GgmlType> fallback(const ConvertedTensor& t, GgmlType type, const QuantizeRules& rules) {
  const uint64_t row = t.ne[0];
  if (row % block_elements(rules, type) == 0) return type;
  GgmlType other = kF16;
  switch (type) {
    case kIQ1_S: case kIQ1_M: case kIQ2_XXS: case kIQ2_XS: case kIQ2_S: case kIQ3_XXS:
    case kIQ3_S: case kIQ4_XS: other = kIQ4_NL; break;
    case kQ2_K: case kQ3_K: other = rules.k_fallback_iq4_nl ? kIQ4_NL : kQ4_0; break;
    case kQ4_K: other = kQ5_0; break;
    case kQ5_K: other = kQ5_1; break;
    case kQ6_K: other = kQ8_0; break;
    default:
      return Error::usage("quant", fmt::format("{}: {} elements per row fit no {} block, and "
                                               "llama-quantize has no fallback for it",
                                               t.name, row, ggml_type_traits(type).name));
  }
  return row % block_elements(rules, other) == 0 ? other : kF16;
}

Mix mix_for(const ModelSpec& spec, std::span<const ConvertedTensor> tensors, const GgufFileType& f,
            const QuantizeRules& rules) {
  Mix m;
  m.ftype = f.name;
  m.rules = rules;
  // These file types need a matrix: llama-quantize refuses to write them
  // without one (tensor_requires_imatrix).
  if (needs_importance_matrix(f)) m.rules.imatrix = true;
  // n_layer: the GGUF's block_count, which counts the multi-token
  // prediction blocks ModelSpec::layers leaves out.
  m.layers = spec.layers.size() + spec.nextn_layers;
  m.gqa = spec.geometry.kv_heads != 0 ? spec.geometry.heads / spec.geometry.kv_heads : 0;
  m.experts = spec.moe.experts;
  m.llama_70b = spec.model_type == "llama" && m.layers == 80 && m.gqa > 1;
  for (const ConvertedTensor& t : tensors) {
    if (t.name == "output.weight") m.tied = false;
    const Category c = category_of(t.name);
    if (c == Category::kAttnV || c == Category::kAttnQkv) ++m.wv_count;
  }
  return m;
}

}  // namespace

Result<uint64_t> quantized_tensor_bytes(GgmlType type, std::span<const uint64_t> ne,
                                        const QuantizeRules& rules) {
  if (!rules.qk_k_64 || !is_k_type(type)) return ggml_tensor_bytes(type, ne);
  if (type != kQ6_K) {
    return Error(fmt::format("{} with QK_K = 64: a layout memfit does not price",
                             ggml_type_traits(type).name));
  }
  constexpr uint64_t kQ6KBlock64Bytes = 2 + 13 * 64 / 16;  // d + ql, qh, scales
  const uint64_t row = ne.empty() ? 1 : ne[0];
  if (row % 64 != 0) return Error(fmt::format("{} elements per row is not a multiple of 64", row));
  CheckedBytes bytes = CheckedBytes(row / 64) * kQ6KBlock64Bytes;
  for (size_t i = 1; i < ne.size(); ++i) bytes *= ne[i];
  if (bytes.overflowed()) return Error::overflow("more than 2^64 bytes");
  return *bytes.value();
}

Result<std::vector<GgmlType>> quantized_types(const ModelSpec& spec,
                                              std::span<const ConvertedTensor> tensors,
                                              const GgufFileType& file_type,
                                              const QuantizeRules& rules,
                                              std::vector<TypeChoice>* choices) {
  Mix m = mix_for(spec, tensors, file_type, rules);
  std::vector<GgmlType> out;
  out.reserve(tensors.size());
  if (choices != nullptr) choices->assign(tensors.size(), TypeChoice{});
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ConvertedTensor& t = tensors[i];
    if (!quantizable(t, rules)) {
      out.push_back(t.type);
      continue;
    }
    if (choices != nullptr) (*choices)[i].quantizable = true;
    if (!is_quantized(file_type.default_type)) {
      // The converter's float output types leave what the checkpoint
      // ships quantized (gpt-oss's MXFP4 experts) as it is.
      out.push_back(is_quantized(t.type) ? t.type : file_type.default_type);
    } else {
      const GgmlType chosen = mixed_type(m, t, file_type.default_type);
      Result<GgmlType> type = fallback(t, chosen, rules);
      if (!type) return type.error();
      if (choices != nullptr) (*choices)[i].fell_back = *type != chosen;
      out.push_back(*type);
    }
  }
  return out;
}

}  // namespace memfit::llamacpp
