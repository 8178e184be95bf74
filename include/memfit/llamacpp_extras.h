// What else a real llama-server holds besides the model's own three
// categories (docs/llamacpp-rules.md, "Server extras"): each is one line of
// the llama.cpp estimate, on a device of the placement, and adds to that
// device's total and to the estimate's total_bytes.
//
//   mmproj   --mmproj FILE: the multimodal projector's weights (exact, the
//            GGUF header's tensor bytes) and its image-encoding compute
//            buffer (modelled), on the first GPU unless --no-mmproj-offload
//            or there is no GPU, else the host
#ifndef MEMFIT_LLAMACPP_EXTRAS_H_
#define MEMFIT_LLAMACPP_EXTRAS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/result.h"

namespace memfit {

// A projector file (--mmproj), read from its GGUF header.
struct LlamaCppProjector {
  std::string path;            // as given
  uint64_t weights_bytes = 0;  // every tensor's bytes (exact)
  // The image-encoding compute buffer (modelled; 0 when the header has no
  // clip.vision geometry, compute_modelled false):
  //   N = (image_size / patch_size)^2 patches,
  //   4 x N x (head_count x N + 2 x embedding_length + feed_forward_length)
  // bytes: the f32 attention scores of every head for the largest image
  // the encoder takes, plus the block's input, output and FFN activations.
  uint64_t compute_bytes = 0;
  bool compute_modelled = false;
};

// The projector of a GGUF header (general.architecture "clip"). kInput
// when the file is not a projector (another architecture), naming `path`;
// kOverflow on absurd sizes.
Result<LlamaCppProjector> llamacpp_projector(const GgufHeader& header, const std::string& path);

// The extras of a llama-server command line, resolved from their files.
struct LlamaCppExtrasSettings {
  std::optional<LlamaCppProjector> mmproj;  // --mmproj
  bool mmproj_offload = true;               // --no-mmproj-offload clears it
};

// One extra as the report shows it.
struct LlamaCppExtraLine {
  std::string name;            // "mmproj weights", "mmproj compute"
  std::string file;            // the file it comes from, as given
  std::string device;          // a placement device: "cuda:0", ..., "cpu"
  uint64_t bytes = 0;
  bool exact = false;          // false: modelled
};

}  // namespace memfit

#endif  // MEMFIT_LLAMACPP_EXTRAS_H_
