// The stacked components of each engine's figure. Colours are one palette
// across engines: the weights are blue and the KV cache orange in both, so
// two figures side by side read alike.
#include "memfit/plot.h"

namespace memfit {

const std::vector<PlotComponent>& mlxcel_plot_components() {
  // The order is plot_mlxcel's indices; in-flight is reserved on ROCm only,
  // so a sample's title names it only when it has bytes.
  static const std::vector<PlotComponent> components = {
      {"weights", "weights", "weights", "weights", "#4c72b0", true},
      {"kv", "kv", "KV cache", "KV cache", "#dd8452", true},
      {"allocator", "allocator-overhead", "allocator overhead", "allocator", "#9d9d9d", true},
      {"activation", "activation", "activation", "activation", "#55a868", true},
      {"inflight", "backend-inflight", "backend in-flight", "in-flight", "#8172b3", false},
  };
  return components;
}

const std::vector<PlotComponent>& llamacpp_plot_components() {
  // The order is plot_llamacpp's indices. Recurrent state exists only in
  // recurrent and hybrid models, so a title names it only when it has bytes.
  static const std::vector<PlotComponent> components = {
      {"model", "model", "model", "model", "#4c72b0", true},
      {"kv", "kv", "KV cache", "KV cache", "#dd8452", true},
      {"recurrent", "recurrent", "recurrent state", "recurrent", "#da8bc3", false},
      {"output", "output", "output buffer", "output", "#937860", true},
      {"compute", "compute", "compute buffers", "compute", "#55a868", true},
  };
  return components;
}

}  // namespace memfit
