// render_plot_svg: PlotData -> one self-contained SVG document.
//
// Layout (viewBox 0 0 960 H, so it scales to a README's width):
//
//   title, subtitle (batch, budget), legend              kHeaderPx
//   panel grid: rows = weight modes, columns = KV widths  rows x panel height
//   x axis caption                                        kFooterPx
//
// Every panel uses the same byte scale, so a taller stack is a larger
// total. The scale reaches 1.25 x the budget at least (room for the budget
// label) and is cut at 2 x the budget: past that the picture says only
// "does not fit", and a model ten times too big would squash every other
// panel flat. The cut is said in the subtitle. The elements and data-*
// attributes a reader may rely on: docs/plot.md, "Reading the numbers back".
#include <algorithm>

#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/checked_math.h"
#include "memfit/plot.h"
#include "memfit/mlxcel_report.h"
#include "engines/shared/plot/axes.h"
#include "engines/shared/plot/panel.h"
#include "engines/shared/plot/xml_text.h"

namespace memfit {
namespace {

constexpr double kWidthPx = 960;
constexpr double kMarginPx = 16;
constexpr double kHeaderPx = 92;
constexpr double kFooterPx = 34;
constexpr double kPanelPxOneRow = 300;
constexpr double kPanelPx = 236;

// A component is drawn (and in the legend) when any sample has bytes in
// it: its index in data.components.
std::vector<size_t> drawn_layers(const PlotData& data) {
  std::vector<size_t> out;
  for (size_t c = 0; c < data.components.size(); ++c) {
    bool any = false;
    for (const PlotPanel& p : data.panels) {
      for (const PlotSample& s : p.samples) any = any || component_bytes(s, c) > 0;
    }
    if (any) out.push_back(c);
  }
  return out;
}

uint64_t largest_total(const PlotData& data) {
  uint64_t top = 0;
  for (const PlotPanel& p : data.panels) {
    for (const PlotSample& s : p.samples) top = std::max(top, s.total_bytes);
  }
  return top;
}

// The byte scale shared by every panel (see the note at the top).
ByteTicks shared_scale(const PlotData& data) {
  uint64_t top = largest_total(data);
  if (data.budget_bytes > 0) {
    uint64_t floor_bytes = (CheckedBytes(data.budget_bytes) * 5).saturated() / 4;
    uint64_t cut_bytes = (CheckedBytes(data.budget_bytes) * 2).saturated();
    top = std::max(floor_bytes, std::min(top, cut_bytes));
  }
  return byte_ticks(top);
}

// Style sheet inside the document: no external fonts, a system font stack.
constexpr const char* kStyle =
    "<style>\n"
    "text{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;fill:#222}\n"
    ".title{font-size:19px;font-weight:600}.subtitle{font-size:13px;fill:#555}\n"
    ".legend{font-size:13px}.panel-title{font-size:13px;font-weight:600}\n"
    ".tick{font-size:12px;fill:#555}.caption{font-size:13px;fill:#555}\n"
    ".grid{stroke:#e4e4e4;stroke-width:1}.frame{fill:none;stroke:#888;stroke-width:1}\n"
    ".layer{fill-opacity:0.9}.total{fill:none;stroke:#222;stroke-width:1.2}\n"
    ".budget{stroke:#c44e52;stroke-width:2;stroke-dasharray:7 4}\n"
    ".budget-label{font-size:12px;font-weight:600;fill:#c44e52}\n"
    ".drop{stroke:#222;stroke-width:1;stroke-dasharray:2 3}\n"
    ".marker{fill:#fff;stroke:#222;stroke-width:2}\n"
    ".crossing-label{font-size:13px;font-weight:600}.verdict{font-size:13px;font-weight:600}\n"
    ".halo{paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}\n"
    ".sample{fill:#000;fill-opacity:0}\n"
    "</style>\n";

void write_legend(const PlotData& data, const std::vector<size_t>& layers, double y,
                  std::string& out) {
  double x = kMarginPx;
  // Text width is estimated (no font metrics in a pure function): 7 px per
  // character at 13 px is generous for the system sans-serif fonts.
  auto advance = [&x](std::string_view label) { x += 22 + 7.0 * label.size() + 18; };
  for (size_t layer : layers) {
    const PlotComponent& c = data.components[layer];
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"14\" fill=\"{}\"/>"
                       "<text class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       x, y - 11, xml_escape(c.color), x + 20, y, xml_escape(c.legend));
    advance(c.legend);
  }
  out += fmt::format("<line class=\"budget\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
                     "<text class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\">budget</text>\n",
                     x, y - 4, x + 16, y - 4, x + 20, y);
  advance("budget");
  out += fmt::format("<circle class=\"marker\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\"/>"
                     "<text class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\">largest context that fits</text>\n",
                     x + 7, y - 4, x + 20, y);
}

}  // namespace

std::string render_plot_svg(const PlotData& data) {
  size_t columns = std::max<size_t>(data.columns, 1);
  size_t rows = std::max<size_t>((data.panels.size() + columns - 1) / columns, 1);
  double panel_w = (kWidthPx - 2 * kMarginPx) / static_cast<double>(columns);
  double panel_h = rows == 1 ? kPanelPxOneRow : kPanelPx;
  double height = kHeaderPx + panel_h * static_cast<double>(rows) + kFooterPx;
  ByteTicks scale = shared_scale(data);
  std::vector<size_t> layers = drawn_layers(data);

  std::string title = fmt::format("{}: memory against context", data.title);
  std::string subtitle = fmt::format("{} · budget {} ({}) · stacked by component, the same scale in every panel",
                                     data.fixed_settings, format_bytes(data.budget_bytes), data.budget_source);
  if (largest_total(data) > scale.top_bytes) {
    subtitle += fmt::format(" · cut at {}", byte_tick_label(scale.top_bytes, scale));
  }
  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                     "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-labelledby=\"plot-title\">\n",
                     kWidthPx, height);
  out += fmt::format("<title id=\"plot-title\">{}</title>\n", xml_escape(title));
  std::string desc;
  for (const PlotPanel& p : data.panels) {
    desc += fmt::format("{} weights, {} KV: {}. ", p.weights_mode, p.kv_cache_mode,
                        p.max_tokens_that_fit
                            ? fmt::format("largest context that fits {} tokens", group_digits(*p.max_tokens_that_fit))
                            : std::string("nothing fits"));
  }
  if (!desc.empty()) desc.pop_back();
  out += fmt::format("<desc>{}</desc>\n", xml_escape(desc));
  out += kStyle;
  out += fmt::format("<rect width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#fff\"/>\n", kWidthPx, height);
  out += fmt::format("<text class=\"title\" x=\"{:.1f}\" y=\"30\">{}</text>\n", kMarginPx, xml_escape(title));
  out += fmt::format("<text class=\"subtitle\" x=\"{:.1f}\" y=\"52\">{}</text>\n", kMarginPx,
                     xml_escape(subtitle));
  write_legend(data, layers, 78, out);

  for (size_t i = 0; i < data.panels.size(); ++i) {
    PanelBox box{kMarginPx + panel_w * static_cast<double>(i % columns),
                 kHeaderPx + panel_h * static_cast<double>(i / columns), panel_w, panel_h};
    write_plot_panel(data, i, scale, layers, box, out);
  }
  out += fmt::format("<text class=\"caption\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">"
                     "{} (log scale: each step doubles it)</text>\n",
                     kWidthPx / 2, height - 12, xml_escape(data.context_label));
  out += "</svg>\n";
  return out;
}

}  // namespace memfit
