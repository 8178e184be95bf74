// Reports of a multi-device plan: the "parallel" object of the JSON report
// and the per-rank table of the text report. Both are added beside the
// whole-model report, whose fields keep their meaning.
//
// JSON:
//   {"tensor_parallel", "pipeline_parallel", "engine": "vllm"|"mlx",
//    "weights_split": "tensor_list"|"proportional", "fits", "assumptions": [...],
//    "ranks": [{"rank", "tp_rank", "pp_stage", "layer_begin", "layer_end",
//               "kv_heads", "weights_bytes", "kv_bytes_total", "headroom_bytes",
//               "total_bytes", "budget_bytes", "fits"}, ...]}
// Per rank: weights_bytes + kv_bytes_total + headroom_bytes == total_bytes.
#ifndef MEMFIT_PARALLEL_REPORT_H_
#define MEMFIT_PARALLEL_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "memfit/parallel_plan.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

nlohmann::ordered_json parallel_plan_to_json(const ParallelPlan& plan);

// A header line, one row per rank (rank, stage, layers, weights, KV,
// headroom, total, budget, fits), the assumptions and a verdict line
// "ALL RANKS FIT" / "RANKS THAT DO NOT FIT: 0, 1".
std::string render_parallel_plan_text(const ParallelPlan& plan);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_PARALLEL_REPORT_H_
