// Ollama's estimate of the llama.cpp runner's memory (fs/ggml/ggml.go,
// GGML.GraphSize, and llm/server.go, llamaServer.Load, at v0.24.0): the
// bytes of each layer the scheduler places and the graph it reserves.
// These are Ollama's figures, not llama.cpp's: the scheduler decides with
// them, and llama.cpp's own buffers (priced by the llamacpp rules) are
// what the load then takes (docs/engine-ollama.md, "The scheduler").
#include <algorithm>
#include <cmath>
#include <string>

#include "engines/ollama/settings.h"
#include "memfit/checked_math.h"

namespace memfit::ollama {
namespace {

// kvCacheBytesPerElement: q8_0 1, q4_0 0.5, f16 (and anything else) 2.
double bytes_per_element(GgmlType type) {
  if (type == GgmlType::kQ8_0) return 1.0;
  if (type == GgmlType::kQ4_0) return 0.5;
  return 2.0;
}

// "blk.12.attn_q.weight" -> 12; nullopt for a tensor outside the blocks.
std::optional<uint64_t> block_of(std::string_view name) {
  if (!name.starts_with("blk.")) return std::nullopt;
  name.remove_prefix(4);
  uint64_t n = 0;
  size_t digits = 0;
  while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9' && digits < 9) {
    n = n * 10 + static_cast<uint64_t>(name[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits >= name.size() || name[digits] != '.') return std::nullopt;
  return n;
}

// The graph of the architectures GraphSize has a formula for (llama and
// qwen2 here; the rest take the fallback, docs/engine-ollama.md).
struct Graph {
  uint64_t partial = 0;
  uint64_t full = 0;
};
Graph formula_graph(const ModelSpec& spec, uint64_t context, uint64_t batch) {
  const uint64_t embedding = spec.geometry.hidden;
  const uint64_t heads = spec.geometry.heads;
  const uint64_t heads_kv = spec.geometry.kv_heads;
  const uint64_t head_dim = spec.geometry.head_dim;
  const uint64_t vocab = spec.geometry.vocab;
  Graph g;
  if (spec.model_type == "llama" && spec.moe.experts == 0) {
    g.full = std::max(4 * batch * (1 + 4 * embedding + context * (1 + heads)), 4 * batch * (embedding + vocab));
    g.partial = 4 * batch * embedding +
                std::max(4 * batch * (1 + embedding + std::max(context, embedding)) + embedding * embedding * 9 / 16 +
                             4 * context * (batch * heads + head_dim * heads_kv),
                         4 * batch * (embedding + vocab) + embedding * vocab * 105 / 128);
  } else if (spec.model_type == "qwen2") {
    g.full = std::max(4 * batch * (embedding + vocab), 4 * batch * (1 + 2 * embedding + context + context * heads));
    g.partial = std::max(4 * batch * (embedding + vocab) + embedding * vocab * 105 / 128,
                         4 * (batch * (1 + 2 * embedding + context * (1 + heads)) + embedding * (1 + context)));
  }
  return g;
}

// Each block's tensors (GGML.Tensors().GroupLayers()) and the output
// layer: output_norm + output, or token_embd when the output is tied ("We
// historically haven't included InputWeights").
void group_weights(const Model& model, std::vector<uint64_t>& weights) {
  const uint64_t blocks = weights.size() - 1;
  uint64_t output = 0, token_embd = 0;
  bool has_output = false;
  for (const SafetensorsTensor& t : model.tensors) {
    if (std::optional<uint64_t> b = block_of(t.name)) {
      if (*b < blocks) weights[*b] = (CheckedBytes(weights[*b]) + t.data_bytes).saturated();
    } else if (t.name.starts_with("output_norm.")) {
      output = (CheckedBytes(output) + t.data_bytes).saturated();
    } else if (t.name.starts_with("output.")) {
      output = (CheckedBytes(output) + t.data_bytes).saturated();
      has_output = true;
    } else if (t.name.starts_with("token_embd.")) {
      token_embd = (CheckedBytes(token_embd) + t.data_bytes).saturated();
    }
  }
  weights[blocks] = (CheckedBytes(output) + (has_output ? 0 : token_embd)).saturated();
}

// Without a tensor list (a config-only model): the weights at their mean
// bytes per parameter, the output layer hidden x vocab of them and the
// blocks an even share of the rest (less a second hidden x vocab for an
// untied embedding). Modelled (docs/engine-ollama.md).
void spread_weights(const Model& model, std::vector<uint64_t>& weights) {
  const uint64_t blocks = weights.size() - 1;
  const uint64_t params = model.spec.analytical_params;
  const uint64_t table_params = model.spec.geometry.hidden * model.spec.geometry.vocab;
  const uint64_t table_bytes =
      params == 0 ? 0 : static_cast<uint64_t>(static_cast<double>(model.weights.bytes) * table_params / params);
  weights[blocks] = table_bytes;
  const uint64_t tables = model.spec.tied_embeddings ? table_bytes : 2 * table_bytes;
  const uint64_t rest = model.weights.bytes > tables ? model.weights.bytes - tables : 0;
  for (uint64_t i = 0; i < blocks; ++i) weights[i] = rest / std::max<uint64_t>(blocks, 1);
}

}  // namespace

Result<LayerSizes> llama_runner_sizes(const Model& model, const OllamaDecisions& d) {
  const ModelSpec& spec = model.spec;
  const uint64_t blocks = spec.layers.size();
  LayerSizes s;
  s.weights_bytes.assign(blocks + 1, 0);
  if (model.tensors.empty()) {
    spread_weights(model, s.weights_bytes);
  } else {
    group_weights(model, s.weights_bytes);
  }

  // GraphSize's cells are num_ctx x parallel.
  const uint64_t context = (CheckedBytes(d.context.num_ctx) * d.parallel).saturated();
  const double bpe = bytes_per_element(d.kv_type);
  s.layer_bytes.assign(blocks + 1, 0);
  uint64_t kv_total = 0;
  for (uint64_t i = 0; i < blocks; ++i) {
    const LayerCache& layer = spec.layers[i];
    // An attention layer holds every cell whatever its window; a layer
    // without heads is taken as recurrent, its state in f32.
    const uint64_t kv = layer.elems_per_token > 0
                            ? static_cast<uint64_t>(static_cast<double>(context * layer.elems_per_token) * bpe)
                            : layer.state_bytes;
    kv_total = (CheckedBytes(kv_total) + kv).saturated();
    s.layer_bytes[i] = (CheckedBytes(s.weights_bytes[i]) + kv).saturated();
    if (i == 0) s.first_layer_buffer_bytes = s.layer_bytes[0];
  }
  s.layer_bytes[blocks] = s.weights_bytes[blocks];

  Graph g = formula_graph(spec, context, d.num_batch);
  if (g.partial == 0) {
    // No formula: (heads / kv heads) x the whole cache / 6.
    const uint64_t gqa = spec.geometry.heads / std::max<uint64_t>(spec.geometry.kv_heads, 1);
    g.partial = (CheckedBytes(gqa) * kv_total).saturated() / 6;
  }
  if (g.full == 0) g.full = g.partial;
  s.graph_partial_bytes = g.partial;
  s.graph_full_bytes = g.full;
  return s;
}

}  // namespace memfit::ollama
