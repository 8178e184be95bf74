// Where llama.cpp puts each part of a model across the GPUs and the host
// (docs/llamacpp-rules.md, "Memory per device"): which blocks go to which
// GPU (-ngl, --split-mode, --tensor-split, --main-gpu), which weights the
// overrides keep on the host (-ot, --n-cpu-moe), where each layer's KV
// cache and the compute buffers live, and whether host weights are
// memory-mapped page cache (the default) or resident (--no-mmap, --mlock).
//
// The placement is part of the llama.cpp estimate (llamacpp.h): with no GPU
// it is one device, "cpu", holding everything, and every total of the
// estimate is the sum over its devices.
#ifndef MEMFIT_LLAMACPP_PLACEMENT_H_
#define MEMFIT_LLAMACPP_PLACEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class SplitMode { kNone, kLayer, kRow };
std::string_view to_string(SplitMode mode);  // "none", "layer", "row"
// "none" | "layer" | "row". Usage errors name no field.
Result<SplitMode> parse_split_mode(std::string_view text);

// One GPU the plan may use, in llama.cpp's device order.
struct LlamaCppGpu {
  std::string device;       // "cuda:0", "rocm:1", "metal:0", "gpu:0" (--gpu-memory)
  std::string name;         // the driver's name; "" when given by --gpu-memory
  uint64_t free_bytes = 0;  // free memory now (the probe) or as given
};

// An -ot PATTERN=DEVICE rule: tensors whose name the ECMAScript regex
// `pattern` matches anywhere (std::regex_search, as llama.cpp) go to
// `gpu` (an index into the GPU list), or the host when gpu is nullopt.
struct LlamaCppTensorOverride {
  std::string pattern;
  std::optional<uint64_t> gpu;
};

// The GPU margin: what the plan leaves free on every GPU for what it does
// not model (the CUDA context and cuBLAS workspaces, about 300-600 MiB per
// device, and fragmentation of the compute buffer's pool): 1 GiB.
inline constexpr uint64_t kLlamaCppDefaultGpuMarginBytes = 1ull << 30;

struct LlamaCppPlacementSettings {
  // -ngl: blocks + 1 for the output layer; nullopt is auto / all (every
  // block and the output, llama.cpp's -1).
  std::optional<uint64_t> n_gpu_layers;
  uint64_t n_cpu_moe = 0;  // --n-cpu-moe: the first N blocks' experts stay on the host
  std::vector<LlamaCppTensorOverride> overrides;  // -ot, in order given (first match wins)
  SplitMode split_mode = SplitMode::kLayer;
  std::vector<double> tensor_split;  // -ts; empty: proportional to each GPU's free memory
  uint64_t main_gpu = 0;             // -mg (split mode none; row mode's main device)
  bool mmap = true;                  // --no-mmap clears it
  bool mlock = false;                // --mlock
  bool kv_offload = true;            // --no-kv-offload clears it
  uint64_t gpu_margin_bytes = kLlamaCppDefaultGpuMarginBytes;  // --gpu-margin
  std::vector<LlamaCppGpu> gpus;     // the probe's, or --gpu-memory's
  // Apple unified memory: the GPU and the host share one pool, the
  // budget; every device's total counts once against it.
  bool unified = false;
  // Which of the n_layer + 1 slots -ngl offloads first (docs/engine-llamacpp.md,
  // "Releases"). true, llama.cpp since #18148: the output layer, then the
  // last N - 1 blocks (i_gpu_start = n_layer + 1 - N). false, the builds
  // before it and every Ollama release's vendored llama.cpp: the last N
  // blocks, the output layer only when N > n_layer (i_gpu_start = n_layer
  // - N). A build before kLlamaCppOutputFirstBuild takes false whatever
  // this says.
  bool output_layer_first = true;
  // Whether a tied output's second token_embd is its own allocation on the
  // output layer's device, the host included. false, llama.cpp: on a GPU
  // (TENSOR_DUPLICATED), on the host the mapped table itself. true,
  // Ollama's own engine: ml/backend/ggml/ggml.go (New) creates token_embd
  // again as output.weight in the output layer's buffer whenever the file
  // has no output layer, reads the file into it, and counts it in that
  // device's "model weights" record.
  bool tied_output_copy_everywhere = false;
  // Whether the scheduler runs pipeline parallelism (n_copies =
  // GGML_SCHED_MAX_COPIES, 4; docs/engine-llamacpp.md, "Pipeline
  // parallelism"). nullopt: llama.cpp's own rule, as the build, these GPUs
  // and flags decide it; a value: as given (check-log gives what the
  // log printed: a runner can list one GPU twice, or a build can be made
  // with GGML_SCHED_MAX_COPIES=1).
  std::optional<bool> pipeline_parallel;
  // Whether the host's matrix weights sit in a CPU extra buffer (AMX,
  // CPU_AARCH64 / CPU_REPACK: repacked copies) beside a GPU, as the builds
  // before #12498 put every weight such a buffer takes, ahead of the GPU's
  // host buffer type (llama-model.cpp, make_cpu_buft_list). Such a buffer
  // type is no host buffer (amx.cpp and ggml-cpu-aarch64.cpp: is_host
  // null), and the scheduler offloads ops only from host buffers
  // (ggml-backend.cpp, ggml_backend_sched_backend_id_from_cur:
  // ggml_backend_buffer_is_host; #11124): the products on those weights run
  // on the host, and with them a host block's attention, which no GPU
  // product borders (docs/engine-llamacpp.md, "Op offload"). memfit does not
  // predict which weights a CPU's extra buffer takes: false unless
  // check-log sets it from a log that prints such a buffer beside a GPU's.
  bool host_extra_buffer = false;
};

