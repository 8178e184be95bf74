// HttpServer under hostile clients, on loopback: slow clients, the
// whole-request deadline, the connection caps, the bounded queue, the head
// and body limits, and stop() while clients trickle. Deadlines are set
// short here (hundreds of ms) and every bound asserted is several seconds,
// so a slow, loaded machine makes the tests slower, never failing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
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
using testing::RunningServer;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

HttpTestConnection connect(int port, const std::string& source_address = "") {
  Result<HttpTestConnection> c = HttpTestConnection::open(port, source_address);
  if (!c.ok()) {
    ADD_FAILURE() << c.error().message();
    std::abort();  // nothing below can run without it
  }
  return std::move(*c);
}

std::string error_code(const HttpReply& reply) {
  json j = json::parse(reply.body, nullptr, false);
  if (!j.is_object() || !j.contains("error")) return "<no error object>";
  return j["error"].value("code", "<no code>");
}

std::string error_message(const HttpReply& reply) {
  json j = json::parse(reply.body, nullptr, false);
  if (!j.is_object() || !j.contains("error")) return "<no error object>";
  return j["error"].value("message", "<no message>");
}

// A handler for tests of the queue: "/slow" blocks until release(), every
// other path answers 200 at once.
class BlockingHandler {
 public:
  HttpHandler handler() {
    return [this](std::string_view, std::string_view target, std::string_view) {
      HttpResponse response{200, "text/plain", std::string(target), {}};
      if (target != "/slow") return response;
      std::unique_lock<std::mutex> lock(mu_);
      ++entered_;
      changed_.notify_all();
      changed_.wait(lock, [this] { return released_; });
      return response;
    };
  }
  // True when `count` calls have entered "/slow" within 10 s.
  bool wait_entered(int count) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, seconds(10), [&] { return entered_ >= count; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int entered_ = 0;
  bool released_ = false;
};

TEST(HttpServerLimits, TricklingClientsDoNotStopHealthzOrTheWorkers) {
  // Twice as many slow clients as workers: with a thread per connection
  // (the server this replaced) they held every thread and nothing else was
  // answered for as long as they trickled.
  HttpServerOptions options;
  options.worker_threads = 2;
  options.request_deadline_ms = 60000;  // none is cut off during the test
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  std::vector<HttpTestConnection> slow;
  for (int i = 0; i < 4; ++i) {
    slow.push_back(connect(server.port()));
    ASSERT_TRUE(slow.back()
                    .send("POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
                    .ok());
  }
  std::atomic<bool> done{false};
  std::thread trickler([&] {
    while (!done) {
      for (HttpTestConnection& c : slow) (void)c.send(" ");
      std::this_thread::sleep_for(milliseconds(20));
    }
  });

  for (int i = 0; i < 5; ++i) {
    Result<HttpReply> r = testing::http_request(server.port(), "GET", "/healthz");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->status, 200);
  }
  Result<HttpReply> r = testing::http_request(server.port(), "GET", "/metrics");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  r = testing::http_request(server.port(), "POST", "/v1/estimate",
                            json{{"model", kExampleModel}}.dump());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200) << r->body;
  done = true;
  trickler.join();
}

