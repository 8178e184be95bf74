// DeepSeek-V3.2's two caches under vLLM (vllm/sparse_mla.h): the latent and
// the indexer keys, on 64-token blocks. The rules and the vLLM sources
// behind them: docs/engine-vllm.md, "DeepSeek-V3.2 (sparse attention)".
#include "engines/vllm/sparse_mla.h"

#include "engines/shared/gpu_class.h"
#include "memfit/checked_math.h"

namespace memfit {
namespace {

// Every DeepSeek-V3.2 config has kv_lora_rank 512 and qk_rope_head_dim 64
// (fp8_ds_mla's 656 bytes are fixed at those); memfit's layer rate adds
// index_head_dim after them.
constexpr uint64_t kLatentElems = 512 + 64;

}  // namespace

// vLLM's platforms/cuda.py, CudaPlatformBase.check_and_update_config: the
// MLA backend chosen when none is asked for, and the block size it forces.
uint64_t vllm_mla_block_size(const VllmSettings& s) {
  const uint64_t b = s.block_size;
  const Result<VllmAccounting> accounting = vllm_accounting(s.release);
  if (!accounting || *accounting == VllmAccounting::kV07) return b;
  const GpuClass gpu = classify_gpu(s.gpu_name);
  if (gpu == GpuClass::kBlackwellDatacenter) return b == 32 || (b != 0 && b % 64 == 0) ? b : 64;
  if (is_hopper(gpu)) return b != 0 && b % 64 == 0 ? b : 64;
  return b;
}

// Sparse where an MLA layer caches an indexer key (its config's
// index_head_dim): vLLM's deepseek_v2.py builds the sparse attention and
// its Indexer where hasattr(config, "index_topk"), for DeepSeek-V3.2 and
// for GLM-5 (glm_moe_dsa, GlmMoeDsaForCausalLM a DeepseekV2ForCausalLM,
// vllm-project/vllm#34124), whose configs carry both keys.
std::optional<VllmSparseMla> vllm_sparse_mla(const ModelSpec& spec, const VllmSettings& s) {
  uint64_t index_elems = 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kMlaLatent && l.index_elems != 0 && l.elems_per_token > kLatentElems) {
      index_elems = l.elems_per_token - kLatentElems;
      break;
    }
  }
  if (index_elems == 0) return std::nullopt;
  VllmSparseMla r;
  r.mla_token_bytes = s.kv_cache_fp8 ? kVllmFp8DsMlaTokenBytes : kLatentElems * 2;
  r.indexer_token_bytes =
      (CheckedBytes(index_elems) + CheckedBytes(index_elems / kVllmIndexerQuantBlock) * 4)
          .saturated();
  return r;
}

}  // namespace memfit
