// POST /v1/check-log: the log in the body, the check as `memfit check-log
// --json` gives it; a model the body names is resolved under the roots.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "service/service_fixture.h"
#include "support/paths.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::make_service;

std::string pinned_log() {
  std::ifstream in(std::string(MEMFIT_TEST_DATA_DIR) +
                   "/logs/llamacpp/llamacpp-pinned-llama-dense-ctx4096.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ServiceCheckLog, PricesTheLogInTheBody) {
  ServiceOptions options = testing::fake_options({});
  options.max_body_bytes = 1 << 20;  // the log is 17 KiB
  auto service = make_service(std::move(options));
  ASSERT_NE(service, nullptr);
  HttpResponse r = service->handle("POST", "/v1/check-log", json{{"log", pinned_log()}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json answer = body_json(r);
  EXPECT_EQ(answer["engine"], "llamacpp");
  EXPECT_EQ(answer["model_source"], "log");
  EXPECT_EQ(answer["figures"][2]["memfit"], 8'388'608u);  // KV, as log_check_test.cc works it out
}

TEST(ServiceCheckLog, RefusesABodyWithoutALog) {
  auto service = make_service(std::vector<std::string>{});
  HttpResponse r = service->handle("POST", "/v1/check-log", R"({"model": "m"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(body_json(r)["error"]["message"], "log: required");
}

}  // namespace
}  // namespace memfit
