// vllm_pipeline_capacity(): the KV blocks of a pipeline-parallel run
// (docs/engine-vllm.md, "Pipeline parallelism: the KV blocks"). Each
// worker sizes its blocks from its own KV memory over its own layers
// (get_kv_cache_config over the worker's kv_cache_spec, the layers of its
// stage: get_pp_indices), then unify_kv_cache_configs gives every worker
// the fewest blocks any worker made (v1/core/kv_cache_utils.py), so the
// engine's blocks are the tightest stage's.
#include <algorithm>

#include <fmt/format.h>

#include "engines/vllm/parts.h"
#include "memfit/checked_math.h"
#include "memfit/parallel_plan.h"

namespace memfit {

Result<VllmCapacity> vllm_pipeline_capacity(const ModelSpec& spec, const VllmSettings& settings,
                                            std::span<const uint64_t> stage_kv_bytes) {
  if (stage_kv_bytes.empty()) return Error::usage("pipeline_parallel", "no stage's KV memory is known");
  Result<std::vector<LayerRange>> ranges =
      pipeline_layer_ranges(ShardingRules::kVllm, spec.layers.size(), stage_kv_bytes.size());
  if (!ranges) return ranges.error();
  std::optional<uint64_t> fewest;
  std::optional<VllmKvLayout> first;
  for (size_t s = 0; s < ranges->size(); ++s) {
    ModelSpec stage = spec;
    const LayerRange r = (*ranges)[s];
    stage.layers.assign(spec.layers.begin() + static_cast<std::ptrdiff_t>(r.begin),
                        spec.layers.begin() + static_cast<std::ptrdiff_t>(r.end));
    Result<VllmKvLayout> layout = vllm_kv_layout(stage, settings);
    if (!layout) return layout.error();
    if (layout->bytes_per_block == 0) {
      return Error::usage("pipeline_parallel", fmt::format("stage {} holds no KV cache layer", s));
    }
    const uint64_t blocks = stage_kv_bytes[s] / layout->bytes_per_block;
    fewest = fewest ? std::min(*fewest, blocks) : blocks;
    if (!first) first = std::move(*layout);
  }
  vllm_request_blocks(*first, settings, settings.max_model_len);
  // The first stage's layout with the unified blocks: every stage's groups
  // are the same (unify_kv_cache_configs asserts it), and so are the
  // tokens and blocks a request needs.
  return vllm_capacity(*first, (CheckedBytes(*fewest) * first->bytes_per_block).saturated(),
                       settings.max_model_len, vllm_tokens_form(settings.release));
}

}  // namespace memfit
