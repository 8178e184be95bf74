// The options every estimating command shares (-m, --max-tokens, --batch,
// KV cache width, --quant, --backend, --memory-limit, --device, and the
// multi-device plan's --tensor-parallel / --pipeline-parallel /
// --parallel-engine) and the one path from them to an Estimate, so inspect
// and preflight cannot disagree.
#ifndef MEMFIT_CLI_ESTIMATE_OPTIONS_H_
#define MEMFIT_CLI_ESTIMATE_OPTIONS_H_

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/estimate.h"
#include "memfit/host_memory.h"
#include "memfit/model.h"
#include "memfit/parallel_plan.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit::cli {

struct EstimateOptions {
  std::string model;
  uint64_t max_tokens = 8192;
  uint64_t batch = 1;
  std::string kv_cache_mode;  // "" = not given
  std::string cache_type_k;
  std::string cache_type_v;
  std::string quant;
  std::string backend = "auto";
  std::string memory_limit;
  std::string device = "auto";
  bool json = false;
  // Multi-device plan; a plan is made when tensor x pipeline > 1.
  uint64_t tensor_parallel = 1;
  uint64_t pipeline_parallel = 1;
  std::string parallel_engine = "vllm";
};

// Registers the shared options on `command`: the model, KV width, quant
// label, backend, budget and --json ...
void add_model_options(CLI::App& command, EstimateOptions& options);
// ... and the request's --max-tokens and --batch.
void add_request_options(CLI::App& command, EstimateOptions& options);
// --tensor-parallel N, --pipeline-parallel M and --parallel-engine vllm|mlx.
void add_parallel_options(CLI::App& command, EstimateOptions& options);

// Everything an estimate is computed from, resolved from the options,
// the environment and the host.
struct EstimateContext {
  Model model;
  EstimateInputs inputs;
  EstimateSettings settings;
  Platform platform;
  MemoryBudget budget;
  HostMemoryStatus host;
  std::vector<std::string> warnings;  // settings + model + host, for stderr
};

// Opens the model, reads the settings from the environment and queries
// the host. Usage problems come back as errors starting "usage: ".
Result<EstimateContext> prepare_estimate(const EstimateOptions& options);

// Everything an estimating command prints from.
struct EstimateRun {
  Model model;
  Estimate estimate;
  MemoryBudget budget;
  EstimateSettings settings;
  std::vector<std::string> warnings;  // settings + model + host, for stderr
  // The per-rank plan, when tensor x pipeline parallel > 1; its budget is
  // the one device budget the whole-model estimate uses.
  std::optional<ParallelPlan> parallel;
};

// prepare_estimate, then the estimate (and the parallel plan when asked;
// a plan the engine would refuse is a usage error naming the rule).
Result<EstimateRun> run_estimate(const EstimateOptions& options);

// Prints an error as one stderr line and returns the exit status for it.
int report_error(const Error& error);

// The tensor list that quantized weight modes are priced from
// (recommend-quant, plot --quants). When the model has no weight headers
// the list is empty and `warnings` says the sizes come from the config's
// parameter count.
Result<std::vector<SafetensorsTensor>> read_tensors_for_quant(const std::string& model,
                                                              std::vector<std::string>& warnings);
// Prints each warning as "memfit: warning: ..." on stderr.
void print_warnings(const std::vector<std::string>& warnings);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_ESTIMATE_OPTIONS_H_
