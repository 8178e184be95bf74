// The service over real HTTP on a loopback port the OS picks: every
// endpoint and error through a socket client (tests/support), concurrent
// clients, and starting and stopping the server. Every client call has a
// timeout and every server is stopped and joined, so a failure cannot hang
// the suite. The limits under hostile clients: http_server_limits_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/running_server.h"
#include "service/service_fixture.h"
#include "support/http_test_client.h"

namespace memfit {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::HttpTestConnection;
using testing::kExampleModel;
using testing::kExamplesRoot;
using testing::kQwen3Root;
using testing::RunningServer;

json parse(const Result<HttpReply>& r) { return json::parse(r->body, nullptr, false); }

// A keep-alive connection to `server`; fails the test when it cannot open.
HttpTestConnection connect(const RunningServer& server) {
  Result<HttpTestConnection> c = HttpTestConnection::open(server.port());
  if (!c.ok()) {
    ADD_FAILURE() << c.error().message();
    std::abort();  // nothing below can run without it
  }
  return std::move(*c);
}

TEST(ServiceHttp, HealthzAndModels) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  HttpTestConnection client = connect(server);
  Result<HttpReply> r = client.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("Content-Type"), "application/json");
  EXPECT_EQ(parse(r), (json{{"status", "ok"}}));
  r = client.request("GET", "/v1/models");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(parse(r)["models"][0]["name"], kExampleModel);
}

