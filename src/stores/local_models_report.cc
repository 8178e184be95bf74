// local_models_to_json and render_local_models_text
// (memfit/local_models.h): `memfit ls`'s two forms, the service's body.
#include <fmt/format.h>

#include "memfit/local_models.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

Json count_or_null(bool priced, uint64_t value) { return priced ? Json(value) : Json(nullptr); }

std::string verdict_text(const LocalModelRow& row) {
  switch (row.fit) {
    case LocalFit::kFits:
      return fmt::format("fits at {} tokens", row.default_context_tokens);
    case LocalFit::kSmallerFits:
      return fmt::format("does not fit at {} tokens", row.default_context_tokens);
    case LocalFit::kNothingFits:
      return "does not fit at any context";
    case LocalFit::kError:
      break;
  }
  return "error";
}

std::string largest_text(const LocalModelRow& row) {
  if (!row.largest_context_tokens) return "";
  return fmt::format("; up to {} tokens{}: {}", *row.largest_context_tokens,
                     row.largest_capped ? " (its own ceiling)" : "", row.settings);
}

}  // namespace

Json local_models_to_json(const std::vector<LocalModelRow>& rows) {
  Json models = Json::array();
  for (const LocalModelRow& row : rows) {
    const bool priced = row.fit != LocalFit::kError;
    models.push_back(
        {{"name", row.entry.name},
         {"store", row.entry.store},
         {"format", row.entry.format},
         {"engine", priced ? Json(row.engine) : Json(nullptr)},
         {"weights_bytes", count_or_null(priced, row.weights_bytes)},
         {"default_context", count_or_null(priced, row.default_context_tokens)},
         {"total_bytes", count_or_null(priced, row.total_bytes)},
         {"budget_bytes", count_or_null(priced, row.budget_bytes)},
         {"fit", std::string(to_string(row.fit))},
         {"largest_context", row.largest_context_tokens ? Json(*row.largest_context_tokens) : Json(nullptr)},
         {"largest_capped", row.largest_capped},
         {"settings", row.largest_context_tokens ? Json(row.settings) : Json(nullptr)},
         {"error", priced ? Json(nullptr) : Json(row.error)}});
  }
  return Json{{"models", std::move(models)}};
}

std::string render_local_models_text(const std::vector<LocalModelRow>& rows) {
  if (rows.empty()) return "No models found in Ollama's or LM Studio's folders, the Hugging Face cache or the folders given.\n";
  std::string out = "Local models, what fits first (name, format, weights, engine: verdict):\n";
  for (const LocalModelRow& row : rows) {
    const std::string name = escape_untrusted(row.entry.name);
    if (row.fit == LocalFit::kError) {
      out += fmt::format("  {}  {}  error: {}\n", name, row.entry.format.empty() ? "-" : row.entry.format,
                         row.error);
      continue;
    }
    out += fmt::format("  {}  {}  {}  {}: {}{}\n", name, row.entry.format, format_bytes(row.weights_bytes),
                       row.engine, verdict_text(row), largest_text(row));
  }
  return out;
}

}  // namespace memfit
