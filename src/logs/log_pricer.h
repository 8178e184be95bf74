// LogPricer: how a runtime's logged run is priced by one engine profile,
// and the one list of them (log_pricers.cc). Each pricer turns the log's
// settings into an EstimateRequest (llamacpp_pricer.cc, vllm_pricer.cc,
// mlxlm_pricer.cc, sglang_pricer.cc) and sets memfit's figure beside each printed one after
// run(). Private to src/logs.
#ifndef MEMFIT_LOGS_LOG_PRICER_H_
#define MEMFIT_LOGS_LOG_PRICER_H_

#include <string>
#include <string_view>
#include <vector>

#include "memfit/log_check.h"

namespace memfit::logs {

class LogPricer {
 public:
  virtual ~LogPricer() = default;
  // The engine profile's name ("llamacpp").
  virtual std::string_view profile() const = 0;
  // Whether the runtime's logs can describe the model whole (llama.cpp's
  // metadata dump: model_from_log).
  virtual bool rebuilds_model() const { return false; }
  // The config.json of the run's model, from the one given beside the log
  // (options.config_json, not empty): as given, unless the pricer rebuilds
  // the checkpoint the run loaded from it (mlx-lm: the base config as
  // mlx_lm.convert quantizes it by options.file_type, mlxlm_pricer.cc;
  // llama.cpp: a DeepSeek-V3 config as a build before MLA ran it,
  // pre_mla_config.h). `notes` gets what it assumed; an error says why it
  // cannot.
  virtual Result<std::string> run_config(const RuntimeLog& log, const LogCheckOptions& options,
                                         std::vector<std::string>& notes) const {
    (void)log;
    (void)notes;
    return options.config_json;
  }
  // The request for the logged run, its model left for the caller.
  // `notes` gets what the request assumes that the log did not say.
  // kUsage when the log lacks what the profile cannot do without.
  virtual Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
                                          std::vector<std::string>& notes) const = 0;
  // The backend the run is priced on when what was given beside the log
  // names it and the log does not (mlx-lm: --gpu-name naming an NVIDIA GPU
  // is MLX's CUDA backend, "MLX-CUDA"); "" keeps the reader's.
  virtual std::string priced_backend(const RuntimeLog& log, const LogCheckOptions& options) const {
    (void)log;
    (void)options;
    return "";
  }
  // The printed figures as the run's release meant its units, once the
  // version is known (the log's, or the one given beside it), priced or
  // not: mlx-lm before GenerationResponse printed 2^30 bytes as "GB".
  virtual void settle_printed(RuntimeLog& log) const { (void)log; }
  // memfit's figure (and its basis) for each printed figure it prices; a
  // note on those it does not.
  virtual void compare(const RuntimeLog& log, const LogCheckOptions& options,
                       const EstimateRun& run, std::vector<FigureCheck>& figures) const = 0;
};

// The pricer of `runtime` (RuntimeLog::runtime); null when no profile
// prices its runs.
const LogPricer* log_pricer(std::string_view runtime);
// The pricer of `log`: its runtime's, but llama.cpp's for an Ollama log
// whose server started llama-server on the model (Ollama v0.30.0 on: the
// run is llama-server's, its buffers llama.cpp's at the release's build).
const LogPricer* log_pricer(const RuntimeLog& log);

const LogPricer& llamacpp_log_pricer();
const LogPricer& vllm_log_pricer();
const LogPricer& mlxlm_log_pricer();
const LogPricer& sglang_log_pricer();
const LogPricer& ollama_log_pricer();

// Whether the log's llama.cpp release kept one KV cache of n_ctx cells for
// more than one sequence ("llama_kv_cache_init: kv_size = n_ctx", a release
// before a stream per sequence): llamacpp_pricer.cc.
bool one_cache_for_all(const RuntimeLog& log);
// The newest llama.cpp build that prints its compute buffers from the
// function the log's lines name (the reader's compute_function): b4896
// for llama_new_context_with_model and llama_init_from_model (before
// llama_context's constructor), b7771 for llama_context (before
// sched_reserve); b2412 where the log prints a separate input buffer
// (before #6017); nullopt for sched_reserve's lines, another name or
// none. What a log whose build is not known is priced as.
std::optional<uint64_t> build_bound(const RuntimeLog& log);

// A setting's value as a count; nullopt when absent or not a count.
std::optional<uint64_t> count_setting(const RuntimeLog& log, std::string_view name);

// Whether a byte figure of memfit's lies within the print's rounding
// (PrintedFigure::band): settle()'s within_print, for what a pricer says
// before it is set.
bool within_print_band(uint64_t memfit, const PrintedFigure& printed);

// Adds `note` after the row's note ("; " between them).
void append_note(FigureCheck& c, std::string_view note);
// Puts `note` before the row's note ("; " between them): the cause that
// sets the figure first.
void prepend_note(FigureCheck& c, std::string_view note);

// The file type llama-quantize names ("Q4_K_M") for the text a llama.cpp
// log printed in its `file type` line ("Q4_K - Medium"); the text's first
// word when it names no size ("Q8_0", "IQ4_XS - 4.25 bpw" is "IQ4_XS").
std::string gguf_file_type_of_printed(std::string_view printed);

// The notes a pricer adds when the log prints no n_ctx and memfit chooses
// the context itself (log_check.cc reads them to say why a row sized by the
// context misses): the llama.cpp pricer's, which the Ollama pricer replaces
// with its own.
inline constexpr std::string_view kTrainingContextAssumedNote =
    "n_ctx is not in the log: the model's training context is assumed";
inline constexpr std::string_view kOllamaDefaultContextNote =
    "n_ctx is not in the log: Ollama's default num_ctx for the release prices it (the VRAM tier of the "
    "GPUs' memory from v0.15.5, 4096 or 2048 before)";

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_PRICER_H_