TEST(ServiceHttp, EstimateAndItsErrors) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  HttpTestConnection client = connect(server);
  Result<HttpReply> r =
      client.request("POST", "/v1/estimate", json{{"model", kExampleModel}}.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(parse(r)["total_bytes"], 11764806400u);
  EXPECT_EQ(parse(r)["kv_bytes_total"], 1342177280u);

  r = client.request("POST", "/v1/estimate", "{\"model\":");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(parse(r)["error"]["code"], "bad_request");

  r = client.request("POST", "/v1/estimate",
                     json{{"model", kExampleModel}, {"max_tokens", "abc"}}.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(parse(r)["error"]["message"], "max_tokens: expected a positive integer, got \"abc\"");

  r = client.request("POST", "/v1/estimate",
                     json{{"model", "../examples/" + std::string(kExampleModel)}}.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(parse(r)["error"]["code"], "invalid_model_path");

  r = client.request("POST", "/v1/estimate", json{{"model", "/etc"}}.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 403);

  r = client.request("POST", "/v1/estimate", json{{"model", "absent"}}.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(parse(r)["error"]["code"], "model_not_found");
}

TEST(ServiceHttp, AdmitAdmitsAndRefuses) {
  RunningServer server(testing::make_service({kQwen3Root}));
  HttpTestConnection client = connect(server);
  json body = {{"model", "Qwen3-8B"},
               {"prompt_tokens", 10000},
               {"cached_tokens", 0},
               {"current_usage_bytes", 10ull << 30},
               {"hard_limit_bytes", 12ull << 30},
               {"prefill_chunk", 2048},
               {"request_id", "http-1"}};
  Result<HttpReply> r = client.request("POST", "/v1/admit", body.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(parse(r)["admitted"], true);
  EXPECT_EQ(parse(r)["peak_bytes"], 1508114432u);
  EXPECT_EQ(parse(r)["request_id"], "http-1");

  body["hard_limit_bytes"] = 11ull << 30;
  r = client.request("POST", "/v1/admit", body.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->status, 400);
  json e = parse(r)["error"];
  EXPECT_EQ(e["code"], "prefill_memory_exceeded");
  EXPECT_EQ(e["estimated_bytes"], 12245532672u);
  EXPECT_EQ(e["limit_bytes"], 11811160064u);
  EXPECT_EQ(e["request_id"], "http-1");
}

TEST(ServiceHttp, MetricsIsPrometheusText) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  HttpTestConnection client = connect(server);
  ASSERT_TRUE(client.request("POST", "/v1/estimate", json{{"model", kExampleModel}}.dump()).ok());
  Result<HttpReply> r = client.request("GET", "/metrics");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r->body.find("# TYPE memfit_model_total_bytes gauge\n"), std::string::npos);
  EXPECT_NE(r->body.find("memfit_model_total_bytes{model=\"Qwen3-14B-MLX-4bit\"} 11764806400\n"),
            std::string::npos);
  EXPECT_NE(r->body.find("memfit_process_footprint_bytes 123456789\n"), std::string::npos);
}

TEST(ServiceHttp, NotFoundMethodNotAllowedAndTooLarge) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  HttpTestConnection client = connect(server);
  Result<HttpReply> r = client.request("GET", "/nowhere");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(parse(r)["error"]["code"], "not_found");

  r = client.request("GET", "/v1/estimate");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->header("Allow"), "POST");
  EXPECT_EQ(parse(r)["error"]["code"], "method_not_allowed");

  r = client.request("DELETE", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 405);

  // Refused by the HTTP layer from Content-Length, before the body is
  // kept; the connection is closed, since the body was not read.
  r = client.request("POST", "/v1/estimate", std::string(70000, ' '));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(r->header("Connection"), "close");
  EXPECT_EQ(parse(r)["error"]["code"], "payload_too_large");
  EXPECT_EQ(parse(r)["error"]["message"], "request body larger than 65536 bytes");
  EXPECT_TRUE(client.closed_within(std::chrono::seconds(5)));

  // And the server still answers.
  r = testing::http_request(server.port(), "GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
}

TEST(ServiceHttp, ConcurrentClientsAllGetTheRightAnswers) {
  RunningServer server(testing::make_service({kExamplesRoot, kQwen3Root}));
  constexpr int kThreads = 8;
  constexpr int kRequestsPerThread = 50;
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      HttpTestConnection client = connect(server);
      for (int i = 0; i < kRequestsPerThread; ++i) {
        if ((t + i) % 3 == 0) {
          json body = {{"model", "Qwen3-8B"}, {"prompt_tokens", 10000}, {"prefill_chunk", 2048}};
          Result<HttpReply> r = client.request("POST", "/v1/admit", body.dump());
          if (r.ok() && r->status == 200 && parse(r)["peak_bytes"] == 1508114432u) ++correct;
        } else if ((t + i) % 3 == 1) {
          Result<HttpReply> r = client.request("POST", "/v1/estimate",
                                               json{{"model", kExampleModel}, {"batch", 2}}.dump());
          // KV doubles with the batch.
          if (r.ok() && r->status == 200 && parse(r)["kv_bytes_total"] == 2 * 1342177280u)
            ++correct;
        } else {
          Result<HttpReply> r =
              client.request("POST", "/v1/estimate", json{{"model", kExampleModel}}.dump());
          if (r.ok() && r->status == 200 && parse(r)["total_bytes"] == 11764806400u) ++correct;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(correct.load(), kThreads * kRequestsPerThread);

  Result<HttpReply> r = testing::http_request(server.port(), "GET", "/metrics");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_NE(r->body.find("\nmemfit_cached_models 2\n"), std::string::npos) << r->body;
}

TEST(ServiceHttp, StopBeforeServeReturnsAtOnce) {
  auto service = testing::make_service({kExamplesRoot});
  HttpServer server(*service);
  ASSERT_TRUE(server.bind(ListenAddress{"127.0.0.1", 0}).ok());
  server.stop();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(server.serve().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  server.stop();  // idempotent
}

TEST(ServiceHttp, ServeWithoutBindIsAnError) {
  auto service = testing::make_service({kExamplesRoot});
  HttpServer server(*service);
  Status s = server.serve();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "serve: not bound to a port");
}

TEST(ServiceHttp, PortInUseCannotBeBound) {
  RunningServer first(testing::make_service({kExamplesRoot}));
  auto service = testing::make_service({kExamplesRoot});
  HttpServer second(*service);
  Result<int> port = second.bind(ListenAddress{"127.0.0.1", first.port()});
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().message(), "listen on 127.0.0.1:" + std::to_string(first.port()) +
                                        ": cannot bind: Address already in use");
}

}  // namespace
}  // namespace memfit
