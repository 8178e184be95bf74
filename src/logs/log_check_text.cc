// `memfit check-log`'s table (log_check.h: render_log_check_text): what
// was read, where the model came from, then one row per printed figure
// with memfit's figure in the same unit and precision as the print.
#include <fmt/format.h>

#include "memfit/log_check.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// The unit word of a printed quantity ("MiB" of "4403.49 MiB").
std::string_view unit_word(const PrintedFigure& p) {
  std::string_view text = std::string_view(p.text).substr(0, p.text.find(" + "));
  const size_t space = text.rfind(' ');
  if (space != std::string_view::npos) return text.substr(space + 1);
  size_t n = text.size();
  while (n > 0 && ((text[n - 1] >= 'A' && text[n - 1] <= 'Z') || (text[n - 1] >= 'a' && text[n - 1] <= 'z'))) --n;
  return text.substr(n);
}

// `value` as the print shows it: in its unit, with its decimals.
std::string shown(const PrintedFigure& p, uint64_t value) {
  if (p.unit != LogUnit::kBytes || p.unit_scale <= 1) return fmt::format("{}", value);
  const double in_unit = static_cast<double>(value) / static_cast<double>(p.unit_scale);
  const std::string_view unit = unit_word(p);
  return fmt::format("{:.{}f}{}{}", in_unit, std::max<uint32_t>(p.decimals, 2), unit.empty() ? "" : " ",
                     escape_untrusted(unit));
}

std::string printed_cell(const PrintedFigure& p) {
  if (p.unit == LogUnit::kRatio) return fmt::format("{:.{}f}x", p.ratio, p.decimals);
  return shown(p, p.value);
}

std::string memfit_cell(const FigureCheck& c) {
  if (c.memfit_ratio) return fmt::format("{:.2f}x", *c.memfit_ratio);
  if (c.memfit) return shown(c.printed, *c.memfit);
  return "-";
}

std::string header(const LogCheck& check) {
  const RuntimeLog& log = check.log;
  std::string out = fmt::format("{}{}{}", runtime_title(log.runtime),
                                log.version.empty() ? "" : " ", escape_untrusted(log.version));
  if (!log.backend.empty()) out += fmt::format(" ({})", escape_untrusted(log.backend));
  std::vector<std::string> devices;
  for (const LogDevice& d : log.devices) {
    std::string text = escape_untrusted(d.id);
    if (!d.name.empty()) text += " " + quote_untrusted(d.name);
    if (d.free_bytes) text += fmt::format(" ({:.0f} MiB free)", static_cast<double>(*d.free_bytes) / (1 << 20));
    devices.push_back(std::move(text));
  }
  if (!devices.empty()) out += fmt::format(" on {}", fmt::join(devices, ", "));
  out += "\n";
  std::vector<std::string> settings;
  for (const LogSetting& s : log.settings) {
    settings.push_back(fmt::format("{}={}", s.name, escape_untrusted(s.value)));
  }
  if (!settings.empty()) out += fmt::format("settings: {}\n", fmt::join(settings, " "));
  out += fmt::format("model: {}\n", check.model_source == ModelSource::kNone
                                        ? std::string("none")
                                        : check.model_detail);
  if (!check.profile.empty()) out += fmt::format("priced by memfit's {} profile\n", check.profile);
  if (!check.not_priced.empty()) out += fmt::format("not priced: {}\n", check.not_priced);
  return out;
}

}  // namespace

std::string render_log_check_text(const LogCheck& check) {
  std::string out = header(check);
  out += fmt::format("\n{:<10} {:<19} {:>16} {:>16} {:>8}  {}\n", "device", "figure", "printed",
                     "memfit", "ratio", "basis");
  for (const FigureCheck& c : check.figures) {
    const std::string ratio = c.ratio ? fmt::format("{:.4f}", *c.ratio) : "-";
    std::string basis = c.basis ? std::string(to_string(*c.basis)) : "-";
    if (c.within_print) basis += ", within the print";
    out += fmt::format("{:<10} {:<19} {:>16} {:>16} {:>8}  {}", escape_untrusted(c.printed.device),
                       to_string(c.printed.figure), printed_cell(c.printed), memfit_cell(c), ratio,
                       basis);
    if (!c.note.empty()) out += fmt::format(" ({})", c.note);
    out += "\n";
  }
  if (check.figures.empty()) out += "(the log prints no memory figure memfit reads)\n";
  for (const std::string& note : check.log.notes) out += fmt::format("note: {}\n", note);
  return out;
}

}  // namespace memfit
