// The image encoder's graph Ollama's own engine reserves before its text
// graph (docs/engine-ollama.md, "Ollama's own engine"), replayed with
// ggml-alloc's rules for gemma3's SigLIP encoder and projector.
//
// runner/ollamarunner/runner.go reserveWorstCaseGraph (v0.9.6): a vision
// model first encodes a 2048 x 2048 image (EncodeMultimodal, whose
// processor resizes it to the encoder's image_size), and
// multimodal.go getTensor reserves that graph (computeCtx.Reserve) on the
// backend's one scheduler, before the text batch's graph: the scheduler's
// buffers only grow, so each device's "compute graph" record is the larger
// of the two. The encoder's tensors (v.*, mm.*) are on the output layer's
// device (ml/backend/ggml/ggml.go New, v0.9.6 line 304).
#ifndef MEMFIT_ENGINES_OLLAMA_VISION_GRAPH_H_
#define MEMFIT_ENGINES_OLLAMA_VISION_GRAPH_H_

#include <cstdint>
#include <optional>

#include "memfit/result.h"

namespace memfit::ollama {

// A gemma3 config's vision_config (siglip_vision_model) and projector.
struct VisionEncoderShape {
  uint64_t layers = 0;            // vision num_hidden_layers
  uint64_t hidden = 0;            // vision hidden_size
  uint64_t heads = 0;             // vision num_attention_heads
  uint64_t ffn = 0;               // vision intermediate_size
  uint64_t image = 0;             // image_size (pixels a side)
  uint64_t patch = 0;             // patch_size (pixels a side)
  uint64_t channels = 3;          // num_channels
  uint64_t text_hidden = 0;       // the text model's hidden_size (the projector's rows)
  uint64_t tokens_per_image = 0;  // mm_tokens_per_image (256 when absent)
};

// The bytes ggml-alloc reserves for gemma3's EncodeMultimodal graph on a
// device aligned to `alignment` B (a GPU's record before v0.12.4 holds no
// pool of the backend's: releases.h own_engine_graph_holds_gpu_pool), as
// model/models/gemma3/{model_vision.go,model.go} and ml/nn/attention.go
// build it from v0.6.0 to v0.11.x: the encoder's attention is nn.Attention
// without a cache, so never the SDPA path (the scores materialised, F32:
// heads x patches x patches x 4 B). From v0.12.0 nn.Attention forwards Q,
// K and V first (ad95d5b30) and from v0.13.2 takes flash attention for
// encoders (1108d8b34): other graphs, not this one. nullopt for a shape
// the replay does not bound (a zero or a factor past the builders' bounds,
// an image not a whole number of patches, a pool that does not divide).
Result<std::optional<uint64_t>> gemma3_vision_graph_bytes(const VisionEncoderShape& s, uint64_t alignment);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_VISION_GRAPH_H_
