// The rules of llama.cpp releases after the pinned v0.4.0 that memfit reads
// (releases.cc; docs/engine-llamacpp.md, "Releases"). They apply only to a
// build or tag given from their first build on: not given, the pinned
// release prices the run.
#ifndef MEMFIT_ENGINES_LLAMACPP_RELEASES_H_
#define MEMFIT_ENGINES_LLAMACPP_RELEASES_H_

#include <cstdint>
#include <vector>

#include "engines/llamacpp/parts.h"
#include "memfit/llamacpp.h"

namespace memfit {

// v0.5.0, node-llama-cpp 3.22.1's source, the first release after the
// pinned one; its first build is unconfirmed (releases.cc, kTag050Build,
// says how b11300 was taken).
inline constexpr uint64_t kLlamaCppTag050Build = 11300;

// The CPU_REPACK kernels of a run: the CPU's class and whether its release
// has v0.5.0's Q1_0 kernels (ARM only: llamacpp::repacks_q1_0).
struct RepackKernels {
  RepackCpu cpu = RepackCpu::kNone;
  bool q1_0 = false;
};

// llamacpp_repack_bytes and llamacpp_repack_counts (parts.h) under
// `kernels`: as for kernels.cpu, and with kernels.q1_0 an ARM CPU also
// repacks Q1_0 weights whose row count is a multiple of 4.
Result<uint64_t> llamacpp_repack_bytes(const std::vector<SafetensorsTensor>& tensors,
                                       uint64_t decoder_blocks, RepackKernels kernels);
RepackCounts llamacpp_repack_counts(const std::vector<SafetensorsTensor>& tensors, uint64_t decoder_blocks,
                                    RepackKernels kernels);

namespace llamacpp {

// Whether the CPU's repack kernels take Q1_0 on ARM: a build given from
// v0.5.0 (ggml-cpu/repack.cpp, ggml_repack_get_optimal_repack_type); v0.4.0,
// the pinned, has no Q1_0 kernel.
bool repacks_q1_0(const LlamaCppSettings& settings);
// The repack kernels of `cpu` under the release `settings` names.
RepackKernels repack_kernels(RepackCpu cpu, const LlamaCppSettings& settings);

}  // namespace llamacpp
}  // namespace memfit

#endif  // MEMFIT_ENGINES_LLAMACPP_RELEASES_H_
