// The tensors llama.cpp's converter (convert_hf_to_gguf.py, T5EncoderModel)
// writes for T5's encoder alone (GGUF t5encoder: T5EncoderModel and
// UMT5EncoderModel checkpoints, the text encoders of diffusion pipelines),
// as llama.cpp's loader creates them (src/llama-model.cpp, load_tensors,
// LLM_ARCH_T5ENCODER). Private to the library; engines/llamacpp/
// quantize_plan.h's converted_tensors() is the way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_T5_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_T5_H_

#include <vector>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {

// model_type "t5encoder" (a GGUF's architecture): built from a dump.
bool t5_encoder(const ModelSpec& spec);

// Appends the encoder's tensors to `out`: token_embd and enc.output_norm,
// then block by block, by name. `hints`: the relative attention bias's
// buckets (ConverterHints::t5_relative_buckets) and whether every block
// has one (UMT5) or the first alone (T5).
void add_t5_encoder_tensors(const ModelSpec& spec, const ConverterHints& hints,
                            std::vector<ConvertedTensor>& out);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_T5_H_
