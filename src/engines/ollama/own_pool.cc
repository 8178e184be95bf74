// The own engine's GPU pool for a model and a GPU (own_pool.h), from
// gpu_pool.h's replays.
#include "engines/ollama/own_pool.h"

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "engines/ollama/gpu_pool.h"
#include "engines/ollama/releases.h"
#include "memfit/gguf.h"

namespace memfit::ollama {
namespace {

// Whether every matrix of the model's file is of a quantized type: the
// GGUF's tensor infos, or the tensors of the GGUF memfit rebuilt (as a
// GGUF model carries them, typed by ggml's names); false without either.
bool matrices_quantized(const Model& model) {
  const auto float_type = [](std::string_view t) { return t == "f32" || t == "f16" || t == "bf16"; };
  if (model.gguf != nullptr && !model.gguf->tensors.empty()) {
    return std::all_of(model.gguf->tensors.begin(), model.gguf->tensors.end(), [](const GgufTensorInfo& t) {
      return t.n_dims != 2 || (t.type != GgmlType::kF32 && t.type != GgmlType::kF16 && t.type != GgmlType::kBF16);
    });
  }
  if (model.tensors.empty() || model.weights.source != WeightsSource::kGgufHeader) return false;
  return std::all_of(model.tensors.begin(), model.tensors.end(), [&](const SafetensorsTensor& t) {
    return t.shape.size() != 2 || !float_type(t.dtype);
  });
}

// The pool an RDNA3 GPU's record adds to the own engine's graph: its
// products' F16 copies (gpu_pool.h, rdna3_product_pool_bytes) in releases
// v0.12.4 to v0.13.2 (releases.h, own_engine_rdna3_product_pool). 0 where
// memfit replays no pool: another release, a family whose products
// engine_graph_products does not list, a product it does not replay.
uint64_t rdna3_product_pool(const Model& model, const OllamaDecisions& d, const EngineGraphRun& run) {
  if (!own_engine_rdna3_product_pool(d.release)) return 0;
  const std::optional<std::vector<WeightProduct>> products =
      engine_graph_products(model.spec, run, /*weights_quantized=*/true);
  if (!products) return 0;
  return rdna3_product_pool_bytes(*products).value_or(0);
}

// The pool an NVIDIA Turing or Ampere GPU's record adds (compute
// capability 7.5 to 8.8, the log's compute=; gpu_pool.h, cuda_vmm_pool_bytes):
// the high-water mark of ggml-cuda's VMM pool in the dry run, flash
// attention's MMA temporaries or a product's q8_1 activations, v0.12.4 to
// v0.24.0 (releases.h, own_engine_cuda_mma_pool). A quantized cache
// (the kernel's F16 copies of K and V) and qwen3moe's routed products are
// not replayed: qwen3moe takes flash attention's alone. 0 where memfit
// replays no pool, or a matrix's type is not one MMQ takes (takes_mmq).
uint64_t turing_ampere_pool(const Model& model, const OllamaDecisions& d, const EngineGraphRun& run, unsigned cc) {
  if (d.kv_type != GgmlType::kF16 || !own_engine_cuda_mma_pool(d.release) || !matrices_take_mmq(model)) return 0;
  const std::optional<FlashAttentionNode> attention = engine_graph_attention(model.spec, run);
  if (!attention) return 0;
  const std::optional<uint64_t> fa = mma_flash_attention_pool_bytes(*attention, cc);
  if (!fa) return 0;
  const std::vector<WeightProduct> products =
      engine_graph_products(model.spec, run, /*weights_quantized=*/true).value_or(std::vector<WeightProduct>{});
  return cuda_vmm_pool_bytes(*fa, products).value_or(0);
}

}  // namespace

bool takes_mmq(GgmlType t) {
  switch (t) {
    case GgmlType::kQ4_0: case GgmlType::kQ4_1: case GgmlType::kQ5_0: case GgmlType::kQ5_1:
    case GgmlType::kQ8_0: case GgmlType::kMXFP4: case GgmlType::kQ2_K: case GgmlType::kQ3_K:
    case GgmlType::kQ4_K: case GgmlType::kQ5_K: case GgmlType::kQ6_K: case GgmlType::kIQ2_XXS:
    case GgmlType::kIQ2_XS: case GgmlType::kIQ2_S: case GgmlType::kIQ3_XXS: case GgmlType::kIQ3_S:
    case GgmlType::kIQ1_S: case GgmlType::kIQ4_XS: case GgmlType::kIQ4_NL:
      return true;
    default:
      return false;
  }
}

bool matrices_take_mmq(const Model& model) {
  if (model.gguf != nullptr && !model.gguf->tensors.empty()) {
    return std::all_of(model.gguf->tensors.begin(), model.gguf->tensors.end(),
                       [](const GgufTensorInfo& t) { return t.n_dims < 2 || takes_mmq(t.type); });
  }
  if (model.tensors.empty() || model.weights.source != WeightsSource::kGgufHeader) return false;
  const auto mmq_name = [](std::string_view name) {
    const std::span<const GgmlTypeTraits> table = ggml_type_table();
    return std::any_of(table.begin(), table.end(),
                       [&](const GgmlTypeTraits& t) { return t.name == name && takes_mmq(t.type); });
  };
  return std::all_of(model.tensors.begin(), model.tensors.end(),
                     [&](const SafetensorsTensor& t) { return t.shape.size() < 2 || mmq_name(t.dtype); });
}

uint64_t own_engine_gpu_pool_bytes(const Model& model, const OllamaDecisions& d, std::string_view device,
                                   const EngineGraphRun& run) {
  if (!run.on_gpu || !run.flash_attention || !d.given.gpu_arch || !own_engine_graph_holds_gpu_pool(d.release) ||
      !matrices_quantized(model)) {
    return 0;
  }
  if (device.starts_with("rocm") && d.given.gpu_arch->starts_with("gfx11")) return rdna3_product_pool(model, d, run);
  const std::optional<unsigned> cc = cuda_compute_capability(*d.given.gpu_arch);
  if (device.starts_with("cuda") && cc) return turing_ampere_pool(model, d, run, *cc);
  return 0;
}

}  // namespace memfit::ollama
