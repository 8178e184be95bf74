// The llama.cpp plan as the speed estimate reads it
// (engines/shared/speed_report.h).
#ifndef MEMFIT_ENGINES_LLAMACPP_SPEED_PLAN_H_
#define MEMFIT_ENGINES_LLAMACPP_SPEED_PLAN_H_

#include "engines/shared/speed_report.h"
#include "memfit/request.h"

namespace memfit {

// Per device of the placement (-ngl, --n-cpu-moe, --tensor-split): the
// weights it holds and the KV cache of its blocks; the layers and experts
// left on the CPU are read at the host's bandwidth, the input table (on
// the host, one row read a token) left out unless it is also the output. No GPU: the whole model on the host, or on
// a Mac's unified memory. The prompt is the whole context (n_ctx_seq), its
// matrix products on the first GPU (llama.cpp runs a batch's products of
// host layers there too: op offload); a Mac's GPU; else the host. Under
// --embedding (or --reranking) nothing is decoded: SpeedPlan::no_decode.
SpeedPlan llamacpp_speed_plan(const PreparedRequest& run, const LlamaCppEstimate& e);
// The same for `model` in place of the request's own (recommend-quant's
// GGUF file types: the model llama-quantize would write); it must outlive
// nothing, the plan holds no pointer into it.
SpeedPlan llamacpp_speed_plan(const PreparedRequest& run, const Model& model, const LlamaCppEstimate& e);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_LLAMACPP_SPEED_PLAN_H_
