// memfit plot's options and the summary every engine's plot answers with
// (plot_query.h).
#include "engines/shared/plot/plot_query.h"

#include <fmt/format.h>

#include "engines/shared/report_head.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

// The figure's name for the model: the last component of its path.
std::string model_title(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool names_kv_width(const EstimateRequest& r) {
  return r.kv_cache_mode || r.cache_type_k || r.cache_type_v || r.llamacpp.cache_type_k ||
         r.llamacpp.cache_type_v;
}

}  // namespace

Result<PlotQuery> read_plot_query(const CommandQuery& query, const Model& model) {
  request::Fields options(query.options);
  Result<std::optional<std::string>> out = options.string("out");
  if (!out) return out.error();
  Result<std::optional<bool>> quants = options.boolean("quants");
  if (!quants) return quants.error();
  Result<std::optional<uint64_t>> max_tokens = options.count("max_tokens", 0);
  if (!max_tokens) return max_tokens.error();
  PlotQuery q;
  q.out = out->value_or("");
  q.quants = quants->value_or(false);
  const uint64_t declared = model.spec.max_position_tokens;
  q.max_tokens = max_tokens->value_or(declared > 0 ? declared : kPlotDefaultMaxTokens);
  if (q.max_tokens < 2) return Error::usage("max_tokens", "a plot needs at least 2 tokens");
  q.kv_width_given = names_kv_width(query.request);
  q.title = model_title(query.request.model);
  return q;
}

nlohmann::ordered_json plot_summary_json(const PlotQuery& query, std::string_view engine,
                                         const PlotData& data, std::string_view settings_key,
                                         nlohmann::ordered_json settings,
                                         const std::vector<Warning>& warnings) {
  nlohmann::ordered_json panels = nlohmann::ordered_json::array();
  for (const PlotPanel& p : data.panels) {
    panels.push_back({{"weights_mode", p.weights_mode},
                      {"kv_cache_mode", p.kv_cache_mode},
                      {"weights_bytes", p.weights_bytes},
                      {"max_tokens_that_fit", p.max_tokens_that_fit
                                                  ? nlohmann::ordered_json(*p.max_tokens_that_fit)
                                                  : nlohmann::ordered_json(nullptr)},
                      {"capped", p.capped}});
  }
  nlohmann::ordered_json j = {{"out", query.out}, {"engine", engine},
                              {"min_tokens", data.min_tokens}, {"max_tokens", data.max_tokens}};
  j[std::string(settings_key)] = std::move(settings);
  j["budget_bytes"] = data.budget_bytes;
  j["panels"] = std::move(panels);
  j["warnings"] = warning_texts(warnings);
  return j;
}

std::string plot_fits_text(const PlotQuery& query, const PlotData& data) {
  std::string fits;
  for (const PlotPanel& p : data.panels) {
    if (!fits.empty()) fits += ", ";
    std::string name =
        query.quants ? fmt::format("{}/{}", p.weights_mode, p.kv_cache_mode) : p.kv_cache_mode;
    fits += fmt::format("{} {}", name,
                        p.max_tokens_that_fit ? fmt::format("{}", *p.max_tokens_that_fit) : "none");
  }
  return fits;
}

CommandAnswer plot_answer(const PlotData& data, nlohmann::ordered_json json, std::string text,
                          std::vector<Warning> warnings) {
  CommandAnswer answer;
  answer.file = render_plot_svg(data);
  answer.json = std::move(json);
  answer.text = std::move(text);
  answer.warnings = std::move(warnings);
  return answer;
}

}  // namespace memfit::engines
