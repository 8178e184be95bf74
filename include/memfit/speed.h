// How fast a run goes: decode and prefill tokens per second from what a
// token must read and compute, and the fraction of that bound real engines
// reach (docs/speed.md).
//
// Decode is bound by memory bandwidth: each generated token reads the
// active weights (for a mixture of experts, only the experts used) and the
// KV cache up to the current context, on every device that holds a part of
// them; the parts are read one after the other (a layer split), so their
// times add. Prefill is bound by compute: 2 FLOPs per active parameter per
// token plus the attention's 4 x layers x context x attention width, at
// the peak of the unit the engine's matrix products run on (ComputePeak). What
// a runtime reaches is modelled per backend and quantization family from
// published runs (data/speed/published-runs.tsv, memfit/published_runs.h):
// the fraction of the bound's rate it moves at, a fixed cost per layer,
// and the spread of the runs around that, carried as a band.
//
// Everything here is arithmetic on values the caller gives: no I/O, no
// state, thread-safe.
#ifndef MEMFIT_SPEED_H_
#define MEMFIT_SPEED_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// What one device offers, as the hardware table (memfit/hardware.h) or a
// measurement gives it. 0: unknown.
struct DeviceThroughput {
  std::string name;           // "rtx4090", "m3-max-64gb", "host"
  double bandwidth_gb_s = 0;  // peak memory bandwidth, 10^9 bytes a second
  double fp16_tflops = 0;     // dense FP16/BF16 peak, 10^12 FLOPs a second
  double int8_tops = 0;       // dense INT8 tensor peak, 10^12 operations a second
};

// The devices of the machine a request prices, as the speed estimate
// reads them (set by prepare(), memfit/request.h). A bandwidth of 0 is
// unknown: a GPU the hardware table lacks, or the host CPU when the
// request gives no host_bandwidth_gb_s (`--host-bandwidth`; `memfit
// hardware --measure` prints this host's).
struct SpeedMachine {
  std::vector<DeviceThroughput> gpus;       // the host's GPUs in its order (cuda:N, then rocm:N)
  std::optional<DeviceThroughput> unified;  // a Mac (--mac): GPU and CPU read one memory
  DeviceThroughput host{"cpu", 0, 0, 0};    // the host CPU
};

// The bytes one decoded token reads on one device.
struct DeviceTokenBytes {
  DeviceThroughput device;
  uint64_t weight_bytes = 0;  // the active weights held there
  uint64_t kv_bytes = 0;      // the KV cache held there, read to the current context
};

// Tokens a second if every device read at its peak bandwidth: 1 / sum over
// the parts of (weight_bytes + kv_bytes) / bandwidth. kUsage naming the
// device when a part has bytes but no bandwidth, or when no part has bytes.
Result<double> decode_bound_tokens_per_second(std::span<const DeviceTokenBytes> parts);

// What the speed estimate reads of a model.
struct SpeedModelShape {
  uint64_t weight_bytes = 0;     // every weight, as stored (quantized)
  uint64_t params = 0;           // parameters in all
  uint64_t active_params = 0;    // used for one token: params for a dense model
  uint64_t n_layers = 0;
  uint64_t attention_width = 0;  // query heads x head dim
  uint64_t kv_width = 0;         // KV heads x head dim (one of K and V)
  uint64_t kv_bytes_per_element = 2;  // an F16 cache
  // A mixture of experts whose routed experts' storage is known: their
  // parameters (every expert of every layer) and their bytes within
  // weight_bytes. 0: not known (the share rule below).
  uint64_t expert_params = 0;
  uint64_t expert_weight_bytes = 0;
  // A mixture of experts' prompt (docs/speed.md, "A mixture of experts'
  // prompt"): the tokens of one microbatch the engine multiplies at once
  // (llama.cpp's n_ubatch, at most the prompt) and the tokens one tile of
  // its prompt products serves (kMmqTileTokens, kMetalTileTokens). 0 in
  // either: no such cost (a dense model, an engine whose tiles are not
  // known).
  uint64_t microbatch_tokens = 0;
  uint64_t tile_tokens = 0;

