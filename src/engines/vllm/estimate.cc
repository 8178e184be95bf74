// estimate_vllm(): one rank of `vllm serve` (vllm.h): its weights as loaded
// (split by tensor, or by the config's geometry without a tensor list), the
// profile's activation peak, non-torch memory and CUDA graphs, and the KV
// cache the utilization leaves. The terms and their sources:
// docs/engine-vllm.md, "Terms, per rank".
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "bands/error_bands.h"
#include "engines/shared/trained_context.h"
#include "engines/shared/gpu_class.h"
#include "engines/vllm/allocations.h"
#include "engines/vllm/cuda_graphs.h"
#include "engines/vllm/rocm.h"
#include "memfit/checked_math.h"
#include "engines/shared/parallel_tensors.h"
#include "engines/shared/rope_cache.h"
#include "memfit/parallel_plan.h"
#include "memfit/vllm.h"
#include "engines/vllm/parts.h"
#include "engines/shared/tp_rank_weights.h"
#include "engines/vllm/lora.h"

namespace memfit {
namespace {

constexpr uint64_t kAct = 2;             // bf16 / fp16 activations
constexpr uint64_t kFusedMoeChunk = 32768;  // VLLM_FUSED_MOE_CHUNK_SIZE

// The [T, hidden] 16-bit tensors the profile's forward holds at its peak,
// a layer's MLP: four (the residual, the layer's input the model's loop
// still holds, the normed input the MLP's caller holds, the down
// projection's output). Under TP a model run eagerly (V0's engine; V1
// with --enforce-eager, no torch.compile to free tensors at their last
// use) holds a fifth: RowParallelLinear.forward keeps its partial output
// while the all-reduce writes the sum to a new tensor
// (vllm/distributed/parallel_state.py, GroupCoordinator's
// _all_reduce_out_place: the custom all-reduce's output, or
// PyNcclCommunicator.all_reduce's torch.empty_like). docs/engine-vllm.md,
// "Activation".
uint64_t forward_hidden_tensors(const VllmSettings& s) {
  const bool eager = s.v0_engine || s.enforce_eager;
  return eager && s.tensor_parallel > 1 ? 5 : 4;
}

// The profile's forward pass of max_num_batched_tokens tokens T on this
// rank: the hidden states held at its peak (forward_hidden_tensors) plus
// the larger of a layer's attention projections and its MLP / fused-MoE
// intermediates.
uint64_t forward_bytes(const ModelSpec& spec, const VllmSettings& s) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t tp = s.tensor_parallel, T = s.max_num_batched_tokens;
  const CheckedBytes hidden = CheckedBytes(T) * g.hidden * kAct;
  const uint64_t heads = CheckedBytes::ceil_div(g.heads, tp).saturated();
  const uint64_t kv = g.kv_heads == 0 ? 0 : kv_heads_per_rank(g.kv_heads, tp);
  const CheckedBytes attention = CheckedBytes(T) * (CheckedBytes(heads) * 2 + kv * 2) * g.head_dim * kAct;
  CheckedBytes mlp = CheckedBytes(T) * 3 * CheckedBytes::ceil_div(g.intermediate, tp) * kAct;
  if (spec.moe.experts != 0) {
    const uint64_t width =
        spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    const uint64_t k = std::max<uint64_t>(1, spec.moe.experts_per_token);
    const CheckedBytes n = CheckedBytes::ceil_div(width, tp);
    mlp = CheckedBytes(std::min(T, kFusedMoeChunk)) * k * (n * 3 + g.hidden) * kAct;
  }
  const uint64_t layer = std::max(attention.saturated(), mlp.saturated());
  return (hidden * forward_hidden_tensors(s) + layer).saturated();
}

// The profiled peak: the larger of the forward pass (forward_bytes) and
// the dummy sampler run, which holds the forward's T hidden states while it
// samples min(max_num_seqs, T) rows over the whole vocabulary (the logits
// are gathered on every rank): on the V1 runner kVllmSamplerBytesPerLogit a
// row and entry where it sorts the logits (vllm_v1_sampler_sorts), else
// kVllmV2LogitBytes over the padded vocabulary + kVllmUnsortedSamplerBytes;
// kVllmV2LogitBytes + kVllmV2SamplerCopyBytes on V2 (`v2`).
uint64_t activation_bytes(const ModelSpec& spec, const VllmSettings& s, VllmAccounting accounting,
                          bool v2) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t tp = s.tensor_parallel, T = s.max_num_batched_tokens;
  const CheckedBytes hidden = CheckedBytes(T) * g.hidden * kAct;
  const CheckedBytes forward(forward_bytes(spec, s));
  // The pooling runner computes no logits and samples nothing: its dummy
  // run pools the forward's hidden states (docs/embedding-models.md).
  if (s.runner == VllmRunner::kPooling) return forward.saturated();
  const uint64_t padded_vocab =
      (CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding).saturated();
  if (accounting == VllmAccounting::kV07) {
    // v0.7's profile_run: compute_logits over every one of the T rows (16-bit,
    // the vocabulary padded to 64 and gathered whole; under TP the rank's
    // shard is alive during the gather), no sampler run. Its peak is the
    // absolute one, so the runner's persistent input buffers allocated
    // before it count: input ids (int32), positions (int64) and the input
    // embeddings (T x hidden, 16-bit).
    CheckedBytes logits = CheckedBytes(T) * padded_vocab * kAct;
    if (tp > 1) logits += CheckedBytes(T) * CheckedBytes::ceil_div(padded_vocab, tp) * kAct;
    const CheckedBytes buffers = CheckedBytes(T) * (CheckedBytes(g.hidden) * kAct + 4 + 8);
    return (buffers + std::max(forward.saturated(), (hidden + logits).saturated())).saturated();
  }
  const uint64_t rows = std::min(s.max_num_seqs, T);
  if (v2 || !vllm_v1_sampler_sorts(s)) {
    // Sampling without a sort: the 16-bit logits (the padded vocabulary,
    // gathered whole under TP: the rank's shard is freed before the
    // sampler) live beside the forward's hidden states with the sampler's
    // float32 tensors over the vocabulary. The V2 runner (0.29 on), whose
    // rows are its requests, min(max_num_batched_tokens, max_num_seqs),
    // one logit each, holds its float32 copy (kVllmV2SamplerCopyBytes); the
    // V1 runner without the sort (0.22 on, or FlashInfer's kernel as a log
    // shows it) holds Sampler.forward's float32 copy and two float32
    // tensors of the same shape (FlashInfer's masked logits and
    // probabilities, or the native path's probabilities and exponential
    // noise after the Triton masking in place: kVllmUnsortedSamplerBytes).
    const uint64_t float32_bytes = v2 ? kVllmV2SamplerCopyBytes : kVllmUnsortedSamplerBytes;
    const CheckedBytes logits = CheckedBytes(rows) * padded_vocab * kVllmV2LogitBytes +
                                CheckedBytes(rows) * g.vocab * float32_bytes;
    return std::max(forward.saturated(), (hidden + logits).saturated());
  }
  const CheckedBytes sampler = hidden + CheckedBytes(rows) * g.vocab * kVllmSamplerBytesPerLogit;
  return std::max(forward.saturated(), sampler.saturated());
}

