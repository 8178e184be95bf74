// A panel: plot area inset from its box by kPlot*Px; the budget label at
// the left end of its line (above it, or below it when the stack is already
// over the budget there), the crossing's label below the line beside its
// marker, a verdict in words where there is no crossing.
#include "engines/shared/plot/panel.h"

#include <algorithm>

#include <fmt/format.h>

#include "memfit/memory_size.h"
#include "memfit/checked_math.h"
#include "memfit/mlxcel_report.h"
#include "engines/shared/plot/xml_text.h"

namespace memfit {
namespace {

// Plot area inside a panel.
constexpr double kPlotLeftPx = 62, kPlotRightPx = 20, kPlotTopPx = 30, kPlotBottomPx = 40;
// Minimum horizontal room per x tick label.
constexpr double kTickLabelPx = 46;
// A verdict's width per character (13 px, bold), generous.
constexpr double kVerdictCharPx = 7.5;

std::string panel_verdict(const PlotPanel& p, const PlotData& data) {
  if (!p.max_tokens_that_fit) {
    return fmt::format("never fits {}, not even at 1 token", format_bytes(data.budget_bytes));
  }
  uint64_t v = *p.max_tokens_that_fit;
  if (p.capped && data.capped_fits_any_context) return "fits any context: the cache stops growing";
  if (v >= data.max_tokens) {
    return fmt::format("fits the whole range (up to {} tokens)", group_digits(v));
  }
  return fmt::format("fits only below this range (up to {} tokens)", group_digits(v));
}

// "8,192 tokens: 10.96 GiB (11,764,806,400 B) = weights 7.74 GiB + KV
// cache 1.25 GiB + ...": every component the data names, but those named
// only when they have bytes.
std::string sample_title(const PlotData& data, const PlotSample& s) {
  std::string text = fmt::format("{} tokens: {} ({} B) =", group_digits(s.tokens),
                                 format_bytes(s.total_bytes), group_digits(s.total_bytes));
  bool first = true;
  for (size_t i = 0; i < data.components.size(); ++i) {
    const PlotComponent& c = data.components[i];
    uint64_t bytes = component_bytes(s, i);
    if (!c.named_when_zero && bytes == 0) continue;
    text += fmt::format("{} {} {}", first ? "" : " +", c.term, format_bytes(bytes));
    first = false;
  }
  return text;
}

class PanelWriter {
 public:
  PanelWriter(const PlotData& data, const ByteTicks& scale,
              const std::vector<size_t>& layers, std::string& out)
      : data_(data), scale_(scale), layers_(layers), out_(out) {}

  void write(const PlotPanel& p, size_t index, double x0, double y0, double w, double h) {
    left_ = x0 + kPlotLeftPx;
    right_ = x0 + w - kPlotRightPx;
    top_ = y0 + kPlotTopPx;
    bottom_ = y0 + h - kPlotBottomPx;
    ContextAxis xa(data_.min_tokens, data_.max_tokens, left_, right_);
    ByteAxis ya(scale_.top_bytes, bottom_, top_);
    out_ += fmt::format(
        "<g class=\"panel\" data-weights-mode=\"{}\" data-kv-cache-mode=\"{}\" "
        "data-weights-bytes=\"{}\" data-max-tokens-that-fit=\"{}\" data-capped=\"{}\">\n",
        xml_escape(p.weights_mode), xml_escape(p.kv_cache_mode), p.weights_bytes,
        p.max_tokens_that_fit ? fmt::format("{}", *p.max_tokens_that_fit) : "none",
        p.capped ? "true" : "false");
    out_ += fmt::format("<text class=\"panel-title\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", left_,
                        y0 + 18, xml_escape(p.title));
    out_ += fmt::format("<clipPath id=\"plot-area-{}\"><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/></clipPath>\n",
                        index, left_, top_, right_ - left_, bottom_ - top_);
    write_grid(xa, ya);
    write_stack(p, index, xa, ya);
    out_ += fmt::format("<path class=\"frame\" d=\"M{:.1f} {:.1f}V{:.1f}H{:.1f}\"/>\n", left_, top_,
                        bottom_, right_);
    // The budget label goes above the line at the left end, where the stack
    // is usually still below the budget; when even the smallest context is
    // over it, the stack is there, so the label goes below the line and the
    // verdict under it.
    bool over_at_left = !p.samples.empty() && p.samples.front().total_bytes > data_.budget_bytes;
    write_budget(ya, over_at_left);
    write_crossing(p, xa, ya, over_at_left ? 36 : 18);
    write_samples(p, xa);
    out_ += "</g>\n";
  }

