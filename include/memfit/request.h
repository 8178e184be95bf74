// One request, one answer: the step from what a user asked to an estimate,
// written once for every front end. The CLI (flags), the C API (structs or
// a JSON object) and the HTTP service (a JSON body) each build an
// EstimateRequest and call run(); they differ only in how they read the
// request and how they print the answer.
//
//   EstimateRequest  what was asked: the model, the context, the batch, the
//                    K and V cache types, the budget, the parallel plan, ...
//   RequestContext   what the world gives a request: the model opened (or
//                    taken from a cache), the settings, the platform, the host
//   prepare()        the request checked and resolved against a context:
//                    the inputs the estimator, the solver and the plot take
//   run()            prepare(), then the estimate, the available-now
//                    guardrail and the per-rank plan
//
// Failures are Errors whose kind (ErrorKind) the front ends map to their
// codes; usage errors about one field name it as the JSON request spells it
// (Error::field()). Every warning is a Warning with a kind.
#ifndef MEMFIT_REQUEST_H_
#define MEMFIT_REQUEST_H_

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/engine.h"
#include "memfit/environment.h"
#include "memfit/mlxcel.h"
#include "memfit/host_memory.h"
#include "memfit/llamacpp.h"
#include "memfit/mlxlm.h"
#include "memfit/model.h"
#include "memfit/model_by_name.h"
#include "memfit/parallel_plan.h"
#include "memfit/result.h"
#include "memfit/speed.h"
#include "memfit/mlxcel_settings.h"
#include "memfit/visibility.h"
#include "memfit/vllm.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The request's enumerations, spelled as users write them. Each fails with
// a kUsage error "'<text>': expected ..." naming no field; callers add
// theirs with Error::usage(field, error.message()).
//   KV element  fp16, f16, bf16, float16 -> kFp16; int8, i8, q8, q8_0 -> kInt8
//   backend     auto (nullopt: the build's), rocm, metal, cuda, cpu
//   engine      a registered engine's name or alias, ignoring case
//               (engine.h), returned as its name; "" for "auto" (the
//               model's default)
//   kv dtype    vLLM's --kv-cache-dtype: auto -> false; fp8, fp8_e4m3,
//               fp8_e5m2 -> true (one byte per element)
//   quant       fp16, int8, int4: the weight mode priced
// Devices parse with parse_device_selector (host_memory.h) and the
// parallel plan's sharding rules with parse_sharding_rules (parallel_plan.h).
Result<KvElement> parse_kv_element(std::string_view text);
Result<std::optional<Backend>> parse_backend(std::string_view text);
Result<std::string> parse_engine(std::string_view text);
Result<std::string> parse_quant_label(std::string_view text);
Result<bool> parse_vllm_kv_cache_dtype(std::string_view text);
// vLLM's --lora-dtype: auto, float16 or bfloat16, returned as given.
Result<std::string> parse_vllm_lora_dtype(std::string_view text);