  // The bytes a token reads. With the experts known (both fields above
  // set, expert_weight_bytes <= weight_bytes, expert_params <= params and
  // the shared params - expert_params <= active_params): every byte that is
  // not an expert's, plus expert_weight_bytes x the active experts'
  // parameters (active_params - (params - expert_params)) / expert_params
  // (docs/speed.md, "The published runs"). Otherwise weight_bytes x
  // active_params / params, rounded down: the bytes a token reads when
  // every tensor has the same width (the experts' share for a mixture of
  // experts); weight_bytes when params is 0 or not above active_params.
  uint64_t active_weight_bytes() const;
  // K and V of one token: 2 x n_layers x kv_width x kv_bytes_per_element.
  uint64_t kv_bytes_per_token() const;
  // The routed experts' parameters one token uses: active_params - (params
  // - expert_params) when expert_params is set and consistent (at most
  // params, and params - expert_params <= active_params), else 0.
  uint64_t active_expert_params() const;
  // How many times a dense product's cost a token the routed experts'
  // products pay (>= 1): an expert's weights serve the tokens routed to it,
  // microbatch_tokens x active_expert_params() / expert_params on average,
  // where a dense product's serve a whole tile, min(tile_tokens,
  // microbatch_tokens); the ratio of the two when the expert's tokens are
  // fewer, else 1. 1 when microbatch_tokens, tile_tokens or the experts
  // are not known.
  double expert_tile_factor() const;
};

// FLOPs to process one prompt token at `context_tokens` (the tokens before
// it, averaged over the prompt: half its length): 2 x active_params + 4 x
// n_layers x context_tokens x attention_width (QK^T and AV, 2 FLOPs a
// multiply-add), the routed experts' 2 x active_expert_params() counted
// expert_tile_factor() times: the FLOPs a dense product would take in the
// time the engine's expert products take.
double prefill_flops_per_token(const SpeedModelShape& shape, uint64_t context_tokens);

// The tokens one tile of a llama.cpp prompt product serves, by backend
// (docs/speed.md, "A mixture of experts' prompt"): "cuda" and "rocm" 128
// (MMQ's widest tile, mmq_x, which a microbatch of 128 tokens or more
// fills: mul_mat_q_case in ggml/src/ggml-cuda/mmq.cuh), "metal" 32 (the
// mat-mat kernels' 32 tokens a threadgroup: ggml_metal_op_mul_mat_id's
// dispatch in ggml/src/ggml-metal/ggml-metal-ops.cpp), 0 for every other
// backend (not known: no expert cost is priced).
inline constexpr uint64_t kMmqTileTokens = 128;
inline constexpr uint64_t kMetalTileTokens = 32;
uint64_t llamacpp_prompt_tile_tokens(std::string_view backend);

// llama.cpp's default microbatch (n_ubatch; llama-bench's -ub): the tokens
// of a prompt multiplied at once.
inline constexpr uint64_t kLlamaCppDefaultUbatch = 512;

// Which of a device's peaks the prefill bound of an efficiency backend
// reads (docs/speed.md, "Which peak"). kInt8 for "cuda" and "rocm": their
// published runs are llama.cpp's, whose prompt matrix products run on the
// tensor cores at full rate (quantized weights through MMQ's INT8 MMA, F16
// weights through cuBLAS with FP16 accumulation), which the INT8 figure
// ranks devices by. kFp16 for every other group: "metal", "mlx", and
// vLLM's and SGLang's "cuda vllm/sglang" (BF16/FP16 products with FP32
// accumulation, memfit/published_runs.h). A band is a fraction of its
// bound, so whoever reads a group's band (a vLLM plan whose group has too
// few prefill runs reads llama.cpp's CUDA band) reads the same peak.
enum class ComputePeak { kFp16, kInt8 };
std::string_view to_string(ComputePeak peak);  // "fp16", "int8"
ComputePeak prefill_compute_peak(std::string_view backend);

// The device's figure for `peak`, 10^12 a second: int8_tops for kInt8
// when the device has one (a GPU without INT8 tensor cores, or a Mac,
// falls back to its FP16 figure), else fp16_tflops. 0: unknown.
double peak_tera_per_second(const DeviceThroughput& device, ComputePeak peak);

// Tokens a second at the device's dense peak for `peak`. kUsage naming the
// device when it has no such figure.
Result<double> prefill_bound_tokens_per_second(const SpeedModelShape& shape,
                                               uint64_t context_tokens,
                                               const DeviceThroughput& device,
                                               ComputePeak peak);

// The quantization families efficiencies are fitted per: "16-bit"
// (F16, BF16), "8-bit" (Q8_0, MLX 8bit, FP8, GPTQ-Int8) and "under 8-bit" (every
// narrower format: Q4_0, Q4_K_M, MXFP4, MLX 4bit and 6bit). Matched on the
// name's leading characters, case ignored.
std::string quant_family(std::string_view quant);

enum class SpeedPhase { kDecode, kPrefill };
std::string_view to_string(SpeedPhase phase);  // "decode", "prefill"

// One published run against its bound.
struct EfficiencySample {
  std::string backend;  // "cuda", "metal", "rocm", "vulkan", "mlx", "cpu"
  std::string family;   // quant_family()
  double bound_seconds = 0;     // seconds a token at the bound: 1 / bound tokens a second
  uint64_t n_layers = 0;
  double measured_seconds = 0;  // seconds a token as published: 1 / its tokens a second
};

