// Engine profiles: whose allocation rules price a request, one unit per
// runtime, and the registry that lists them (docs/engines.md).
#ifndef MEMFIT_ENGINE_H_
#define MEMFIT_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/request_field.h"
#include "memfit/result.h"
#include "memfit/visibility.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN
namespace memfit {

struct EstimateRequest;
struct EstimateRun;
struct Model;
struct PreparedRequest;
class RequestContext;

// The commands an engine may answer besides inspect and preflight generate,
// which every engine answers.
enum class EngineCommand { kFit, kPlot, kRecommendQuant, kPreflightServe };
// "fit", "plot", "recommend-quant", "preflight serve"
std::string_view to_string(EngineCommand command);

// The largest context any engine's fit searches: an answer at it is
// reported as capped (a cache that stops growing fits any context), and
// /v1/fit's curve_tokens stop there too.
inline constexpr uint64_t kMaxSolvedTokens = 1ull << 30;
// At most this many contexts in one fit's curve_tokens.
inline constexpr size_t kMaxCurvePoints = 256;

// Who asks an engine for a command: the memfit command or the HTTP
// service. Their answers differ only where docs/engines.md ("Commands")
// says (mlxcel's /v1/fit answers the calculator page's curve).
enum class CommandFront { kCli, kService };

// What a command asks of an engine besides the request it prepared.
struct CommandQuery {
  CommandFront front = CommandFront::kCli;
  // The request as given; prepare() made the PreparedRequest the hook
  // takes from it.
  const EstimateRequest& request;
  // The command's own options, one JSON object, as POST /v1/fit takes
  // them ({"solve": "ctx-size", "curve_tokens": [8192]}); the CLI turns
  // its flags into the same object. Each command's keys: docs/engines.md.
  nlohmann::json options = nlohmann::json::object();
};

// An engine's answer to a command.
struct CommandAnswer {
  // `--json`'s object; the service's body ("model" put in front).
  nlohmann::ordered_json json;
  // What the command prints without --json.
  std::string text;
  // What the command writes to its output file (plot: the SVG); "" none.
  std::string file;
  // Printed on stderr before the answer; json lists them already.
  std::vector<Warning> warnings;
  // Whether the request fits (preflight serve's verdict); true for the
  // commands that give none.
  bool fits = true;
};

// What preflight generate's prompt and new tokens are for an engine
// (EngineProfile::generation_tokens).
struct GenerationTokens {
  uint64_t max_tokens = 0;
  std::optional<uint64_t> prompt_tokens;
};

// The runtime's releases as a request names them (EngineProfile::versions;
// `memfit engines`, GET /v1/engines): the field that takes the release,
// what it prices when not given, and each range of releases whose rules
// differ, with what changes, one line each (docs/engine-<e>.md states
// each with its source).
struct ReleaseDifference {
  std::string_view releases;  // "before 0.27.0"
  std::string_view change;    // "the last chunk's logits over all its tokens"
};
struct EngineVersions {
  std::string_view field;                         // "mlx_lm_version"; "" when none
  std::string_view default_text;                  // what is priced when none is given
  std::span<const ReleaseDifference> differences; // oldest first
};

// What one model's run takes of one device when several models share the
// machine (docs/multi-model.md): the bytes it holds there and the budget
// its own estimate used for that device.
struct DeviceClaim {
  std::string device;         // "cpu" (host RAM or unified memory), "cuda:N", "rocm:N"
  uint64_t bytes = 0;         // what the run holds on the device
  uint64_t budget_bytes = 0;  // the device's budget as the run's estimate took it
  // The share of the device's total memory the runtime reserves for
  // itself, when it sizes its cache from a fraction of the total rather
  // than from what is free (vLLM's --gpu-memory-utilization); nullopt
  // when it does not. Fractions of several models on one device must add
  // to at most 1.
  std::optional<double> reserved_fraction;
  std::string_view fraction_field;  // the request field giving it ("gpu_memory_utilization")
};

// One runtime's rules. An implementation is stateless (its methods are
// const and may run on several threads at once); what a request resolves
// to lives in PreparedRequest and EstimateRun (request.h).
class EngineProfile {
 public:
  virtual ~EngineProfile() = default;

  // The canonical name ("llamacpp"): what reports, JSON and errors print.
  virtual std::string_view name() const = 0;
  // Other spellings a user may write ("llama.cpp"); names and aliases are
  // matched ignoring case.
  virtual std::vector<std::string_view> aliases() const { return {}; }
  // The runtime as prose writes it ("llama.cpp", "vLLM"); the name when not
  // overridden.
  virtual std::string_view title() const { return name(); }
  // What the profile prices, one line (--help, GET /v1/engines).
  virtual std::string_view summary() const = 0;
  // The runtime release whose rules the profile follows.
  virtual std::string_view release() const = 0;
  // The releases a request may name and where their rules differ; none
  // (no field) by default.
  virtual EngineVersions versions() const { return {}; }
  // The request fields this engine owns (request_field.h); given with
  // another engine, each is a usage error naming this engine.
  virtual std::span<const RequestField> fields() const { return {}; }

