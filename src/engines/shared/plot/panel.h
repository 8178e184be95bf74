// One panel of the memory plot (render_plot_svg): one weight mode at one
// KV width, drawn as stacked components against a log2 context axis.
#ifndef MEMFIT_ENGINES_SHARED_PLOT_PANEL_H_
#define MEMFIT_ENGINES_SHARED_PLOT_PANEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "memfit/plot.h"
#include "engines/shared/plot/axes.h"

namespace memfit {

// The bytes of data.components[component] in `sample`; 0 when the sample
// has fewer entries than the figure has components.
uint64_t component_bytes(const PlotSample& sample, size_t component);

// Where a panel goes in the document, in pixels.
struct PanelBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

// Appends panel `index` of `data` to `out` as a <g class="panel">: the
// title, grid and ticks on the shared `scale`, the components whose indices
// (in data.components) are `layers` stacked bottom to top, the budget line,
// the crossing or the verdict in words, and one invisible column per sample
// carrying its exact bytes (see shared/plot/svg.cc for the attributes).
// `index` names the panel's clip path: unique within one document.
void write_plot_panel(const PlotData& data, size_t index, const ByteTicks& scale,
                      const std::vector<size_t>& layers, const PanelBox& box,
                      std::string& out);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PLOT_PANEL_H_