// The llama.cpp engine's request fields, as llama.cpp's flags name them
// (llamacpp.h: LlamaCppSettings has their defaults); nullopt: not given.
// Given with the mlxcel engine, any of them is a usage error naming it.
struct LlamaCppRequest {
  std::optional<uint64_t> ctx_size;     // --ctx-size, 0 = the model's training context
  std::optional<uint64_t> parallel;     // --parallel
  std::optional<uint64_t> batch_size;   // --batch-size
  std::optional<uint64_t> ubatch_size;  // --ubatch-size
  std::optional<GgmlType> cache_type_k;  // --cache-type-k (the request's cache_type_k field)
  std::optional<GgmlType> cache_type_v;
  std::optional<FlashAttn> flash_attn;  // --flash-attn on|off|auto
  // Not a flag: how a log's run resolved auto (check-log sets it;
  // LlamaCppSettings::flash_attn_auto_on).
  std::optional<bool> flash_attn_auto_on;
  // Not a flag: llama_context_params.n_outputs_max as a log printed it
  // (check-log sets it; LlamaCppSettings::outputs_max).
  std::optional<uint64_t> n_outputs_max;
  std::optional<bool> swa_full;
  std::optional<bool> kv_unified;
  std::optional<uint64_t> llamacpp_version;  // --llamacpp-version: a build number (b6500)
  std::optional<RepackCpu> repack;      // --repack auto|none|x86-avx2|x86-avx512|arm
  LlamaCppPlacementRequest placement;   // -ngl, --n-cpu-moe, -ot, -sm, -ts, ... (llamacpp_placement.h)
  // llama-server's embedding endpoints (docs/embedding-models.md):
  // --embedding, --pooling none|mean|cls|last|rank (the model's own when
  // absent), --reranking (--embedding with rank pooling).
  std::optional<bool> embedding;
  std::optional<std::string> pooling;
  std::optional<bool> reranking;
  // The server extras (llamacpp_extras.h): the projector file, as given
  // (read through RequestContext::read_gguf_header), and its switch.
  std::optional<std::string> mmproj;         // --mmproj FILE
  std::optional<bool> no_mmproj_offload;     // --no-mmproj-offload
  // LoRA adapters' paths (--lora, --lora-scaled), in order, read like the
  // projector; empty: none.
  std::vector<std::string> lora;
  std::optional<int64_t> cache_ram;          // --cache-ram N (MiB; -1 no limit, 0 off)
  std::optional<uint64_t> ctx_checkpoints;   // --ctx-checkpoints N (per slot; 0 off)
  // The speculative-decoding draft (llamacpp_extras.h): a GGUF model's
  // path, opened like the model (RequestContext::open_model), and its flags.
  std::optional<std::string> model_draft;                   // -md FILE
  std::optional<std::optional<uint64_t>> n_gpu_layers_draft;  // -ngld; inner nullopt auto / all
  std::optional<GgmlType> cache_type_k_draft;               // -ctkd
  std::optional<GgmlType> cache_type_v_draft;               // -ctvd

  // The first field given, as the JSON request spells it; "" when none.
  std::string_view first_given() const;
};

// The mlx-lm engine's request fields, as mlx-lm's flags name them
// (mlxlm.h: MlxLmSettings has their defaults); nullopt: not given. Under
// mlx-lm, max_tokens is mlx-lm's --max-tokens (tokens generated) and batch
// its --batch-size. Given with another engine, any of them is a usage error.
struct MlxLmRequest {
  std::optional<uint64_t> prompt_tokens;      // --prompt-tokens
  std::optional<uint64_t> prefill_step_size;  // --prefill-step-size
  std::optional<uint64_t> kv_bits;            // --kv-bits
  std::optional<uint64_t> kv_group_size;      // --kv-group-size
  std::optional<uint64_t> max_kv_size;        // --max-kv-size
  std::optional<MlxRelease> mlx_lm_version;   // --mlx-lm-version (mlxlm.h)
  std::optional<MlxRelease> mlx_version;      // --mlx-version
  std::optional<MlxChip> mlx_chip;            // --mlx-chip: Metal's command-buffer limits
  // MLX's command-buffer limits as its environment sets them
  // (MLX_MAX_OPS_PER_BUFFER, MLX_MAX_MB_PER_BUFFER): over the chip's or the
  // CUDA GPU's (backend cuda) defaults.
  std::optional<uint64_t> mlx_max_ops_per_buffer;  // --mlx-max-ops-per-buffer
  std::optional<uint64_t> mlx_max_mb_per_buffer;   // --mlx-max-mb-per-buffer (2^20 elements)

  // The first field given, as the JSON request spells it; "" when none.
  std::string_view first_given() const;
};