 private:
  void write_grid(const ContextAxis& xa, const ByteAxis& ya) {
    for (uint64_t b = 0; b <= scale_.top_bytes; b += scale_.step_bytes) {
      double y = ya.y(b);
      out_ += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
                          "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                          left_, y, right_, y, left_ - 6, y + 4, byte_tick_label(b, scale_));
      if (scale_.top_bytes - b < scale_.step_bytes) break;  // no wrap past the top
    }
    size_t max_labels = static_cast<size_t>(std::max(2.0, (right_ - left_) / kTickLabelPx));
    for (uint64_t t : context_ticks(data_.min_tokens, data_.max_tokens, max_labels)) {
      double x = xa.x(t);
      out_ += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>"
                          "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                          x, top_, x, bottom_, x, bottom_ + 16, context_tick_label(t));
    }
  }

  // Each layer is the band between the running sum below it and the sum
  // including it; the sums are exact uint64 (they never exceed the total).
  void write_stack(const PlotPanel& p, size_t index, const ContextAxis& xa, const ByteAxis& ya) {
    out_ += fmt::format("<g clip-path=\"url(#plot-area-{})\">\n", index);
    std::vector<uint64_t> below(p.samples.size(), 0);
    for (size_t layer : layers_) {
      const PlotComponent& component = data_.components[layer];
      std::vector<uint64_t> above(p.samples.size());
      for (size_t i = 0; i < p.samples.size(); ++i) {
        above[i] = (CheckedBytes(below[i]) + component_bytes(p.samples[i], layer)).saturated();
      }
      std::string points;
      for (size_t i = 0; i < p.samples.size(); ++i) {
        points += fmt::format("{:.1f},{:.1f} ", xa.x(p.samples[i].tokens), ya.y(above[i]));
      }
      for (size_t i = p.samples.size(); i-- > 0;) {
        points += fmt::format("{:.1f},{:.1f} ", xa.x(p.samples[i].tokens), ya.y(below[i]));
      }
      if (!points.empty()) points.pop_back();
      out_ += fmt::format("<polygon class=\"layer\" data-component=\"{}\" fill=\"{}\" points=\"{}\"/>\n",
                          xml_escape(component.key), xml_escape(component.color), points);
      below = std::move(above);
    }
    std::string line;
    for (const PlotSample& s : p.samples) {
      line += fmt::format("{:.1f},{:.1f} ", xa.x(s.tokens), ya.y(s.total_bytes));
    }
    if (!line.empty()) line.pop_back();
    out_ += fmt::format("<polyline class=\"total\" points=\"{}\"/>\n</g>\n", line);
  }

