// memfit recommend-quant: the same estimate for each candidate weight
// mode (mlxcel: the checkpoint as it is, int8, int4 MLX affine; mlx-lm:
// every MLX width, group and mixed recipe), and the most precise mode that
// fits: the engine's recommend-quant hook (engine_command.h), its options
// {"group_size", "bits"}, each only when given, so that each engine keeps
// its own defaults (docs/engines.md, "Commands"). A folder of GGUF models
// (a quant repo) is priced file by file instead (recommend_gguf_repo.h).
#include <memory>

#include "commands.h"
#include "count_flags.h"
#include "engine_command.h"
#include "estimate_options.h"
#include "recommend_gguf_repo.h"

namespace memfit::cli {
namespace {

struct RecommendOptions {
  EstimateOptions estimate;
  uint64_t group_size = 0;  // 0: not given
  std::vector<uint64_t> bits;  // empty: not given
};

// A GGUF file is not re-quantized here (a folder of them is:
// recommend_gguf_repo.h).
Status not_a_gguf_file(const PreparedRequest& c) {
  if (c.model->weights.source != WeightsSource::kGgufHeader) return Status::Ok();
  return Error::usage(
      "recommend-quant prices MLX quantizations of a safetensors checkpoint (engine mlxcel), "
      "or each GGUF file of a folder of them: for a GGUF model, name its folder or its "
      "Hugging Face repo");
}

void run_recommend(const RecommendOptions& o, int& exit_code) {
  if (run_recommend_gguf_repo(o.estimate, exit_code)) return;
  std::optional<EngineCommandCall> call =
      command_call(EngineCommand::kRecommendQuant, o.estimate, "", exit_code);
  if (!call) return;
  call->options = nlohmann::json::object();
  if (o.group_size > 0) call->options["group_size"] = o.group_size;
  if (!o.bits.empty()) call->options["bits"] = o.bits;
  call->prepare.keep_tensors = true;
  call->check = not_a_gguf_file;
  exit_code = run_engine_command(o.estimate, std::move(*call));
}

}  // namespace

void add_recommend_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RecommendOptions>();
  CLI::App* cmd = add_estimating_command(app, "recommend-quant",
                                         "the most precise weight mode that fits", options->estimate,
                                         {add_request_options, add_llamacpp_options,
                                          add_mlxlm_run_options});
  cmd->add_option("--group-size", options->group_size,
                  "MLX quantization group (mlxcel: default 64; mlx-lm: 32, 64 or 128, default all)")
      ->transform(count_validator(1, false));
  cmd->add_option("--bits", options->bits,
                  "candidate bit widths (mlxcel: default 8 4; mlx-lm: 2 3 4 5 6 8, default all "
                  "and the mixed recipes)")
      ->check(CLI::Range(1, 16));
  cmd->callback([options, &exit_code] { run_recommend(*options, exit_code); });
}

}  // namespace memfit::cli