TEST(HttpServerLimits, TricklingRequestIsCutOffAtTheDeadline) {
  // One byte every 20 ms: no single read ever waits long, so only a
  // deadline over the whole request ends it. Both a head that never ends
  // and a body that never ends.
  HttpServerOptions options;
  options.request_deadline_ms = 300;
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  for (const std::string prefix :
       {"GET /healthz HTTP/1.1\r\nX-Slow: ",
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"}) {
    SCOPED_TRACE(prefix);
    HttpTestConnection c = connect(server.port());
    const auto start = Clock::now();
    ASSERT_TRUE(c.send(prefix).ok());
    std::string received;
    bool closed = false;
    while (!closed && Clock::now() - start < seconds(5)) {
      if (!c.send("a").ok()) break;  // closed under us: the read below sees the rest
      closed = c.closed_within(milliseconds(20), &received);
    }
    if (!closed) closed = c.closed_within(seconds(5), &received);
    const auto elapsed = Clock::now() - start;
    EXPECT_TRUE(closed);
    EXPECT_GE(elapsed, milliseconds(300));  // not before the deadline
    EXPECT_LT(elapsed, seconds(10));
    EXPECT_EQ(received.rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << received;
    EXPECT_NE(received.find("\"code\":\"request_timeout\""), std::string::npos) << received;
  }
  Result<HttpReply> r = testing::http_request(server.port(), "GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
}

TEST(HttpServerLimits, SilentConnectionIsClosedAfterTheIdleTimeout) {
  HttpServerOptions options;
  options.idle_timeout_ms = 300;
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  HttpTestConnection c = connect(server.port());
  std::string received;
  EXPECT_TRUE(c.closed_within(seconds(5), &received));
  EXPECT_EQ(received, "");  // no request begun: nothing to answer
}

TEST(HttpServerLimits, PerAddressCapRefusesTheConnectionOverIt) {
  HttpServerOptions options;
  options.max_connections_per_address = 2;
  options.idle_timeout_ms = 60000;
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  // Two held from 127.0.0.2; a request on each proves they were accepted.
  std::vector<HttpTestConnection> held;
  for (int i = 0; i < 2; ++i) {
    held.push_back(connect(server.port(), "127.0.0.2"));
    Result<HttpReply> r = held.back().request("GET", "/healthz");
    ASSERT_TRUE(r.ok()) << r.error().message();
    ASSERT_EQ(r->status, 200);
  }
  HttpTestConnection third = connect(server.port(), "127.0.0.2");
  Result<HttpReply> r = third.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->header("Connection"), "close");
  EXPECT_EQ(r->header("Retry-After"), "1");
  EXPECT_EQ(error_code(*r), "too_many_connections");
  EXPECT_EQ(error_message(*r),
            "2 connections from 127.0.0.2 are open, the most one address may hold; retry later");
  EXPECT_TRUE(third.closed_within(seconds(5)));

  // Another address is not affected.
  HttpTestConnection other = connect(server.port(), "127.0.0.3");
  r = other.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);

  // A held connection that leaves makes room (the server sees the close
  // asynchronously: a few tries).
  held.pop_back();
  int status = 0;
  for (int i = 0; i < 50 && status != 200; ++i) {
    HttpTestConnection again = connect(server.port(), "127.0.0.2");
    Result<HttpReply> reply = again.request("GET", "/healthz");
    status = reply.ok() ? reply->status : 0;
    if (status != 200) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(status, 200);
}

TEST(HttpServerLimits, TotalCapRefusesTheConnectionOverIt) {
  HttpServerOptions options;
  options.max_connections = 3;
  options.idle_timeout_ms = 60000;
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  std::vector<HttpTestConnection> held;
  for (const char* address : {"127.0.0.2", "127.0.0.3", "127.0.0.4"}) {
    held.push_back(connect(server.port(), address));
    Result<HttpReply> r = held.back().request("GET", "/healthz");
    ASSERT_TRUE(r.ok()) << r.error().message();
    ASSERT_EQ(r->status, 200);
  }
  HttpTestConnection fourth = connect(server.port(), "127.0.0.5");
  Result<HttpReply> r = fourth.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(error_code(*r), "too_many_connections");
  EXPECT_EQ(error_message(*r), "3 connections are open, the most the server holds; retry later");
  EXPECT_TRUE(fourth.closed_within(seconds(5)));
}

TEST(HttpServerLimits, FullQueueIsRefusedAtOnceWhileHealthzAndMetricsAnswer) {
  // One worker and one queue place: the first /slow runs, one of the next
  // two waits, the other is refused. Which of the two is refused depends
  // on arrival order; that exactly one is does not.
  HttpServerOptions options;
  options.worker_threads = 1;
  options.max_queued_requests = 1;
  BlockingHandler blocking;
  RunningServer server(blocking.handler(), options);
  HttpTestConnection first = connect(server.port());
  ASSERT_TRUE(first.send(testing::format_request("GET", "/slow")).ok());
  ASSERT_TRUE(blocking.wait_entered(1));

  std::vector<std::future<Result<HttpReply>>> replies;
  for (int i = 0; i < 2; ++i) {
    replies.push_back(std::async(std::launch::async, [port = server.port()] {
      return testing::http_request(port, "GET", "/slow");
    }));
  }
  // The refused one is answered while the worker is still blocked.
  int refused = -1;
  const auto until = Clock::now() + seconds(10);
  while (refused < 0 && Clock::now() < until) {
    for (int i = 0; i < 2; ++i) {
      if (replies[i].wait_for(milliseconds(10)) == std::future_status::ready) refused = i;
    }
  }
  ASSERT_GE(refused, 0) << "no request was refused while the queue was full";
  Result<HttpReply> busy = replies[refused].get();
  ASSERT_TRUE(busy.ok()) << busy.error().message();
  EXPECT_EQ(busy->status, 503);
  EXPECT_EQ(busy->header("Retry-After"), "1");
  EXPECT_EQ(error_code(*busy), "server_busy");
  EXPECT_EQ(error_message(*busy), "all 1 workers are busy and 1 requests wait; retry later");

  // The cheap endpoints do not queue behind the workers.
  for (const char* path : {"/healthz", "/metrics"}) {
    Result<HttpReply> r = testing::http_request(server.port(), "GET", path);
    ASSERT_TRUE(r.ok()) << path << ": " << r.error().message();
    EXPECT_EQ(r->status, 200) << path;
  }

  blocking.release();
  Result<HttpReply> r = first.read_reply();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  Result<HttpReply> queued = replies[1 - refused].get();
  ASSERT_TRUE(queued.ok()) << queued.error().message();
  EXPECT_EQ(queued->status, 200);
}

TEST(HttpServerLimits, OversizedBodyIs413FromItsHead) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  // Only the head is sent: the answer comes without the body.
  HttpTestConnection c = connect(server.port());
  ASSERT_TRUE(
      c.send("POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n").ok());
  Result<HttpReply> r = c.read_reply();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(error_message(*r), "request body larger than 65536 bytes");
  EXPECT_TRUE(c.closed_within(seconds(5)));

  // A chunked body has no length up front: refused once it passes the limit.
  HttpTestConnection chunked = connect(server.port());
  ASSERT_TRUE(
      chunked.send("POST /v1/estimate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
          .ok());
  const std::string chunk = "8000\r\n" + std::string(0x8000, ' ') + "\r\n";  // 32 KiB
  for (int i = 0; i < 3; ++i) (void)chunked.send(chunk);
  r = chunked.read_reply();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 413);
}

TEST(HttpServerLimits, ExpectContinueGetsTheInterimAnswerOrTheRefusal) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  const std::string body = json{{"model", kExampleModel}}.dump();
  HttpTestConnection c = connect(server.port());
  ASSERT_TRUE(c.send("POST /v1/estimate HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                     "Content-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n")
                  .ok());
  Result<HttpReply> r = c.read_reply(seconds(10), /*return_interim=*/true);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 100);
  ASSERT_TRUE(c.send(body).ok());
  r = c.read_reply();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200) << r->body;

  // Over the limit: 413 instead of 100, so the body is never sent.
  HttpTestConnection big = connect(server.port());
  ASSERT_TRUE(big.send("POST /v1/estimate HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                       "Content-Length: 70000\r\n\r\n")
                  .ok());
  r = big.read_reply(seconds(10), /*return_interim=*/true);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 413);
}