// The text flags, parsed. Each fails with kUsage naming its field:
//   n_gpu_layers  "auto" | "all" | a count >= 0
//   override      "PATTERN=DEVICE": DEVICE is CPU (any case), or a GPU
//                 backend name with its index (CUDA0, ROCm1, Vulkan0,
//                 Metal: index 0); the regex must compile
//   tensor_split  "a,b,..." non-negative numbers (',' or '/'), not all 0
//   gpu_memory    "0=24GiB,1=12GiB" or "24GiB,12GiB": each GPU's free
//                 memory (memory_size.h's sizes), indices 0..n-1 each once
Result<std::optional<uint64_t>> parse_n_gpu_layers(std::string_view text);
Result<LlamaCppTensorOverride> parse_tensor_override(std::string_view text);
Result<std::vector<double>> parse_tensor_split(std::string_view text);
Result<std::vector<LlamaCppGpu>> parse_gpu_memory(std::string_view text);

// The placement fields of a request, as given (nullopt / empty: not
// given). The JSON request's field names are the keys of
// set_placement_field; the CLI's flags are llama.cpp's.
struct LlamaCppPlacementRequest {
  std::optional<std::optional<uint64_t>> n_gpu_layers;  // inner nullopt: auto / all
  std::optional<uint64_t> n_cpu_moe;
  std::vector<LlamaCppTensorOverride> override_tensor;
  std::optional<SplitMode> split_mode;
  std::vector<double> tensor_split;
  std::optional<uint64_t> main_gpu;
  std::optional<bool> no_mmap;
  std::optional<bool> mlock;
  std::optional<bool> no_kv_offload;
  std::optional<std::vector<LlamaCppGpu>> gpu_memory;
  std::optional<uint64_t> gpu_margin;
  // No text field: check-log sets it from the log (the settings' comment).
  std::optional<bool> pipeline_parallel;
  // No text field: check-log sets it from the log (the settings' comment).
  std::optional<bool> host_extra_buffer;

  // The first field given; "" when none.
  std::string_view first_given() const;
  // The settings with these fields applied over `base`'s.
  LlamaCppPlacementSettings applied(LlamaCppPlacementSettings base) const;
};

