// The JSON request (request_json.h): every field read by walking the
// request field table, so the names, the parsers and the messages are the
// CLI's.
#include "memfit/request_json.h"

#include "request/request_fields.h"

namespace memfit {
namespace request {

Status read_table_fields(Fields& fields, EstimateRequest& request,
                         const std::function<bool(const RequestField&)>& wanted) {
  for (const RequestField* f : request_fields()) {
    if (!wanted(*f)) continue;
    const Json* value = fields.find(f->name);
    if (value == nullptr) {
      if (f->required) return Error::usage(f->name, "required");
      continue;
    }
    Result<std::vector<std::string>> texts = field_texts(*f, *value);
    if (!texts) return texts.error();
    for (const std::string& text : *texts) {
      if (Status applied = apply_request_field(*f, request, text); !applied) return applied;
    }
  }
  return Status::Ok();
}

}  // namespace request

Result<EstimateRequest> parse_estimate_request_json(std::string_view body) {
  Result<request::Json> json = request::parse_object(body);
  if (!json) return json.error();
  request::Fields fields(*json);
  EstimateRequest r;
  if (Status read = request::read_table_fields(fields, r, [](const RequestField&) { return true; });
      !read) {
    return read.error();
  }
  if (Status rest = fields.no_others(); !rest) return rest.error();
  return r;
}

nlohmann::ordered_json error_to_json(const Error& error) {
  nlohmann::ordered_json j = {{"kind", std::string(to_string(error.kind()))},
                              {"message", error.message()}};
  if (!error.field().empty()) j["field"] = error.field();
  return j;
}

}  // namespace memfit