// The settings once defaults are resolved and max_model_len is taken from
// the config when not given; kUsage naming the field that is out of range.
Status check_settings(VllmSettings& s, const ModelSpec& spec) {
  vllm_resolve_defaults(s);
  if (!(s.gpu_memory_utilization > 0.0 && s.gpu_memory_utilization <= 1.0)) {
    return Error::usage("gpu_memory_utilization", "must be in (0, 1]");
  }
  for (auto [field, v] : {std::pair{"block_size", s.block_size}, std::pair{"max_num_seqs", s.max_num_seqs},
                          std::pair{"max_num_batched_tokens", s.max_num_batched_tokens},
                          std::pair{"tensor_parallel", s.tensor_parallel}}) {
    if (v == 0 || v > kVllmMaxTokens) {
      return Error::usage(field, fmt::format("must be between 1 and {}", kVllmMaxTokens));
    }
  }
  if (Status bad = check_vllm_mamba_dtypes(s); !bad) return bad.error();
  if (s.max_model_len > kVllmMaxTokens || s.num_speculative_tokens > 64) {
    return Error::usage(s.max_model_len > kVllmMaxTokens ? "max_model_len" : "num_speculative_tokens",
                        "is too large");
  }
  // vLLM's default: the length it derives, rope scaling considered
  // (longrope: the config's original length; trained_context.h).
  // A scaled default past memfit's ceiling (a factor of millions) is
  // capped there: no real run reaches it.
  if (s.max_model_len == 0) {
    s.max_model_len = std::min(vllm_default_max_model_len(spec), kVllmMaxTokens);
  }
  // --runner auto: pooling for a pooling architecture (ModelConfig's
  // runner resolution), generate otherwise.
  if (s.runner == VllmRunner::kAuto) {
    s.runner = spec.embedding.by_architecture ? VllmRunner::kPooling : VllmRunner::kGenerate;
  }
  if (s.max_model_len == 0) {
    return Error::usage("max_model_len", "the config declares no context: give max_model_len");
  }
  if (!s.kv_cache_memory && s.gpu_memory_total == 0) {
    return Error::usage("gpu_memory_total", "no GPU was found: give the GPU (gpu, e.g. h100-80gb), "
                                            "its total memory (gpu_memory_total) or kv_cache_memory");
  }
  return Status::Ok();
}

