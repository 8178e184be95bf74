// memfit plot as an engine's plot hook (engine.h) reads it, and the parts
// of its answer every engine shares: the SVG and the summary's panels.
//   options: out         the SVG file's path, as the summary names it
//            quants      true: one row per MLX weight mode (mlxcel only)
//            max_tokens  where the x axis ends; default the context the
//                        model declares, else kPlotDefaultMaxTokens
// The request's own KV width or cache type, when it names one, is the one
// drawn.
#ifndef MEMFIT_ENGINES_SHARED_PLOT_PLOT_QUERY_H_
#define MEMFIT_ENGINES_SHARED_PLOT_PLOT_QUERY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/plot.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit::engines {

struct PlotQuery {
  std::string out;
  bool quants = false;
  uint64_t max_tokens = kPlotDefaultMaxTokens;
  bool kv_width_given = false;  // the request names a KV width or cache type
  std::string title;            // the model's name: the last component of its path
};

// kUsage "max_tokens: a plot needs at least 2 tokens" for a shorter axis.
Result<PlotQuery> read_plot_query(const CommandQuery& query, const Model& model);

// The summary's JSON: out, engine, min_tokens, max_tokens, then
// `settings_key`: `settings` (what every panel shares), budget_bytes,
// panels and warnings.
nlohmann::ordered_json plot_summary_json(const PlotQuery& query, std::string_view engine,
                                         const PlotData& data, std::string_view settings_key,
                                         nlohmann::ordered_json settings,
                                         const std::vector<Warning>& warnings);

// Each panel's largest context that fits, "fp16 35584, int8 none" (with
// quants: "int4/fp16 ...").
std::string plot_fits_text(const PlotQuery& query, const PlotData& data);

// The answer: the SVG of `data` as the file, `json` and `text`.
CommandAnswer plot_answer(const PlotData& data, nlohmann::ordered_json json, std::string text,
                          std::vector<Warning> warnings);

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_SHARED_PLOT_PLOT_QUERY_H_
