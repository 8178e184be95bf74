// The decode and prefill bounds (memfit/speed.h): bytes over bandwidth,
// FLOPs over the peak of the unit the engine's matrix products run on.
#include <algorithm>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "memfit/speed.h"

namespace memfit {
namespace {

// GCC's and Clang's 128-bit integer (__extension__: no -Wpedantic warning).
__extension__ typedef unsigned __int128 Uint128;

}  // namespace

uint64_t SpeedModelShape::active_weight_bytes() const {
  if (params == 0 || active_params >= params) return weight_bytes;
  const bool experts_known = expert_params > 0 && expert_weight_bytes > 0 &&
                             expert_weight_bytes <= weight_bytes && expert_params <= params &&
                             params - expert_params <= active_params;
  if (experts_known) {
    const uint64_t active_experts = active_params - (params - expert_params);  // <= expert_params
    const Uint128 product =
        static_cast<Uint128>(expert_weight_bytes) * static_cast<Uint128>(active_experts);
    // shared + a share of the experts' bytes: <= weight_bytes, fits.
    return weight_bytes - expert_weight_bytes + static_cast<uint64_t>(product / expert_params);
  }
  // 128-bit product: weight_bytes x active_params reaches 10^22 for a
  // 100 GB model of 10^11 parameters.
  const Uint128 product = static_cast<Uint128>(weight_bytes) * static_cast<Uint128>(active_params);
  return static_cast<uint64_t>(product / params);  // < weight_bytes: fits
}

uint64_t SpeedModelShape::kv_bytes_per_token() const {
  return (CheckedBytes(2) * n_layers * kv_width * kv_bytes_per_element).saturated();
}

Result<double> decode_bound_tokens_per_second(std::span<const DeviceTokenBytes> parts) {
  double seconds = 0;
  bool any_bytes = false;
  for (const DeviceTokenBytes& part : parts) {
    const double bytes = static_cast<double>(part.weight_bytes) + static_cast<double>(part.kv_bytes);
    if (bytes == 0) continue;
    if (!(part.device.bandwidth_gb_s > 0)) {
      return Error::usage(
          fmt::format("decode speed: device {} has no memory bandwidth figure", part.device.name));
    }
    seconds += bytes / (part.device.bandwidth_gb_s * 1e9);
    any_bytes = true;
  }
  if (!any_bytes) return Error::usage("decode speed: no bytes read per token");
  return 1.0 / seconds;
}

uint64_t SpeedModelShape::active_expert_params() const {
  if (expert_params == 0 || expert_params > params || params - expert_params > active_params) {
    return 0;
  }
  // min: a shape whose active count exceeds its total (an untrusted
  // config) never counts more experts active than there are.
  return std::min(expert_params, active_params - (params - expert_params));
}

// The cost of a mixture of experts' prompt products (docs/speed.md, "A
// mixture of experts' prompt"). llama.cpp multiplies each expert's weights
// by the tokens routed to it in one kernel for every expert (MUL_MAT_ID):
// on CUDA and ROCm, MMQ launches a grid of weight-row tiles x token tiles x
// experts and each tile loads and dequantizes its slice of an expert's
// weights once for the tokens it serves (mul_mat_q, mmq.cuh); on Metal,
// kernel_mul_mm_id runs tiles of 64 weight rows x 32 tokens for each
// expert. A dense product's tile serves min(tile, microbatch) tokens; an
// expert's serves the tokens routed to it, microbatch x used / experts
// (32 for Qwen3-30B-A3B, 8 of 128 experts, in a microbatch of 512). That
// a tile's cost is its weight slice's and not its tokens' is measured:
// sizing MMQ's tile to the expert's tokens (ggml-org/llama.cpp#26977, an
// RTX 3090, Qwen3-30B-A3B at a microbatch of 512, 32 tokens an expert)
// gains 4-11 %, where a cost in the tile's tokens would gain 4 times.
double SpeedModelShape::expert_tile_factor() const {
  const uint64_t experts_active = active_expert_params();
  if (microbatch_tokens == 0 || tile_tokens == 0 || experts_active == 0) return 1.0;
  const double dense_tokens = static_cast<double>(std::min(tile_tokens, microbatch_tokens));
  const double expert_tokens = static_cast<double>(microbatch_tokens) *
                               static_cast<double>(experts_active) /
                               static_cast<double>(expert_params);
  return expert_tokens < dense_tokens ? dense_tokens / expert_tokens : 1.0;
}

uint64_t llamacpp_prompt_tile_tokens(std::string_view backend) {
  if (backend == "cuda" || backend == "rocm") return kMmqTileTokens;
  if (backend == "metal") return kMetalTileTokens;
  return 0;
}

double prefill_flops_per_token(const SpeedModelShape& shape, uint64_t context_tokens) {
  const double experts = 2.0 * static_cast<double>(shape.active_expert_params());
  const double dense =
      2.0 * static_cast<double>(shape.active_params) + experts * (shape.expert_tile_factor() - 1.0);
  const double attention = 4.0 * static_cast<double>(shape.n_layers) *
                           static_cast<double>(context_tokens) *
                           static_cast<double>(shape.attention_width);
  return dense + attention;
}

std::string_view to_string(ComputePeak peak) {
  return peak == ComputePeak::kInt8 ? "int8" : "fp16";
}

ComputePeak prefill_compute_peak(std::string_view backend) {
  // llama.cpp (ggml/src/ggml-cuda): ggml_cuda_should_use_mmq takes every
  // quantized type to the INT8 MMA kernels on Turing and newer (since
  // June 2024, ggml-org/llama.cpp#7676); before, and for F16 weights,
  // ggml_cuda_mul_mat_cublas runs cuBLAS with CUBLAS_COMPUTE_16F. Neither
  // pays GeForce's halved FP32-accumulate rate that fp16_tflops states,
  // and on the tensor-core generations in the table INT8 is twice the
  // FP16-accumulate rate (equal to it on RDNA 3 and CDNA 2), so int8_tops
  // ranks the devices as both paths do.
  // The HIP build (rocm) compiles the same code. vLLM's and SGLang's
  // groups ("cuda vllm/sglang") run BF16/FP16 products with FP32
  // accumulation: the FP16 figure, as every other group.
  if (backend == "cuda" || backend == "rocm") return ComputePeak::kInt8;
  return ComputePeak::kFp16;
}

double peak_tera_per_second(const DeviceThroughput& device, ComputePeak peak) {
  if (peak == ComputePeak::kInt8 && device.int8_tops > 0) return device.int8_tops;
  return device.fp16_tflops > 0 ? device.fp16_tflops : 0;
}

Result<double> prefill_bound_tokens_per_second(const SpeedModelShape& shape,
                                               uint64_t context_tokens,
                                               const DeviceThroughput& device,
                                               ComputePeak peak) {
  const double tera = peak_tera_per_second(device, peak);
  if (!(tera > 0)) {
    return Error::usage(fmt::format("prefill speed: device {} has no {} throughput figure",
                                    device.name, peak == ComputePeak::kInt8 ? "INT8 or FP16" : "FP16"));
  }
  const double flops = prefill_flops_per_token(shape, context_tokens);
  if (!(flops > 0)) return Error::usage("prefill speed: the model has no parameters");
  return tera * 1e12 / flops;
}

Result<double> time_to_first_token_s(uint64_t prompt_tokens, double prefill_tokens_per_second) {
  if (!(prefill_tokens_per_second > 0)) {
    return Error::usage("time to first token: no prefill speed");
  }
  return static_cast<double>(prompt_tokens) / prefill_tokens_per_second;
}

}  // namespace memfit
