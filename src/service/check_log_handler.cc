// POST /v1/check-log: a runtime's log priced as `memfit check-log` prices
// it (log_check.h), the body parse_log_check_request_json's. A model the
// body names is resolved through the roots, as /v1/estimate's; without
// one the log's own metadata (or the body's config) is the model.
#include <optional>

#include "memfit/log_check.h"
#include "service/service_context.h"
#include "service/service_state.h"

namespace memfit::service {

HttpResponse handle_check_log(ServiceState& state, std::string_view body) {
  Result<LogCheckRequest> request = parse_log_check_request_json(body);
  if (!request.ok()) return error_response(api_error_of(request.error()));
  std::optional<ServiceContext> context;
  if (!request->options.model.empty()) {
    ApiResult<ResolvedModel> resolved = resolve_request_model(state, request->options.model);
    if (!resolved.ok()) return error_response(resolved.error());
    context.emplace(state, *resolved);
  }
  Result<LogCheck> check =
      check_log(request->log, request->options, context ? &*context : nullptr);
  if (!check.ok()) return error_response(api_error_of(check.error()));
  return json_response(200, log_check_to_json(*check));
}

}  // namespace memfit::service
