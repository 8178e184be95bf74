#include "support/json_request.h"

#include <gtest/gtest.h>

namespace memfit::testing {

JsonAnswer run_request_texts(const nlohmann::json& request) {
  char* response = nullptr;
  const memfit_status status =
      memfit_run_request_json(request.dump().c_str(), MEMFIT_REQUEST_FLAG_TEXTS, &response);
  JsonAnswer answer{status, nlohmann::json::parse(response)};
  memfit_string_free(response);
  return answer;
}

nlohmann::json run_request_texts_ok(const nlohmann::json& request) {
  JsonAnswer answer = run_request_texts(request);
  EXPECT_TRUE(answer.ok()) << answer.body.dump();
  return std::move(answer.body);
}

}  // namespace memfit::testing
