// The published runs the speed estimate is fitted and checked on
// (data/speed/published-runs.tsv, one run a row with its source) and the
// model shapes they name (data/speed/models.tsv), embedded into the library
// at build time as the hardware table is (cmake/embed_text_files.cmake).
// docs/speed.md describes the columns; docs/validation-speed.md is the
// check, written by scripts/gen-validation-speed.py.
#ifndef MEMFIT_PUBLISHED_RUNS_H_
#define MEMFIT_PUBLISHED_RUNS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/hardware.h"
#include "memfit/result.h"
#include "memfit/speed.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// One model of models.tsv: the shape of memfit/speed.h less the weight
// bytes, which each run gives.
struct PublishedModel {
  std::string id;  // "llama-3-8b"
  uint64_t params = 0;
  uint64_t active_params = 0;
  uint64_t n_layers = 0;
  uint64_t attention_width = 0;
  uint64_t kv_width = 0;
  std::string source;  // the config.json the shape was read from
  // The routed experts' parameters, every expert of every layer
  // (moe-experts.tsv); 0 for a dense model or one that table lacks.
  uint64_t expert_params = 0;
};

// One benchmark (llama-bench, mlx_lm.benchmark, ...) as published.
struct PublishedRun {
  size_t line = 0;      // its line in published-runs.tsv
  std::string source;   // URL
  std::string engine;   // "llamacpp", "mlx-lm"
  std::string backend;  // "cuda", "metal", "rocm", "vulkan", "mlx"
  std::string device;   // a hardware table id: a GPU's or a Mac's
  std::string model;    // a models.tsv id
  std::string quant;    // as printed: "Q4_K_M", "F16", "4bit"
  uint64_t size_bytes = 0;
  std::string size_basis;  // "printed" or "derived: <rule>"
  // The test as the source names it and the figure it printed; a test is
  // "pp<N>" (a prompt of N tokens), "tg<N>" (N tokens generated from an
  // empty cache); no figure: the source printed none.
  std::string prefill_test;
  std::optional<double> prefill_tokens_per_second;
  std::string decode_test;
  std::optional<double> decode_tokens_per_second;
  std::string notes;
  // The month ("YYYY-MM") the engine's build is from: its build's date or,
  // where the source prints none, the source's; empty when unknown (read
  // as the current release). fit_group() reads it.
  std::string build_date;
  // The collection the row came in: 0 for the first table, 1 for the runs
  // added after it, and so on. A run of batch k is also predicted by the
  // bands of the runs of batches before k only (RunPrediction::never_seen).
  uint64_t batch = 0;
  // Vulkan only: what the device line of llama.cpp's log says of the
  // matrix units ("matrix cores: NV_coopmat2", "KHR_coopmat" or "none");
  // empty where the source printed none (the rule of
  // vulkan_uses_matrix_cores decides). An optional column.
  std::string matrix_cores;
  // The prompt figure was timed on the process's first forward pass
  // (`mlx_lm.generate`, which runs no warm-up): the prompt_timing column's
  // "first call"; its prediction adds the engine's one-time cost
  // (first_call_seconds(), memfit/speed.h) and its fit takes that cost
  // out. An optional column; empty: a warm process's rate.
  bool first_call = false;
};

struct PublishedRuns {
  std::vector<PublishedModel> models;
  std::vector<PublishedRun> runs;

  const PublishedModel* find_model(std::string_view id) const;
};

// Parses the tables (the format of the hardware table: tab-separated, a
// header naming the columns); `experts_tsv` (moe-experts.tsv) may be empty.
// kInput naming the file, the line and the column on a missing column, a
// number that does not parse, a test that is not pp<N> / tg<N>, a run
// naming a model the models table lacks, a prompt_timing other than
// "first call" or empty (or "first call" for an engine without a
// first-call cost, or on a run without a prompt figure), or an experts row naming an
// unknown model or more expert parameters than its model's params less
// its shared ones allow (params - expert_params <= active_params).
Result<PublishedRuns> parse_published_runs(std::string_view models_tsv, std::string_view runs_tsv,
                                           std::string_view experts_tsv = {});

// The embedded tables, parsed once (thread-safe); kInternal when they do
// not parse (a test keeps that from shipping).
Result<const PublishedRuns*> published_runs();

// The N of a test "pp<N>" or "tg<N>" (N >= 1); nullopt for any other text.
std::optional<uint64_t> test_tokens(std::string_view test);

// The tokens a test's figure is averaged over, as the mean context it ran
// at: "pp512" is 256 (each prompt token attends to those before it: half
// the prompt on average), "tg128" is 64 (128 tokens generated from an empty
// cache). nullopt when the text is not pp<N> or tg<N>.
std::optional<uint64_t> test_mean_context_tokens(std::string_view test);

// A run's device as the speed estimate reads it: the table's GPU or Mac of
// that id (bandwidth, dense FP16, dense INT8). nullopt when the table has
// no such id.
std::optional<DeviceThroughput> device_throughput(const HardwareTable& table,
                                                  std::string_view id);

