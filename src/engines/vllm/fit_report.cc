// The vLLM fit's answer as JSON and text (vllm_fit.h). Text:
//
//   Largest max-model-len vLLM starts with in 80.00 GiB (explicit): 131072
//     (the config's context: vLLM refuses a longer --max-model-len)
//   start: vllm serve MODEL --max-model-len 131072 --max-num-seqs 256 ...
//
//   <render_vllm_text at the answer, and its speed line (docs/speed.md)>
#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm_fit.h"
#include "memfit/vllm_report.h"
#include "engines/shared/report_head.h"
#include "engines/shared/shell_word.h"
#include "engines/shared/trained_context.h"
#include "engines/vllm/speed_plan.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The context the max-num-seqs answer is for: the estimate's, else the
// request's, else the config's.
uint64_t context_of(const PreparedRequest& p, const VllmSolution& s) {
  if (s.estimate) return s.estimate->settings.max_model_len;
  return p.vllm_settings.max_model_len != 0 ? p.vllm_settings.max_model_len
                                            : vllm_default_max_model_len(p.model->spec);
}

}  // namespace

nlohmann::ordered_json vllm_fit_to_json(const PreparedRequest& p, const VllmFit& fit) {
  const VllmSolution& s = fit.answer;
  Json j = {{"solve", std::string(to_string(s.what))},
            {"engine", "vllm"},
            {"value", s.value ? Json(*s.value) : Json(nullptr)},
            {"capped", s.capped},
            {"ceiling", s.ceiling},
            {"ceiling_reason", s.ceiling_reason},
            {"reason", s.value ? Json(nullptr) : Json(s.why_none)},
            {"budget_bytes", p.budget.budget_bytes},
            {"budget_source", std::string(to_string(p.budget.source))},
            {"flags", s.estimate ? Json(fit.flags) : Json(nullptr)},
            {"warnings", warning_texts(p.warnings)}};
  j["report"] = s.estimate ? vllm_estimate_to_json(*p.model, *s.estimate, p.budget, p.warnings)
                           : Json(nullptr);
  if (s.estimate) j["report"]["speed"] = speed_json(estimate_plan_speed(vllm_speed_plan(p, *s.estimate)));
  return j;
}

std::string render_vllm_fit_text(const PreparedRequest& p, const VllmFit& fit) {
  const VllmSolution& s = fit.answer;
  const std::string budget =
      fmt::format("{} ({})", format_bytes(p.budget.budget_bytes), to_string(p.budget.source));
  std::string out =
      s.what == VllmSolveFor::kMaxModelLen
          ? fmt::format("Largest max-model-len vLLM starts with in {}: ", budget)
          : fmt::format("Largest max-num-seqs whose requests of {} tokens all fit vLLM's KV cache "
                        "in {}: ",
                        context_of(p, s), budget);
  if (!s.value) return out + fmt::format("nothing fits: {}\n", s.why_none);
  out += std::to_string(*s.value);
  if (s.capped) out += fmt::format(" ({})", s.ceiling_reason);
  // The whole launch command, as the report's own start: line.
  out += fmt::format("\nstart: vllm serve {} {}\n",
                     shell_word(escape_untrusted(p.model->path, p.model->path.size())),
                     joined(fit.flags));
  out += "\n" + render_vllm_text(*p.model, *s.estimate, p.budget) + "\n" +
         speed_text(estimate_plan_speed(vllm_speed_plan(p, *s.estimate)));
  return out;
}

}  // namespace memfit
