// What the compute-replay tests (tests/engines/llamacpp/graph/*_test.cc)
// run: llama.cpp's estimate of a model or a spec under settings, against a
// 64 GiB explicit budget.
#ifndef MEMFIT_TESTS_SUPPORT_LLAMACPP_REPLAY_H_
#define MEMFIT_TESTS_SUPPORT_LLAMACPP_REPLAY_H_

#include <cstdint>
#include <optional>

#include "memfit/llamacpp.h"
#include "memfit/model.h"
#include "memfit/model_spec.h"

namespace memfit {

// estimate_llamacpp over `model` (its spec and GGUF header) with 1,000
// bytes of header-read weights; a failure fails the test and returns an
// empty estimate.
LlamaCppEstimate run_llamacpp(Model model, const LlamaCppSettings& settings);
// The same over a model of `spec` alone, with no GGUF header (a config.json's).
LlamaCppEstimate run_llamacpp(ModelSpec spec, const LlamaCppSettings& settings);

// --ctx-size ctx --parallel parallel --batch-size and --ubatch-size ubatch
// --flash-attn fa, the K cache of type k and the V cache of type v (k when
// not given).
LlamaCppSettings llamacpp_settings(uint64_t ctx, uint64_t parallel, uint64_t ubatch, FlashAttn fa,
                                   GgmlType k = GgmlType::kF16, std::optional<GgmlType> v = std::nullopt);

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_LLAMACPP_REPLAY_H_
