// The per-rank table of a multi-device plan. Layout:
//
//   Parallel plan: vllm, tensor parallel 2 x pipeline parallel 2 = 4 ranks, weights split by tensor
//     rank  stage  layers       weights         KV   headroom      total     budget  fits
//        0      0  0-13       7.12 GiB   512.0 MiB   1.85 GiB   9.48 GiB  24.00 GiB  yes
//   ...
//   ALL RANKS FIT
#include "memfit/memory_size.h"
#include "memfit/parallel_report.h"

#include <fmt/format.h>

#include "memfit/mlxcel_report.h"

namespace memfit {

nlohmann::ordered_json parallel_plan_to_json(const ParallelPlan& plan) {
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const RankEstimate& r : plan.ranks) {
    const MlxcelEstimate& e = r.estimate;
    ranks.push_back({{"rank", r.rank},
                     {"tp_rank", r.tp_rank},
                     {"pp_stage", r.pp_stage},
                     {"layer_begin", r.layers.begin},
                     {"layer_end", r.layers.end},
                     {"kv_heads", r.kv_heads},
                     {"weights_bytes", e.weights_bytes},
                     {"kv_bytes_total", e.kv.total_bytes},
                     {"headroom_bytes", e.headroom_bytes},
                     {"total_bytes", e.total_bytes},
                     {"budget_bytes", e.budget_bytes},
                     {"fits", e.fits}});
  }
  return {{"tensor_parallel", plan.config.tensor_parallel},
          {"pipeline_parallel", plan.config.pipeline_parallel},
          {"engine", to_string(plan.config.sharding)},
          {"weights_split", plan.from_tensor_list ? "tensor_list" : "proportional"},
          {"fits", plan.fits},
          {"assumptions", plan.assumptions},
          {"ranks", std::move(ranks)}};
}

std::string render_parallel_plan_text(const ParallelPlan& plan) {
  const ParallelConfig& c = plan.config;
  std::string out = fmt::format(
      "\nParallel plan: {}, tensor parallel {} x pipeline parallel {} = {} ranks, weights split {}\n",
      to_string(c.sharding), c.tensor_parallel, c.pipeline_parallel, plan.ranks.size(),
      plan.from_tensor_list ? "by tensor" : "proportionally");
  out += fmt::format("  {:>4}  {:>5}  {:<9}{:>11}{:>11}{:>11}{:>11}{:>11}  {}\n", "rank", "stage",
                     "layers", "weights", "KV", "headroom", "total", "budget", "fits");
  std::vector<uint64_t> short_ranks;
  for (const RankEstimate& r : plan.ranks) {
    const MlxcelEstimate& e = r.estimate;
    std::string layers = r.layers.count() == 0
                             ? std::string("-")
                             : fmt::format("{}-{}", r.layers.begin, r.layers.end - 1);
    out += fmt::format("  {:>4}  {:>5}  {:<9}{:>11}{:>11}{:>11}{:>11}{:>11}  {}\n", r.rank,
                       r.pp_stage, layers, format_bytes(e.weights_bytes),
                       format_bytes(e.kv.total_bytes), format_bytes(e.headroom_bytes),
                       format_bytes(e.total_bytes), format_bytes(e.budget_bytes),
                       e.fits ? "yes" : "NO");
    if (!e.fits) short_ranks.push_back(r.rank);
  }
  for (const std::string& a : plan.assumptions) out += fmt::format("  parallel: {}\n", a);
  if (short_ranks.empty()) {
    out += "ALL RANKS FIT\n";
  } else {
    out += fmt::format("RANKS THAT DO NOT FIT: {}\n", fmt::join(short_ranks, ", "));
  }
  return out;
}

}  // namespace memfit