// vLLM's request fields, as vllm serve's flags name them (vllm.h:
// VllmSettings has their defaults); nullopt: not given. Under vllm,
// tensor_parallel is --tensor-parallel-size, max_tokens is --max-model-len
// when max_model_len is not given, and a batch other than 1 is
// --max-num-seqs when max_num_seqs is not given. Given with another
// engine, any of them is a usage error.
struct VllmRequest {
  std::optional<double> gpu_memory_utilization;    // --gpu-memory-utilization, (0, 1]
  std::optional<uint64_t> gpu_memory_total;        // the GPU's total bytes (default: the probed GPU's)
  std::optional<std::string> gpu_name;             // the GPU's name (default: the probed GPU's)
  std::optional<uint64_t> kv_cache_memory;         // --kv-cache-memory-bytes
  std::optional<uint64_t> block_size;              // --block-size
  std::optional<bool> kv_cache_fp8;                // --kv-cache-dtype (the kv_cache_dtype field)
  std::optional<uint64_t> max_model_len;           // --max-model-len
  std::optional<uint64_t> max_num_seqs;            // --max-num-seqs
  std::optional<uint64_t> max_num_batched_tokens;  // --max-num-batched-tokens
  std::optional<uint64_t> num_speculative_tokens;  // --speculative-config's num_speculative_tokens
  std::optional<bool> enforce_eager;               // --enforce-eager
  std::optional<VllmRunner> runner;                // --runner auto|generate|pooling
  std::optional<VllmRelease> vllm_version;         // whose KV accounting (vllm.h); nullopt: the current line
  // LoRA serving (vllm.h: VllmLora): --enable-lora and the slots' shape.
  std::optional<bool> enable_lora;                 // --enable-lora
  std::optional<uint64_t> max_loras;               // --max-loras
  std::optional<uint64_t> max_lora_rank;           // --max-lora-rank
  std::optional<std::string> lora_dtype;           // --lora-dtype auto|float16|bfloat16
  std::optional<bool> fully_sharded_loras;         // --fully-sharded-loras

  // The first field given, as the JSON request spells it; "" when none.
  std::string_view first_given() const;
};

// The machine a request prices when it is not this one (docs/hardware.md):
// GPUs or a Mac from the hardware table (hardware.h), by the names given.
// Neither: this machine, as the host reads it (host_memory.h).
struct MachineRequest {
  // --gpu: one name per device, in the order given (NVIDIA's devices are
  // numbered first, then AMD's, as the host lists them): each device's
  // total memory as its driver reports it, its name and its vendor.
  std::vector<std::string> gpu;
  // --mac: unified memory, macOS's reserve and the default GPU wired limit.
  std::optional<std::string> mac;

  bool given() const { return !gpu.empty() || mac.has_value(); }
};

struct EstimateRequest {
  // A model folder, .safetensors or .gguf file, or a Hugging Face name
  // "org/name[@revision][:QUANT]" (model_by_name.h), as given.
  std::string model;
  // Context in tokens, >= 1; nullopt: 8192 (mlxcel). llamacpp reads it as
  // --ctx-size when ctx_size is not given.
  std::optional<uint64_t> max_tokens;
  uint64_t batch = 1;          // sequences decoded together, >= 1
  // The KV cache width: kv_cache_mode, or cache_type_k with cache_type_v
  // (both or neither). K and V of different widths are sized at the wider,
  // with a kRequest warning; a mode that disagrees with K/V is a usage
  // error. Neither: fp16.
  std::optional<KvElement> kv_cache_mode;
  std::optional<KvElement> cache_type_k;
  std::optional<KvElement> cache_type_v;
  // "" or a parse_quant_label name: the weight mode mlxcel and mlx-lm
  // price (MLX affine, group 64); llamacpp and vllm refuse it (their
  // weights are the file's or checkpoint's own).
  std::string quant;
  std::optional<Backend> backend;       // nullopt: the context's platform
  DeviceSelector device;                // whose memory is the budget
  std::optional<uint64_t> memory_limit_bytes;  // wins over the context's limit and the host
  MachineRequest machine;  // the machine priced; none given: this one
  // tensor_parallel x pipeline_parallel > 1 adds a per-rank plan.
  ParallelConfig parallel;
  // --confidence: 90, 95 or 99, the corpus margin added to each modelled
  // figure with a band (memfit/error_band.h); nullopt: none.
  std::optional<uint64_t> confidence;
  // The engine's name (engine.h: EngineRegistry); "": the model's default
  // (EngineRegistry::default_for).
  std::string engine;
  // llama.cpp's fields. cache_type_k / cache_type_v land here when the
  // engine is llamacpp, above when it is mlxcel, and in both places (each
  // reading the text has) while the engine is left to the model
  // (set_cache_type).
  LlamaCppRequest llamacpp;
  MlxLmRequest mlxlm;  // mlx-lm's fields
  VllmRequest vllm;    // vLLM's fields
  // The fields of engines that keep their request in their own folder
  // (docs/engines.md, "How to add an engine"): each field's text as its
  // row's parser accepted it, by the JSON request's name; the engine
  // reads them again in resolve(). Absent: not given.
  std::map<std::string, std::string, std::less<>> engine_fields;
};

