// An mlx-lm log priced by the mlx-lm profile (docs/engine-mlxlm.md): the
// prompt and generation the summary printed, and the flags of the command
// line when the log shows it; the peak beside memfit's.
#include <fmt/format.h>

#include "logs/log_pricer.h"
#include "memfit/mlxlm.h"
#include "memfit/untrusted_text.h"

namespace memfit::logs {
namespace {

// The release the log printed ("mlx-lm==0.28.3"), its rules priced; none
// (the profile's default, the current release) when the log names none or
// one memfit does not price (a note says so).
std::optional<MlxRelease> release_of(const RuntimeLog& log, std::vector<std::string>& notes) {
  if (log.version.empty()) {
    notes.push_back(fmt::format("mlx-lm's version is not in the log: the current release's rules "
                                "({}) price it", to_string(kMlxLmNewestRead)));
    return std::nullopt;
  }
  const std::string_view text = log.version;
  const size_t end = text.find_first_not_of("0123456789.");
  Result<MlxRelease> release = parse_mlx_lm_version(text.substr(0, end));
  if (release) return *release;
  notes.push_back(fmt::format("mlx-lm version {}: {}; the current release's rules price it",
                              escape_untrusted(log.version), release.error().message()));
  return std::nullopt;
}

class MlxLmPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "mlx-lm"; }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions&,
                                  std::vector<std::string>& notes) const override {
    EstimateRequest r;
    r.engine = "mlx-lm";
    r.mlxlm.mlx_lm_version = release_of(log, notes);
    r.mlxlm.prompt_tokens = count_setting(log, "prompt_tokens");
    if (!r.mlxlm.prompt_tokens) {
      return Error::usage("prompt_tokens", "the log prints no \"Prompt: N tokens\" line");
    }
    r.max_tokens = count_setting(log, "generation_tokens");
    if (!r.max_tokens) r.max_tokens = count_setting(log, "max_tokens");
    r.mlxlm.kv_bits = count_setting(log, "kv_bits");
    r.mlxlm.max_kv_size = count_setting(log, "max_kv_size");
    r.mlxlm.prefill_step_size = count_setting(log, "prefill_step_size");
    if (std::optional<uint64_t> batch = count_setting(log, "batch")) r.batch = *batch;
    return r;
  }

  void compare(const RuntimeLog&, const LogCheckOptions&, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override {
    for (FigureCheck& c : figures) {
      if (c.printed.figure != LogFigure::kPeak) continue;
      c.memfit = run.mlxlm->peak_bytes;
      c.basis = FigureBasis::kModelled;
    }
  }
};

}  // namespace

const LogPricer& mlxlm_log_pricer() {
  static const MlxLmPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