  // Whether a request naming no engine gets this one for `model`; the
  // registry asks the engines in order and falls back to the first.
  virtual bool is_default_for(const Model&) const { return false; }
  // The models is_default_for takes, in words ("GGUF models"); "" none.
  virtual std::string_view default_for_text() const { return ""; }
  // Whether this engine answers `command`: true exactly for the command
  // hooks below it overrides (tests/engines/engine_commands_test.cc).
  virtual bool supports(EngineCommand) const { return false; }
  // The first of this engine's own fields (fields()) that `request` gives,
  // as the JSON request names it; "" when none.
  virtual std::string_view first_field_given(const EstimateRequest& request) const;
  // fit's --solve values this engine takes, in the order its help names
  // them, and that help ("max-tokens, batch or slots"): the CLI's --solve
  // list and help are built from every engine's. Empty without fit.
  virtual std::vector<std::string_view> solve_names() const { return {}; }
  virtual std::string_view solve_help() const { return ""; }
  // preflight generate's run, `prompt` tokens read then `generated` new
  // ones (their sum fits uint64_t, the caller checks), as this engine's
  // max_tokens and prompt_tokens; nullopt leaves the request as given. By
  // default the context is the sum, unless the request gives ctx_size.
  virtual std::optional<GenerationTokens> generation_tokens(uint64_t prompt, uint64_t generated,
                                                            bool ctx_size_given) const;
  // Whether prepare() opens the model with its tensor list.
  virtual bool needs_tensors(const EstimateRequest&) const { return false; }
  // The model's own context limit under this engine's rule, in tokens of
  // one sequence; 0 when the model declares none (docs/engines.md "The
  // model's own context"). By default vLLM's derived max_model_len, rope
  // scaling considered; llama.cpp's is the GGUF's context_length.
  virtual uint64_t context_limit_tokens(const Model& model) const;

  // Checks the request's fields against this engine and fills its
  // settings in `prepared`, before the host is read. kUsage naming the
  // field at fault.
  virtual Status resolve(const EstimateRequest& request, PreparedRequest& prepared) const = 0;
  // After the host is read (prepared.host, prepared.budget): the settings
  // that depend on the machine, and files the request names besides the
  // model.
  virtual Status resolve_host(const EstimateRequest&, RequestContext&, PreparedRequest&) const {
    return Status::Ok();
  }
  // The estimate into `run`, with its warnings (the available-now one
  // among them). Errors come back as run() returns them: other than usage
  // errors, prefixed with the model's name as the request gives it
  // (estimate_error(), request.h).
  virtual Status estimate(const EstimateRequest& request, EstimateRun& run) const = 0;
  // Whether `run` (this engine's) fits its budget.
  virtual bool fits(const EstimateRun& run) const = 0;
  // `memfit inspect --json`'s object and `memfit inspect`'s table.
  virtual nlohmann::ordered_json report_json(const EstimateRun& run) const = 0;
  virtual std::string report_text(const EstimateRun& run) const = 0;
  // Where `run` (this engine's) lies, per device, for several models
  // priced together (multi_model.h). By default one claim: the report's
  // total_bytes and budget_bytes on the budget's device (run.host.device).
  virtual std::vector<DeviceClaim> device_claims(const EstimateRun& run) const;

  // The commands besides inspect and preflight generate, one hook each:
  // the answer to `query` for `prepared` (what prepare() made of
  // query.request). Not overridden, the registry's refusal
  // (EngineRegistry::unsupported). Errors as run()'s: usage errors name
  // their field (or option), others the model.
  virtual Result<CommandAnswer> fit(const CommandQuery& query, PreparedRequest prepared) const;
  virtual Result<CommandAnswer> plot(const CommandQuery& query, PreparedRequest prepared) const;
  virtual Result<CommandAnswer> recommend_quant(const CommandQuery& query,
                                                PreparedRequest prepared) const;
  virtual Result<CommandAnswer> preflight_serve(const CommandQuery& query,
                                                PreparedRequest prepared) const;
  // The hook of `command`.
  Result<CommandAnswer> answer(EngineCommand command, const CommandQuery& query,
                               PreparedRequest prepared) const;
};

// The engines a request may name. The built-in ones are there from the
// start, in this order: mlxcel, llamacpp, mlx-lm, vllm, sglang, ollama
// (src/engines/builtin_engines.inc). add() and remove() are for embedders
// and tests; call them before, not while, requests run.
class EngineRegistry {
 public:
  static EngineRegistry& instance();

  // kUsage when the name or an alias is already taken.
  Status add(std::unique_ptr<EngineProfile> profile);
  // Removes an engine add() registered (built-in ones stay).
  void remove(std::string_view name);

  std::vector<const EngineProfile*> all() const;
  // By name or alias, ignoring case; null when none matches.
  const EngineProfile* find(std::string_view name) const;
  // The engine a request naming none gets for `model`.
  const EngineProfile& default_for(const Model& model) const;
  // "'<text>': expected mlxcel, llamacpp, mlx-lm, vllm, sglang or ollama"
  // (every registered name, kUsage, no field) when no engine has that name.
  Result<const EngineProfile*> parse(std::string_view text) const;
  // The one refusal of a field that belongs to another engine (kUsage,
  // naming the field): "<field> is a <title> setting: give engine <name>".
  static Error field_of_other_engine(std::string_view field, const EngineProfile& owner);
  // The one refusal of a command an engine does not answer (kUsage, field
  // engine): "<engine> is not priced by <command>; <command> takes <the
  // engines that answer it>".
  Error unsupported(const EngineProfile& engine, EngineCommand command) const;

 private:
  EngineRegistry();
  std::vector<std::unique_ptr<EngineProfile>> engines_;
  size_t built_in_ = 0;
};

}  // namespace memfit
MEMFIT_PUBLIC_END

#endif  // MEMFIT_ENGINE_H_
