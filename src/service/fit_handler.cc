// POST /v1/fit: the engine's fit hook (engine.h) for the body's request,
// with the body's solve and curve_tokens as the hook's options, or with
// "command": "recommend-quant" its recommend_quant hook (options bits and
// group_size); the answer is the hook's object with "model" in front. What each engine answers
// (docs/service.md, docs/engines.md "Commands"): mlxcel the largest
// context per KV mode and a context curve (the calculator page's);
// llamacpp and vllm `memfit fit --json`'s object, llamacpp's with a
// --ctx-size curve per cache type.
#include "memfit/request.h"
#include "service/request_parser.h"
#include "service/service_context.h"
#include "service/service_state.h"

namespace memfit::service {
namespace {

// "model" in front of the engine's answer.
Json with_model_first(const std::string& model, Json answer) {
  Json out = {{"model", model}};
  for (auto& [key, value] : answer.items()) out[key] = std::move(value);
  return out;
}

}  // namespace

HttpResponse handle_fit(ServiceState& state, std::string_view body) {
  Result<FitRequest> request = parse_fit_request(body);
  if (!request.ok()) return error_response(api_error_of(request.error()));
  ApiResult<ResolvedModel> resolved = resolve_request_model(state, request->request.model);
  if (!resolved.ok()) return error_response(resolved.error());
  ServiceContext context(state, *resolved);
  // recommend-quant prices each mode from the headers' tensor list.
  const PrepareOptions options{.keep_tensors = request->command == EngineCommand::kRecommendQuant};
  Result<PreparedRequest> p = prepare(request->request, context, options);
  if (!p.ok()) return error_response(api_error_of(p.error()));
  const EngineProfile& engine = *p->engine;
  const CommandQuery query{.front = CommandFront::kService,
                           .request = request->request,
                           .options = std::move(request->options)};
  Result<CommandAnswer> answer = engine.answer(request->command, query, std::move(*p));
  if (!answer.ok()) return error_response(api_error_of(answer.error()));
  return json_response(200, with_model_first(request->request.model, std::move(answer->json)));
}

}  // namespace memfit::service
