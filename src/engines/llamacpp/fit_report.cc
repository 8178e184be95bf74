// The llama.cpp fit's answer as JSON and text (llamacpp_fit.h). Text:
//
//   Largest ctx-size that fits 16.00 GiB (explicit):
//     KV cache f16:   16384
//       llama-server -m FILE -c 16384 -np 1 -fa auto -ctk f16 -ctv f16
//     KV cache q8_0:  30720
//       llama-server -m FILE -c 30720 -np 1 -ctk q8_0 -ctv q8_0 -fa auto
//     KV cache q4_0:  40960 (the training context)
//       ...
//
// (each row that fits followed by its own complete launch command)
//
//   Plans by decode speed at 8192 tokens (docs/speed.md):        gpu-layers, n-cpu-moe
//     -ngl 81, KV cache f16 (asked): does not fit, decode 38 tok/s
//     -ngl 81 -> 28, KV cache f16 -> q4_0: fits, decode 38 -> 31 tok/s
//     -ngl 28, KV cache q4_0 -> q8_0: fits, decode 31 -> 30 tok/s
//
//   <render_llamacpp_text at the answer, and its speed line>
#include <fmt/format.h>

#include <algorithm>

#include "memfit/llama_server.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/llamacpp_report.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_solver.h"
#include "engines/llamacpp/speed_plan.h"
#include "engines/shared/report_head.h"
#include "engines/shared/speed_rank.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

Json value_json(const LlamaCppSolution& s) { return s.value ? Json(*s.value) : Json(nullptr); }

std::string type_name(GgmlType type) { return std::string(ggml_type_traits(type).name); }

// Why a capped value is the most the search allows.
std::string_view ceiling_note(LlamaCppSolveFor what, const ModelSpec& spec, uint64_t value) {
  if (what == LlamaCppSolveFor::kGpuLayers) return "every layer";
  if (what == LlamaCppSolveFor::kNCpuMoe) return "no expert on the host";
  if (what == LlamaCppSolveFor::kCtxSize) {
    return spec.max_position_tokens != 0 ? "the training context"
                                         : "the search ceiling: it fits any value";
  }
  return value == kLlamaCppMaxSequences ? "llama.cpp's most sequences"
                                        : "one 256-cell block per sequence";
}

// Why no value fits: even the search's most lenient end is over budget.
std::string_view nothing_fits_text(LlamaCppSolveFor what) {
  switch (what) {
    case LlamaCppSolveFor::kGpuLayers:
      return "nothing fits: even -ngl 0 (no layer on a GPU) is over the budget";
    case LlamaCppSolveFor::kNCpuMoe:
      return "nothing fits: even every expert on the host leaves too much on a GPU";
    case LlamaCppSolveFor::kCtxSize:
      return "nothing fits: even the smallest context is over the budget";
    case LlamaCppSolveFor::kParallel:
      return "nothing fits: even one sequence is over the budget";
  }
  return "nothing fits";
}

std::string value_text(LlamaCppSolveFor what, const ModelSpec& spec, const LlamaCppSolution& s) {
  if (!s.value) return std::string(nothing_fits_text(what));
  if (!s.capped) return std::to_string(*s.value);
  return fmt::format("{} ({})", *s.value, ceiling_note(what, spec, *s.value));
}

PlanSpeed speed_at(const PreparedRequest& p, const LlamaCppEstimate& e) {
  return estimate_plan_speed(llamacpp_speed_plan(p, e));
}

Json speed_json_at(const PreparedRequest& p, const LlamaCppSolution& s) {
  return s.estimate ? speed_json(speed_at(p, *s.estimate)) : Json(nullptr);
}

// One plan of a placement solve, as ranked by speed.
struct RankedPlan {
  const LlamaCppEstimate* estimate = nullptr;
  uint64_t value = 0;  // -ngl or --n-cpu-moe
  bool asked = false;
  DecodeRank rank;
  std::string step;  // from the plan before it; the first plan's own line
};

uint64_t solved_value(LlamaCppSolveFor what, const LlamaCppEstimate& e) {
  return what == LlamaCppSolveFor::kNCpuMoe ? e.settings.placement.n_cpu_moe
                                            : e.settings.placement.n_gpu_layers.value_or(0);
}

std::string value_label(LlamaCppSolveFor what, uint64_t value) {
  return fmt::format("{} {}", what == LlamaCppSolveFor::kNCpuMoe ? "--n-cpu-moe" : "-ngl", value);
}

std::string cache_label(const LlamaCppSettings& s) {
  if (s.cache_type_k == s.cache_type_v) return type_name(s.cache_type_k);
  return fmt::format("K {} V {}", type_name(s.cache_type_k), type_name(s.cache_type_v));
}

