// The mlx-lm reader (docs/check-log.md, "mlx-lm"): mlx_lm.generate's
// verbose summary,
//   Prompt: 13 tokens, 84.212 tokens-per-sec
//   Generation: 100 tokens, 50.123 tokens-per-sec
//   Peak memory: 4.563 GB
// "GB" is 10^9 bytes since mlx-lm moved the summary to GenerationResponse
// (peak_memory = mx.get_peak_memory() / 1e9); before, utils.generate
// printed mx.metal.get_peak_memory() / 2**30 under the same word. The
// summary does not say which; a log naming no version is read as 10^9,
// with a note. mlx_lm.benchmark prints "peak_memory=4.563" (GB, 10^9).
// mlx-lm's own mlx_lm/BENCHMARKS.md (mlx-lm #552) tabulates that figure per
// model and precision under its command (mlx_lm.benchmark --model
// model/repo -p 2048 -g 128), its versions as bullets:
//   Precision | ... | Generation (128) tok/sec | Memory GB | Repo
//   --------- | ... | ----
//   q4 | 70.71 | 1753.90 | 113.33 |18.20 | mlx-community/Qwen3-30B-A3B-Instruct-2507-4bit
//   - mlx-lm 0.28.2
// "Memory GB" is the peak (10^9 bytes), the Repo column the model.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "logs/log_reader.h"

