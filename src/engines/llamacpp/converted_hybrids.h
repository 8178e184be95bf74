// The tensors llama.cpp's converter (convert_hf_to_gguf.py) writes for the
// Mamba-2 and short-convolution hybrids memfit converts: Granite 4.0's
// hybrid (GGUF granitehybrid), Nemotron-H (nemotron_h, nemotron_h_moe),
// LFM2 and Falcon-H1, as llama.cpp's loader creates them (src/llama-model.cpp,
// load_tensors: LLM_ARCH_GRANITE_HYBRID, LLM_ARCH_NEMOTRON_H(_MOE),
// LLM_ARCH_LFM2, llama_model_lfm2moe::load_arch_tensors,
// llama_model_falcon_h1::load_arch_tensors). Private to the library; engines/llamacpp/
// quantize_plan.h's converted_tensors() is the way in.
#ifndef MEMFIT_ENGINES_LLAMACPP_CONVERTED_HYBRIDS_H_
#define MEMFIT_ENGINES_LLAMACPP_CONVERTED_HYBRIDS_H_

#include <vector>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {

enum class ConvertedHybrid {
  kNone,       // not a hybrid this file builds
  kGranite,    // model_type "granitemoehybrid": Mamba-2 or attention, then an FFN
  kNemotronH,  // model_type "nemotron_h": Mamba-2, attention, MLP or MoE layers
  kLfm2,       // model_type "lfm2" or "lfm2_moe": short convolution or attention, then an FFN
  kFalconH1,   // model_type "falcon_h1": attention and a Mamba-2 mixer side by side, then an FFN
};

// Which hybrid `spec` is, given widths its tensors can be sized by: the
// Mamba-2 widths (heads, inner, groups dividing inner, state, kernel) for
// Granite and Nemotron-H, whose layers are each kSsm, kFullAttention (or,
// for Nemotron-H, kNone: an MLP or MoE block), and for Falcon-H1 (no
// experts), whose layers are each kFullAttention with the mixer's state
// beside (model/config/layer_plan.cc); LFM2's layers each kConv
// or kFullAttention, its convolution width read back from a kConv
// layer's state (lfm2_conv_kernel). kNone otherwise, and where the
// widest row (ssm_in's, hidden x (2 inner + 2 groups x state + heads))
// would not fit 64 bits.
ConvertedHybrid converted_hybrid(const ModelSpec& spec);

// LFM2's short convolution width (the config's conv_L_cache, the GGUF's
// shortconv.l_cache): a kConv layer's state_bytes hold (width - 1) x
// hidden f32 values (model/config/recurrent_state.cc), so the width is
// state_bytes / (4 x hidden) + 1. 0 when no kConv layer's state divides so.
uint64_t lfm2_conv_kernel(const ModelSpec& spec);

// Appends a Mamba-2 mixer's tensors of the block whose names begin with
// `blk` ("blk.3."): ssm_a, ssm_conv1d, ssm_d, ssm_dt, ssm_in, ssm_norm and
// ssm_out at spec.mamba2's widths (converted_hybrids.cc says each).
void add_mamba2_mixer(const ModelSpec& spec, const std::string& blk, std::vector<ConvertedTensor>& out);

// The tensors outside the blocks the hybrid adds to the standard ones
// (output, output_norm, token_embd): LFM2's token_embd_norm.
void add_hybrid_globals(const ModelSpec& spec, ConvertedHybrid kind, std::vector<ConvertedTensor>& out);

// Appends block `i`'s tensors to `out`, by name. Requires
// converted_hybrid(spec) == kind, kind != kNone. `hints`: what a dump's
// counts decided (ConverterHints::falcon_h1_no_ssm_norm).
void add_hybrid_block(const ModelSpec& spec, ConvertedHybrid kind, const ConverterHints& hints, uint64_t i,
                      std::vector<ConvertedTensor>& out);

}  // namespace memfit::llamacpp

#endif  // MEMFIT_ENGINES_LLAMACPP_CONVERTED_HYBRIDS_H_