// "-ngl 81 -> 28, KV cache f16 -> q4_0: fits, decode 38 -> 31 tok/s"; a
// setting that does not change is named once.
std::string step_text(LlamaCppSolveFor what, const RankedPlan& from, const RankedPlan& to) {
  const std::string v_from = value_label(what, from.value);
  const std::string v_to = value_label(what, to.value);
  const std::string c_from = cache_label(from.estimate->settings);
  const std::string c_to = cache_label(to.estimate->settings);
  const std::string value = from.value == to.value ? v_to : fmt::format("{} -> {}", v_from, to.value);
  const std::string cache =
      c_from == c_to ? "KV cache " + c_to : fmt::format("KV cache {} -> {}", c_from, c_to);
  return fmt::format("{}, {}: {}, {}", value, cache, to.estimate->fits ? "fits" : "does not fit",
                     decode_step_text(from.rank, to.rank));
}

// The estimate at the solve's most demanding value (every layer on the
// GPUs; no expert on the host) and the request's own K and V types: the
// plan asked before the solver cut it. nullopt when that estimate fails.
std::optional<LlamaCppEstimate> unsolved_estimate(const PreparedRequest& p, LlamaCppSolveFor what) {
  LlamaCppSettings s = p.llamacpp_settings;
  if (what == LlamaCppSolveFor::kGpuLayers) {
    // The solver's ceiling (llamacpp_solver.h): blocks + the output layer.
    s.placement.n_gpu_layers = p.model->spec.layers.size() + p.model->spec.nextn_layers + 1;
  } else {
    s.placement.n_cpu_moe = 0;
  }
  Result<LlamaCppEstimate> e = estimate_llamacpp(*p.model, s, p.budget);
  if (!e) return std::nullopt;
  return std::move(*e);
}

// gpu-layers and n-cpu-moe: the plan asked first, then each solved row
// that fits, fastest first (speed_rank.h), each with its step from the
// one before. Empty for the other solves. `unsolved` holds the asked
// plan's estimate, which the plans point into.
std::vector<RankedPlan> plans_by_speed(const PreparedRequest& p, const LlamaCppFit& fit,
                                       std::optional<LlamaCppEstimate>& unsolved) {
  std::vector<RankedPlan> plans;
  if (fit.what != LlamaCppSolveFor::kGpuLayers && fit.what != LlamaCppSolveFor::kNCpuMoe) return plans;
  unsolved = unsolved_estimate(p, fit.what);
  auto plan_of = [&](const LlamaCppEstimate& e, bool asked) {
    return RankedPlan{&e, solved_value(fit.what, e), asked,
                      rank_decode(llamacpp_speed_plan(p, e)), ""};
  };
  auto same = [&](const LlamaCppEstimate& a, const LlamaCppEstimate& b) {
    return solved_value(fit.what, a) == solved_value(fit.what, b) &&
           a.settings.cache_type_k == b.settings.cache_type_k &&
           a.settings.cache_type_v == b.settings.cache_type_v;
  };
  std::vector<RankedPlan> fitting;
  auto add = [&](const LlamaCppSolution& row) {
    if (!row.estimate || !row.estimate->fits) return;
    if (unsolved && same(*unsolved, *row.estimate)) return;  // the asked plan itself
    for (const RankedPlan& r : fitting) {
      if (same(*r.estimate, *row.estimate)) return;
    }
    fitting.push_back(plan_of(*row.estimate, false));
  };
  for (const LlamaCppSolution& row : fit.by_cache_type) add(row);
  add(fit.answer);
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const RankedPlan& a, const RankedPlan& b) { return decodes_faster(a.rank, b.rank); });
  if (unsolved) plans.push_back(plan_of(*unsolved, true));
  for (RankedPlan& r : fitting) plans.push_back(std::move(r));
  for (size_t i = 0; i < plans.size(); ++i) {
    RankedPlan& r = plans[i];
    r.step = i > 0 ? step_text(fit.what, plans[i - 1], r)
                   : fmt::format("{}, KV cache {}{}: {}, decode {}", value_label(fit.what, r.value),
                                 cache_label(r.estimate->settings), r.asked ? " (asked)" : "",
                                 r.estimate->fits ? "fits" : "does not fit", decode_rank_text(r.rank));
  }
  return plans;
}

Json plans_json(LlamaCppSolveFor what, const std::vector<RankedPlan>& plans) {
  if (what != LlamaCppSolveFor::kGpuLayers && what != LlamaCppSolveFor::kNCpuMoe) return nullptr;
  Json list = Json::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    const RankedPlan& r = plans[i];
    Json row = {{"value", r.value},
                {"cache_type_k", type_name(r.estimate->settings.cache_type_k)},
                {"cache_type_v", type_name(r.estimate->settings.cache_type_v)},
                {"asked", r.asked},
                {"fits", r.estimate->fits}};
    row.update(decode_rank_json(r.rank));
    row["step"] = i > 0 ? Json(r.step) : Json(nullptr);
    row["speed"] = speed_json(r.rank.speed);
    list.push_back(std::move(row));
  }
  return list;
}

