// vLLM's CUDA graphs per rank (cuda_graphs.h).
//
// Design note. From 0.21 the worker does not capture every graph before
// it sizes the KV cache: profile_cudagraph_memory (v1/worker/
// gpu_model_runner.py, #30515; on by default since #38284) allocates a
// minimal KV cache (one block per sequence), then for each mode (PIECEWISE,
// FULL) captures the two largest sizes into a throwaway pool, reading the
// device's free memory around each: the estimate is the largest first
// capture over the modes plus, per mode, the second capture (at least
// 1 MiB) x (the mode's graphs - 1), plus an encoder's graphs when they
// are captured. The first capture carries the pool of the largest graph's
// activations and whatever a backend allocates once (FlashInfer's
// workspace: typhoon-ocr-7b's 9 graphs were estimated at 0.41 GiB and
// took 0.06 when captured); each further graph adds the driver's memory
// for its kernels, since the graphs share one pool and capture the large
// sizes first. memfit prices that: the graph count from the settings,
// exactly as vLLM makes it, times a per-layer cost (modelled).
#include "engines/vllm/cuda_graphs.h"

#include <algorithm>

#include "memfit/checked_math.h"

namespace memfit {
namespace {

// vLLM's default capture sizes (CompilationConfig, vllm/config/
// compilation.py, read at v0.11.2 and later; the 0.21-on logs print the
// same list): 1, 2, 4, every 8 up to 248, then every 16 from 256, each at
// most the largest size. v0.11.0 captured every 8 up to 512 (67 sizes
// where the later list has 51), which is not modelled.
uint64_t sizes_up_to(uint64_t largest) {
  uint64_t n = 0;
  for (uint64_t size : {1, 2, 4}) n += size <= largest ? 1 : 0;
  for (uint64_t size = 8; size < 256 && size <= largest; size += 8) ++n;
  for (uint64_t size = 256; size <= largest; size += 16) ++n;
  return n;
}

}  // namespace

VllmCudaGraphs vllm_cuda_graphs(const ModelSpec& spec, const VllmSettings& s,
                                VllmAccounting accounting) {
  VllmCudaGraphs g;
  if (s.enforce_eager) return g;
  if (accounting == VllmAccounting::kV07) {
    g.bytes = kVllmCudaGraphBytes;
    return g;
  }
  // max_num_seqs is at most kVllmMaxTokens (check_settings): twice it fits.
  const uint64_t largest =
      std::min({s.max_num_seqs * 2, kVllmMaxCaptureTokens, s.max_num_batched_tokens});
  g.largest_tokens = largest;
  g.piecewise = sizes_up_to(largest);
  // FULL_AND_PIECEWISE (the default since v0.11): FULL graphs for uniform
  // decode batches, one token per sequence, so the sizes up to max_num_seqs
  // (the logs: FULL=35 (largest=256) at 256 sequences, 5 at 16, 4 at 10).
  g.full = sizes_up_to(std::min(largest, s.max_num_seqs));
  g.bytes = (CheckedBytes(g.piecewise + g.full) * spec.geometry.layers * kVllmGraphBytesPerLayer)
                .saturated();
  return g;
}

}  // namespace memfit
