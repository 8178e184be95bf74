// The published runs predicted (memfit/published_runs.h): each run's
// bounds from its device and model, the bands fitted on all runs and, held
// out, on the other half (docs/validation-speed.md).
#include <algorithm>

#include <fmt/format.h>

#include "memfit/published_runs.h"

namespace memfit {
namespace {

// The bytes of a model's routed experts when the run's quant names their
// storage, else 0 (the file's mean width is then the experts' too).
// llama.cpp's MXFP4 MoE file type (llama-bench's "MXFP4 MoE"; gpt-oss as
// ggml-org converts it, ggml-org/llama.cpp#15091) stores every routed
// expert in MXFP4: 17 bytes a block of 32 weights, 4.25 bits (16 bytes of
// 4-bit values and one E8M0 scale: block_mxfp4, ggml/src/ggml-common.h);
// its other tensors are wider and read whole by every token.
uint64_t declared_expert_bytes(const PublishedRun& run, const PublishedModel& model) {
  if (model.expert_params == 0 || !run.quant.starts_with("MXFP4")) return 0;
  constexpr uint64_t kBlock = 32;
  constexpr uint64_t kBlockBytes = 17;
  return model.expert_params / kBlock * kBlockBytes +
         model.expert_params % kBlock * kBlockBytes / kBlock;
}

SpeedModelShape shape_of(const PublishedRun& run, const PublishedModel& model) {
  SpeedModelShape shape;
  shape.expert_params = model.expert_params;
  shape.expert_weight_bytes = declared_expert_bytes(run, model);
  shape.weight_bytes = run.size_bytes;
  shape.params = model.params;
  shape.active_params = model.active_params;
  shape.n_layers = model.n_layers;
  shape.attention_width = model.attention_width;
  shape.kv_width = model.kv_width;
  // A llama.cpp prompt is multiplied a microbatch at a time: the prompt,
  // or llama-bench's default -ub where the prompt is longer (the table has
  // no -ub column: the runs that name another in their notes are prompts
  // of at most their -ub, or on Metal, whose tiles a microbatch of 512
  // fills as well as a larger one: docs/speed.md, "A mixture of experts'
  // prompt").
  if (run.engine == "llamacpp") {
    if (std::optional<uint64_t> prompt = test_tokens(run.prefill_test)) {
      shape.microbatch_tokens = std::min(*prompt, kLlamaCppDefaultUbatch);
      shape.tile_tokens = llamacpp_prompt_tile_tokens(run.backend);
    }
  }
  return shape;
}

// A run's bound for one phase; nullopt when the run has no such test or
// its device lacks the figure. `peak_group` names the group whose peak a
// prefill bound reads (prefill_compute_peak()).
std::optional<double> bound_of(const PublishedRun& run, const PublishedModel& model,
                               const DeviceThroughput& device, SpeedPhase phase,
                               std::string_view peak_group) {
  const SpeedModelShape shape = shape_of(run, model);
  if (phase == SpeedPhase::kDecode) {
    std::optional<uint64_t> context = test_mean_context_tokens(run.decode_test);
    if (!context) return std::nullopt;
    const DeviceTokenBytes part{device, shape.active_weight_bytes(),
                                shape.kv_bytes_per_token() * *context};
    Result<double> bound = decode_bound_tokens_per_second({&part, 1});
    return bound ? std::optional<double>(*bound) : std::nullopt;
  }
  std::optional<uint64_t> context = test_mean_context_tokens(run.prefill_test);
  if (!context) return std::nullopt;
  Result<double> bound = prefill_bound_tokens_per_second(
      shape, *context, device, prefill_compute_peak(peak_group));
  return bound ? std::optional<double>(*bound) : std::nullopt;
}

std::optional<double> measured(const PublishedRun& run, SpeedPhase phase) {
  return phase == SpeedPhase::kDecode ? run.decode_tokens_per_second
                                      : run.prefill_tokens_per_second;
}

const GpuSpec* gpu_of(const HardwareTable& table, std::string_view id) {
  for (const GpuSpec& g : table.gpus) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

// The device a run's prompt is priced on: the table's, except under
// Vulkan, whose peak depends on whether the driver gave llama.cpp the
// matrix units (vulkan_prefill_tflops; prefill_compute_peak("vulkan")
// reads fp16_tflops).
DeviceThroughput prefill_device(const HardwareTable& table, const PublishedRun& run,
                                const DeviceThroughput& device) {
  const GpuSpec* gpu = gpu_of(table, run.device);
  if (run.backend != "vulkan" || gpu == nullptr) return device;
  return DeviceThroughput{device.name, device.bandwidth_gb_s,
                          vulkan_prefill_tflops(*gpu, run.matrix_cores), 0};
}

// A run's bounds. The prefill bound reads the peak of the run's own group
// (FP16 for vLLM and SGLang, the backend's for llama.cpp); a torch engine's
// run priced by its backend's band (band_group()) reads the backend's, the
// prefill_at_backend_peak bound.
struct RunBounds {
  std::optional<double> decode;
  std::optional<double> prefill;
  std::optional<double> prefill_at_backend_peak;
  std::optional<double> of(SpeedPhase phase) const {
    return phase == SpeedPhase::kDecode ? decode : prefill;
  }
};

// The group whose peak a run's prefill bound reads: the torch engines'
// own group, else the backend (llama.cpp's build eras share its peak).
std::string peak_group(const PublishedRun& run) {
  return torch_engine(run.engine) ? engine_fit_group(run.engine, run.backend) : run.backend;
}

Result<std::vector<RunBounds>> bounds_of(const PublishedRuns& runs, const HardwareTable& table) {
  std::vector<RunBounds> out;
  for (const PublishedRun& run : runs.runs) {
    std::optional<DeviceThroughput> device = device_throughput(table, run.device);
    if (!device) {
      return Error(fmt::format("data/speed/published-runs.tsv: line {}: device {} is not in the "
                               "hardware table",
                               run.line, run.device));
    }
    const PublishedModel* model = runs.find_model(run.model);  // parse checked it
    const DeviceThroughput prompt_device = prefill_device(table, run, *device);
    const std::string peak = peak_group(run);
    const std::optional<double> prefill =
        bound_of(run, *model, prompt_device, SpeedPhase::kPrefill, peak);
    // At the backend's peak: the same bound unless the run's group has its own.
    const std::optional<double> at_backend =
        peak == run.backend ? prefill
                            : bound_of(run, *model, prompt_device, SpeedPhase::kPrefill, run.backend);
    out.push_back({bound_of(run, *model, *device, SpeedPhase::kDecode, run.backend), prefill,
                   at_backend});
  }
  return out;
}

// The prompt tokens of a run's prefill test ("pp115": 115); 0 when none
// (the parse checked the test's form).
uint64_t prompt_tokens(const PublishedRun& run) {
  return run.prefill_test.starts_with("pp") ? test_tokens(run.prefill_test).value_or(0) : 0;
}

// Seconds a token as a warm process runs it: the published figure's, less
// a first call's one-time cost (its median) spread over the prompt
// (PublishedRun::first_call); nullopt when nothing is left of it.
std::optional<double> warm_seconds_a_token(const PublishedRun& run, SpeedPhase phase,
                                           double figure) {
  const double published = 1 / figure;
  if (phase == SpeedPhase::kDecode || !run.first_call) return published;
  const std::optional<FirstCallSeconds> cost = first_call_seconds(run.engine);
  const uint64_t tokens = prompt_tokens(run);
  if (!cost || tokens == 0) return published;
  const double warm = published - cost->median / static_cast<double>(tokens);
  return warm > 0 ? std::optional<double>(warm) : std::nullopt;
}

// The samples of the runs `keep` accepts (by index).
template <typename Keep>
std::vector<EfficiencySample> samples_of(const PublishedRuns& runs,
                                         const std::vector<RunBounds>& bounds, SpeedPhase phase,
                                         Keep keep) {
  std::vector<EfficiencySample> samples;
  for (size_t i = 0; i < runs.runs.size(); ++i) {
    const std::optional<double> bound = bounds[i].of(phase);
    const std::optional<double> figure = measured(runs.runs[i], phase);
    if (!keep(i) || !bound || !figure) continue;
    const std::optional<double> seconds = warm_seconds_a_token(runs.runs[i], phase, *figure);
    if (!seconds) continue;
    const PublishedModel* model = runs.find_model(runs.runs[i].model);  // parse checked it
    samples.push_back({fit_group(runs.runs[i], phase), quant_family(runs.runs[i].quant), 1 / *bound,
                       model->n_layers, *seconds});
  }
  return samples;
}

// A run priced as memfit prices a plan: by its group's band, or for a
// torch engine whose group has too few runs in `table`, by its backend's
// band at the backend's peak (band_group()).
std::optional<SpeedRange> predict(const EfficiencyTable& table, const PublishedRun& run,
                                  SpeedPhase phase, uint64_t n_layers, const RunBounds& bounds) {
  const std::string group = fit_group(run, phase);
  const std::string used =
      torch_engine(run.engine) ? band_group(table, group, run.backend) : group;
  const std::optional<double> bound = phase == SpeedPhase::kPrefill && used != group
                                          ? bounds.prefill_at_backend_peak
                                          : bounds.of(phase);
  if (!bound) return std::nullopt;
  std::optional<EfficiencyBand> band = table.find(used, quant_family(run.quant));
  if (!band) return std::nullopt;
  const SpeedRange warm = apply_efficiency(*bound, n_layers, *band);
  // A prompt timed on the process's first forward pass pays its one-time
  // cost too.
  const std::optional<FirstCallSeconds> cost = first_call_seconds(run.engine);
  if (phase == SpeedPhase::kPrefill && run.first_call && cost) {
    return first_call_prefill(warm, prompt_tokens(run), *cost);
  }
  return warm;
}

// The latest batch of the table: the runs of every batch before it are
// what predicts its runs never seen.
uint64_t last_batch(const PublishedRuns& runs) {
  uint64_t last = 0;
  for (const PublishedRun& run : runs.runs) last = std::max(last, run.batch);
  return last;
}

}  // namespace

bool torch_engine(std::string_view engine) { return engine == "vllm" || engine == "sglang"; }

std::string engine_fit_group(std::string_view engine, std::string_view backend) {
  if (torch_engine(engine)) return std::string(backend) + " vllm/sglang";
  return std::string(backend);
}

std::string band_group(const EfficiencyTable& table, std::string_view group,
                       std::string_view backend) {
  for (const EfficiencyBand& band : table.bands()) {
    if (band.backend == group && band.family.empty() && band.runs >= kMinEfficiencyRuns) {
      return std::string(group);
    }
  }
  return std::string(backend);
}

std::string fit_group(const PublishedRun& run, SpeedPhase phase) {
  if (torch_engine(run.engine)) return engine_fit_group(run.engine, run.backend);
  const bool cuda_code = run.backend == "cuda" || run.backend == "rocm";
  // "YYYY-MM" strings order as their months do.
  if (phase == SpeedPhase::kPrefill && run.engine == "llamacpp" && cuda_code &&
      !run.build_date.empty() &&
      run.build_date < kCudaBuildEra) {
    return run.backend + " builds before " + std::string(kCudaBuildEra);
  }
  if (phase == SpeedPhase::kPrefill && run.backend == "vulkan" && run.matrix_cores == "none") {
    return std::string(kVulkanWithoutMatrixCores);
  }
  if (phase == SpeedPhase::kDecode && run.engine == "llamacpp" && run.backend == "cuda" &&
      !run.build_date.empty() && run.build_date < kCudaGraphsEra) {
    return run.backend + " builds before " + std::string(kCudaGraphsEra);
  }
  return run.backend;
}

bool vulkan_uses_matrix_cores(const GpuSpec& gpu, std::string_view matrix_cores) {
  if (matrix_cores == "none") return false;
  if (!matrix_cores.empty()) return true;  // "KHR_coopmat", "NV_coopmat2"
  return gpu.fp16_dense_tflops > 0 || gpu.int8_dense_tops > 0;
}

double vulkan_prefill_tflops(const GpuSpec& gpu, std::string_view matrix_cores) {
  if (!vulkan_uses_matrix_cores(gpu, matrix_cores)) return gpu.fp16_vector_tflops;
  const double matrix = std::max(gpu.fp16_dense_tflops, gpu.int8_dense_tops / 2);
  return matrix > 0 ? matrix : gpu.fp16_vector_tflops;
}

std::optional<DeviceThroughput> device_throughput(const HardwareTable& table,
                                                  std::string_view id) {
  if (const GpuSpec* g = gpu_of(table, id)) {
    return DeviceThroughput{g->id, g->bandwidth_gb_s, g->fp16_dense_tflops, g->int8_dense_tops};
  }
  for (const MacSpec& m : table.macs) {
    if (m.id == id) return DeviceThroughput{m.id, m.decode_bandwidth_gb_s(), m.fp16_tflops, 0};
  }
  return std::nullopt;
}

Result<EfficiencyTable> fit_published_efficiency(const PublishedRuns& runs,
                                                 const HardwareTable& table, SpeedPhase phase) {
  Result<std::vector<RunBounds>> bounds = bounds_of(runs, table);
  if (!bounds) return bounds.error();
  const std::vector<EfficiencySample> samples =
      samples_of(runs, *bounds, phase, [](size_t) { return true; });
  return EfficiencyTable::fit(samples);
}

Result<std::vector<RunPrediction>> predict_published_runs(const PublishedRuns& runs,
                                                          const HardwareTable& table) {
  Result<std::vector<RunBounds>> bounds = bounds_of(runs, table);
  if (!bounds) return bounds.error();
  const auto fit = [&](SpeedPhase phase, auto keep) {
    return EfficiencyTable::fit(samples_of(runs, *bounds, phase, keep));
  };
  const auto all = [](size_t) { return true; };
  const auto even = [](size_t i) { return i % 2 == 0; };
  const auto odd = [](size_t i) { return i % 2 == 1; };
  const EfficiencyTable decode_all = fit(SpeedPhase::kDecode, all);
  const EfficiencyTable prefill_all = fit(SpeedPhase::kPrefill, all);
  // Held out: the even runs are predicted by the bands of the odd ones and
  // the odd runs by the even ones'.
  const EfficiencyTable decode_odd = fit(SpeedPhase::kDecode, odd);
  const EfficiencyTable decode_even = fit(SpeedPhase::kDecode, even);
  const EfficiencyTable prefill_odd = fit(SpeedPhase::kPrefill, odd);
  const EfficiencyTable prefill_even = fit(SpeedPhase::kPrefill, even);

  std::vector<RunPrediction> out;
  // Left out: run i by the bands of every other run (one fit a run and a
  // phase; the fits are a few sums over at most a few hundred runs).
  const auto left_out = [&](SpeedPhase phase, size_t i, uint64_t layers,
                            const RunBounds& b) -> std::optional<SpeedRange> {
    if (!b.of(phase)) return std::nullopt;
    return predict(fit(phase, [i](size_t j) { return j != i; }), runs.runs[i], phase, layers, b);
  };
  // Never seen: batch k by the runs of batches before k (one fit a batch
  // and a phase).
  std::vector<EfficiencyTable> decode_before, prefill_before;
  for (uint64_t k = 0; k <= last_batch(runs); ++k) {
    const auto earlier = [&runs, k](size_t j) { return runs.runs[j].batch < k; };
    decode_before.push_back(fit(SpeedPhase::kDecode, earlier));
    prefill_before.push_back(fit(SpeedPhase::kPrefill, earlier));
  }
  for (size_t i = 0; i < runs.runs.size(); ++i) {
    const PublishedRun& run = runs.runs[i];
    const RunBounds& b = (*bounds)[i];
    const bool is_even = i % 2 == 0;
    const uint64_t layers = runs.find_model(run.model)->n_layers;
    RunPrediction p;
    p.run = &run;
    p.family = quant_family(run.quant);
    p.decode_bound = b.decode;
    p.prefill_bound = b.prefill;
    p.decode_fitted = predict(decode_all, run, SpeedPhase::kDecode, layers, b);
    p.decode_held_out = predict(is_even ? decode_odd : decode_even, run, SpeedPhase::kDecode, layers,
                                b);
    p.prefill_fitted = predict(prefill_all, run, SpeedPhase::kPrefill, layers, b);
    p.prefill_held_out = predict(is_even ? prefill_odd : prefill_even, run, SpeedPhase::kPrefill,
                                 layers, b);
    p.decode_left_out = left_out(SpeedPhase::kDecode, i, layers, b);
    p.prefill_left_out = left_out(SpeedPhase::kPrefill, i, layers, b);
    if (run.batch > 0) {
      p.decode_never_seen = predict(decode_before[run.batch], run, SpeedPhase::kDecode, layers,
                                    b);
      p.prefill_never_seen = predict(prefill_before[run.batch], run, SpeedPhase::kPrefill, layers,
                                     b);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace memfit
