// Service::handle's routing, body limit, /healthz, /metrics, and the
// handler boundary that turns a bug into a 500 and goes on serving.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "service/metrics.h"
#include "service/service_fixture.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::body_json;
using testing::error_code;
using testing::error_message;
using testing::kExampleModel;
using testing::kExamplesRoot;
using testing::make_service;

TEST(ServiceRouting, HealthzIsOk) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = service->handle("GET", "/healthz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, "{\"status\":\"ok\"}\n");
  EXPECT_EQ(service->handle("HEAD", "/healthz", "").status, 200);
  EXPECT_EQ(service->handle("GET", "/healthz?verbose=1", "").status, 200);
}

TEST(ServiceRouting, UnknownPathIsNotFound) {
  auto service = make_service({kExamplesRoot});
  // "/" is the calculator page (service_page_test.cc).
  for (const std::string path : {"/v1", "/v1/estimate/", "/v2/estimate", "/etc/passwd", "/x.js"}) {
    HttpResponse r = service->handle("GET", path, "");
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(error_code(r), "not_found");
    EXPECT_EQ(error_message(r), "no endpoint '" + path + "'");
  }
}

TEST(ServiceRouting, WrongMethodIsNotAllowedAndSaysWhichIs) {
  auto service = make_service({kExamplesRoot});
  struct Case {
    std::string method, path, allow;
  };
  for (const Case& c : std::vector<Case>{{"GET", "/v1/estimate", "POST"},
                                         {"PUT", "/v1/admit", "POST"},
                                         {"POST", "/metrics", "GET"},
                                         {"DELETE", "/healthz", "GET"},
                                         {"POST", "/v1/models", "GET"}}) {
    HttpResponse r = service->handle(c.method, c.path, "");
    EXPECT_EQ(r.status, 405) << c.method << " " << c.path;
    EXPECT_EQ(error_code(r), "method_not_allowed");
    EXPECT_EQ(error_message(r), c.path + " accepts " + c.allow + ", not '" + c.method + "'");
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0], (std::pair<std::string, std::string>{"Allow", c.allow}));
  }
}

TEST(ServiceRouting, BodyOverTheLimitIsTooLarge) {
  ServiceOptions options = testing::fake_options({kExamplesRoot});
  options.max_body_bytes = 1024;
  auto service = make_service(std::move(options));
  // Exactly at the limit: a valid body padded with spaces is served.
  std::string body = json{{"model", kExampleModel}}.dump();
  body.resize(1024, ' ');
  EXPECT_EQ(service->handle("POST", "/v1/estimate", body).status, 200);
  body.push_back(' ');
  HttpResponse r = service->handle("POST", "/v1/estimate", body);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(error_code(r), "payload_too_large");
  EXPECT_EQ(error_message(r), "request body larger than 1024 bytes");
  EXPECT_EQ(service->max_body_bytes(), 1024u);
}

TEST(ServiceRouting, DefaultBodyLimitIs64KiB) {
  auto service = make_service({kExamplesRoot});
  EXPECT_EQ(service->max_body_bytes(), 65536u);
  EXPECT_EQ(service->handle("POST", "/v1/admit", std::string(65537, ' ')).status, 413);
}

TEST(ServiceRouting, AHandlerExceptionIsA500AndServingGoesOn) {
  ServiceOptions options = testing::fake_options({kExamplesRoot});
  options.query_host = []() -> HostMemoryStatus { throw std::runtime_error("probe exploded"); };
  options.host_reuse_ms = 0;
  auto service = make_service(std::move(options));
  HttpResponse r = service->handle("POST", "/v1/estimate", json{{"model", kExampleModel}}.dump());
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(error_code(r), "internal_error");
  EXPECT_EQ(error_message(r), "internal error: probe exploded");
  EXPECT_EQ(service->handle("GET", "/healthz", "").status, 200);
  EXPECT_EQ(service->handle("GET", "/metrics", "").status, 500);
}

