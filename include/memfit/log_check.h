// check_log: a runtime's log (runtime_log.h) priced by memfit. The run the
// log describes is turned into one EstimateRequest for the matching engine
// profile (llama.cpp and Ollama's llama.cpp runner: llamacpp; vLLM: vllm;
// mlx-lm: mlx-lm) and run through run() (request.h), the path every front
// end takes; then each printed figure is set beside memfit's on the same
// device: printed, memfit, their ratio and whether memfit's figure is
// exact or modelled (docs/check-log.md). `memfit check-log`, POST
// /v1/check-log and memfit_check_log_json (memfit.h) are its front ends.
//
// The model, three ways (LogCheck::model_source): a model named as inspect
// opens it (options.model); a config.json given beside the log
// (options.config_json); or, for llama.cpp, the log's own metadata dump
// when it is whole, with the file size it printed as the weights (never a
// printed allocation as an input to the same allocation).
#ifndef MEMFIT_LOG_CHECK_H_
#define MEMFIT_LOG_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/model.h"
#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/runtime_log.h"
#include "memfit/visibility.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct LogCheckOptions {
  std::string model;        // a model folder, file or Hub name, as -m takes it; "" none
  std::string config_json;  // a config.json's text, given beside the log; "" none
  // What the log may not print: the GPU's total memory and name (vLLM
  // prices its KV cache from the total). nullopt / "": from the log.
  std::optional<uint64_t> gpu_memory_total;
  std::string gpu_name;
  // The command line that started the run, as the user gives it ("vllm
  // serve M --tensor-parallel-size 2", "llama-server -m M -ngl 99 -ts 3,1"):
  // read as the log's last line, so what the log printed wins and the
  // command fills in what it did not (the tensor split, the parallelism).
  std::string command;
  // The runtime's version when the log prints none ("0.7.3", "b5361"):
  // whose rules price the run (vLLM's accounting). Ignored when the log
  // prints one.
  std::string version;
  // The GGUF file type the run loaded ("Q4_K_M", as llama-quantize names
  // it), when a config is given beside a llama.cpp log: the weights are
  // priced as the GGUF llama-quantize writes for it. The log's own
  // `file type` line wins. Beside an mlx-lm log, the MLX conversion of the
  // base config ("4bit", "4bit-g64", "8bit-g32": bits and group size, as
  // `mlx_lm.convert -q` writes it; docs/check-log.md). "": the log's, else
  // none.
  std::string file_type;
};

enum class ModelSource { kNone, kLog, kModel, kConfig };
std::string_view to_string(ModelSource source);  // "none", "log", "model", "config"

enum class FigureBasis { kExact, kModelled };
std::string_view to_string(FigureBasis basis);  // "exact", "modelled"

// Issue 28's target for a printed figure (docs/validation-logs.md,
// "Targets"), declared once here; the validation script reads it from
// check-log's JSON. Met when memfit's figure lies within the print's
// rounding (exact) or when low <= memfit / printed <= high.
struct FigureTarget {
  std::string name;  // the target: "vLLM: weights per rank, within 1 %"
  std::string text;  // its bound alone: "within 1 %"
  bool exact = false;
  double low = 0, high = 0;  // unused when exact
  bool met = false;          // false when the figure is not priced
};

// One printed figure beside memfit's.
struct FigureCheck {
  PrintedFigure printed;
  // memfit's figure in the printed one's unit: bytes, tokens or blocks
  // (memfit), or a ratio (memfit_ratio). Unset when not priced (`note`).
  std::optional<uint64_t> memfit;
  std::optional<double> memfit_ratio;
  std::optional<double> ratio;  // memfit / printed; unset when either is unset or printed is 0
  std::optional<FigureBasis> basis;
  // memfit's figure lies within the print's rounding (printed +- band).
  bool within_print = false;
  // Why the figure is not priced, or what memfit's figure holds; "" none.
  std::string note;
  // The note only says where memfit's inputs came from (an mlx-lm model
  // rebuilt from its base config as mlx_lm.convert writes it), not why the
  // figure differs: a row off its target still says that its cause is not
  // traced (check_log's judge of the targets), after the note.
  bool note_is_provenance = false;
  // The input memfit's figure rests on that the log does not print, and
  // that an estimate has (a GGUF header's tensor types, a tensor split, the
  // context, a launch flag): "tensor types", "tensor split", ... ; "" when
  // memfit read every input it prices from the log. The corpus's estimate
  // bands leave out the rows that miss their target with one
  // (docs/validation-logs.md, "Error bands").
  std::string input_gap;
  // The target for this engine, figure and GPU count; unset where
  // the figure has none.
  std::optional<FigureTarget> target;
};

struct LogCheck {
  RuntimeLog log;
  std::string profile;  // the engine profile that priced it ("llamacpp"); "" none
  ModelSource model_source = ModelSource::kNone;
  // One line: what the model is and where it came from.
  std::string model_detail;
  // One line when nothing could be priced (no model, no profile for the
  // runtime, the run refused); "" otherwise.
  std::string not_priced;
  std::vector<FigureCheck> figures;  // one per printed figure, in the log's order
  std::vector<Warning> warnings;     // the run's, and the reading's notes
};

// Reads `text` (read_runtime_log) and prices it. `models` opens
// options.model (a LocalRequestContext in the CLI, the service's context
// under its roots) and gives the estimator's settings; null: no model is
// opened by name (options.model is then a kUsage error). The host is never
// read: the log's devices are the machine. Errors: the log's (kInput), the
// model's as its loader gives them, a config that is not one (kInput).
// A run the engine refuses is not an error: not_priced says why.
Result<LogCheck> check_log(std::string_view text, const LogCheckOptions& options,
                           RequestContext* models);

// A llama.cpp log's model rebuilt from its metadata dump: the metadata
// as a GGUF header's (model_spec_from_gguf), the printed file size as the
// weights (WeightsSource::kGgufHeader, not verified: rounded as printed),
// no tensor list. kInput naming what is missing when the dump is not whole
// (LogModel::metadata_complete) or a key the spec needs was cut short.
Result<Model> model_from_log(const LogModel& model);

// The report: `memfit check-log --json`'s object (schema/check-log.schema.json)
// and its table.
nlohmann::ordered_json log_check_to_json(const LogCheck& check);
std::string render_log_check_text(const LogCheck& check);

// The JSON request of POST /v1/check-log and memfit_check_log_json:
//   {"log": "<the log's text>", "model": "...", "config": {...} | "<text>",
//    "gpu_memory_total": "80GiB" | <bytes>, "gpu_name": "...", "version": "...",
//    "command": "...", "file_type": "Q4_K_M"}
// "log" is required; an unknown field is refused by name (kUsage naming it).
struct LogCheckRequest {
  std::string log;
  LogCheckOptions options;
};
Result<LogCheckRequest> parse_log_check_request_json(std::string_view body);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LOG_CHECK_H_
