// llama.cpp's memory breakdown (docs/llamacpp-rules.md, "Log lines"), one
// row per device in whole MiB, printed at exit by the tools at trace
// verbosity and by --fit for each trial:
//   common_memory_breakdown_print: |   - CUDA0 (RTX 4090)   | 24080 = 23605 + (22307 = 19054 + 2622 + 630) + -21832 |
//   common_memory_breakdown_print: |   - Host               |   3379 =  3115 +    0 +  264 |
//   llama_print_memory_breakdown:   - CUDA0 (RTX 4090):  24080 = 9436 + (14193 = 13169 + 38 + 985) + 451
//   llama_print_memory_breakdown:   - CPU (EPYC 7742):  515628   72 =     0 +      57 +      15
// A GPU's row is total = free + (self = model + context + compute) +
// unaccounted; a host row is [total] self = model + context + compute.
// context is the KV cache and recurrent state, without the output buffer.
#include <fmt/format.h>

#include <vector>

#include "logs/llamacpp_lines.h"

namespace memfit::logs {
namespace {

// The row's integers, signed ones (a negative "unaccounted") as 0.
std::vector<PrintedDecimal> row_numbers(std::string_view row) {
  std::vector<PrintedDecimal> numbers;
  while (!row.empty() && numbers.size() < 16) {
    const char c = row.front();
    if (c >= '0' && c <= '9') {
      auto number = leading_decimal(row);
      if (!number) break;
      numbers.push_back(number->first);
      row = number->second;
    } else {
      row.remove_prefix(1);
    }
  }
  return numbers;
}

}  // namespace

bool read_breakdown_line(const LogLine& line, LogBuilder& out) {
  if (!contains(line.text, "memory_breakdown") && !contains(line.text, "memory breakdown")) return false;
  std::optional<std::string_view> row = after(line.text, "- ");
  if (!row) return true;  // the header
  const size_t name_end = row->find_first_of(" (:|");
  const std::string id = device_of_buffer(row->substr(0, name_end) == "Host" ? "CPU" : row->substr(0, name_end));
  std::string_view rest = row->substr(name_end == std::string_view::npos ? row->size() : name_end);
  if (rest.starts_with(" (")) {
    const size_t close = rest.find(')');
    if (close == std::string_view::npos) return true;
    if (LogDevice* d = out.device(id); d != nullptr && d->name.empty()) {
      d->name = std::string(rest.substr(2, close - 2));
    }
    rest = rest.substr(close + 1);
  }
  const std::vector<PrintedDecimal> n = row_numbers(rest);
  // self, model, context, compute: the four after total and free on a GPU
  // row, after total on a host row that prints it.
  const size_t first = n.size() >= 7 ? 2 : n.size() == 5 ? 1 : n.size() == 4 ? 0 : n.size();
  if (first + 4 > n.size()) return true;
  const LogFigure figures[] = {LogFigure::kModel, LogFigure::kContext, LogFigure::kCompute};
  for (size_t i = 0; i < 3; ++i) {
    Result<ScaledValue> scaled = scale_printed(n[first + 1 + i], kMiB);
    if (!scaled || out.has(id, figures[i])) continue;
    const std::string text = fmt::format("{} MiB", n[first + 1 + i].digits);
    out.bytes(id, figures[i], PrintedQuantity{n[first + 1 + i], kMiB, *scaled, text}, line.number,
              Merge::kFirst);
  }
  if (n.size() >= 7) {
    Result<ScaledValue> free = scale_printed(n[1], kMiB);
    if (LogDevice* d = out.device(id); free && d != nullptr && !d->free_bytes) d->free_bytes = free->value;
  }
  return true;
}

}  // namespace memfit::logs
