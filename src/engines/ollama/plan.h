// The Ollama engine's steps over a prepared request (plan.cc): Ollama's
// decisions into the llama.cpp settings that price them. Private to the
// library.
#ifndef MEMFIT_ENGINES_OLLAMA_PLAN_H_
#define MEMFIT_ENGINES_OLLAMA_PLAN_H_

#include <string>
#include <vector>

#include "engines/ollama/engine_graph.h"
#include "engines/ollama/settings.h"
#include "engines/shared/speed_report.h"
#include "memfit/request.h"

namespace memfit::ollama {

// The GPUs as the scheduler sees them: p.llamacpp_settings.placement's,
// with each one's total from the host (the budget for Apple's).
std::vector<SchedulerGpu> scheduler_gpus(const PreparedRequest& p);

// Decides everything for `given` on p's model and GPUs, runs the
// scheduler and writes the outcome into p.llamacpp_settings (context,
// sequences, batch, cache types, flash attention, mmap, -ngl and the
// split). Returns the decisions; errors are the llama.cpp rules' (a
// context they refuse).
Result<OllamaDecisions> plan_load(const OllamaRequest& given, PreparedRequest& p);

// llama.cpp's speed plan at `e` (Ollama's runner is llama.cpp's); a model
// whose GGUF declares a pooling type is served for its vectors
// (/api/embed): nothing decoded, SpeedPlan::no_decode.
SpeedPlan ollama_speed_plan(const PreparedRequest& p, const LlamaCppEstimate& e);

// One reservation of Ollama's own engine under `d` (engine_graph.h): a
// batch of num_batch tokens, `parallel` outputs, the cache's cells padded
// as d's release pads them, on a GPU or the host, with or without the
// output layer.
EngineGraphRun own_engine_graph_run(const OllamaDecisions& d, bool on_gpu, bool output_layer);

// The report's section and the launch command.
nlohmann::ordered_json decisions_to_json(const OllamaDecisions& d, const std::vector<SchedulerGpu>& gpus);
std::string render_decisions_text(const OllamaDecisions& d, const std::vector<SchedulerGpu>& gpus);
// `OLLAMA_...=... ollama serve` and the Modelfile lines for `model_path`.
std::string launch_command(const OllamaDecisions& d, std::string_view model_path);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_PLAN_H_
