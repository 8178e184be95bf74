#include "estimate_options.h"

#include <cstdio>

#include "commands.h"
#include "memfit/memory_size.h"

namespace memfit::cli {
namespace {

// `value`, or its usage error about `field`.
template <typename T>
Result<T> named(std::string_view field, Result<T> value) {
  if (!value) return Error::usage(field, value.error().message());
  return value;
}

Result<std::optional<KvElement>> kv_option(std::string_view field, const std::string& text) {
  if (text.empty()) return std::optional<KvElement>();
  Result<KvElement> element = named(field, parse_kv_element(text));
  if (!element) return element.error();
  return std::optional<KvElement>(*element);
}

// "--cache-type-k" for the request field "cache_type_k".
std::string flag_name(std::string_view field) {
  std::string flag = "--";
  for (char c : field) flag.push_back(c == '_' ? '-' : c);
  return flag;
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
                     "whose sharding rules the plan follows: vllm (default) or mlx");
}

void add_model_options(CLI::App& command, EstimateOptions& o) {
  command.add_option("-m,--model", o.model, "model folder or .safetensors file")->required();
  command.add_option("--kv-cache-mode", o.kv_cache_mode, "KV cache element type: fp16 or int8");
  command.add_option("--cache-type-k", o.cache_type_k, "K cache type (llama.cpp style)");
  command.add_option("--cache-type-v", o.cache_type_v, "V cache type (llama.cpp style)");
  command.add_option("--quant", o.quant, "intended weight mode label: fp16, int8 or int4");
  command.add_option("--backend", o.backend, "auto, rocm, metal, cuda or cpu");
  command.add_option("--memory-limit", o.memory_limit,
                     "memory budget, e.g. 48GB (binary units); overrides MEMFIT_MEMORY_LIMIT");
  command.add_option("--device", o.device, "budget device: auto, cpu, cuda:N or rocm:N");
  command.add_option("--engine", o.engine, "allocation rules: auto or mlxcel (the seeds' runtime)");
  command.add_flag("--json", o.json, "print one JSON object on stdout");
}

Result<EstimateRequest> to_request(const EstimateOptions& o) {
  EstimateRequest r;
  r.model = o.model;
  r.max_tokens = o.max_tokens;
  r.batch = o.batch;
  for (auto [field, text, slot] :
       {std::tuple{"kv_cache_mode", &o.kv_cache_mode, &r.kv_cache_mode},
        std::tuple{"cache_type_k", &o.cache_type_k, &r.cache_type_k},
        std::tuple{"cache_type_v", &o.cache_type_v, &r.cache_type_v}}) {
    Result<std::optional<KvElement>> element = kv_option(field, *text);
    if (!element) return element.error();
    *slot = *element;
  }
  if (!o.quant.empty()) {
    Result<std::string> quant = named("quant", parse_quant_label(o.quant));
    if (!quant) return quant.error();
    r.quant = std::move(*quant);
  }
  Result<std::optional<Backend>> backend = named("backend", parse_backend(o.backend));
  if (!backend) return backend.error();
  r.backend = *backend;
  Result<DeviceSelector> device = named("device", parse_device_selector(o.device));
  if (!device) return device.error();
  r.device = *device;
  Result<std::optional<Engine>> engine = named("engine", parse_engine(o.engine));
  if (!engine) return engine.error();
  r.engine = *engine;
  Result<std::optional<uint64_t>> limit = named("memory_limit", parse_memory_size(o.memory_limit));
  if (!limit) return limit.error();
  r.memory_limit_bytes = *limit;
  Result<ParallelEngine> parallel_engine =
      named("parallel_engine", parse_parallel_engine(o.parallel_engine));
  if (!parallel_engine) return parallel_engine.error();
  r.parallel = ParallelConfig{o.tensor_parallel, o.pipeline_parallel, *parallel_engine};
  return r;
}

Result<PreparedRequest> prepare_estimate(const EstimateOptions& o,
                                         const PrepareOptions& prepare_options) {
  Result<EstimateRequest> request = to_request(o);
  if (!request) return request.error();
  LocalRequestContext context(*make_process_environment());
  return prepare(*request, context, prepare_options);
}

Result<EstimateRun> run_estimate(const EstimateOptions& o) {
  Result<EstimateRequest> request = to_request(o);
  if (!request) return request.error();
  LocalRequestContext context(*make_process_environment());
  return run(*request, context);
}

Warning no_headers_warning() {
  return Warning{WarningKind::kModel,
                 "no *.safetensors headers to read: quantized sizes are estimated from the "
                 "config's parameter count"};
}

int report_error(const Error& error, std::string_view command) {
  std::string line = "memfit: ";
  if (!command.empty()) line += std::string(command) + ": ";
  if (error.kind() == ErrorKind::kUsage && !error.field().empty()) {
    line += flag_name(error.field()) + ": " + std::string(error.detail());
  } else {
    line += error.message();
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  return error.kind() == ErrorKind::kUsage ? kExitUsage : kExitError;
}

nlohmann::ordered_json warnings_json(const std::vector<Warning>& warnings) {
  nlohmann::ordered_json texts = nlohmann::ordered_json::array();
  for (const Warning& w : warnings) texts.push_back(w.text);
  return texts;
}

void print_warnings(const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) {
    std::fprintf(stderr, w.kind == WarningKind::kAvailableNow ? "%s\n" : "memfit: warning: %s\n",
                 w.text.c_str());
  }
}

}  // namespace memfit::cli