// ROCm's load figure is the device's used memory (the current line; v0.7
// measured PyTorch's allocated bytes there as on CUDA): the allocator's
// segments, the experts' padding and the HIP runtime on top.
Status add_rocm_load(const ModelSpec& spec, const VllmSettings& s, VllmEstimate& e) {
  if (!s.rocm || e.accounting == VllmAccounting::kV07) return Status::Ok();
  const VllmRocmLoad rocm = vllm_rocm_load(spec, s.tensor_parallel);
  e.weights.rocm_allocator_bytes = rocm.allocator_bytes;
  e.weights.rocm_padding_bytes = rocm.padding_bytes;
  e.weights.rocm_runtime_bytes = rocm.runtime_bytes;
  const CheckedBytes bytes = CheckedBytes(e.weights.bytes) + rocm.allocator_bytes + rocm.padding_bytes +
                             rocm.runtime_bytes;
  if (!bytes.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
  e.weights.bytes = *bytes.value();
  return Status::Ok();
}

// Qwen3-VL's DeepStack buffers: its constructor registers one zeroed
// tensor of max_num_batched_tokens x text hidden_size per entry of
// vision_config.deepstack_visual_indexes (models/qwen3_vl.py and
// qwen3_vl_moe.py, Qwen3VLForConditionalGeneration.__init__, since the
// model's v0.11.0 support), in the default dtype (the model's 16-bit one)
// on the device, so inside "Model loading took"; not sharded: every TP
// rank holds them whole.
Status add_deepstack(const ModelSpec& spec, const VllmSettings& s, VllmEstimate& e) {
  if (spec.deepstack_levels == 0) return Status::Ok();
  constexpr uint64_t kBufferElementBytes = 2;
  const CheckedBytes buffers = CheckedBytes(spec.deepstack_levels) * s.max_num_batched_tokens *
                               spec.geometry.hidden * kBufferElementBytes;
  const CheckedBytes bytes = CheckedBytes(e.weights.bytes) + buffers;
  if (!buffers.value() || !bytes.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
  e.weights.deepstack_bytes = *buffers.value();
  e.weights.bytes = *bytes.value();
  return Status::Ok();
}

// The LoRA slots (--enable-lora): allocated by load_lora_model inside the
// block "Model loading took" measures (lora.h).
Status add_lora(const ModelSpec& spec, const VllmSettings& s, VllmEstimate& e) {
  Result<uint64_t> lora = vllm_lora_bytes(spec, s);
  if (!lora) return lora.error();
  const CheckedBytes bytes = CheckedBytes(e.weights.bytes) + *lora;
  if (!bytes.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
  e.weights.lora_bytes = *lora;
  e.weights.bytes = *bytes.value();
  return Status::Ok();
}

// CUDA's load figure is PyTorch's allocated bytes, which hold each large
// parameter's block whole when its 2 MiB rounding leaves 1 MiB or less
// (allocations.h). The weights past the tensors are then modelled. ROCm's
// figure counts the segments reserved instead (add_rocm_load).
Status add_cuda_allocator(const ModelSpec& spec, const VllmSettings& s, VllmEstimate& e) {
  if (s.rocm && e.accounting != VllmAccounting::kV07) return Status::Ok();
  const uint64_t slack =
      vllm_cuda_allocated_slack(vllm_param_allocations(spec, s.tensor_parallel, VllmExpertPadding{}));
  if (slack == 0) return Status::Ok();
  const CheckedBytes bytes = CheckedBytes(e.weights.bytes) + slack;
  if (!bytes.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
  e.weights.bytes = *bytes.value();
  e.weights.exact = false;
  return Status::Ok();
}

// The longest request the KV blocks hold (binary search; blocks grow with
// length); 0 for an attention-free model.
uint64_t longest_request_fit(const VllmEstimate& e, const VllmSettings& s, uint64_t max_position_tokens) {
  if (e.layout.groups.empty()) return 0;
  uint64_t lo = 0, hi = std::max(s.max_model_len, max_position_tokens);
  hi = std::min(hi, kVllmMaxTokens);
  VllmKvLayout probe = e.layout;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    vllm_request_blocks(probe, s, mid);
    if (vllm_request_fits(probe, e.num_blocks, e.kv_cache_bytes)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The KV cache: what the utilization leaves after `non_kv` (or the bytes
// given), in blocks, tokens and requests.
void size_kv_cache(const VllmSettings& s, const CheckedBytes& non_kv, uint64_t max_position_tokens,
                   VllmEstimate& e) {
  if (s.gpu_memory_total != 0) {
    e.requested_bytes = static_cast<uint64_t>(
        std::floor(static_cast<long double>(s.gpu_memory_total) * s.gpu_memory_utilization));
  }
  if (e.layout.groups.empty()) {
    // No layer keeps a KV cache (an encoder under the pooling runner):
    // EngineCore._initialize_kv_caches skips the profile and gives the
    // cache no memory (vllm/v1/engine/core.py).
    e.kv_cache_bytes = 0;
  } else if (s.kv_cache_memory) {
    e.kv_given = true;
    e.kv_cache_bytes = *s.kv_cache_memory;
  } else {
    const CheckedBytes left = CheckedBytes(e.requested_bytes) - non_kv;
    e.kv_cache_bytes = left.value().value_or(0);
  }
  const VllmCapacity c = vllm_capacity(e.layout, e.kv_cache_bytes, s.max_model_len,
                                       vllm_tokens_form(s.release));
  e.num_blocks = c.num_blocks;
  e.kv_tokens = c.kv_tokens;
  e.max_concurrency = c.max_concurrency;
  // One block more than the requests need: vLLM's block pool keeps a null block.
  e.kv_cache_memory_for_seqs =
      ((CheckedBytes(e.layout.blocks_per_request) * s.max_num_seqs + 1) * e.layout.bytes_per_block).saturated();
  e.max_num_seqs_fit = e.layout.blocks_per_request == 0 ? 0 : e.num_blocks / e.layout.blocks_per_request;
  if (!e.layout.groups.empty()) e.max_model_len_fit = longest_request_fit(e, s, max_position_tokens);
}

}  // namespace

uint64_t vllm_profile_forward_bytes(const ModelSpec& spec, const VllmSettings& settings) {
  return forward_bytes(spec, settings);
}

double vllm_default_utilization(VllmAccounting accounting) {
  return accounting == VllmAccounting::kCurrent ? kVllmCurrentUtilization : kVllmUtilization;
}

void vllm_resolve_defaults(VllmSettings& s) {
  if (!s.rocm) s.rocm = names_amd_gpu(s.gpu_name);
  const GpuClass gpu = classify_gpu(s.gpu_name);
  bool large = s.gpu_memory_total >= kVllmLargeGpuBytes && gpu != GpuClass::kAmpereA100;
  const Result<VllmAccounting> accounting = vllm_accounting(s.release);
  const bool v07 = accounting && *accounting == VllmAccounting::kV07;
  if (s.gpu_memory_utilization == 0 && accounting) {
    s.gpu_memory_utilization = vllm_default_utilization(*accounting);
  }
  if (v07 && gpu != GpuClass::kUnknown) large = gpu == GpuClass::kHopperH100H200;
  if (s.max_num_batched_tokens == 0) {
    s.max_num_batched_tokens = large ? kVllmLargeGpuBatchedTokens : kVllmSmallGpuBatchedTokens;
  }
  if (s.max_num_seqs == 0) {
    const uint64_t seqs = v07 ? kVllmV07Seqs : large ? kVllmLargeGpuSeqs : kVllmSmallGpuSeqs;
    s.max_num_seqs = std::min(seqs, s.max_num_batched_tokens);
  }
}

bool vllm_uses_v2_runner(const ModelSpec& spec, const VllmSettings& s) {
  if (s.v2_model_runner) return *s.v2_model_runner;
  const bool default_v2 = !s.release || s.release->major > 0 || s.release->minor >= kVllmV2RunnerMinor;
  if (!default_v2) return false;
  const bool sparse_mla = std::ranges::any_of(spec.layers, [](const LayerCache& l) { return l.index_elems != 0; });
  return !(s.rocm && sparse_mla);
}

bool vllm_v1_sampler_sorts(const VllmSettings& s) {
  if (s.flashinfer_sampler.value_or(false)) return false;
  return s.release && s.release->major == 0 && s.release->minor < kVllmUnsortedSamplerMinor;
}

// get_mxfp4_backend (quantization/mxfp4.py, read in the newest source):
// FlashInfer's MXFP4 BF16 MoE on SM 10.x when FlashInfer is installed (as
// vLLM's wheels have it), triton_kernels on SM 9.0 to 10.x, Marlin on any
// other CUDA GPU; ROCm runs triton_kernels. A GPU without a name is taken
// for Hopper, where gpt-oss mostly runs.
Mxfp4Kernel vllm_mxfp4_kernel(const VllmSettings& s) {
  if (s.rocm) return Mxfp4Kernel::kTriton;
  switch (classify_gpu(s.gpu_name)) {
    case GpuClass::kBlackwellDatacenter: return Mxfp4Kernel::kFlashInfer;
    case GpuClass::kHopperH100H200:
    case GpuClass::kHopperOther:
    case GpuClass::kUnknown: return Mxfp4Kernel::kTriton;
    case GpuClass::kAmpereA100:
    case GpuClass::kOther: return Mxfp4Kernel::kMarlin;
  }
  return Mxfp4Kernel::kTriton;
}

Result<VllmWeights> vllm_rank_weights(const Model& model, std::span<const SafetensorsTensor> tensors,
                                      uint64_t tp, Mxfp4Kernel mxfp4_kernel,
                                      const std::optional<PipelineStage>& stage) {
  Result<TpRankWeights> shared = tp_rank_weights(model, tensors, tp, mxfp4_kernel, stage);
  if (!shared) return shared.error();
  VllmWeights w;
  w.bytes = shared->bytes;
  w.rope_cache_bytes = shared->rope_cache_bytes;
  // A multimodal rope's cache is vLLM's MRotaryEmbedding's (rope_cache.h),
  // in place of the plain one tp_rank_weights counted.
  if (const uint64_t mrope = vllm_mrope_cache_bytes(model.spec); mrope != 0) {
    const CheckedBytes bytes = CheckedBytes(w.bytes - w.rope_cache_bytes) + mrope;
    if (!bytes.value()) return Error::overflow("vLLM weights per rank overflow 64 bits");
    w.bytes = *bytes.value();
    w.rope_cache_bytes = mrope;
  }
  w.padding_bytes = shared->padding_bytes;
  w.from_tensor_list = shared->from_tensor_list;
  w.exact = shared->exact;
  return w;
}

namespace {

// The corpus's bands of the modelled terms that have a check-log figure
// (docs/validation-logs.md, "Error bands"): the weights when not exact or
// carrying ROCm's load terms, the CUDA graphs when captured, the KV cache
// the profile leaves (no margin of its own).
Result<ReportBands> vllm_bands(const VllmSettings& s, const VllmEstimate& e) {
  std::vector<ModelledFigure> figures;
  if (!e.weights.exact || e.weights.rocm_runtime_bytes != 0) figures.push_back({"weights", e.weights.bytes});
  if (e.cuda_graph_bytes != 0) figures.push_back({"cuda_graph", e.cuda_graph_bytes});
  // The KV cache is what the profile leaves: its band is shown, the
  // others' margins shrink it.
  if (!s.kv_cache_memory) figures.push_back({"kv_cache_available", 0, false});
  return report_bands("vllm", s.rocm ? "ROCm" : "CUDA", figures, s.confidence);
}

uint64_t margin_of(const ReportBands& bands, std::string_view figure) {
  for (const FigureBand& b : bands.figures) {
    if (b.figure == figure) return b.margin_bytes;
  }
  return 0;
}

}  // namespace

Result<VllmEstimate> estimate_vllm(const Model& model, std::span<const SafetensorsTensor> tensors,
                                   const VllmSettings& in, const MemoryBudget& budget) {
  return estimate_vllm_for_kernel(model, tensors, in, budget, std::nullopt);
}

Result<VllmEstimate> estimate_vllm_for_kernel(const Model& model,
                                              std::span<const SafetensorsTensor> tensors,
                                              const VllmSettings& in, const MemoryBudget& budget,
                                              std::optional<Mxfp4Kernel> mxfp4_kernel) {
  VllmSettings s = in;
  Result<VllmAccounting> accounting = vllm_accounting(s.release);
  if (!accounting) return accounting.error();
  if (Status bad = check_settings(s, model.spec); !bad) return bad.error();

  VllmEstimate e;
  Result<VllmWeights> weights =
      vllm_rank_weights(model, tensors, s.tensor_parallel, mxfp4_kernel.value_or(vllm_mxfp4_kernel(s)));
  if (!weights) return weights.error();
  e.weights = *weights;
  e.accounting = *accounting;
  if (Status bad = add_deepstack(model.spec, s, e); !bad) return bad.error();
  if (Status bad = add_lora(model.spec, s, e); !bad) return bad.error();
  if (Status bad = add_rocm_load(model.spec, s, e); !bad) return bad.error();
  if (Status bad = add_cuda_allocator(model.spec, s, e); !bad) return bad.error();
  e.v2_model_runner = e.accounting == VllmAccounting::kCurrent && vllm_uses_v2_runner(model.spec, s);
  e.activation_bytes = activation_bytes(model.spec, s, e.accounting, e.v2_model_runner);
  e.non_torch_bytes = kVllmNonTorchBytes + (s.tensor_parallel > 1 ? kVllmNcclBytes : 0);
  // v0.7 counted the device's used memory less torch's allocated bytes as
  // non-torch: the CUDA context too.
  e.cuda_context_bytes = e.accounting == VllmAccounting::kV07 ? kVllmCudaContextBytes : 0;
  // The graphs' count from the settings, their memory modelled per layer
  // (cuda_graphs.h). Counted once here: the report reads the counts.
  const VllmCudaGraphs captured = vllm_cuda_graphs(model.spec, s, e.accounting);
  e.cuda_graphs = VllmCudaGraphCounts(captured);
  e.cuda_graph_bytes = captured.bytes;
  // From 0.21 the worker captures a few graphs into a minimal KV cache
  // while it profiles (profile_cudagraph_memory: the two largest graphs of
  // each mode, the rest extrapolated from the second) and subtracts that
  // estimate from the KV memory (determine_available_memory, gpu_worker.py;
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 by default since #38284). On
  // CUDA only: the v0.23 worker skips the estimate on ROCm. memfit's
  // modelled graph memory stands for the estimate.
  // A run may set the variable either way (0.19 and 0.20 had the estimate,
  // off by default); v0.7's worker had none. With the KV memory given the
  // worker skips the profile, the estimate with it.
  e.cuda_graphs_subtracted = e.accounting != VllmAccounting::kV07 && !s.rocm && e.cuda_graph_bytes != 0 &&
                             !s.kv_cache_memory &&
                             s.cuda_graph_estimate.value_or(e.accounting == VllmAccounting::kCurrent);
  Result<VllmKvLayout> layout = vllm_kv_layout(model.spec, s);
  if (!layout) return layout.error();
  e.layout = std::move(*layout);
  if (s.num_speculative_tokens > 0 && e.layout.mamba_state_bytes == 0) {
    // Read only as a Mamba group's blocks per request (docs/engine-vllm.md).
    return Error::usage("num_speculative_tokens",
                        "is priced only as the extra state blocks of a Mamba layer, and this "
                        "model has none; the draft or MTP module's weights and cache are not "
                        "priced");
  }
  vllm_request_blocks(e.layout, s, s.max_model_len);

  Result<ReportBands> bands = vllm_bands(s, e);
  if (!bands) return bands.error();
  e.bands = std::move(*bands);
  // What the profile subtracts from the utilization: from 0.21 (CUDA)
  // the CUDA graphs' estimate too, with its band's margin; before, the
  // graphs are captured after the KV cache is allocated, past it.
  const uint64_t graphs = (CheckedBytes(e.cuda_graph_bytes) + margin_of(e.bands, "cuda_graph")).saturated();
  const CheckedBytes non_kv = CheckedBytes(e.weights.bytes) + e.activation_bytes + e.non_torch_bytes +
                              e.cuda_context_bytes + margin_of(e.bands, "weights") +
                              (e.cuda_graphs_subtracted ? graphs : 0);
  size_kv_cache(s, non_kv, model.spec.max_position_tokens, e);
  const bool attention_free = e.layout.groups.empty();
  e.starts = attention_free ||
             (e.num_blocks > 1 && vllm_request_fits(e.layout, e.num_blocks, e.kv_cache_bytes));
  // What vLLM holds once the KV cache is allocated, then the CUDA graphs.
  const CheckedBytes held = s.kv_cache_memory || s.gpu_memory_total == 0 || attention_free
                                ? non_kv + e.kv_cache_bytes
                                : CheckedBytes(std::max(e.requested_bytes, non_kv.saturated()));
  // Graphs subtracted before the KV cache fill the room left for them
  // (the estimate standing for the pool): vLLM's peak is then the
  // utilization's.
  e.total_bytes = (held + (e.cuda_graphs_subtracted ? 0 : graphs)).saturated();
  if (e.total_bytes == UINT64_MAX) return Error::overflow("vLLM peak: the sizes overflow 64 bits");
  e.settings = s;
  e.budget_bytes = budget.budget_bytes;
  e.fits = e.starts && e.total_bytes <= e.budget_bytes;
  return e;
}

}  // namespace memfit
