// The tensors llama.cpp's converter (convert_hf_to_gguf.py's DeciModel)
// writes for NVIDIA's Nemotron-NAS models (GGUF deci: Llama-3.1-Nemotron
// 51B, Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-Ultra-253B), whose
// layers each have their own heads and FFN width, or none, as llama.cpp's
// loader creates them (src/llama-model.cpp, load_tensors: LLM_ARCH_DECI).
// Private to the library; engines/llamacpp/quantize_plan.h's
// converted_tensors() is the way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_DECI_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_DECI_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

struct ConvertedTensor;

// One count a layer (the GGUF's per-layer arrays) and the head width.
struct DeciWidths {
  std::vector<uint64_t> heads;     // attention.head_count: 0, no attention
  std::vector<uint64_t> kv_heads;  // attention.head_count_kv: 0 with heads, a linear layer
  std::vector<uint64_t> ff;        // feed_forward_length: 0, no FFN
  uint64_t head_dim = 0;           // attention.key_length (= value_length)
};

// The widths from a GGUF's deci.* keys (a file's header, or a llama.cpp
// log's dump with its cut arrays filled from print_info); nullopt when the
// architecture is not deci. An error naming the key when one is missing.
Result<std::optional<DeciWidths>> deci_widths_of_gguf(const GgufHeader& header);

// Whether `w` can size `spec`'s tensors: one entry a layer, a head width,
// and the widest rows (hidden x heads x head_dim, hidden x FFN) within 64
// bits.
bool deci_widths_fit(const ModelSpec& spec, const DeciWidths& w);

// Block `i`'s tensors, by name. Requires deci_widths_fit(spec, w).
void add_deci_block(const ModelSpec& spec, const DeciWidths& w, uint64_t i, std::vector<ConvertedTensor>& out);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_DECI_H_
