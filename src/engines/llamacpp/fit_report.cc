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


#include "memfit/llama_server.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/llamacpp_report.h"
#include "memfit/memory_size.h"
#include "memfit/mlxcel_solver.h"
#include "engines/llamacpp/fit_plans.h"
#include "engines/llamacpp/speed_plan.h"
#include "engines/shared/report_head.h"

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

}  // namespace

nlohmann::ordered_json llamacpp_fit_to_json(const PreparedRequest& p, const LlamaCppFit& fit) {
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
            {"plans_by_speed", llamacpp_plans_json(fit.what, llamacpp_plans_by_speed(p, fit))},
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
  out += llamacpp_plans_text(llamacpp_plans_by_speed(p, fit));
  if (fit.answer.estimate) {
    out += "\n" + render_llamacpp_text(*p.model, *fit.answer.estimate, p.budget) + "\n" +
           speed_text(speed_at(p, *fit.answer.estimate));
  }
  return out;
}

}  // namespace memfit