// The cache_type_k or cache_type_v field (`field`) of `request` from its
// text, read for the request's engine, so set `engine` first: llama.cpp's
// nine types (parse_llamacpp_cache_type) with llamacpp, the mlxcel names
// (parse_kv_element) with mlxcel, and with no engine yet every reading the
// text has (prepare() keeps the resolved engine's). kUsage naming `field`
// when no reading fits.
Status set_cache_type(EstimateRequest& request, std::string_view field, std::string_view text);

// What the world gives a request. The CLI and the C API use
// LocalRequestContext; the service answers from its model cache, its
// settings and its host snapshot.
class RequestContext {
 public:
  virtual ~RequestContext() = default;

  // The model a request names, opened with `options`. Errors keep the
  // loader's kind and message.
  virtual Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                          const OpenModelOptions& options) = 0;
  // The estimator's settings; settings().memory_limit_bytes is the budget
  // for requests that give no limit of their own.
  virtual const MlxcelSettings& settings() const = 0;
  // What reading the settings warned about; repeated in every answer.
  virtual const std::vector<std::string>& settings_warnings() const = 0;
  // The platform a request's estimate is for, before its backend field.
  virtual Platform platform() const = 0;
  // The host's memory with `device` as the budget and an explicit limit
  // applied: `explicit_limit_bytes` (the request's) when set, else
  // settings().memory_limit_bytes. A device that does not exist (and no
  // limit) is status.device_error, not a failure.
  virtual HostMemoryStatus host_memory(const DeviceSelector& device,
                                       std::optional<uint64_t> explicit_limit_bytes) = 0;
  // This host's RAM alone, no GPU probed, `explicit_limit_bytes` applied as
  // by host_memory(): the host side of a machine whose GPUs the request
  // describes (--gpu). The default asks host_memory() for the CPU.
  virtual HostMemoryStatus host_ram(std::optional<uint64_t> explicit_limit_bytes);
  // The GGUF header of a file a request names besides its model (--mmproj),
  // by path. The default reads none (kUsage naming `field`); the local
  // context reads the file system, the service only under its model roots.
  virtual Result<GgufHeader> read_gguf_header(std::string_view field, const std::string& path);
};

// The real machine: models opened from the file system by name
// (open_model_by_name: a local path, else the Hugging Face cache, else the
// Hub), the cache's location and the Hub's options, the settings and host options read from `env` once (at
// construction), the host queried on
// every host_memory() call. With an explicit limit and no GPU named
// (device auto or cpu) the GPU libraries are not loaded: nothing of the
// answer depends on them then, and loading them is most of a command's
// start-up.
class LocalRequestContext : public RequestContext {
 public:
  explicit LocalRequestContext(const Environment& env);

  Result<std::shared_ptr<const Model>> open_model(const std::string& name,
                                                  const OpenModelOptions& options) override;
  const MlxcelSettings& settings() const override { return settings_; }
  const std::vector<std::string>& settings_warnings() const override { return settings_warnings_; }
  Platform platform() const override { return build_platform(); }
  HostMemoryStatus host_memory(const DeviceSelector& device,
                               std::optional<uint64_t> explicit_limit_bytes) override;
  HostMemoryStatus host_ram(std::optional<uint64_t> explicit_limit_bytes) override;
  Result<GgufHeader> read_gguf_header(std::string_view field, const std::string& path) override;

  // How names are resolved, read from the environment: a front end's
  // flags (--token, --revision, --file, --timeout, --offline) change it.
  ModelNameOptions& model_names() { return model_names_; }

