// price_local_models (memfit/local_models.h): each entry through the
// request layer as `memfit inspect` and `memfit fit` price it, so the
// listing cannot disagree with them.
#include "memfit/local_models.h"

#include <algorithm>
#include <tuple>

#include "memfit/engine.h"
#include "memfit/run_report.h"

namespace memfit {
namespace {

// The context the engine resolved for the run: Ollama's num_ctx (a
// sequence's, from its report), llama.cpp's cells, vLLM's
// --max-model-len, mlx-lm's and mlxcel's max tokens.
uint64_t run_context_tokens(const EstimateRun& run, const nlohmann::ordered_json& report) {
  const auto ollama = report.find("ollama");
  if (ollama != report.end() && ollama->contains("num_ctx")) return ollama->value("num_ctx", uint64_t{0});
  if (run.llamacpp) return run.llamacpp->context.n_ctx;
  if (run.vllm) return run.vllm->settings.max_model_len;
  if (run.mlxlm) return run.mlxlm_settings.max_tokens;
  return run.inputs.max_tokens;
}

// The fit answer's flags as one line; an Ollama store's model is started
// by its name with num_ctx set for the session (a Modelfile's num_ctx
// outranks OLLAMA_CONTEXT_LENGTH, so the server's variable would not do);
// an engine whose answer has none is started with its max-tokens.
std::string settings_text(const LocalModelEntry& entry, const nlohmann::ordered_json& answer,
                          uint64_t tokens) {
  if (answer.value("engine", "") == "ollama") {
    constexpr std::string_view kPrefix = "ollama:";
    std::string_view name = entry.name;
    if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
    return "ollama run " + std::string(name) + ", then /set parameter num_ctx " + std::to_string(tokens);
  }
  auto flags = answer.find("flags");
  if (flags != answer.end() && flags->is_array() && !flags->empty()) {
    std::string out;
    for (const auto& flag : *flags) {
      if (flag.is_string()) out += (out.empty() ? "" : " ") + flag.get<std::string>();
    }
    return out;
  }
  if (flags != answer.end() && flags->is_string()) return flags->get<std::string>();
  return "--max-tokens " + std::to_string(tokens);
}

LocalModelRow error_row(LocalModelRow row, std::string error) {
  row.fit = LocalFit::kError;
  row.error = std::move(error);
  return row;
}

LocalModelRow price_one(const LocalModelEntry& entry, const EstimateRequest& base,
                        const LocalContextFor& context_for) {
  LocalModelRow row;
  row.entry = entry;
  if (!entry.error.empty()) return error_row(std::move(row), entry.error);
  Result<RequestContext*> context = context_for(entry);
  if (!context) return error_row(std::move(row), context.error().message());
  EstimateRequest request = base;
  request.model = entry.name;
  request.engine = usual_engine(entry, local_machine(base, **context));
  Result<PreparedRequest> prepared = prepare(request, **context);
  if (!prepared) return error_row(std::move(row), prepared.error().message());
  row.engine = std::string(prepared->engine->name());
  row.weights_bytes = prepared->model->weights.bytes;
  const EngineProfile& engine = *prepared->engine;
  Result<EstimateRun> run = run_prepared(request, *prepared);
  if (!run) return error_row(std::move(row), run.error().message());
  const nlohmann::ordered_json report = run_to_json(*run);
  row.default_context_tokens = run_context_tokens(*run, report);
  row.total_bytes = report.value("total_bytes", uint64_t{0});
  row.budget_bytes = report.value("budget_bytes", uint64_t{0});
  const bool fits = run->fits();

  const CommandQuery query{CommandFront::kCli, request, {{"solve", "max-tokens"}}};
  Result<CommandAnswer> answer = engine.fit(query, std::move(*prepared));
  if (!answer) return error_row(std::move(row), answer.error().message());
  const auto value = answer->json.find("value");
  if (value != answer->json.end() && value->is_number_unsigned()) {
    row.largest_context_tokens = value->get<uint64_t>();
    row.largest_capped = answer->json.value("capped", false);
    row.settings = settings_text(entry, answer->json, *row.largest_context_tokens);
  }
  row.fit = fits ? LocalFit::kFits
               : (row.largest_context_tokens ? LocalFit::kSmallerFits : LocalFit::kNothingFits);
  return row;
}

}  // namespace

std::string_view to_string(LocalFit fit) {
  switch (fit) {
    case LocalFit::kFits: return "fits";
    case LocalFit::kSmallerFits: return "smaller-context";
    case LocalFit::kNothingFits: return "does-not-fit";
    case LocalFit::kError: return "error";
  }
  return "error";
}

LocalMachine local_machine(const EstimateRequest& base, RequestContext& context) {
  if (base.machine.mac) return LocalMachine::kMac;
  if (!base.machine.gpu.empty()) return LocalMachine::kGpu;
  using Kind = DeviceSelector::Kind;
  if (base.device.kind == Kind::kCuda || base.device.kind == Kind::kRocm) return LocalMachine::kGpu;
  if (base.device.kind == Kind::kCpu) return LocalMachine::kCpu;
  const HostMemoryStatus host = context.host_memory(base.device, base.memory_limit_bytes);
  if (!host.gpus.empty()) return LocalMachine::kGpu;
  if (host.metal_working_set_bytes > 0) return LocalMachine::kMac;
  return LocalMachine::kCpu;
}

std::string usual_engine(const LocalModelEntry& entry, LocalMachine machine) {
  if (entry.store == "ollama") return "ollama";
  if (entry.format == "gguf") return "llamacpp";
  // MLX checkpoints run on Apple silicon only: the default (MLX) rules.
  if (machine == LocalMachine::kGpu && entry.format != "mlx") return "vllm";
  return "";
}

std::vector<LocalModelRow> price_local_models(const std::vector<LocalModelEntry>& entries,
                                              const EstimateRequest& base,
                                              const LocalContextFor& context_for) {
  std::vector<LocalModelRow> rows;
  rows.reserve(entries.size());
  for (const LocalModelEntry& entry : entries) rows.push_back(price_one(entry, base, context_for));
  std::stable_sort(rows.begin(), rows.end(), [](const LocalModelRow& a, const LocalModelRow& b) {
    const uint64_t a_tokens = a.largest_context_tokens.value_or(0);
    const uint64_t b_tokens = b.largest_context_tokens.value_or(0);
    return std::tie(a.fit, b_tokens, a.entry.name) < std::tie(b.fit, a_tokens, b.entry.name);
  });
  return rows;
}

}  // namespace memfit
