// The answer to a request, as every front end prints it: the JSON object
// of `memfit inspect --json`, POST /v1/estimate and the C API's JSON calls,
// and the text table of `memfit inspect`.
#ifndef MEMFIT_RUN_REPORT_H_
#define MEMFIT_RUN_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The run's engine's JSON report (EngineProfile::report_json), with every
// warning of the run, and after "engine": "engine_reason" (engine_reason())
// and "context_limit_tokens", the model's own context under the engine's
// rule (EngineProfile::context_limit_tokens; null when it declares none).
nlohmann::ordered_json run_to_json(const EstimateRun& run);

// The run's engine's text report (EngineProfile::report_text), its
// heading's first line followed by "priced by <engine>: <engine_reason()>".
std::string render_run_text(const EstimateRun& run);

// Why `prepared`'s engine priced it, in words: "named by --engine", or
// "the default for MLX models; --engine names another (llamacpp, mlx-lm,
// vllm)" (EngineProfile::default_for_text; "the default" when the engine
// claims no models and is the registry's fallback).
std::string engine_reason(const PreparedRequest& prepared);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_RUN_REPORT_H_