TEST(HttpServerLimits, OversizedHeadIs431AndMalformedIs400) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  HttpTestConnection big = connect(server.port());
  (void)big.send("GET /healthz HTTP/1.1\r\nX-Pad: " + std::string(2000, 'a') + "\r\n\r\n");
  Result<HttpReply> r = big.read_reply();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 431);
  EXPECT_EQ(error_code(*r), "header_too_large");
  EXPECT_EQ(error_message(*r), "request line and headers larger than 1024 bytes");
  EXPECT_TRUE(big.closed_within(seconds(5)));

  HttpTestConnection garbage = connect(server.port());
  ASSERT_TRUE(garbage.send("GET\x01 / HTTP/1.1\r\n\r\n").ok());
  r = garbage.read_reply();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(error_code(*r), "bad_request");
  EXPECT_TRUE(garbage.closed_within(seconds(5)));
}

TEST(HttpServerLimits, HeadHasTheLengthAndNoBody) {
  RunningServer server(testing::make_service({kExamplesRoot}));
  HttpTestConnection c = connect(server.port());
  Result<HttpReply> r = c.request("HEAD", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("Content-Length"), "16");  // {"status":"ok"} and a newline
  // No stray body: the next answer on the connection parses.
  r = c.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->body, "{\"status\":\"ok\"}\n");
}

TEST(HttpServerLimits, ConnectionClosesAfterItsLastKeepAliveRequest) {
  HttpServerOptions options;
  options.keep_alive_max_requests = 2;
  RunningServer server(testing::make_service({kExamplesRoot}), options);
  HttpTestConnection c = connect(server.port());
  Result<HttpReply> r = c.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->header("Connection"), "");
  r = c.request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->header("Connection"), "close");
  EXPECT_TRUE(c.closed_within(seconds(5)));
}

TEST(HttpServerLimits, StopWhileClientsTrickleReturnsPromptly) {
  auto service = testing::make_service({kExamplesRoot});
  HttpServer server(*service);  // default deadlines: 10 s a request, 5 s idle
  Result<int> port = server.bind(ListenAddress{"127.0.0.1", 0});
  ASSERT_TRUE(port.ok()) << port.error().message();
  Status status;
  std::thread serving([&] { status = server.serve(); });
  std::vector<HttpTestConnection> slow;
  for (int i = 0; i < 16; ++i) {
    slow.push_back(connect(*port));
    ASSERT_TRUE(slow.back().send("POST /v1/estimate HTTP/1.1\r\nContent-Length: 50\r\n\r\n{").ok());
  }
  slow.push_back(connect(*port));  // and one that sent nothing
  // Every connection is accepted before stop(): a request after them is
  // answered (the server takes connections in order).
  Result<HttpReply> r = testing::http_request(*port, "GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();

  const auto start = Clock::now();
  server.stop();
  serving.join();
  EXPECT_LT(Clock::now() - start, seconds(3));  // well before any deadline
  EXPECT_TRUE(status.ok()) << status.error().message();
  for (HttpTestConnection& c : slow) EXPECT_TRUE(c.closed_within(seconds(5)));
}

}  // namespace
}  // namespace memfit
