// One panel of the memory plot (render_plot_svg): one weight mode at one
// KV width, drawn as stacked components against a log2 context axis.
#ifndef MEMFIT_REPORT_PLOT_PANEL_H_
#define MEMFIT_REPORT_PLOT_PANEL_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "memfit/plot.h"
#include "report/plot_axes.h"

namespace memfit {

// The stacked components, bottom to top.
struct PlotLayer {
  const char* key;  // the polygon's data-component
  const char* label;
  const char* color;
  uint64_t PlotSample::*bytes;
};
inline constexpr std::array<PlotLayer, 5> kPlotLayers = {{
    {"weights", "weights", "#4c72b0", &PlotSample::weights_bytes},
    {"kv", "KV cache", "#dd8452", &PlotSample::kv_bytes},
    {"allocator", "allocator overhead", "#9d9d9d", &PlotSample::allocator_overhead_bytes},
    {"activation", "activation", "#55a868", &PlotSample::activation_bytes},
    {"inflight", "backend in-flight", "#8172b3", &PlotSample::backend_inflight_bytes},
}};

// Where a panel goes in the document, in pixels.
struct PanelBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

// Appends panel `index` of `data` to `out` as a <g class="panel">: the
// title, grid and ticks on the shared `scale`, `layers` stacked, the budget
// line, the crossing or the verdict in words, and one invisible column per
// sample carrying its exact bytes (see plot_svg.cc for the attributes).
// `index` names the panel's clip path: unique within one document.
void write_plot_panel(const PlotData& data, size_t index, const ByteTicks& scale,
                      const std::vector<const PlotLayer*>& layers, const PanelBox& box,
                      std::string& out);

}  // namespace memfit

#endif  // MEMFIT_REPORT_PLOT_PANEL_H_
