// GET /v1/hardware: the hardware table the request fields gpu and mac read
// (memfit/hardware.h, docs/hardware.md), so the page's hardware picker
// lists what the service takes. Answer: hardware_to_json's object,
// {"gpus": [...], "macs": [...]}; 500 internal_error when the embedded
// table does not parse.
#include "memfit/hardware.h"
#include "service/api_error.h"
#include "service/service_state.h"

namespace memfit::service {

HttpResponse handle_hardware() {
  Result<const HardwareTable*> table = hardware_table();
  if (!table)
    return error_response(ApiError{500, "internal_error", table.error().message(), Json::object()});
  return json_response(200, hardware_to_json(**table));
}

}  // namespace memfit::service
