#include "service/api_error.h"

namespace memfit::service {

HttpResponse json_response(int status, const Json& body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/json";
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  response.body += '\n';
  return response;
}

HttpResponse error_response(const ApiError& error) {
  Json object = {{"code", error.code}, {"message", error.message}};
  for (const auto& [key, value] : error.extra.items()) object[key] = value;
  return json_response(error.status, Json{{"error", std::move(object)}});
}

}  // namespace memfit::service
