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
#include <fmt/format.h>

#include "logs/log_reader.h"

namespace memfit::logs {
namespace {

std::span<const UnitMeaning> mlxlm_units() {
  static constexpr UnitMeaning kUnits[] = {{"GB", 1'000'000'000ull}};
  return kUnits;
}

// The flags of an mlx_lm command line the log shows.
void read_command(std::string_view text, LogBuilder& out) {
  for (auto [flag, name] : {std::pair{"--model ", "model"}, {"--max-tokens ", "max_tokens"},
                            {"--kv-bits ", "kv_bits"}, {"--max-kv-size ", "max_kv_size"},
                            {"--prefill-step-size ", "prefill_step_size"},
                            {" -p ", "prompt_tokens"}, {"--prompt-tokens ", "prompt_tokens"},
                            {" -g ", "generation_tokens"}, {"--generation-tokens ", "generation_tokens"},
                            {" -b ", "batch"}, {"--batch-size ", "batch"}}) {
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
  for (std::string_view entry : {"generate", "benchmark", "server", "chat"}) {
    if (contains(text, fmt::format("mlx_lm.{}", entry)) || contains(text, fmt::format("mlx_lm {}", entry))) {
      out.setting("entry", fmt::format("mlx_lm.{}", entry));
    }
  }
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
           (any_line_contains(lines, "peak_memory=") && (any_line_contains(lines, "generation_tps") || command));
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    bool peak_seen = false;
    for (const LogLine& line : lines) {
      if (auto version = after(line.text, "mlx-lm==")) out.set_version(version->substr(0, version->find(' ')));
      if (auto version = after(line.text, "mlx_lm==")) out.set_version(version->substr(0, version->find(' ')));
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