namespace memfit::logs {
namespace {

std::span<const UnitMeaning> mlxlm_units() {
  static constexpr UnitMeaning kUnits[] = {{"GB", 1'000'000'000ull}};
  return kUnits;
}

// The mlx_lm entry a command line runs ("mlx_lm.generate", "mlx_lm
// generate"): "generate", "benchmark", "server" or "chat", and the line's
// text after it (the entry's own arguments); an empty entry and the whole
// line when the line names none.
struct Entry {
  std::string_view name;
  std::string_view arguments;
};
Entry entry_of(std::string_view text) {
  for (std::string_view entry : {"generate", "benchmark", "server", "chat"}) {
    for (const std::string& spelled : {fmt::format("mlx_lm.{}", entry), fmt::format("mlx_lm {}", entry)}) {
      if (const size_t at = text.find(spelled); at != std::string_view::npos) {
        return {entry, text.substr(at + spelled.size())};
      }
    }
  }
  return {{}, text};
}

// The flags of an mlx_lm command line the log shows. A short flag is its
// entry's own: mlx_lm.benchmark's -p, -g and -b are --prompt-tokens,
// --generation-tokens and --batch-size (mlx_lm/benchmark.py), while
// mlx_lm.generate's -p is --prompt, the prompt's text (mlx-examples #1094,
// 2024-11-07), and its -m is --max-tokens (mlx_lm/generate.py since the
// package's first release); a generate line's -p is no token count. The
// flags are read after the entry ("python -m mlx_lm generate" holds a -m
// that is Python's).
void read_command(std::string_view text, LogBuilder& out) {
  const auto [entry, arguments] = entry_of(text);
  text = arguments;
  std::vector<std::pair<std::string_view, std::string_view>> flags = {
      {"--model ", "model"},
      {"--max-tokens ", "max_tokens"},
      {"--kv-bits ", "kv_bits"},
      {"--max-kv-size ", "max_kv_size"},
      {"--prefill-step-size ", "prefill_step_size"},
      {"--prompt-tokens ", "prompt_tokens"},
      {"--generation-tokens ", "generation_tokens"},
      {"--batch-size ", "batch"}};
  if (entry == "benchmark") {
    flags.insert(flags.end(), {{" -p ", "prompt_tokens"}, {" -g ", "generation_tokens"}, {" -b ", "batch"}});
  } else if (entry == "generate") {
    flags.push_back({" -m ", "max_tokens"});
  }
  for (auto [flag, name] : flags) {
    // A value ends at a space, or at a backquote of a command quoted in
    // Markdown ("`mlx_lm.benchmark ... -g 128`").
    if (std::optional<std::string_view> value = after(text, flag)) {
      out.setting(name, value->substr(0, value->find_first_of(" `")));
    }
  }
}

// The mlx_lm command the log shows ("mlx_lm.generate", "mlx_lm generate"),
// as the setting "entry": a command is a fresh process, so its peak is the
// one run's (the pricer notes a log without one).
void read_entry(std::string_view text, LogBuilder& out) {
  if (const std::string_view entry = entry_of(text).name; !entry.empty()) {
    out.setting("entry", fmt::format("mlx_lm.{}", entry));
  }
}

// A Markdown table row's cells ("a | b |c" -> "a", "b", "c"), trimmed.
std::vector<std::string_view> table_cells(std::string_view text) {
  std::vector<std::string_view> cells;
  while (true) {
    const size_t bar = text.find('|');
    cells.push_back(trim(text.substr(0, bar)));
    if (bar == std::string_view::npos) return cells;
    text.remove_prefix(bar + 1);
  }
}

// The BENCHMARKS.md table being read: its "Memory GB" and "Repo" columns,
// set by the header row and cleared at a blank line.
struct BenchmarkTable {
  std::optional<size_t> memory, repo;
};

// A "Memory GB" in 10^9 bytes, as mlx_lm.benchmark's peak_memory.
std::optional<PrintedQuantity> decimal_gb(std::string_view text) {
  std::optional<std::pair<PrintedDecimal, std::string_view>> number = leading_decimal(text);
  if (!number) return std::nullopt;
  Result<ScaledValue> scaled = scale_printed(number->first, 1'000'000'000ull);
  if (!scaled) return std::nullopt;
  return PrintedQuantity{number->first, 1'000'000'000ull, *scaled,
                         text.substr(0, text.size() - number->second.size())};
}

// One line of a BENCHMARKS.md table: the header names the columns, a row
// its precision's peak (the first row read) and model. False when the line
// is no table line.
bool read_table_line(const LogLine& line, BenchmarkTable& table, bool& peak_seen, LogBuilder& out) {
  const std::string_view text = trim(line.text);
  if (text.empty()) {
    table = {};
    return false;
  }
  if (!contains(text, "|")) return false;
  const std::vector<std::string_view> cells = table_cells(text);
  if (contains(text, "Memory GB")) {
    table = {};
    for (size_t i = 0; i < cells.size(); ++i) {
      if (cells[i] == "Memory GB") table.memory = i;
      if (cells[i] == "Repo") table.repo = i;
    }
    return true;
  }
  if (!table.memory || *table.memory >= cells.size() || text.front() == '-') return table.memory.has_value();
  const std::optional<PrintedQuantity> q = decimal_gb(cells[*table.memory]);
  if (!q) return true;  // ":skull:": the precision did not run
  if (peak_seen) {
    out.note("the log holds more than one run: the first is read");
    return true;
  }
  out.bytes("total", LogFigure::kPeak, *q, line.number, Merge::kFirst);
  if (table.repo && *table.repo < cells.size() && !cells[*table.repo].empty()) {
    out.setting("model", cells[*table.repo], /*replace=*/true);
  }
  peak_seen = true;
  return true;
}

void read_line(const LogLine& line, bool& peak_seen, LogBuilder& out) {
  const std::string_view text = line.text;
  if (contains(text, "mlx_lm")) {
    read_command(text, out);
    read_entry(text, out);
  }
  // mlx_lm.benchmark: "Timing with prompt_tokens=2048 and generation_tokens=128."
  if (auto prompt = after(text, "Timing with prompt_tokens=")) {
    if (auto n = leading_count(*prompt)) out.setting("prompt_tokens", std::to_string(*n));
  }
  if (auto generation = after(text, " generation_tokens=")) {
    if (auto n = leading_count(*generation)) out.setting("generation_tokens", std::to_string(*n));
  }
  if (auto prompt = after(text, "Prompt: ")) {
    if (auto n = leading_count(*prompt)) out.setting("prompt_tokens", std::to_string(*n));
  }
  if (auto generation = after(text, "Generation: ")) {
    if (auto n = leading_count(*generation)) out.setting("generation_tokens", std::to_string(*n));
  }
  std::optional<std::string_view> peak = after(text, "Peak memory: ");
  std::optional<PrintedQuantity> q;
  if (peak) q = leading_quantity(*peak, mlxlm_units());
  if (!peak && (peak = after(text, "peak_memory="))) {
    if (auto number = leading_decimal(*peak)) {
      Result<ScaledValue> scaled = scale_printed(number->first, 1'000'000'000ull);
      const std::string_view digits = peak->substr(0, peak->size() - number->second.size());
      if (scaled) q = PrintedQuantity{number->first, 1'000'000'000ull, *scaled, digits};
    }
  }
  if (!q) return;
  if (peak_seen) out.note("the log holds more than one run: the first is read");
  if (!peak_seen) out.bytes("total", LogFigure::kPeak, *q, line.number, Merge::kFirst);
  peak_seen = true;
}

class MlxLmReader final : public LogReader {
 public:
  std::string_view runtime() const override { return "mlx-lm"; }
  // mlx-lm's own summaries, or a peak beside the mlx_lm command that ran
  // (a run's summary quoted in prose, "- Peak memory: 3.30 GB", under the
  // command: the command names the runtime the peak is mlx-lm's).
  bool recognises(std::span<const LogLine> lines) const override {
    const bool command = any_line_contains(lines, "mlx_lm.generate") ||
                         any_line_contains(lines, "mlx_lm.benchmark") ||
                         any_line_contains(lines, "mlx_lm generate") || any_line_contains(lines, "mlx_lm benchmark");
    return (any_line_contains(lines, "Peak memory: ") &&
            (any_line_contains(lines, "tokens-per-sec") || command)) ||
           (any_line_contains(lines, "peak_memory=") && (any_line_contains(lines, "generation_tps") || command)) ||
           (any_line_contains(lines, "| Memory GB |") && command);
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    bool peak_seen = false;
    BenchmarkTable table;
    for (const LogLine& line : lines) {
      if (auto version = after(line.text, "mlx-lm==")) out.set_version(version->substr(0, version->find(' ')));
      if (auto version = after(line.text, "mlx_lm==")) out.set_version(version->substr(0, version->find(' ')));
      // BENCHMARKS.md's bullet "- mlx-lm 0.28.2" (a number: not prose).
      if (const std::string_view bullet = trim(line.text); bullet.starts_with("- mlx-lm ")) {
        const std::string_view version = trim(bullet.substr(9));
        if (!version.empty() && version.front() >= '0' && version.front() <= '9') out.set_version(version);
      }
      if (read_table_line(line, table, peak_seen, out)) continue;
      read_line(line, peak_seen, out);
    }
    out.set_backend("Metal");
    if (const LogSetting* model = out.find_setting("model")) out.model().name = model->value;
    if (out.peek().version.empty()) {
      out.note("mlx-lm's version is not in the log: \"GB\" read as 10^9 bytes (mlx-lm since "
               "GenerationResponse; older releases printed 2^30 under the same word)");
    }
  }
};

}  // namespace

const LogReader& mlxlm_log_reader() {
  static const MlxLmReader reader;
  return reader;
}

}  // namespace memfit::logs
