#include "estimate_options.h"

#include <fmt/format.h>

#include <cstdio>

#include "commands.h"
#include "memfit/checked_math.h"
#include "memfit/environment.h"
#include "memfit/host_memory.h"
#include "memfit/settings.h"
#include "memfit/tensor_inventory.h"

namespace memfit::cli {
namespace {

constexpr std::string_view kUsagePrefix = "usage: ";

Error usage(std::string message) { return Error(std::string(kUsagePrefix) + message); }

// A KV element type as --kv-cache-mode or llama.cpp's --cache-type-k/-v
// name it.
Result<KvElement> parse_kv_element(const std::string& text, std::string_view flag) {
  if (text == "fp16" || text == "f16" || text == "bf16" || text == "float16") return KvElement::kFp16;
  if (text == "int8" || text == "i8" || text == "q8" || text == "q8_0") return KvElement::kInt8;
  return usage(fmt::format("{} '{}': expected fp16 or int8", flag, text));
}

Result<KvElement> kv_element(const EstimateOptions& o, std::vector<std::string>& warnings) {
  std::optional<KvElement> mode;
  if (!o.kv_cache_mode.empty()) {
    Result<KvElement> m = parse_kv_element(o.kv_cache_mode, "--kv-cache-mode");
    if (!m) return m.error();
    mode = *m;
  }
  if (o.cache_type_k.empty() != o.cache_type_v.empty()) {
    return usage("--cache-type-k and --cache-type-v go together");
  }
  if (!o.cache_type_k.empty()) {
    Result<KvElement> k = parse_kv_element(o.cache_type_k, "--cache-type-k");
    if (!k) return k.error();
    Result<KvElement> v = parse_kv_element(o.cache_type_v, "--cache-type-v");
    if (!v) return v.error();
    KvElement both = *k;
    if (*k != *v) {
      both = KvElement::kFp16;
      warnings.push_back("--cache-type-k and --cache-type-v differ: the KV cache is sized at the "
                         "wider type, fp16");
    }
    if (mode && *mode != both) return usage("--kv-cache-mode disagrees with --cache-type-k/-v");
    mode = both;
  }
  return mode.value_or(KvElement::kFp16);
}

Result<Backend> parse_backend(const std::string& text) {
  if (text == "auto") return build_platform().backend;
  if (text == "rocm") return Backend::kRocm;
  if (text == "metal") return Backend::kMetal;
  if (text == "cuda") return Backend::kCuda;
  if (text == "cpu") return Backend::kCpu;
  return usage(fmt::format("--backend '{}': expected auto, rocm, metal, cuda or cpu", text));
}

// The per-rank plan: the tensor list when the model has safetensors
// headers on disk, else the proportional split.
Result<ParallelPlan> plan_for(const EstimateOptions& o, const EstimateContext& c) {
  Result<ParallelEngine> engine = parse_parallel_engine(o.parallel_engine);
  if (!engine) return usage("--parallel-engine: " + engine.error().message());
  ParallelConfig config{o.tensor_parallel, o.pipeline_parallel, *engine};
  if (Status refused = check_parallel_config(c.model.spec, config); !refused) {
    return usage(fmt::format("--tensor-parallel {} --pipeline-parallel {}: {}", o.tensor_parallel,
                             o.pipeline_parallel, refused.error().message()));
  }
  std::vector<SafetensorsTensor> tensors;
  if (c.model.weights.source == WeightsSource::kSafetensorsHeader ||
      (c.model.weights.source == WeightsSource::kSafetensorsIndex && c.model.weights.verified)) {
    std::unique_ptr<FileSystem> fs = make_real_file_system();
    Result<std::vector<SafetensorsTensor>> list = read_tensor_inventory(*fs, c.model.path);
    if (!list) return list.error().within(o.model);
    tensors = std::move(*list);
  }
  Result<ParallelPlan> plan = plan_parallel(c.model, tensors, c.inputs, c.settings, c.platform,
                                            c.budget, config);
  if (!plan) return plan.error().within(o.model);
  return plan;
}

}  // namespace

void add_request_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("--max-tokens", o.max_tokens, "context length in tokens (default 8192)")
      ->check(CLI::PositiveNumber);
  command.add_option("--batch", o.batch, "sequences decoded together (default 1)")
      ->check(CLI::PositiveNumber);
}

void add_parallel_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("--tensor-parallel", o.tensor_parallel,
                     "tensor-parallel ranks (default 1); ranks > 1 add a per-device plan")
      ->check(CLI::PositiveNumber);
  command.add_option("--pipeline-parallel", o.pipeline_parallel,
                     "pipeline-parallel stages (default 1)")
      ->check(CLI::PositiveNumber);
  command.add_option("--parallel-engine", o.parallel_engine,
                     "whose sharding rules the plan follows: vllm (default) or mlx")
      ->check(CLI::IsMember({"vllm", "mlx"}));
}

