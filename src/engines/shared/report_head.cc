// What every engine's report shares (engines/shared/report_head.h): the
// JSON head and tail, the text heading, a figure's row, the verdict.
#include "engines/shared/report_head.h"

#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/mlxcel_report.h"
#include "memfit/untrusted_text.h"
#include "memfit/version.h"

namespace memfit {

const std::string& shown_model_name(const Model& model) {
  return model.name.empty() ? model.path : model.name;
}

std::string_view embedding_kind(const EmbeddingInfo& embedding) {
  return embedding.reranker ? "reranking model" : "embedding model";
}

nlohmann::ordered_json report_head(const Model& model, std::string_view engine) {
  nlohmann::ordered_json j;
  j["memfit_version"] = std::string(memfit_version());
  // A store's model is named as it was asked for; its file is said apart.
  j["model"] = shown_model_name(model);
  if (!model.name.empty()) j["model_file"] = model.path;
  j["model_type"] = model.spec.model_type;
  j["family"] = model.spec.family;
  j["layout"] = model.spec.layout;
  j["engine"] = std::string(engine);
  // Only on embedding and reranking models: a text generator's report has
  // no "embedding" key.
  if (const EmbeddingInfo& e = model.spec.embedding; e.any()) {
    j["embedding"] = {{"kind", embedding_kind(e)},
                      {"pooling", e.pooling.empty() ? nlohmann::ordered_json(nullptr)
                                                    : nlohmann::ordered_json(e.pooling)},
                      {"bidirectional", e.bidirectional},
                      {"sentence_transformers", e.by_folder}};
  }
  return j;
}

nlohmann::ordered_json warning_texts(std::span<const Warning> warnings) {
  nlohmann::ordered_json texts = nlohmann::ordered_json::array();
  for (const Warning& w : warnings) texts.push_back(w.text);
  return texts;
}

void add_report_tail(nlohmann::ordered_json& j, const Model& model,
                     std::span<const Warning> warnings) {
  j["assumptions"] = model.spec.assumptions;
  j["warnings"] = warning_texts(warnings);
}

void add_report_budget(nlohmann::ordered_json& j, const MemoryBudget& budget,
                       uint64_t budget_bytes, uint64_t total_bytes, bool fits) {
  j["budget_bytes"] = budget_bytes;
  j["budget_source"] = std::string(to_string(budget.source));
  j["total_bytes"] = total_bytes;
  j["fits"] = fits;
}

void add_report_tail(nlohmann::ordered_json& j, const Model& model, const MemoryBudget& budget,
                     uint64_t budget_bytes, uint64_t total_bytes, bool fits,
                     std::span<const Warning> warnings) {
  add_report_budget(j, budget, budget_bytes, total_bytes, fits);
  add_report_tail(j, model, warnings);
}

std::string report_text_head(const Model& model, std::string_view engine) {
  const ModelSpec& spec = model.spec;
  const std::string& shown = shown_model_name(model);
  std::string out = fmt::format("memfit {} — {}", memfit_version(), escape_untrusted(shown, shown.size()));
  if (!engine.empty()) out += fmt::format(" (engine {})", engine);
  if (!model.name.empty()) out += fmt::format("\nfile {}", escape_untrusted(model.path, model.path.size()));
  out += fmt::format("\nmodel_type {}, family {}, layout {}\n",
                     spec.model_type.empty() ? "(none)" : escape_untrusted(spec.model_type, spec.model_type.size()),
                     escape_untrusted(spec.family, spec.family.size()), spec.layout.empty() ? "(unknown)" : spec.layout);
  if (spec.embedding.any()) {
    out.pop_back();  // the line goes on
    out += fmt::format("; {}", embedding_kind(spec.embedding));
    if (!spec.embedding.pooling.empty()) {
      out += fmt::format(" (pooling {})", escape_untrusted(spec.embedding.pooling, 32));
    }
    out += '\n';
  }
  return out;
}

void report_row(std::string& out, std::string_view label, uint64_t bytes, std::string_view note) {
  out += fmt::format("  {:<22}{:>12}", label, format_bytes(bytes));
  if (!note.empty()) out += fmt::format("   {}", note);
  out += '\n';
}

std::string fit_pointer_line(std::string_view model_path, std::string_view engine,
                             std::string_view solve) {
  return fmt::format("find what fits: memfit fit -m {} --engine {} --solve {} (with this "
                     "command's other flags)\n",
                     escape_untrusted(model_path, model_path.size()), engine, solve);
}

std::string report_verdict(bool fits, uint64_t total_bytes, uint64_t budget_bytes) {
  if (fits) {
    return fmt::format("\nFITS: {} of {} ({} to spare)\n", format_bytes(total_bytes),
                       format_bytes(budget_bytes), format_bytes(budget_bytes - total_bytes));
  }
  return fmt::format("\nDOES NOT FIT: {} needed, {} available ({} short)\n",
                     format_bytes(total_bytes), format_bytes(budget_bytes),
                     format_bytes(total_bytes - budget_bytes));
}

}  // namespace memfit