// One run, predicted. The bounds are unset when the device lacks the
// figure; each prediction is unset when its bound or the published figure
// is.
struct RunPrediction {
  const PublishedRun* run = nullptr;  // into the PublishedRuns given
  std::string family;                 // quant_family(run->quant)
  std::optional<double> decode_bound;
  std::optional<double> prefill_bound;
  // Fitted on every run (in-sample); held out, on the other half of the
  // runs only (a run's fold is its index's parity); left out, on every run
  // but this one. The last two never saw the run they predict.
  std::optional<SpeedRange> decode_fitted;
  std::optional<SpeedRange> decode_held_out;
  std::optional<SpeedRange> decode_left_out;
  std::optional<SpeedRange> prefill_fitted;
  std::optional<SpeedRange> prefill_held_out;
  std::optional<SpeedRange> prefill_left_out;
  // Batch k > 0 only: fitted on the runs of batches before k, the table as
  // it stood when the run was collected (unset for batch 0).
  std::optional<SpeedRange> decode_never_seen;
  std::optional<SpeedRange> prefill_never_seen;
};

// The group a run's efficiency is fitted in, in place of its backend: the
// backend, or for the prefill of a llama.cpp run on CUDA or ROCm whose
// build is from before kCudaBuildEra the backend and " builds before
// 2024-01": builds before the ggml-backend integration
// (ggml-org/llama.cpp#4766) ran prefill at half the speed on the same
// cards. For the decode of a llama.cpp run on CUDA whose build is from
// before kCudaGraphsEra, "cuda builds before 2024-05": builds before CUDA
// graphs (ggml-org/llama.cpp#6766) launched every kernel of a token one by
// one, a cost a layer the graph's single launch no longer pays (ROCm keeps
// one group: its graphs were a build option, off by default). docs/speed.md,
// "Build era". A prediction for the current release names the plain
// backend. A vLLM or SGLang run's group, both phases, is
// engine_fit_group()'s.
inline constexpr std::string_view kCudaBuildEra = "2024-01";
inline constexpr std::string_view kCudaGraphsEra = "2024-05";
// The prefill of a Vulkan run whose device line says "matrix cores: none"
// is fitted in its own group: its products run on the shader ALUs, other
// kernels at another share of another peak (docs/speed.md, "Vulkan"). A
// run whose line is unknown stays in "vulkan".
inline constexpr std::string_view kVulkanWithoutMatrixCores = "vulkan without matrix cores";
std::string fit_group(const PublishedRun& run, SpeedPhase phase);

// Whether llama.cpp's Vulkan backend runs a prompt's matrix products on
// the device's matrix units (docs/speed.md, "Vulkan"): as the run's
// matrix_cores says ("NV_coopmat2" and "KHR_coopmat" yes, "none" no);
// where it says nothing, when the hardware table gives the GPU a matrix
// figure (fp16_dense_tflops or int8_dense_tops).
bool vulkan_uses_matrix_cores(const GpuSpec& gpu, std::string_view matrix_cores);

// The peak a Vulkan prompt runs at, TFLOPS: with matrix units, their
// FP16-accumulate rate, the larger of fp16_dense_tflops and half of
// int8_dense_tops (llama.cpp's Vulkan matrix shaders accumulate in FP16
// where the device allows it, a rate NVIDIA's GeForce cards give at twice
// their FP32-accumulate figure and their INT8 at twice that again);
// without, or where the table has no matrix figure (an RDNA 3 part, whose
// WMMA runs FP16 at its packed shader rate), fp16_vector_tflops. 0 when
// the table lacks the figure.
double vulkan_prefill_tflops(const GpuSpec& gpu, std::string_view matrix_cores);

// vLLM and SGLang: PyTorch engines whose matrix products run cuBLAS (or
// their own kernels) at BF16/FP16 with FP32 accumulation, attention in
// FlashAttention/FlashInfer, decode steps replayed as CUDA graphs
// (docs/speed.md, "vLLM and SGLang"). Their runs are fitted in a group
// of their own per backend, engine_fit_group(): "cuda vllm/sglang",
// "rocm vllm/sglang"; any other engine's group is its backend.
bool torch_engine(std::string_view engine);
std::string engine_fit_group(std::string_view engine, std::string_view backend);

// The group whose band prices a plan of `group` (engine_fit_group()) on
// `backend`: the group itself when `table` has a band over at least
// kMinEfficiencyRuns of its runs, else the backend's (llama.cpp's runs on
// that backend): a torch engine with too few runs of a phase is priced as
// before it had any, at the backend's peak, and the report says so.
std::string band_group(const EfficiencyTable& table, std::string_view group,
                       std::string_view backend);

// Every run's bounds and predictions. kInput naming the run's line when a
// run names a device the hardware table lacks.
Result<std::vector<RunPrediction>> predict_published_runs(const PublishedRuns& runs,
                                                          const HardwareTable& table);

// The bands fitted on every run with a figure and a bound, per phase.
Result<EfficiencyTable> fit_published_efficiency(const PublishedRuns& runs,
                                                 const HardwareTable& table, SpeedPhase phase);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_PUBLISHED_RUNS_H_