void add_model_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("-m,--model", o.model, "model folder or .safetensors file")->required();
  command.add_option("--kv-cache-mode", o.kv_cache_mode, "KV cache element type: fp16 or int8");
  command.add_option("--cache-type-k", o.cache_type_k, "K cache type (llama.cpp style)");
  command.add_option("--cache-type-v", o.cache_type_v, "V cache type (llama.cpp style)");
  command.add_option("--quant", o.quant, "intended weight mode label: fp16, int8 or int4")
      ->check(CLI::IsMember({"fp16", "int8", "int4"}));
  command.add_option("--backend", o.backend, "auto, rocm, metal, cuda or cpu");
  command.add_option("--memory-limit", o.memory_limit,
                     "memory budget, e.g. 48GB (binary units); overrides MEMFIT_MEMORY_LIMIT");
  command.add_option("--device", o.device, "budget device: auto, cpu, cuda:N or rocm:N");
  command.add_flag("--json", o.json, "print one JSON object on stdout");
}

Result<EstimateContext> prepare_estimate(const EstimateOptions& o) {
  EstimateContext c;
  std::unique_ptr<Environment> env = make_process_environment();
  c.settings = settings_from_environment(*env, c.warnings);

  c.inputs.max_tokens = o.max_tokens;
  c.inputs.batch = o.batch;
  c.inputs.quant = o.quant;
  Result<KvElement> element = kv_element(o, c.warnings);
  if (!element) return element.error();
  c.inputs.kv_element = *element;

  c.platform = build_platform();
  Result<Backend> backend = parse_backend(o.backend);
  if (!backend) return backend.error();
  c.platform.backend = *backend;

  HostQueryOptions host = host_query_options_from_environment(*env);
  host.explicit_limit_bytes = c.settings.memory_limit_bytes;
  if (!o.memory_limit.empty()) {
    Result<std::optional<uint64_t>> limit = parse_memory_size(o.memory_limit);
    if (!limit) return usage("--memory-limit: " + limit.error().message());
    host.explicit_limit_bytes = *limit;
  }
  Result<DeviceSelector> device = parse_device_selector(o.device);
  if (!device) return usage("--device: " + device.error().message());
  host.device = *device;

  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, o.model);
  if (!model) return model.error();
  c.model = std::move(*model);
  c.warnings.insert(c.warnings.end(), c.model.warnings.begin(), c.model.warnings.end());

  HostMemoryStatus status = query_host_memory(host);
  if (status.device_error) return Error(*status.device_error);
  c.warnings.insert(c.warnings.end(), status.warnings.begin(), status.warnings.end());
  c.budget = to_memory_budget(status);
  c.host = std::move(status);
  return c;
}

Result<EstimateRun> run_estimate(const EstimateOptions& o) {
  Result<EstimateContext> c = prepare_estimate(o);
  if (!c) return c.error();
  Result<Estimate> estimate = memfit::estimate(c->model, c->inputs, c->settings, c->platform, c->budget);
  if (!estimate) return estimate.error().within(o.model);
  // The load the host must hold now: weights + KV + activation (seed 001).
  // The warning never refuses the load and never changes FITS.
  uint64_t load = (CheckedBytes(estimate->weights_bytes) + estimate->kv.total_bytes +
                   estimate->activation_bytes).saturated();
  if (std::optional<std::string> line = available_now_warning(c->host, load)) {
    c->warnings.push_back(*line);
  }
  EstimateRun run;
  if (o.tensor_parallel * o.pipeline_parallel > 1 || o.tensor_parallel > kMaxParallelRanks ||
      o.pipeline_parallel > kMaxParallelRanks) {
    Result<ParallelPlan> plan = plan_for(o, *c);
    if (!plan) return plan.error();
    run.parallel = std::move(*plan);
  }
  run.model = std::move(c->model);
  run.estimate = std::move(*estimate);
  run.budget = std::move(c->budget);
  run.settings = c->settings;
  run.warnings = std::move(c->warnings);
  return run;
}

int report_error(const Error& error) {
  const std::string& message = error.message();
  bool is_usage = message.rfind(kUsagePrefix, 0) == 0;
  std::fprintf(stderr, "memfit: %s\n",
               is_usage ? message.substr(kUsagePrefix.size()).c_str() : message.c_str());
  return is_usage ? kExitUsage : kExitError;
}

Result<std::vector<SafetensorsTensor>> read_tensors_for_quant(const std::string& model,
                                                              std::vector<std::string>& warnings) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<std::vector<SafetensorsTensor>> tensors = read_tensor_inventory(*fs, model);
  if (tensors && tensors->empty()) {
    warnings.push_back("no *.safetensors headers to read: quantized sizes are estimated from "
                       "the config's parameter count");
  }
  return tensors;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    // The host guardrail line keeps its own "WARNING: memory available now"
    // prefix, which scripts match on.
    bool own_prefix = w.rfind("WARNING: ", 0) == 0;
    std::fprintf(stderr, own_prefix ? "%s\n" : "memfit: warning: %s\n", w.c_str());
  }
}

}  // namespace memfit::cli
