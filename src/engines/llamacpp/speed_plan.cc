// The llama.cpp plan for the speed estimate (speed_plan.h).
#include "engines/llamacpp/speed_plan.h"

#include <algorithm>
#include <string_view>

namespace memfit {
namespace {

std::string backend_name(const PreparedRequest& run) {
  if (run.speed_machine.unified) return "metal";
  switch (run.platform.backend) {
    case Backend::kCuda: return "cuda";
    case Backend::kRocm: return "rocm";
    case Backend::kMetal: return "metal";
    default: return "cpu";
  }
}

bool is_input_table(std::string_view name) {
  return name == "token_embd.weight" || name == "model.embed_tokens.weight";
}

// The input table's bytes in the tensor list (0 without one).
uint64_t input_table_bytes(const Model& model) {
  for (const SafetensorsTensor& t : model.tensors) {
    if (is_input_table(t.name)) return t.data_bytes;
  }
  return 0;
}

// No output.weight: the output layer reads the input table (tied); an
// encoder has no vocabulary output to read it.
bool tied_output(const Model& model) {
  if (model.spec.embedding.bidirectional) return false;
  for (const SafetensorsTensor& t : model.tensors) {
    if (t.name == "output.weight" || t.name == "lm_head.weight") return false;
  }
  return true;
}

}  // namespace

SpeedPlan llamacpp_speed_plan(const PreparedRequest& run, const LlamaCppEstimate& e) {
  return llamacpp_speed_plan(run, *run.model, e);
}

SpeedPlan llamacpp_speed_plan(const PreparedRequest& run, const Model& model, const LlamaCppEstimate& e) {
  const SpeedMachine& m = run.speed_machine;
  SpeedPlan plan;
  plan.shape = speed_shape(model, e.mapped_bytes);
  plan.backend = backend_name(run);
  plan.engine = "llamacpp";  // Ollama's runner too: llama.cpp's published runs are its
  plan.context_tokens = e.context.n_ctx_seq;
  plan.prompt_tokens = e.context.n_ctx_seq;
  // A mixture of experts' prompt is multiplied a microbatch at a time, in
  // the tiles of the backend's prompt products (docs/speed.md, "A mixture
  // of experts' prompt"); the CPU's are not priced so (tile 0).
  plan.shape.microbatch_tokens = std::min(plan.prompt_tokens, e.context.n_ubatch);
  plan.shape.tile_tokens = llamacpp_prompt_tile_tokens(plan.backend);
  if (e.settings.embedding) {
    plan.no_decode = "llama-server --embedding returns vectors and scores, not tokens";
  }
  const DeviceThroughput host = m.unified ? *m.unified : m.host;
  plan.compute = m.unified ? *m.unified : (m.gpus.empty() ? m.host : m.gpus.front());
  if (e.placement.devices.empty()) {
    plan.parts.push_back({"cpu", host, e.mapped_bytes, e.kv_bytes});
    return plan;
  }
  uint64_t blocks = 0;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) blocks += d.blocks;
  const uint64_t embedding = input_table_bytes(model);
  size_t gpu = 0;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) {
    DeviceThroughput device = host;
    uint64_t weights = d.model_bytes;
    if (d.device != "cpu") {
      device = m.unified ? *m.unified : (gpu < m.gpus.size() ? m.gpus[gpu] : DeviceThroughput{d.name, 0, 0, 0});
      ++gpu;
    } else if (!(d.output_layer && tied_output(model))) {
      // The input table stays on the host, and a token reads one row of it.
      weights -= std::min(weights, embedding);
    }
    // A layer's KV cache is on its layer's device: the cache's share is the
    // device's share of the blocks.
    const uint64_t kv = blocks == 0 ? 0
                                    : static_cast<uint64_t>(static_cast<double>(e.kv_bytes) *
                                                            static_cast<double>(d.blocks) /
                                                            static_cast<double>(blocks));
    plan.parts.push_back({d.device, device, weights, kv});
  }
  return plan;
}

}  // namespace memfit
