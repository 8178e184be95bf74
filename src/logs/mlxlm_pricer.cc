// An mlx-lm log priced by the mlx-lm profile (docs/engine-mlxlm.md): the
// prompt and generation the summary printed, and the flags of the command
// line when the log shows it; the peak beside memfit's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/mlxlm/convert_config.h"
#include "engines/mlxlm/device_name.h"
#include "engines/mlxlm/release_defaults.h"
#include "engines/shared/weight_mode.h"
#include "logs/log_pricer.h"
#include "memfit/mlxlm.h"
#include "memfit/untrusted_text.h"
#include "model/config/config_document.h"

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

// The release the log (or the version given beside it) names, quietly:
// request() says what it assumed.
std::optional<MlxRelease> named_release(const RuntimeLog& log) {
  const std::string_view text = log.version;
  Result<MlxRelease> release = parse_mlx_lm_version(text.substr(0, text.find_first_not_of("0123456789.")));
  return release ? std::optional<MlxRelease>(*release) : std::nullopt;
}

// A peak printed in "GB" by a release that divided by 2**30
// (mlxlm_printed_gb_bytes): the same digits re-read at 2^30 bytes. False
// when the print is not such a figure (the reader's 10^9 is kept).
bool reread_as_gib(PrintedFigure& p, uint64_t gb_bytes) {
  if (gb_bytes == p.unit_scale || p.unit_scale != 1'000'000'000ull) return false;
  const std::string_view text = p.text;
  Result<PrintedDecimal> number = parse_printed_decimal(text.substr(0, text.find(' ')));
  if (!number) return false;
  Result<ScaledValue> bytes = scale_printed(*number, gb_bytes);
  if (!bytes) return false;
  p.value = bytes->value;
  p.band = bytes->band;
  p.unit_scale = gb_bytes;
  return true;
}

// What a release published before MLX v0.24.0 ran on that memfit does not
// price (release_defaults.h); "" for a later release or none.
std::string older_mlx_text(const std::optional<MlxRelease>& release) {
  if (!release || *release >= kMlxLmAfterMlxBufferCap) return "";
  return fmt::format("mlx-lm {} predates MLX v0.24.0: the MLX of its time had no cap on the "
                     "command buffers in flight, which memfit does not price (its peak can be "
                     "higher)",
                     to_string(*release));
}

// A log that shows no mlx_lm command (nor was one given): the run may be a
// Python session's (generate(..., verbose=True)), and mlx-lm's peak is the
// process's high-water mark: GenerationResponse's peak_memory is
// mx.get_peak_memory() / 1e9 and mlx-lm never calls mx.reset_peak_memory
// (mlx_lm/generate.py), so what the session held before, another model
// loaded in the same notebook kernel, counts. memfit prices a fresh process,
// as an mlx_lm command is.
constexpr std::string_view kNoCommandText =
    "no mlx_lm command is in the log or given: a Python session's peak counts what the session "
    "held before the run (mlx-lm never resets mx.get_peak_memory()); memfit prices a fresh "
    "process";

// The suffix of a conversion under an MLX before v0.11.0, which quantized
// Linear layers only ("4bit-g64-linear-only"; convert_config.h).
constexpr std::string_view kLinearOnlySuffix = "-linear-only";

// The conversion LogCheckOptions::file_type names for an mlx-lm log ("4bit",
// "4bit-g64": an MLX weight mode, parse_mlx_weight_mode, with
// kLinearOnlySuffix when the embedding stayed unquantized); nullopt for ""
// and fp16 (the checkpoint as its config is). kUsage on file_type for a
// text that is no uniform MLX mode (a mixed recipe writes per-layer bits
// memfit does not build into a config).
Result<std::optional<MlxConversion>> conversion_of(const LogCheckOptions& options) {
  if (options.file_type.empty()) return std::optional<MlxConversion>();
  std::string_view text = options.file_type;
  const bool linear_only = text.ends_with(kLinearOnlySuffix);
  if (linear_only) text.remove_suffix(kLinearOnlySuffix.size());
  const std::optional<MlxWeightMode> mode = parse_mlx_weight_mode(text);
  if (!mode || mode->recipe != nullptr || (linear_only && mode->bits >= 16)) {
    return Error::usage("file_type",
                        fmt::format("{} is not a uniform MLX quantization an mlx-lm checkpoint "
                                    "is converted with (4bit, 4bit-g64, 8bit-g32, "
                                    "4bit-g64{}, ...)",
                                    quote_untrusted(options.file_type), kLinearOnlySuffix));
  }
  if (mode->bits >= 16) return std::optional<MlxConversion>();
  return std::optional<MlxConversion>(
      MlxConversion{.bits = mode->bits, .group_size = mode->group_size,
                    .quantize_embeddings = !linear_only});
}

// The row's words for the conversion: "4 bits, group 64 (its defaults)".
std::string conversion_text(const MlxConversion& c) {
  const MlxConversion defaults;
  const bool are_defaults = c.bits == defaults.bits && c.group_size == defaults.group_size;
  return fmt::format("{} bits, group {}{}{}", c.bits, c.group_size,
                     are_defaults ? " (its defaults)" : "",
                     c.quantize_embeddings ? ""
                                           : ", Linear layers only (an MLX before v0.11.0: "
                                             "the embedding unquantized)");
}

// The device given beside the log (options.gpu_name: a sidecar's device,
// check-log's --gpu-name) as the request's backend or Metal chip class
// (device_name.h): an NVIDIA GPU runs MLX's CUDA backend, whose graphs
// count every input and commit at that GPU's limits (the H100's, 100 ops
// and 1000 x 2^20 elements, mlx/backend/cuda/device.cpp); an Apple chip's
// class sets Metal's command-buffer limits (40 / 40 on base and Pro, 50 /
// 50 on Max and Ultra, mlx/backend/metal/device.cpp). The note says which.
void apply_device(const LogCheckOptions& options, EstimateRequest& r,
                  std::vector<std::string>& notes) {
  if (options.gpu_name.empty()) return;
  const MlxDevice device = mlx_device_of(options.gpu_name);
  const std::string name = quote_untrusted(options.gpu_name);
  if (device.kind == MlxDevice::Kind::kCuda) {
    r.backend = Backend::kCuda;
    notes.push_back(fmt::format("the device given, {}, is an NVIDIA GPU: MLX's CUDA backend, "
                                "its graphs at the H100's limits (100 ops, 1000 x 2^20 elements)",
                                name));
  } else if (device.chip) {
    r.mlxlm.mlx_chip = device.chip;
    const MlxBufferLimits limits = mlx_metal_limits(*device.chip);
    notes.push_back(fmt::format("the device given, {}, is an Apple {} chip: Metal's limits for "
                                "its class ({} ops, {} x 2^20 elements a command buffer)",
                                name, to_string(*device.chip), limits.max_ops,
                                limits.max_mega_elements));
  }
}

class MlxLmPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "mlx-lm"; }

  // A base model's config with a conversion (file_type) is the checkpoint
  // mlx_lm.convert -q writes from it (engines/mlxlm/convert_config.h).
  Result<std::string> run_config(const RuntimeLog&, const LogCheckOptions& options,
                                 std::vector<std::string>& notes) const override {
    Result<std::optional<MlxConversion>> conversion = conversion_of(options);
    if (!conversion) return conversion.error();
    if (!*conversion) return options.config_json;
    Result<ConfigDocument> base = ConfigDocument::parse(options.config_json);
    if (!base) return base.error();
    Result<nlohmann::json> converted = mlx_converted_config(base->top(), **conversion);
    if (!converted) return converted.error();
    notes.push_back(fmt::format("the model is the config given beside the log as mlx_lm.convert "
                                "-q writes it: {}",
                                conversion_text(**conversion)));
    return converted->dump();
  }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
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
    apply_device(options, r, notes);
    return r;
  }

  // MLX's CUDA backend when the device given is an NVIDIA GPU; the
  // reader's Metal otherwise.
  std::string priced_backend(const RuntimeLog&, const LogCheckOptions& options) const override {
    if (options.gpu_name.empty()) return "";
    return mlx_device_of(options.gpu_name).kind == MlxDevice::Kind::kCuda ? "MLX-CUDA" : "";
  }

  void settle_printed(RuntimeLog& log) const override {
    const uint64_t gb_bytes = mlxlm_printed_gb_bytes(named_release(log));
    for (PrintedFigure& p : log.figures) {
      if (p.figure == LogFigure::kPeak) reread_as_gib(p, gb_bytes);
    }
  }
  void compare(const RuntimeLog& log, const LogCheckOptions& options, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override {
    const std::optional<MlxRelease> release = named_release(log);
    const uint64_t gb_bytes = mlxlm_printed_gb_bytes(release);
    Result<std::optional<MlxConversion>> conversion = conversion_of(options);
    const bool converted = options.model.empty() && !options.config_json.empty() && conversion &&
                           conversion->has_value();
    for (FigureCheck& c : figures) {
      if (c.printed.figure != LogFigure::kPeak) continue;
      c.memfit = run.mlxlm->peak_bytes;
      c.basis = FigureBasis::kModelled;
      std::vector<std::string> said;
      // settle_printed read the peak in the release's GB.
      if (gb_bytes != 1'000'000'000ull && c.printed.unit_scale == gb_bytes) {
        said.push_back(fmt::format("\"GB\" read as 2^30 bytes: mlx-lm before {} printed "
                                   "get_peak_memory() / 2**30",
                                   to_string(kMlxLmDecimalGb)));
      }
      // A cause of a difference from the print, beside what only says how
      // the print was read or where the model came from.
      bool cause_said = false;
      if (const std::string era = older_mlx_text(release); !era.empty()) {
        said.push_back(era);
        cause_said = true;
      }
      if (log.setting("entry") == nullptr) {
        said.emplace_back(kNoCommandText);
        cause_said = true;
      }
      if (converted) {
        said.push_back(fmt::format("the model: the base config converted by mlx_lm.convert -q, {}",
                                   conversion_text(**conversion)));
      }
      c.note = fmt::format("{}", fmt::join(said, "; "));
      c.note_is_provenance = !cause_said;
    }
  }
};

}  // namespace

const LogPricer& mlxlm_log_pricer() {
  static const MlxLmPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
