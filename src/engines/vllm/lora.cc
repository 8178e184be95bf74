// vLLM's LoRA slots, read in vllm/lora/ (the newest stored version;
// docs/engine-vllm.md, "LoRA slots"). With --enable-lora the worker's
// load_lora_model runs inside the "Model loading took" block and
// LoRAModelManager wraps every LinearBase module of the model
// (get_supported_lora_modules) with max_loras slots (lora_slots); each
// wrapper's create_lora_weights zero-fills its stacked buffers on the
// device in lora_dtype (auto: the model's dtype), one A and one B per
// slice of a merged layer (packed_modules_mapping: qkv_proj -> q, k, v;
// gate_up_proj -> gate, up):
//   column-parallel (layers/column_parallel_linear.py, base_linear.py):
//     A [max_loras, 1, rank (rank / TP fully sharded), input]
//     B [max_loras, 1, output slice per rank, rank]
//   row-parallel (layers/row_parallel_linear.py):
//     A [max_loras, 1, rank, input / TP]
//     B [max_loras, 1, output (output / TP fully sharded), rank]
// The profile's dummy adapters are built on the CPU and copied into these
// slots; the punica wrapper's index buffers (int32/int64 rows of
// max_num_batched_tokens, about 50 B a token) and the profile's float32
// shrink buffer (slices x tokens x rank) are too small to price.
#include "engines/vllm/lora.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "engines/shared/parallel_tensors.h"
#include "engines/vllm/allocations.h"
#include "memfit/checked_math.h"

namespace memfit {
namespace {

constexpr uint64_t kLoraElementBytes = 2;  // float16 or bfloat16 (LoRADType)

Status check_lora(const ModelSpec& spec, const VllmSettings& s) {
  const VllmLora& l = s.lora;
  if (std::find(std::begin(kVllmLoraRanks), std::end(kVllmLoraRanks), l.max_lora_rank) ==
      std::end(kVllmLoraRanks)) {
    return Error::usage("max_lora_rank", fmt::format("{}: vLLM accepts 1, 8, 16, 32, 64, 128, 256, "
                                                     "320 or 512",
                                                     l.max_lora_rank));
  }
  if (l.max_loras == 0) return Error::usage("max_loras", "expected a positive integer, got 0");
  if (l.fully_sharded && (l.max_lora_rank % s.tensor_parallel != 0 ||
                          spec.geometry.hidden % s.tensor_parallel != 0)) {
    return Error::usage("fully_sharded_loras",
                        fmt::format("vLLM splits the rank ({}) and the hidden size ({}) by the "
                                    "tensor parallel size ({}), which must divide both",
                                    l.max_lora_rank, spec.geometry.hidden, s.tensor_parallel));
  }
  const bool plain = (spec.layout == "standard" || spec.layout == "sliding_window" ||
                      spec.layout == "chunked") &&
                     spec.moe.experts == 0 && spec.mla.kv_lora_rank == 0 &&
                     spec.mamba2.layers == 0 && spec.gated_delta.key_heads == 0 &&
                     spec.compressed_attention.compress_ratios.empty();
  if (!plain) {
    return Error::usage("enable_lora",
                        fmt::format("memfit prices vLLM's LoRA slots for attention and dense MLP "
                                    "layers only; this model's {} layers (layout {}{}) are not "
                                    "modelled",
                                    spec.model_type.empty() ? spec.family : spec.model_type,
                                    spec.layout, spec.moe.experts != 0 ? ", MoE experts" : ""));
  }
  return Status::Ok();
}

}  // namespace

Result<uint64_t> vllm_lora_bytes(const ModelSpec& spec, const VllmSettings& s) {
  if (!s.lora.enabled) return uint64_t{0};
  if (Status bad = check_lora(spec, s); !bad) return bad.error();
  const ModelGeometry& g = spec.geometry;
  const uint64_t tp = s.tensor_parallel;
  const uint64_t rank = s.lora.max_lora_rank;
  const uint64_t a_rank = s.lora.fully_sharded ? rank / tp : rank;
  const uint64_t row_out = s.lora.fully_sharded ? g.hidden / tp : g.hidden;
  const uint64_t q_width = g.heads / tp * g.head_dim;  // q's output and o's input, a rank
  const uint64_t kv_width = kv_heads_per_rank(g.kv_heads, tp) * g.head_dim;
  const uint64_t mlp_width = g.intermediate / tp;
  const CheckedBytes slots = CheckedBytes(s.lora.max_loras) * kLoraElementBytes;
  // One layer's buffers, elements of one slot each: five column-parallel
  // slices (q, k, v, gate, up), then o and down.
  const std::array<CheckedBytes, 14> elements = {
      CheckedBytes(a_rank) * g.hidden,  CheckedBytes(q_width) * rank,    // q
      CheckedBytes(a_rank) * g.hidden,  CheckedBytes(kv_width) * rank,   // k
      CheckedBytes(a_rank) * g.hidden,  CheckedBytes(kv_width) * rank,   // v
      CheckedBytes(a_rank) * g.hidden,  CheckedBytes(mlp_width) * rank,  // gate
      CheckedBytes(a_rank) * g.hidden,  CheckedBytes(mlp_width) * rank,  // up
      CheckedBytes(rank) * q_width,     CheckedBytes(row_out) * rank,    // o
      CheckedBytes(rank) * mlp_width,   CheckedBytes(row_out) * rank,    // down
  };
  std::vector<VllmAllocation> buffers;
  for (const CheckedBytes& e : elements) buffers.push_back({e * slots, g.layers});
  CheckedBytes total = 0;
  for (const VllmAllocation& b : buffers) total += b.bytes * b.count;
  // Requests of 10 MiB and more (many slots of a high rank) hold their
  // allocator block whole, as the parameters do (allocations.h).
  total += vllm_cuda_allocated_slack(buffers);
  if (!total.value()) return Error::overflow("vLLM LoRA slots per rank overflow 64 bits");
  return *total.value();
}

}  // namespace memfit
