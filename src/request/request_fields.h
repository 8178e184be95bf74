// The JSON request's fields (request_json.h), read into an EstimateRequest
// by walking the request field table (request_field.h); shared with the
// service's other bodies (/v1/fit takes the request without its context and
// KV fields, /v1/admit the KV fields). Private to the library and the
// service.
#ifndef MEMFIT_REQUEST_REQUEST_FIELDS_H_
#define MEMFIT_REQUEST_REQUEST_FIELDS_H_

#include <functional>
#include <vector>

#include "memfit/request.h"
#include "memfit/request_field.h"
#include "request/json_fields.h"

namespace memfit::request {

// Reads the table's fields that `wanted` picks, in table order (the engine
// before the cache types read for it): each value as its row's texts
// (field_texts), applied by apply_request_field. A required field absent
// is "<name>: required". Fields are marked read, so no_others() refuses
// only what no row names.
Status read_table_fields(Fields& fields, EstimateRequest& request,
                         const std::function<bool(const RequestField&)>& wanted);

// The KV width a request asks for (request.h: EstimateRequest's rule); a
// kRequest warning when K and V differ. kUsage errors.
Result<KvElement> resolve_kv_element(const EstimateRequest& request,
                                     std::vector<Warning>& warnings);

}  // namespace memfit::request

#endif  // MEMFIT_REQUEST_REQUEST_FIELDS_H_