// Every sample's family was introduced by # HELP and # TYPE lines.
void expect_well_formed(const std::string& text) {
  std::set<std::string> helped, typed;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("# HELP ", 0) == 0) {
      helped.insert(line.substr(7, line.find(' ', 7) - 7));
    } else if (line.rfind("# TYPE ", 0) == 0) {
      std::string rest = line.substr(7);
      std::string name = rest.substr(0, rest.find(' '));
      std::string type = rest.substr(rest.find(' ') + 1);
      EXPECT_TRUE(type == "gauge" || type == "counter") << line;
      EXPECT_EQ(name.rfind("memfit_", 0), 0u) << line;
      typed.insert(name);
    } else {
      std::string name = line.substr(0, line.find_first_of("{ "));
      EXPECT_EQ(helped.count(name), 1u) << line;
      EXPECT_EQ(typed.count(name), 1u) << line;
      std::string value = line.substr(line.rfind(' ') + 1);
      EXPECT_EQ(value.find_first_not_of("0123456789"), std::string::npos) << line;
    }
  }
}

TEST(ServiceMetrics, HostProcessAndModelGauges) {
  auto service = make_service({kExamplesRoot});
  ASSERT_EQ(service->handle("POST", "/v1/estimate", json{{"model", kExampleModel}}.dump()).status,
            200);
  ASSERT_EQ(service->handle("GET", "/nowhere", "").status, 404);
  HttpResponse r = service->handle("GET", "/metrics", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  const std::string& m = r.body;
  expect_well_formed(m);
  for (const std::string line : {
           "# HELP memfit_host_ram_total_bytes Physical RAM of the machine.\n",
           "# TYPE memfit_host_ram_total_bytes gauge\n",
           "memfit_host_ram_total_bytes 68719476736\n",
           "memfit_host_available_now_bytes 42949672960\n",
           "memfit_host_ram_available_bytes 34359738368\n",
           "memfit_budget_bytes{source=\"meminfo_available\",device=\"cpu\"} 34359738368\n",
           "memfit_process_footprint_bytes 123456789\n",
           "memfit_cached_models 1\n",
           "memfit_model_total_bytes{model=\"Qwen3-14B-MLX-4bit\"} 11764806400\n",
           "memfit_model_kv_bytes{model=\"Qwen3-14B-MLX-4bit\"} 1342177280\n",
           "memfit_model_estimates_total{model=\"Qwen3-14B-MLX-4bit\"} 1\n",
           "memfit_model_fits{model=\"Qwen3-14B-MLX-4bit\"} 1\n",
           "memfit_requests_total{endpoint=\"/v1/estimate\",code=\"200\"} 1\n",
           "memfit_requests_total{endpoint=\"other\",code=\"404\"} 1\n",
       }) {
    EXPECT_NE(m.find(line), std::string::npos) << "missing: " << line << "in:\n" << m;
  }
  // Gauges the OS did not report are left out, not shown as 0.
  EXPECT_EQ(m.find("memfit_process_swapped_bytes"), std::string::npos);
}

TEST(ServiceMetrics, ExplicitLimitIsTheBudgetGauge) {
  auto service = make_service({kExamplesRoot}, 48ull << 30);
  const std::string m = service->handle("GET", "/metrics", "").body;
  EXPECT_NE(m.find("memfit_budget_bytes{source=\"explicit\",device=\"cpu\"} 51539607552\n"),
            std::string::npos)
      << m;
}

TEST(ServiceMetrics, LabelValuesAreEscaped) {
  EXPECT_EQ(service::escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(service::escape_label_value("org/model-1.5"), "org/model-1.5");
}

TEST(ServiceListenAddress, HostPortOrBarePort) {
  Result<ListenAddress> a = parse_listen_address("127.0.0.1:8765");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8765);
  a = parse_listen_address("9000");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9000);
  a = parse_listen_address("[::1]:0");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 0);
  for (const std::string bad :
       {"", "host:", ":80", "127.0.0.1:65536", "127.0.0.1:-1", "x:80x", "localhost"}) {
    Result<ListenAddress> r = parse_listen_address(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message(),
              "listen address '" + bad + "': expected host:port with a port 0-65535");
  }
}

}  // namespace
}  // namespace memfit