std::string plans_text(const std::vector<RankedPlan>& plans) {
  if (plans.empty()) return "";
  const bool any_known = std::any_of(plans.begin(), plans.end(), [](const RankedPlan& r) {
    return r.rank.decode_tokens_per_second().has_value();
  });
  if (!any_known) {
    return fmt::format("\nPlans by decode speed: unknown: {}\n", plans.front().rank.known_speed.unknown);
  }
  std::string out = fmt::format("\nPlans by decode speed at {} tokens (docs/speed.md):\n",
                                plans.front().estimate->context.n_ctx_seq);
  for (const RankedPlan& r : plans) out += fmt::format("  {}\n", r.step);
  return out;
}

}  // namespace

nlohmann::ordered_json llamacpp_fit_to_json(const PreparedRequest& p, const LlamaCppFit& fit) {
  std::optional<LlamaCppEstimate> unsolved;
  Json by_type = Json::array();
  for (const LlamaCppSolution& s : fit.by_cache_type) {
    by_type.push_back({{"cache_type", type_name(s.cache_type)},
                       {"value", value_json(s)},
                       {"capped", s.capped},
                       {"speed", speed_json_at(p, s)}});
  }
  Json j = {{"solve", std::string(to_string(fit.what))},
            {"engine", "llamacpp"},
            {"value", value_json(fit.answer)},
            {"cache_type", type_name(p.llamacpp_settings.cache_type_k)},
            {"capped", fit.answer.capped},
            {"budget_bytes", p.budget.budget_bytes},
            {"budget_source", std::string(to_string(p.budget.source))},
            {"by_cache_type", std::move(by_type)},
            {"flags", fit.answer.estimate ? Json(fit.flags) : Json(nullptr)},
            {"plans_by_speed", plans_json(fit.what, plans_by_speed(p, fit, unsolved))},
            {"warnings", warning_texts(p.warnings)}};
  if (fit.answer.estimate) {
    j["report"] = llamacpp_estimate_to_json(*p.model, *fit.answer.estimate, p.budget, p.warnings);
    j["report"]["speed"] = speed_json(speed_at(p, *fit.answer.estimate));
  } else {
    j["report"] = nullptr;
  }
  return j;
}

std::string render_llamacpp_fit_text(const PreparedRequest& p, const LlamaCppFit& fit) {
  const ModelSpec& spec = p.model->spec;
  const LlamaCppSettings& s = p.llamacpp_settings;
  std::string at;
  if (fit.what == LlamaCppSolveFor::kParallel) {
    at = fmt::format(" at ctx-size {}", s.ctx_size != 0 ? s.ctx_size : spec.max_position_tokens);
  }
  const bool placing = !s.placement.gpus.empty();
  std::string out =
      placing ? fmt::format("{} {}{} that fits every device (GPUs less a {} margin):\n",
                            fit.what == LlamaCppSolveFor::kNCpuMoe ? "Fewest" : "Largest",
                            to_string(fit.what), at, format_bytes(s.placement.gpu_margin_bytes))
              : fmt::format("Largest {}{} that fits {} ({}):\n", to_string(fit.what), at,
                            format_bytes(p.budget.budget_bytes), to_string(p.budget.source));
  const std::string& file = fit.model_file.empty() ? p.model->path : fit.model_file;
  auto command = [&p, &file](const LlamaCppSolution& row) {
    return row.estimate ? fmt::format("    {}\n", llama_server_command(file, p.model->spec,
                                                                    row.estimate->settings))
                        : std::string();
  };
  bool answer_listed = false;
  for (const LlamaCppSolution& row : fit.by_cache_type) {
    out += fmt::format("  {:<15} {}\n", fmt::format("KV cache {}:", type_name(row.cache_type)),
                       value_text(fit.what, spec, row));
    out += command(row);
    answer_listed |= s.cache_type_k == s.cache_type_v && row.cache_type == s.cache_type_k;
  }
  if (!answer_listed) {
    out += fmt::format("  KV cache K {}, V {} (asked): {}\n", type_name(s.cache_type_k),
                       type_name(s.cache_type_v), value_text(fit.what, spec, fit.answer));
    out += command(fit.answer);
  }
  std::optional<LlamaCppEstimate> unsolved;
  out += plans_text(plans_by_speed(p, fit, unsolved));
  if (fit.answer.estimate) {
    out += "\n" + render_llamacpp_text(*p.model, *fit.answer.estimate, p.budget) + "\n" +
           speed_text(speed_at(p, *fit.answer.estimate));
  }
  return out;
}

}  // namespace memfit
