// The tensors llama.cpp's converter writes for the Mamba-1 models: Mamba
// (GGUF mamba, convert_hf_to_gguf's MambaModel: every block a Mamba-1
// mixer) and Jamba (GGUF jamba, JambaModel: Mamba-1 mixers with attention
// every eighth layer, routed experts every other layer), as llama.cpp's
// loader creates them (src/models/mamba.cpp; src/llama-model.cpp,
// load_tensors: LLM_ARCH_JAMBA). Both are built only with a GGUF's ssm.*
// widths (a file's header or a llama.cpp log's dump).
// Private to the library; engines/llamacpp/quantize_plan.h's
// converted_tensors() is the way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_MAMBA1_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_MAMBA1_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit::llamacpp {

struct ConvertedTensor;

// A Mamba-1 mixer's widths (the GGUF's ssm.* keys): d_inner, d_state,
// d_conv and dt_rank.
struct Mamba1Widths {
  uint64_t inner = 0;    // ssm.inner_size
  uint64_t state = 0;    // ssm.state_size
  uint64_t conv = 0;     // ssm.conv_kernel
  uint64_t dt_rank = 0;  // ssm.time_step_rank
};

// The Mamba-1 widths of a mamba or jamba GGUF (its <arch>.ssm.* keys: a
// file's header, or a llama.cpp log's dump); nullopt for any other
// architecture. An error naming the key when one is missing.
Result<std::optional<Mamba1Widths>> mamba1_widths_of_gguf(const GgufHeader& header);

// Whether `w` can size `spec`'s tensors as Jamba's: every layer a Mamba
// mixer (kSsm) or attention (kFullAttention), the widths nonzero and the
// widest rows (ssm_in's hidden x 2 inner, the experts') within 64 bits.
bool jamba_widths_fit(const ModelSpec& spec, const Mamba1Widths& w);

// Whether `w` can size `spec`'s tensors as Mamba's (model_type mamba):
// every layer a Mamba mixer (kSsm), the widths nonzero and ssm_in's and
// ssm_x's rows within 64 bits.
bool mamba1_widths_fit(const ModelSpec& spec, const Mamba1Widths& w);

// Jamba's block `i`'s tensors, by name. Requires jamba_widths_fit(spec, w).
void add_jamba_block(const ModelSpec& spec, const Mamba1Widths& w, uint64_t i, std::vector<ConvertedTensor>& out);

// Mamba's block `i`'s tensors, by name. Requires mamba1_widths_fit(spec,
// w). `small_f32`: ssm_x and ssm_dt written F32, as the converter did
// before llama.cpp dropped its MambaModel.tensor_force_quant
// (QuantizeRules::mamba1_small_f32).
void add_mamba1_block(const ModelSpec& spec, const Mamba1Widths& w, bool small_f32, uint64_t i,
                      std::vector<ConvertedTensor>& out);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_MAMBA1_H_
