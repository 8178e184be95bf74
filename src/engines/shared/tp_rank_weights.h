// One tensor-parallel rank's weights as loaded by the engines whose
// linear layers split a checkpoint the same way (vLLM and SGLang, whose
// layers follow vLLM's): tensor by tensor from the checkpoint's list, or
// from the config's geometry without one; plus the rotary cos/sin cache and
// the MXFP4 experts as their MoE kernel lays them out. The rules: docs/engine-vllm.md,
// "Terms, per rank" (SGLang prices its weights by them,
// docs/engine-sglang.md). Private to the library.
#ifndef MEMFIT_ENGINES_SHARED_TP_RANK_WEIGHTS_H_
#define MEMFIT_ENGINES_SHARED_TP_RANK_WEIGHTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "memfit/model.h"
#include "memfit/parallel_plan.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

// The kernel vLLM runs an MXFP4 checkpoint's routed experts on (gpt-oss),
// which lays their weights out (docs/engine-vllm.md, "MXFP4 experts"):
//   kTriton      OpenAI's triton_kernels (matmul_ogs): Hopper, SM 10.x
//                without FlashInfer, ROCm
//   kMarlin      Marlin's weight-only FP4 MoE: the other CUDA GPUs, and
//                Hopper where triton_kernels is not importable
//   kFlashInfer  FlashInfer's MXFP4 MoE: datacenter Blackwell
enum class Mxfp4Kernel { kTriton, kMarlin, kFlashInfer };
std::string_view to_string(Mxfp4Kernel kernel);  // "triton" / "marlin" / "flashinfer"
// The kernel a name says (those of to_string); nullopt for any other.
std::optional<Mxfp4Kernel> parse_mxfp4_kernel(std::string_view name);

struct TpRankWeights {
  uint64_t bytes = 0;             // tensors per rank + rope cache + padding
  uint64_t rope_cache_bytes = 0;  // cos/sin caches (rope_cache.h; modelled)
  uint64_t padding_bytes = 0;     // MXFP4 experts as the MoE kernel holds them, past the checkpoint's
  bool from_tensor_list = false;  // split tensor by tensor (else from the config's geometry)
  bool exact = false;             // the tensor list was read from the headers
};

// One pipeline stage of vLLM's split (docs/engine-vllm.md, "Pipeline
// parallelism"): its decoder layers [begin, end) of the model's
// spec.layers (get_pp_indices, vllm/distributed/utils.py), and whether it
// is the first stage (which holds the embedding) or the last (which holds
// the final norm and the LM head, and with tied embeddings the embedding
// as that head: the models' `is_first_rank or (tie_word_embeddings and
// is_last_rank)`, e.g. vllm/model_executor/models/llama.py, LlamaModel).
// A single stage is first and last and holds every layer. Some model
// classes build the embedding, norm and head on every stage (qwen3_moe:
// tp_rank_weights.cc, tables_on_every_stage); their stages hold them all.
struct PipelineStage {
  LayerRange layers;
  bool first = true;
  bool last = true;
};

// The stages of a run of `pipeline_parallel` stages over `layers` decoder
// layers, stage 0 first. Fails as pipeline_layer_ranges does.
Result<std::vector<PipelineStage>> vllm_pipeline_stages(uint64_t layers, uint64_t pipeline_parallel);

// The weights one rank of `tensor_parallel` holds. `tensors` is the
// checkpoint's tensor list (empty: split the model's total by its
// geometry); `mxfp4_kernel` lays out an MXFP4 checkpoint's experts;
// `stage` (nullopt: the whole model) is the pipeline stage the rank
// belongs to. Fails on overflow.
Result<TpRankWeights> tp_rank_weights(const Model& model, std::span<const SafetensorsTensor> tensors,
                                      uint64_t tensor_parallel, Mxfp4Kernel mxfp4_kernel,
                                      const std::optional<PipelineStage>& stage = std::nullopt);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_TP_RANK_WEIGHTS_H_
