// The answer to a request as its engine renders it (run_report.h), with
// the line that says which engine priced it and why (docs/engines.md,
// "Which engine").
#include "memfit/run_report.h"

#include <fmt/format.h>

#include "engines/shared/trained_context.h"
#include "memfit/engine.h"

namespace memfit {

std::string engine_reason(const PreparedRequest& prepared) {
  if (prepared.engine_named) return "named by --engine";
  std::string others;
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    if (engine == prepared.engine) continue;
    others += fmt::format("{}{}", others.empty() ? "" : ", ", engine->name());
  }
  const std::string_view models = prepared.engine->default_for_text();
  std::string reason = models.empty() ? "the default" : fmt::format("the default for {}", models);
  if (!others.empty()) reason += fmt::format("; --engine names another ({})", others);
  return reason;
}

nlohmann::ordered_json run_to_json(const EstimateRun& run) {
  nlohmann::ordered_json report = run.engine->report_json(run);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (auto& [key, value] : report.items()) {
    out[key] = std::move(value);
    if (key != "engine") continue;
    out["engine_reason"] = engine_reason(run);
    const uint64_t limit = run.engine->context_limit_tokens(*run.model);
    out["context_limit_tokens"] = limit != 0 ? nlohmann::ordered_json(limit) : nullptr;
  }
  return out;
}

std::string render_run_text(const EstimateRun& run) {
  std::string text = run.engine->report_text(run);
  const std::string line = fmt::format("priced by {}: {}\n", run.engine->name(), engine_reason(run));
  const size_t end = text.find('\n');
  if (end == std::string::npos) return text + "\n" + line;
  return text.insert(end + 1, line);
}

}  // namespace memfit
