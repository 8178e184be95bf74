// The converted tensors of BERT and Jina's BERT v2
// (engines/llamacpp/converted_encoders.h). Shapes are llama.cpp's
// create_tensor dims (ne[0] first) for LLM_ARCH_BERT and
// LLM_ARCH_JINA_BERT_V2 (src/llama-model.cpp, load_tensors; since 2026
// src/models/bert.cpp and jina-bert-v2.cpp); which tensors are written,
// and in which type, is the converter's (convert_hf_to_gguf.py):
//   - F32 for 1-D tensors and norms, and for position_embd and
//     token_types (ModelBase.prepare_tensors keeps POS_EMBD and
//     TOKEN_TYPES in float32); F16 for the other matrices.
//   - BERT drops the pooler (BertModel: "we are only using BERT for
//     embeddings") and the MLM heads; a BertForSequenceClassification's
//     classifier becomes cls.output ([h, labels] and its bias).
//   - Jina's gated_layers [2f, h] is split into ffn_gate and ffn_up ([h, f]
//     each, no bias); Jina has no position embeddings (ALiBi); a Jina
//     reranker's classifier is cls ([h, labels] and its bias).
#include "engines/llamacpp/converted_encoders.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>

namespace memfit::llamacpp {
namespace {

using Tensors = std::vector<ConvertedTensor>;

// BertConfig's defaults (transformers' configuration_bert.py): 512
// positions, for a spec that states none, and 2 token types when the
// file's tokenizer.ggml.token_type_count (the config's type_vocab_size,
// which ModelSpec does not carry) is unsaid (ggml-org/ci's bge-small and jina-reranker-v1-tiny dumps print
// token_type_count 2; XLM-RoBERTa's, snowflake-arctic-embed-l-v2.0 in
// llamacpp-12836, 1).
constexpr uint64_t kBertPositions = 512;
constexpr uint64_t kBertTokenTypes = 2;

// A reranker's head scores one label: rank pooling reads one output per
// sequence (llama.cpp's LLAMA_POOLING_TYPE_RANK), and the cross-encoders
// llama.cpp converts (jina-reranker-v1, ms-marco MiniLM) have num_labels 1.
constexpr uint64_t kRerankLabels = 1;

void add(Tensors& out, std::string name, std::vector<uint64_t> ne,
         GgmlType type = GgmlType::kF16) {
  if (ne.size() < 2) type = GgmlType::kF32;
  out.push_back(ConvertedTensor{std::move(name), std::move(ne), type});
}

void sort_by_name(Tensors::iterator first, Tensors::iterator last) {
  std::sort(first, last, [](const ConvertedTensor& a, const ConvertedTensor& b) { return a.name < b.name; });
}

// The tensors outside the blocks: the input layer (word, position and
// token-type embeddings, the embedding LayerNorm) and a reranker's
// classification head.
void add_outside(const ModelSpec& spec, ConvertedEncoder kind, uint64_t token_types, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const size_t first = out.size();
  if (spec.embedding.reranker) {
    const uint64_t labels = kRerankLabels;
    const std::string head = kind == ConvertedEncoder::kBert ? "cls.output." : "cls.";
    add(out, head + "bias", {labels});
    add(out, head + "weight", {g.hidden, labels});
  }
  if (kind == ConvertedEncoder::kBert) {
    const uint64_t positions = spec.max_position_tokens != 0 ? spec.max_position_tokens : kBertPositions;
    add(out, "position_embd.weight", {g.hidden, positions}, GgmlType::kF32);
  }
  add(out, "token_embd.weight", {g.hidden, g.vocab});
  add(out, "token_embd_norm.bias", {g.hidden});
  add(out, "token_embd_norm.weight", {g.hidden});
  // The file's token_type_count rows (XLM-RoBERTa's 1), 2 when unsaid.
  const uint64_t types = token_types != 0 ? token_types : kBertTokenTypes;
  add(out, "token_types.weight", {g.hidden, types}, GgmlType::kF32);
  sort_by_name(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

// One nomic-bert block (llama.cpp's LLM_ARCH_NOMIC_BERT tensors; the
// converter's NomicBertModel; nomic-embed-text-v1.5 has no linear
// biases): the fused attn_qkv (h -> 3h), attn_output, the attention-output
// and layer-output LayerNorms (weight and bias), and the SwiGLU MLP's
// ffn_up and ffn_gate (h -> f each) and ffn_down.
void add_nomic_block(uint64_t h, uint64_t f, const std::string& blk, Tensors& out) {
  add(out, blk + "attn_qkv.weight", {h, 3 * h});
  add(out, blk + "attn_output.weight", {h, h});
  add(out, blk + "attn_output_norm.weight", {h});
  add(out, blk + "attn_output_norm.bias", {h});
  add(out, blk + "ffn_up.weight", {h, f});
  add(out, blk + "ffn_gate.weight", {h, f});
  add(out, blk + "ffn_down.weight", {f, h});
  add(out, blk + "layer_output_norm.weight", {h});
  add(out, blk + "layer_output_norm.bias", {h});
}

// One block: Q, K, V and the attention output with their biases, the
// attention-output and layer-output LayerNorms (weight and bias), and the
// MLP: BERT's up (with bias) and down; Jina's gate and up (no bias) and
// down.
void add_block(const ModelSpec& spec, ConvertedEncoder kind, uint64_t i, Tensors& out) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t head_dim = g.head_dim != 0 ? g.head_dim : g.hidden / g.heads;
  const uint64_t q = g.heads * head_dim;
  const uint64_t kv = g.kv_heads * head_dim;
  const uint64_t h = g.hidden;
  const uint64_t f = g.intermediate;
  const std::string blk = fmt::format("blk.{}.", i);
  const size_t first = out.size();
  if (kind == ConvertedEncoder::kNomicBert) {
    add_nomic_block(h, f, blk, out);
    sort_by_name(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    return;
  }
  add(out, blk + "attn_q.weight", {h, q});
  add(out, blk + "attn_q.bias", {q});
  add(out, blk + "attn_k.weight", {h, kv});
  add(out, blk + "attn_k.bias", {kv});
  add(out, blk + "attn_v.weight", {h, kv});
  add(out, blk + "attn_v.bias", {kv});
  add(out, blk + "attn_output.weight", {q, h});
  add(out, blk + "attn_output.bias", {h});
  add(out, blk + "attn_output_norm.weight", {h});
  add(out, blk + "attn_output_norm.bias", {h});
  add(out, blk + "ffn_up.weight", {h, f});
  if (kind == ConvertedEncoder::kBert) add(out, blk + "ffn_up.bias", {f});
  if (kind == ConvertedEncoder::kJinaBertV2) add(out, blk + "ffn_gate.weight", {h, f});
  add(out, blk + "ffn_down.weight", {f, h});
  add(out, blk + "ffn_down.bias", {h});
  add(out, blk + "layer_output_norm.weight", {h});
  add(out, blk + "layer_output_norm.bias", {h});
  sort_by_name(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

}  // namespace

ConvertedEncoder converted_encoder(const ModelSpec& spec) {
  if (spec.model_type == "jina_bert_v2" || spec.family == "jina_bert_v2") {
    return ConvertedEncoder::kJinaBertV2;
  }
  if (spec.model_type == "nomic_bert" && spec.moe.experts == 0) return ConvertedEncoder::kNomicBert;
  return spec.model_type == "bert" ? ConvertedEncoder::kBert : ConvertedEncoder::kNone;
}

void add_encoder_tensors(const ModelSpec& spec, ConvertedEncoder kind, uint64_t token_types,
                         std::vector<ConvertedTensor>& out) {
  add_outside(spec, kind, token_types, out);
  for (uint64_t i = 0; i < spec.layers.size(); ++i) add_block(spec, kind, i, out);
}

}  // namespace memfit::llamacpp
