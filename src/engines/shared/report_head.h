// What every engine's report shares, JSON and text alike.
//
// JSON: report_head() gives the fields every report starts with, in this
// order: memfit_version, model (a store's model: its name, then
// model_file, its path), model_type, family, layout, engine;
// add_report_tail() the ones it ends with: assumptions, warnings, after
// budget_bytes, budget_source, total_bytes, fits (add_report_budget()) in
// the engine reports that end with their verdict.
// Text: the two heading lines, a figure's row, and the verdict line.
#ifndef MEMFIT_ENGINES_SHARED_REPORT_HEAD_H_
#define MEMFIT_ENGINES_SHARED_REPORT_HEAD_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/warning.h"

namespace memfit {

// What reports call the model: a store's name (Model::name) when it has
// one, else its path.
const std::string& shown_model_name(const Model& model);

// "embedding model", or "reranking model" for a reranker: the words every
// report uses for a model with EmbeddingInfo::any().
std::string_view embedding_kind(const EmbeddingInfo& embedding);

// With an "embedding" object after "engine" on an embedding or reranking
// model only: {"kind", "pooling" (null when unstated), "bidirectional",
// "sentence_transformers"}.
nlohmann::ordered_json report_head(const Model& model, std::string_view engine);

// The warnings' texts, as every JSON answer lists them.
nlohmann::ordered_json warning_texts(std::span<const Warning> warnings);

// Sets "assumptions" (the spec's) and "warnings" (their texts) on `j`.
void add_report_tail(nlohmann::ordered_json& j, const Model& model,
                     std::span<const Warning> warnings);

// Sets "budget_bytes" (the engine's budget, bytes), "budget_source"
// (`budget`'s), "total_bytes" and "fits" on `j`, in that order.
void add_report_budget(nlohmann::ordered_json& j, const MemoryBudget& budget,
                       uint64_t budget_bytes, uint64_t total_bytes, bool fits);

// add_report_budget() then add_report_tail(): the end of the llama.cpp,
// mlx-lm and vLLM reports.
void add_report_tail(nlohmann::ordered_json& j, const Model& model, const MemoryBudget& budget,
                     uint64_t budget_bytes, uint64_t total_bytes, bool fits,
                     std::span<const Warning> warnings);

// "memfit V — PATH (engine E)" ("" engine: no parenthesis; a store's model
// shows its name, Model::name, and then "file PATH" on a line of its own) and
// "model_type T, family F, layout L" (then "; embedding model (pooling
// P)" on such a model), each ending in a newline. The path
// and the config's names are untrusted: escaped, not cut.
std::string report_text_head(const Model& model, std::string_view engine);

// One figure: label, bytes right-aligned, then the note if any.
void report_row(std::string& out, std::string_view label, uint64_t bytes,
                std::string_view note = "");

// "\nFITS: T of B (S to spare)\n" when `fits` (the engine's own verdict;
// total <= budget then), else "\nDOES NOT FIT: T needed, B available (S
// short)\n" (total > budget then).
std::string report_verdict(bool fits, uint64_t total_bytes, uint64_t budget_bytes);

// The line a DOES NOT FIT verdict ends with: the command that finds what
// fits, "find what fits: memfit fit -m MODEL --engine ENGINE --solve SOLVE
// (with this command's other flags)\n"; each engine names its own solve.
std::string fit_pointer_line(std::string_view model_path, std::string_view engine,
                             std::string_view solve);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_REPORT_HEAD_H_