// Sets `field` of `request` from its text: n_gpu_layers, n_cpu_moe,
// override_tensor (comma-separated rules, added after those set before, as
// llama.cpp splits -ot), split_mode, tensor_split, main_gpu, gpu_memory,
// gpu_margin (a size, "0" for none), and the switches no_mmap, mlock,
// no_kv_offload ("true" / "false"). kUsage naming the field on bad text,
// or "an unknown placement field".
Status set_placement_field(LlamaCppPlacementRequest& request, std::string_view field,
                           std::string_view text);

// What one device holds, in llama.cpp's three categories.
struct LlamaCppDeviceUsage {
  std::string device;  // "cpu" for the host
  std::string name;
  uint64_t model_bytes = 0;    // weights on it (+ CPU_REPACK copies on a CPU-only run)
  uint64_t context_bytes = 0;  // KV + recurrent state of its layers (+ output buffer on the host)
  // The recurrent state part of context_bytes: the state of its recurrent
  // layers (llama_memory_recurrent puts a layer's r and s on the layer's
  // device, as llama_kv_cache does its K and V). 0 without such layers.
  uint64_t recurrent_bytes = 0;
  uint64_t compute_bytes = 0;  // its compute buffer (modelled)
  uint64_t extras_bytes = 0;   // the server extras on it (llamacpp_extras.h)
  uint64_t confidence_bytes = 0;  // its share of the --confidence margin (llamacpp.h: bands)
  uint64_t total_bytes = 0;    // model + context + compute + extras + confidence
  uint64_t free_bytes = 0;     // the GPU's free memory; the host: the budget
  uint64_t usable_bytes = 0;   // free - margin on a GPU; the host: the budget
  bool fits = false;           // total <= usable
  uint64_t short_bytes = 0;    // total - usable when it does not fit
  uint64_t blocks = 0;         // decoder blocks whose layer is on it
  bool output_layer = false;   // the output layer (output_norm, output) is on it
  // --split-mode row: llama.cpp gives each block's device a split buffer
  // type of its own ("CUDA1_Split", ggml_backend_split_buffer_type(device,
  // tensor_split): make_gpu_buft_list), whose matrices the buffer spreads
  // by rows over every GPU. row_split_buffer_bytes: the whole bytes of the
  // row-split matrices of the blocks this GPU runs, what load_tensors
  // prints for "CUDA1_Split"; row_split_share_bytes: this GPU's rows of all
  // of them, part of model_bytes (the memory it holds). 0 otherwise.
  uint64_t row_split_buffer_bytes = 0;
  uint64_t row_split_share_bytes = 0;
  // The host only: mapped weights, file-backed page cache the OS may drop
  // and read again (0 with --no-mmap or --mlock: resident).
  uint64_t page_cache_bytes = 0;
};

// Where one of the model's weight tensors is loaded: what decides the
// buffer of anything llama.cpp puts next to it (a LoRA adapter's pair).
struct LlamaCppTensorPlace {
  uint32_t device = 0;     // an index into LlamaCppPlacement::devices
  bool loaded = true;      // false: a NextN block's, not loaded
  bool row_split = false;  // a matrix -sm row spreads over every GPU (device: its block's GPU)
};

struct LlamaCppPlacement {
  uint64_t n_gpu_layers = 0;  // as resolved: min(-ngl, blocks + 1); 0 without GPUs
  std::vector<LlamaCppDeviceUsage> devices;  // the GPUs in order, then "cpu"
  bool fits = false;                         // every device fits
  // One per tensor of the model's tensor list, in its order (empty when
  // the model has none): the device each weight's own decision (its block,
  // -ngl, -ot, --n-cpu-moe) put it on. A CPU run's are all "cpu"
  // (CPU_REPACK included: a buffer of the host).
  std::vector<LlamaCppTensorPlace> tensors;
  // The scheduler's copies of each graph and split input the compute
  // buffers hold: 4 under pipeline parallelism (GGML_SCHED_MAX_COPIES),
  // else 1 (docs/engine-llamacpp.md, "Pipeline parallelism").
  uint64_t n_copies = 1;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMACPP_PLACEMENT_H_
