// GET /v1/local-models: `memfit ls` for the service (memfit/local_models.h).
// The service reads only its model roots (docs/service.md, "Security"):
// each model GET /v1/models lists, priced through the same request layer
// as POST /v1/estimate and /v1/fit. The machine is the service's host, or
// the query's fields: ?gpu=H100-SXM-80GB, ?mac=..., ?memory_limit=24GiB,
// ?device=cuda:0 (plain values, no percent-escapes).
#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "memfit/local_models.h"
#include "memfit/request_field.h"
#include "memfit/untrusted_text.h"
#include "service/api_error.h"
#include "service/local_models_handler.h"
#include "service/service_context.h"
#include "service/service_state.h"

namespace memfit::service {
namespace {

constexpr std::string_view kMachineFields[] = {"gpu", "mac", "memory_limit", "device"};

// The query's machine fields as a request; another key, or a value its
// field refuses, is a 400.
Result<EstimateRequest> machine_request(std::string_view query) {
  EstimateRequest request;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    const RequestField* field = find_request_field(key);
    if (field == nullptr || std::find(std::begin(kMachineFields), std::end(kMachineFields), key) ==
                                std::end(kMachineFields)) {
      return Error::usage(fmt::format("{}: not a query field of /v1/local-models (gpu, mac, "
                                      "memory_limit, device)", quote_untrusted(key)));
    }
    if (value.find('%') != std::string_view::npos) {
      return Error::usage(key, "takes a plain value, without percent-escapes");
    }
    if (Status set = apply_request_field(*field, request, value); !set) return set.error();
  }
  return request;
}

}  // namespace

HttpResponse handle_local_models(ServiceState& state, std::string_view query) {
  Result<EstimateRequest> base = machine_request(query);
  if (!base.ok()) return error_response(api_error_of(base.error()));
  std::vector<LocalModelEntry> entries;
  for (const ListedModel& m : state.roots.list_models().models) {
    entries.push_back({m.name, "folder", m.format == "gguf" ? "gguf" : "safetensors", ""});
  }
  std::vector<std::unique_ptr<ServiceContext>> contexts;
  const std::vector<LocalModelRow> rows = price_local_models(
      entries, *base, [&state, &contexts](const LocalModelEntry& entry) -> Result<RequestContext*> {
        ApiResult<ResolvedModel> resolved = resolve_request_model(state, entry.name);
        if (!resolved.ok()) return Error(resolved.error().message);
        contexts.push_back(std::make_unique<ServiceContext>(state, *resolved));
        return contexts.back().get();
      });
  return json_response(200, local_models_to_json(rows));
}

}  // namespace memfit::service
