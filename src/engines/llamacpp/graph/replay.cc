// The replayed compute buffer (llamacpp/parts.h): the first graph builder
// that covers the model, the prompt and token graphs llama.cpp reserves.
#include <algorithm>
#include <utility>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {

namespace graph {

Result<uint64_t> reserve_bytes(const LlamaCppContext& c, const GraphOf& graph_of) {
  return reserve_bytes(c, std::max<uint64_t>(c.streams, 1), graph_of);
}

Result<uint64_t> reserve_bytes(const LlamaCppContext& c, uint64_t seqs, const GraphOf& graph_of) {
  return reserve_bytes(c, seqs, kCpuTensorAlignment, graph_of);
}

Result<uint64_t> reserve_bytes(const LlamaCppContext& c, uint64_t seqs, uint64_t alignment,
                               const GraphOf& graph_of) {
  const uint64_t streams = std::max<uint64_t>(c.streams, 1);
  // The prompt graph: the ubatch's tokens rounded up to whole sequences,
  // its output rows capped by n_outputs_max (#23861, b9460); then the
  // token graph, one token and one output row a sequence.
  const uint64_t n_out = reserved_output_rows(c);
  const CheckedBytes n_tok = round_up(std::min(c.n_ctx, c.n_ubatch), std::max<uint64_t>(seqs, 1));
  if (!n_tok.value() || *n_tok.value() >= kMaxFactor || c.n_seq >= kMaxFactor) {
    return Error::overflow("llama.cpp compute graph: the ubatch is absurd");
  }
  uint64_t best = 0;
  for (auto [tok, out] : {std::pair{*n_tok.value(), n_out}, std::pair{c.n_seq, c.n_seq}}) {
    if (tok == 0 || tok % streams != 0) continue;
    Result<uint64_t> bytes = ggml_graph::replay_allocation(graph_of(tok, out), alignment);
    if (!bytes) return bytes.error();
    best = std::max(best, *bytes);
  }
  return best;
}

Result<std::optional<uint64_t>> replayed(Result<uint64_t> bytes) {
  if (!bytes) return bytes.error();
  return std::optional<uint64_t>(*bytes);
}

}  // namespace graph

Result<std::optional<uint64_t>> replayed_compute_bytes(const Model& model, const LlamaCppContext& c,
                                                       const LlamaCppSettings& settings) {
  const ModelSpec& spec = model.spec;
  // The builders replay the generation graph; an encoder's graph or one
  // that pools embeddings is priced by the phases (docs/embedding-models.md).
  if (settings.embedding || spec.embedding.bidirectional) return std::optional<uint64_t>();
  // The decoder's builder takes the build's graph (at_build_graph: the
  // token path alone and the F32 mask cast of a build before #18898, as
  // Ollama's runner vendors it at every release memfit reads). The others
  // mirror the pinned graph, its vector-input `inp_embd` and its F16 mask
  // input: an older build's is priced by the phases.
  Result<std::optional<uint64_t>> decoder = graph::replay_decoder(spec, c, settings);
  if (!decoder || decoder->has_value()) return decoder;
  if (!vector_input_leaf(settings)) return std::optional<uint64_t>();
  Result<std::optional<uint64_t>> gemma3 = graph::replay_gemma3(spec, c, settings);
  if (!gemma3 || gemma3->has_value()) return gemma3;
  // The builders that read the file's own facts; a model from a config.json
  // has the defaults (no MLA graph: the phase model prices it).
  const graph::FileFacts facts =
      model.gguf ? graph::file_facts(*model.gguf, spec.layers.size()) : graph::FileFacts{};
  using FactsBuilder = Result<std::optional<uint64_t>> (*)(
      const ModelSpec&, const graph::FileFacts&, const LlamaCppContext&, const LlamaCppSettings&);
  for (FactsBuilder builder : {&graph::replay_mla, &graph::replay_recurrent}) {
    Result<std::optional<uint64_t>> bytes = builder(spec, facts, c, settings);
    if (!bytes || bytes->has_value()) return bytes;
  }
  return std::optional<uint64_t>();
}

Result<std::optional<uint64_t>> replayed_device_compute_bytes(const Model& model, const LlamaCppContext& c,
                                                              const LlamaCppSettings& settings,
                                                              const std::vector<int>& device_of_layer,
                                                              int device, bool metal) {
  const ModelSpec& spec = model.spec;
  if (settings.embedding || spec.embedding.bidirectional) return std::optional<uint64_t>();
  return graph::replay_decoder_device(spec, c, settings, device_of_layer, device, metal);
}

Result<std::optional<uint64_t>> replayed_offload_compute_bytes(const Model& model, const LlamaCppContext& c,
                                                               const LlamaCppSettings& settings,
                                                               const std::vector<int>& device_of_layer,
                                                               const WeightHomes& homes, int offload_gpu,
                                                               int device, bool offload_get_rows) {
  const ModelSpec& spec = model.spec;
  if (settings.embedding || spec.embedding.bidirectional) return std::optional<uint64_t>();
  Result<std::optional<uint64_t>> decoder =
      graph::replay_decoder_offload(spec, c, settings, device_of_layer, homes, offload_gpu, device,
                                    offload_get_rows);
  if (!decoder || decoder->has_value()) return decoder;
  return graph::replay_deepseek2_legacy_offload(spec, c, settings, device_of_layer, homes, offload_gpu, device);
}

}  // namespace memfit::llamacpp
