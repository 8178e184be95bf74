// GET /v1/local-models (local_models_handler.cc): `memfit ls --json` over
// the model roots. Private to src/service.
#ifndef MEMFIT_SERVICE_LOCAL_MODELS_HANDLER_H_
#define MEMFIT_SERVICE_LOCAL_MODELS_HANDLER_H_

#include <string_view>

#include "service/service_state.h"

namespace memfit::service {

// Each root's model priced for the service's host, or the machine the
// query's fields describe. `query` is the text after '?' ("" for none).
HttpResponse handle_local_models(ServiceState& state, std::string_view query);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_LOCAL_MODELS_HANDLER_H_