 private:
  std::vector<std::string> settings_warnings_;
  MlxcelSettings settings_;
  HostQueryOptions host_options_;
  // Headers read from the Hub, kept between runs (header_cache.h; null
  // when the environment names no cache folder). model_names_ points at it.
  std::unique_ptr<HeaderStore> header_cache_;
  ModelNameOptions model_names_;  // the Hugging Face cache and the Hub, from the environment
};

// A request checked and resolved: what estimate_mlxcel(), solve_mlxcel() and the plot
// take, and every warning so far (settings, request, model, host).
struct PreparedRequest {
  std::shared_ptr<const Model> model;
  const EngineProfile* engine = nullptr;  // as resolved; set by prepare()
  bool engine_named = false;  // the request named it; false: the model's default
  LlamaCppSettings llamacpp_settings;  // the llama.cpp fields with their defaults
  MlxLmSettings mlxlm_settings;        // the mlx-lm fields with their defaults
  VllmSettings vllm_settings;          // the vLLM fields with their defaults (GPU total resolved)
  std::any engine_settings;            // an engine's own, for engines registered outside the library
  MlxcelInputs inputs;
  MlxcelSettings settings;
  Platform platform;
  MemoryBudget budget;
  HostMemoryStatus host;
  SpeedMachine speed_machine;  // the devices' bandwidth and compute (docs/speed.md)
  std::vector<Warning> warnings;
};

struct PrepareOptions {
  bool keep_tensors = false;  // open the model with its tensor list
};

// Checks the request's own fields (kUsage: max_tokens or batch of 0, a
// --gpu or --mac name the hardware table does not know) before anything
// is opened, then opens the model (kInput errors as the
// loader gives them), resolves the engine (EngineRegistry::default_for: llamacpp for a
// GGUF model) and checks the fields against it (kUsage: the other
// engine's field, K without V or a mode against K/V under mlxcel, a
// llama.cpp type under mlxcel), and reads the host (kHost when the
// selected device does not exist and no limit is given), or builds the
// machine the request describes (request.machine) from the hardware
// table, with the platform its engines' rules follow. Errors
// are not prefixed with the model's name.
Result<PreparedRequest> prepare(const EstimateRequest& request, RequestContext& context,
                                const PrepareOptions& options = {});

// Everything a front end prints from.
struct EstimateRun : PreparedRequest {
  MlxcelEstimate estimate;  // the mlxcel estimate; unset (default) for llamacpp
  std::optional<LlamaCppEstimate> llamacpp;  // set when engine is llamacpp
  std::optional<MlxLmEstimate> mlxlm;        // set when engine is mlx-lm
  std::optional<VllmEstimate> vllm;          // set when engine is vllm
  std::any engine_estimate;                  // an engine's own, for engines registered outside the library
  // The per-rank plan, when tensor x pipeline parallel > 1; every rank is
  // checked against the one device budget the whole estimate uses.
  std::optional<ParallelPlan> parallel;

  // With a per-rank plan every rank must fit its device; the whole-model
  // figure (one device holding everything) no longer decides.
  bool fits() const { return engine->fits(*this); }
};

// prepare(), the estimate, the available-now guardrail (a kAvailableNow
// warning when weights + KV + activation exceed what the host can give now;
// it never changes fits) and the per-rank plan when one is asked (a plan
// the engine refuses is kUsage). Estimation errors are prefixed with the
// model's name as the request gives it.
Result<EstimateRun> run(const EstimateRequest& request, RequestContext& context);

// run()'s steps after prepare(), for a caller that adjusts the prepared
// request first (preflight serve applies llama-server's own defaults to
// its llama.cpp settings). `request` is the one `prepared` came from.
Result<EstimateRun> run_prepared(const EstimateRequest& request, PreparedRequest prepared);

// An engine's estimation error as run() returns it: a usage error as it
// is, any other prefixed with the model's name as `request` gives it.
Error estimate_error(const EstimateRequest& request, const Error& error);

// The available-now guardrail: a kAvailableNow warning on `run` when
// `load_bytes` exceeds what its host can give now; it never changes fits.
void warn_if_not_available_now(EstimateRun& run, uint64_t load_bytes);

// True when the request asks for a per-rank plan (more than one rank).
bool wants_parallel_plan(const ParallelConfig& config);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_REQUEST_H_
