// /v1/fit and /v1/admit bodies, read with the library's request field
// table (src/request/request_fields.h) so their names, aliases and
// messages are /v1/estimate's.
#include "service/request_parser.h"

#include <algorithm>

#include <fmt/format.h>

#include "memfit/untrusted_text.h"
#include "request/request_fields.h"

namespace memfit::service {
namespace {

using request::expected;
using request::Fields;
using request::Json;

constexpr size_t kMaxRequestIdBytes = 128;

bool is_request_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._:/+=-").find(c) != std::string_view::npos;
}

bool fit_reads(const RequestField& f) {
  if (f.name == "max_tokens" || f.name == "kv_cache_mode") return false;
  const EngineProfile* owner = f.engine.empty() ? nullptr : EngineRegistry::instance().find(f.engine);
  return owner == nullptr || owner->supports(EngineCommand::kFit);
}

// recommend-quant varies the weights only: every field of the engines
// that answer it.
bool recommend_reads(const RequestField& f) {
  const EngineProfile* owner = f.engine.empty() ? nullptr : EngineRegistry::instance().find(f.engine);
  return owner == nullptr || owner->supports(EngineCommand::kRecommendQuant);
}

// "command": fit (the default) or recommend-quant.
Result<EngineCommand> read_command(Fields& fields) {
  Result<std::optional<std::string>> command = fields.string("command");
  if (!command.ok()) return command.error();
  if (!*command || **command == "fit") return EngineCommand::kFit;
  if (**command == "recommend-quant") return EngineCommand::kRecommendQuant;
  return Error::usage("command", fmt::format("expected fit or recommend-quant, got {}",
                                             quote_untrusted(**command)));
}

// recommend-quant's options, as the CLI's --bits and --group-size give them.
Status read_recommend_options(Fields& fields, nlohmann::json& options) {
  Result<std::optional<std::vector<uint64_t>>> bits = fields.counts("bits", 1, 16, 64);
  if (!bits.ok()) return bits.error();
  if (*bits) options["bits"] = **bits;
  Result<std::optional<uint64_t>> group = fields.count("group_size", 1);
  if (!group.ok()) return group.error();
  if (*group) options["group_size"] = **group;
  return Status::Ok();
}

// The KV fields, and the budget fields an estimate reads (the hardware
// table's gpu / mac rows belong here when they land).
bool admit_reads(const RequestField& f) {
  return f.name == "kv_cache_mode" || f.name == "cache_type_k" || f.name == "cache_type_v" ||
         f.name == "memory_limit" || f.name == "device";
}

}  // namespace

Result<FitRequest> parse_fit_request(std::string_view body) {
  Result<Json> json = request::parse_object(body);
  if (!json.ok()) return json.error();
  Fields fields(*json);
  FitRequest request;
  Result<EngineCommand> command = read_command(fields);
  if (!command.ok()) return command.error();
  request.command = *command;
  if (request.command == EngineCommand::kRecommendQuant) {
    if (Status read = request::read_table_fields(fields, request.request, recommend_reads);
        !read.ok()) {
      return read.error();
    }
    if (Status read = read_recommend_options(fields, request.options); !read.ok()) return read.error();
    if (Status rest = fields.no_others(); !rest.ok()) return rest.error();
    return request;
  }

  // Every request field but the two the fit varies, and none of the
  // engines whose fit hook does not answer (supports(EngineCommand::kFit)).
  if (Status read = request::read_table_fields(fields, request.request, fit_reads); !read.ok()) {
    return read.error();
  }
  // The fit's own options, checked here and read by the engine's hook.
  Result<std::optional<std::string>> solve = fields.string("solve");
  if (!solve.ok()) return solve.error();
  if (*solve) request.options["solve"] = **solve;
  Result<std::optional<std::vector<uint64_t>>> curve =
      fields.counts("curve_tokens", 1, kMaxSolvedTokens, kMaxCurvePoints);
  if (!curve.ok()) return curve.error();
  if (*curve) request.options["curve_tokens"] = **curve;

  if (Status rest = fields.no_others(); !rest.ok()) return rest.error();
  return request;
}

Result<AdmitRequest> parse_admit_request(std::string_view body) {
  Result<Json> json = request::parse_object(body);
  if (!json.ok()) return json.error();
  Fields fields(*json);
  AdmitRequest request;

  Result<std::optional<std::string>> model = fields.string("model");
  if (!model.ok()) return model.error();
  if (!*model) return Error::usage("model", "required");
  request.model = std::move(**model);

  Result<std::optional<uint64_t>> prompt = fields.count("prompt_tokens", 0);
  if (!prompt.ok()) return prompt.error();
  if (!*prompt) return Error::usage("prompt_tokens", "required");
  request.prompt_tokens = **prompt;
  Result<std::optional<uint64_t>> cached = fields.count("cached_tokens", 0);
  if (!cached.ok()) return cached.error();
  request.cached_tokens = cached->value_or(0);
  if (request.cached_tokens > request.prompt_tokens) {
    return Error::usage("cached_tokens", fmt::format("{} is more than prompt_tokens {}",
                                                     request.cached_tokens, request.prompt_tokens));
  }
  Result<std::optional<uint64_t>> usage = fields.count("current_usage_bytes", 0);
  if (!usage.ok()) return usage.error();
  request.current_usage_bytes = usage->value_or(0);
  Result<std::optional<uint64_t>> limit = fields.count("hard_limit_bytes", 1);
  if (!limit.ok()) return limit.error();
  request.hard_limit_bytes = *limit;
  Result<std::optional<uint64_t>> chunk = fields.count("prefill_chunk", 0);
  if (!chunk.ok()) return chunk.error();
  request.prefill_chunk = *chunk;

  Result<std::optional<std::string>> id = fields.string("request_id");
  if (!id.ok()) return id.error();
  if (*id) {
    const std::string& text = **id;
    if (text.empty() || text.size() > kMaxRequestIdBytes ||
        !std::all_of(text.begin(), text.end(), is_request_id_char)) {
      return expected("request_id", "1-128 characters of [A-Za-z0-9._:/+=-]", Json(text));
    }
    request.request_id = text;
  }
  EstimateRequest kv;
  kv.engine = "mlxcel";  // admission sizes by the mlxcel KV widths
  if (Status kv_fields = request::read_table_fields(fields, kv, admit_reads); !kv_fields.ok()) {
    return kv_fields.error();
  }
  if (kv.memory_limit_bytes && request.hard_limit_bytes) {
    return Error::usage("memory_limit",
                        "and hard_limit_bytes both set the limit: give one of them");
  }
  request.memory_limit_bytes = kv.memory_limit_bytes;
  request.device = kv.device;
  std::vector<Warning> warnings;  // K and V disagreeing: admission sizes at fp16
  Result<KvElement> element = request::resolve_kv_element(kv, warnings);
  if (!element.ok()) return element.error();
  request.kv_element = *element;

  if (Status rest = fields.no_others(); !rest.ok()) return rest.error();
  return request;
}

}  // namespace memfit::service
