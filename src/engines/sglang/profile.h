// The sglang profile (engine.h): one rank of `python -m
// sglang.launch_server` (docs/engine-sglang.md). Private to the library.
#ifndef MEMFIT_ENGINES_SGLANG_PROFILE_H_
#define MEMFIT_ENGINES_SGLANG_PROFILE_H_

#include "engines/sglang/plan.h"
#include "memfit/engine.h"
#include "memfit/request.h"

namespace memfit::sglang {

// The settings prepare() resolved (PreparedRequest::engine_settings), and
// the plan estimate() made (EstimateRun::engine_estimate).
const Settings& prepared_settings(const PreparedRequest& prepared);
const Plan& run_plan(const EstimateRun& run);

class SglangProfile final : public EngineProfile {
 public:
  std::string_view name() const override { return "sglang"; }
  std::string_view title() const override { return "SGLang"; }
  std::string_view summary() const override {
    return "one rank of python -m sglang.launch_server: its weights, mem-fraction-static and KV "
           "token pool";
  }
  std::string_view release() const override { return "SGLang v0.5.20 (docs/engine-sglang.md)"; }
  EngineVersions versions() const override;
  std::span<const RequestField> fields() const override;
  bool needs_tensors(const EstimateRequest&) const override { return true; }
  bool supports(EngineCommand command) const override { return command == EngineCommand::kFit; }
  std::vector<std::string_view> solve_names() const override {
    return {"context-length", "max-running-requests", "mem-fraction-static"};
  }
  std::string_view solve_help() const override {
    return "context-length, max-running-requests or mem-fraction-static";
  }

  Status resolve(const EstimateRequest& request, PreparedRequest& prepared) const override;
  Status resolve_host(const EstimateRequest& request, RequestContext& context,
                      PreparedRequest& prepared) const override;
  Status estimate(const EstimateRequest& request, EstimateRun& run) const override;
  bool fits(const EstimateRun& run) const override;
  nlohmann::ordered_json report_json(const EstimateRun& run) const override;
  std::string report_text(const EstimateRun& run) const override;
  // fit.cc
  Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const override;
};

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_PROFILE_H_