// How a group of runs relates to its bound (docs/speed.md, "Efficiency"):
// seconds a token = bound_seconds / efficiency + n_layers x
// layer_overhead_s, the first term the bytes (decode) or FLOPs (prefill)
// moving at a fraction of the peak, the second what each layer costs
// whatever its size (kernel launches, synchronisation), which is why a
// small model reaches a smaller fraction of its bound than a large one.
// The two are fitted by least squares on the relative error, with
// efficiency at most 1 and the overhead at least 0. The band is the
// spread of the group's published speeds over that model's: their
// median (linear between the two middle ratios) and their least and
// greatest, as the memory bands are (docs/validation-logs.md: a
// percentile would hide the worst run).
struct EfficiencyBand {
  std::string backend;  // "" for the band over all backends
  std::string family;   // "" for a band over all of the backend's families
  double efficiency = 0;
  double layer_overhead_s = 0;
  double median = 0;  // published / modelled speed
  double low = 0;
  double high = 0;
  uint64_t runs = 0;
  // Which samples made it: "backend and family", "backend, all families"
  // or "all backends".
  std::string basis;
};

// A band is fitted over at least this many runs; a group with fewer falls
// back to its backend's band, then to the band over every run.
inline constexpr uint64_t kMinEfficiencyRuns = 4;

// The bands of one phase, fitted from samples.
class EfficiencyTable {
 public:
  // Groups the samples by backend and family and by backend, and keeps one
  // band over all; a sample whose times are not above 0 is left out.
  static EfficiencyTable fit(std::span<const EfficiencySample> samples);

  // The band for (backend, family): the group's own when it has at least
  // kMinEfficiencyRuns samples, else the backend's, else the band over all
  // samples; nullopt when the table was fitted on none.
  std::optional<EfficiencyBand> find(std::string_view backend, std::string_view family) const;

  const std::vector<EfficiencyBand>& bands() const { return bands_; }

 private:
  std::vector<EfficiencyBand> bands_;  // per group, then per backend, then "all"
};

// A predicted speed, tokens a second: the bound, the band's model of it
// (1 / (1 / bound / efficiency + n_layers x layer_overhead_s)) and that
// times the band's median, low and high.
struct SpeedRange {
  double bound = 0;
  double modelled = 0;
  double median = 0;
  double low = 0;
  double high = 0;
  EfficiencyBand efficiency;
};
SpeedRange apply_efficiency(double bound_tokens_per_second, uint64_t n_layers,
                            const EfficiencyBand& band);

// The one-time cost a process's first forward pass adds to its prompt,
// seconds: low, median and high (docs/speed.md, "mlx-lm: the first call").
struct FirstCallSeconds {
  double low = 0;
  double median = 0;
  double high = 0;
};

// mlx-lm's: `mlx_lm.generate` runs no warm-up and starts its prompt clock
// (`tic` in stream_generate, mlx_lm/generate.py) before the first
// generate_step, so a fresh process's prompt time holds what MLX does once
// per process: every Metal kernel the forward pass uses built into a
// pipeline on first use and cached by name (Device::get_kernel_,
// mlx/backend/metal/device.cpp) and every mx.compile'd function's fused
// kernel compiled from source (mlx/backend/metal/compiled.cpp). The layers
// share those kernels, so it is a cost a process, not a layer or a token.
// `mlx_lm.benchmark` warms up first ("Running warmup..", mlx_lm/benchmark.py)
// and pays none of it. The figures are the spread of the time above the
// warm rate in the short prompts `mlx_lm.generate` published: 0.2-0.5 s on
// 7B to 72B models of 28 to 80 layers, no growth with either.
inline constexpr FirstCallSeconds kMlxLmFirstCall{0.2, 0.35, 0.5};

// The first-call cost of `engine`'s runs ("mlx-lm": kMlxLmFirstCall);
// nullopt for an engine memfit has no such figure for.
std::optional<FirstCallSeconds> first_call_seconds(std::string_view engine);

// The prompt rate of a process's first call: `prompt_tokens` / (the warm
// time + the cost), the band each way (the fastest warm rate with the
// least cost, the slowest with the most); the bound and efficiency as in
// `warm`. `warm` unchanged when prompt_tokens is 0 or a rate is not above 0.
SpeedRange first_call_prefill(const SpeedRange& warm, uint64_t prompt_tokens,
                              const FirstCallSeconds& cost);

// Seconds to the first token of a `prompt_tokens` prompt at
// `prefill_tokens_per_second`: prompt_tokens / rate. kUsage when the rate
// is not above 0.
Result<double> time_to_first_token_s(uint64_t prompt_tokens, double prefill_tokens_per_second);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_SPEED_H_
