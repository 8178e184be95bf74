// The options every estimating command shares (-m, --max-tokens, --batch,
// KV cache width, --quant, --backend, --memory-limit, --device, --engine,
// and the multi-device plan's --tensor-parallel / --pipeline-parallel /
// --parallel-engine), turned into the library's EstimateRequest: the CLI is
// one of the request layer's three front ends (include/memfit/request.h),
// so inspect, preflight, fit, recommend-quant and plot cannot disagree with
// the C API and the service.
#ifndef MEMFIT_CLI_ESTIMATE_OPTIONS_H_
#define MEMFIT_CLI_ESTIMATE_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/warning.h"

namespace memfit::cli {

// The flags as given: each is parsed by the library's own parser in
// to_request(), so its names and aliases are the JSON request's.
struct EstimateOptions {
  std::string model;
  uint64_t max_tokens = 8192;
  bool max_tokens_given = false;  // --max-tokens, or a command's own context
  uint64_t batch = 1;
  std::string kv_cache_mode;  // "" = not given
  std::string cache_type_k;
  std::string cache_type_v;
  std::string quant;
  std::string backend = "auto";
  std::string memory_limit;
  std::string device = "auto";
  std::string engine = "auto";
  bool json = false;
  // Multi-device plan; a plan is made when tensor x pipeline > 1.
  uint64_t tensor_parallel = 1;
  uint64_t pipeline_parallel = 1;
  std::string parallel_engine = "vllm";
  // llama.cpp's flags (--engine llamacpp); nullopt / "" / false: not given.
  std::optional<uint64_t> ctx_size;
  std::optional<uint64_t> parallel;
  std::optional<uint64_t> batch_size;
  std::optional<uint64_t> ubatch_size;
  std::string flash_attn;
  bool swa_full = false;
  bool kv_unified = false;
  std::string repack;
  // llama-server's extras (llamacpp_extras.h); "" / false: not given.
  std::string mmproj;
  bool no_mmproj_offload = false;
  std::vector<std::string> lora;                                    // --lora FILE, repeatable
  std::vector<std::pair<std::string, std::string>> lora_scaled;     // --lora-scaled FILE SCALE
  std::optional<std::string> cache_ram;          // parsed by parse_cache_ram ("-1" allowed)
  std::optional<uint64_t> ctx_checkpoints;
  std::string model_draft;                 // -md
  std::optional<std::string> n_gpu_layers_draft;  // -ngld
  std::string cache_type_k_draft, cache_type_v_draft;  // -ctkd, -ctvd
  std::optional<std::string> ctx_size_draft;  // refused: v0.4.0 has no such flag
  // mlx-lm's flags (--engine mlx-lm); nullopt: not given.
  std::optional<uint64_t> prompt_tokens;  // set by preflight generate
  std::optional<uint64_t> prefill_step_size;
  std::optional<uint64_t> kv_bits;
  std::optional<uint64_t> kv_group_size;
  std::optional<uint64_t> max_kv_size;
  // vLLM's flags (--engine vllm); nullopt / "": not given.
  std::optional<double> gpu_memory_utilization;
  std::string gpu_memory_total;
  std::optional<std::string> gpu_name;  // "" given is refused, so not a sentinel
  std::string kv_cache_memory;
  std::optional<uint64_t> block_size;
  std::string kv_cache_dtype;
  std::optional<uint64_t> max_model_len;
  std::optional<uint64_t> max_num_seqs;
  std::optional<uint64_t> max_num_batched_tokens;
  std::optional<uint64_t> num_speculative_tokens;
  bool enforce_eager = false;
  std::string vllm_version;
  std::vector<std::pair<std::string, std::string>> placement;  // (request field, text) as given
  // The Hub (docs/hub.md): "" / nullopt / false when not given.
  std::string token;
  std::string revision;
  std::string file;
  std::optional<uint64_t> timeout_seconds;
  bool offline = false;
};

// llama.cpp's multi-letter short flags (-np, -ub, -ctk, -ctv, -fa), which
// CLI11 cannot register, rewritten to their long names; every other
// argument as it is.
std::vector<std::string> with_llamacpp_short_flags(int argc, char** argv);

// Registers the shared options on `command`: the model, KV width, quant
// label, backend, budget, engine and --json ...
void add_model_options(CLI::App& command, EstimateOptions& options);
// ... and the request's --max-tokens and --batch.
void add_request_options(CLI::App& command, EstimateOptions& options);
// llama.cpp's flags for --engine llamacpp: -c/--ctx-size, --parallel (-np),
// -b/--batch-size, --ubatch-size (-ub), --flash-attn (-fa), --swa-full,
// --kv-unified. On the commands that price llamacpp (inspect, preflight
// generate, fit).
void add_llamacpp_options(CLI::App& command, EstimateOptions& options);
// The placement flags: -ngl, --n-cpu-moe, -ot, -sm, -ts, -mg, --no-mmap,
// --mlock, --no-kv-offload, --gpu-memory, --gpu-margin.
void add_llamacpp_placement_options(CLI::App& command, EstimateOptions& options);
// The same but -c and --parallel, for a command that reads the context and
// the sequences with flags of its own (preflight serve).
void add_llamacpp_batch_options(CLI::App& command, EstimateOptions& options);
// mlx-lm's flags for --engine mlx-lm: --prefill-step-size, --kv-bits,
// --kv-group-size, --max-kv-size, and --prompt-tokens for a command that
// has none of its own (inspect; preflight generate reads its own).
void add_mlxlm_options(CLI::App& command, EstimateOptions& options, bool with_prompt_tokens = false);
// vLLM's flags for --engine vllm: --gpu-memory-utilization,
// --gpu-memory-total, --kv-cache-memory (--kv-cache-memory-bytes),
// --block-size, --kv-cache-dtype, --max-model-len, --max-num-seqs,
// --max-num-batched-tokens, --num-speculative-tokens, --enforce-eager.
void add_vllm_options(CLI::App& command, EstimateOptions& options);
// --tensor-parallel N (--tensor-parallel-size), --pipeline-parallel M and
// --parallel-engine vllm|mlx.
void add_parallel_options(CLI::App& command, EstimateOptions& options);

// The request the options ask for. Usage errors name the request field
// (report_error prints it as the flag).
Result<EstimateRequest> to_request(const EstimateOptions& options);

// The real machine's request context, the Hub flags applied to how it
// opens models by name; a progress line on stderr, when it is a terminal,
// while many shards' headers are read from the Hub.
LocalRequestContext request_context(const EstimateOptions& options);

// to_request, then prepare() on the real machine.
Result<PreparedRequest> prepare_estimate(const EstimateOptions& options,
                                         const PrepareOptions& prepare_options = {});
// to_request, then run() on the real machine.
Result<EstimateRun> run_estimate(const EstimateOptions& options);

// What recommend-quant and plot --quants say when the model has no weight
// headers to price tensor by tensor.
Warning no_headers_warning();

// Prints an error as one stderr line, "memfit: [<command>: ]<message>" (for
// a usage error about one field the message is "--flag: detail"), and
// returns the exit status its kind maps to: kUsage 2, every other kind 1.
int report_error(const Error& error, std::string_view command = "");

// The warnings' texts as a JSON array: every --json answer lists the
// warnings the command printed on stderr.
nlohmann::ordered_json warnings_json(const std::vector<Warning>& warnings);

// Prints each warning on stderr: kAvailableNow lines as they are (scripts
// match their "WARNING: memory available now"), the others after
// "memfit: warning: ".
void print_warnings(const std::vector<Warning>& warnings);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_ESTIMATE_OPTIONS_H_