  void write_budget(const ByteAxis& ya, bool label_below) {
    if (data_.budget_bytes == 0) return;
    double y = ya.y(data_.budget_bytes);
    out_ += fmt::format("<line class=\"budget\" data-budget-bytes=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                        data_.budget_bytes, left_, y, right_, y);
    out_ += fmt::format("<text class=\"budget-label halo\" x=\"{:.1f}\" y=\"{:.1f}\">budget {}</text>\n",
                        left_ + 6, label_below ? y + 16 : y - 6, format_bytes(data_.budget_bytes));
  }

  // The crossing sits on the budget line at the solver's answer; its label
  // goes below the line, on the side of the marker with more room.
  void write_crossing(const PlotPanel& p, const ContextAxis& xa, const ByteAxis& ya,
                      double verdict_dy) {
    double y = data_.budget_bytes > 0 ? ya.y(data_.budget_bytes) : top_;
    bool inside = p.max_tokens_that_fit && !p.capped && *p.max_tokens_that_fit >= data_.min_tokens &&
                  *p.max_tokens_that_fit < data_.max_tokens;
    if (!inside) {
      write_verdict(panel_verdict(p, data_), left_ + 8, y + verdict_dy);
      return;
    }
    uint64_t v = *p.max_tokens_that_fit;
    double x = xa.x(v);
    bool label_left = x > (left_ + right_) / 2;
    out_ += fmt::format("<g class=\"crossing\" data-tokens=\"{}\">", v);
    out_ += fmt::format("<line class=\"drop\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>",
                        x, y, x, bottom_);
    out_ += fmt::format("<circle class=\"marker\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\"/>", x, y);
    out_ += fmt::format("<text class=\"crossing-label halo\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}: {} tokens</text></g>\n",
                        label_left ? x - 8 : x + 8, y + 18, label_left ? "end" : "start",
                        xml_escape(p.kv_cache_mode), group_digits(v));
  }

  // One line when it fits the plot area's width (estimated, as the legend
  // is), else two, broken at the space nearest the middle.
  void write_verdict(const std::string& text, double x, double y) {
    const double room = right_ - left_ - 16;
    const size_t middle = text.size() / 2;
    auto off_middle = [middle](size_t at) { return at > middle ? at - middle : middle - at; };
    size_t cut = std::string::npos;
    if (static_cast<double>(text.size()) * kVerdictCharPx > room) {
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == ' ' && (cut == std::string::npos || off_middle(i) < off_middle(cut))) cut = i;
      }
    }
    if (cut == std::string::npos) {
      out_ += fmt::format("<text class=\"verdict halo\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x, y,
                          xml_escape(text));
      return;
    }
    out_ += fmt::format("<text class=\"verdict halo\" x=\"{0:.1f}\" y=\"{1:.1f}\"><tspan x=\"{0:.1f}\">{2}</tspan>"
                        "<tspan x=\"{0:.1f}\" dy=\"16\">{3}</tspan></text>\n",
                        x, y, xml_escape(text.substr(0, cut)), xml_escape(text.substr(cut + 1)));
  }

  // Invisible columns, one per sample, carrying the exact figures.
  void write_samples(const PlotPanel& p, const ContextAxis& xa) {
    for (size_t i = 0; i < p.samples.size(); ++i) {
      const PlotSample& s = p.samples[i];
      double x = xa.x(s.tokens);
      double from = i == 0 ? left_ : (xa.x(p.samples[i - 1].tokens) + x) / 2;
      double to = i + 1 == p.samples.size() ? right_ : (xa.x(p.samples[i + 1].tokens) + x) / 2;
      std::string bytes;
      for (size_t c = 0; c < data_.components.size(); ++c) {
        bytes += fmt::format(" data-{}-bytes=\"{}\"", xml_escape(data_.components[c].attribute),
                             component_bytes(s, c));
      }
      out_ += fmt::format(
          "<rect class=\"sample\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "data-tokens=\"{}\"{} data-total-bytes=\"{}\"><title>{}</title></rect>\n",
          from, top_, std::max(0.0, to - from), bottom_ - top_, s.tokens, bytes, s.total_bytes,
          xml_escape(sample_title(data_, s)));
    }
  }

  const PlotData& data_;
  const ByteTicks& scale_;
  const std::vector<size_t>& layers_;
  std::string& out_;
  double left_ = 0, right_ = 0, top_ = 0, bottom_ = 0;
};

}  // namespace

uint64_t component_bytes(const PlotSample& sample, size_t component) {
  return component < sample.bytes.size() ? sample.bytes[component] : 0;
}

void write_plot_panel(const PlotData& data, size_t index, const ByteTicks& scale,
                      const std::vector<size_t>& layers, const PanelBox& box,
                      std::string& out) {
  PanelWriter(data, scale, layers, out).write(data.panels[index], index, box.x, box.y, box.width,
                                              box.height);
}

}  // namespace memfit
