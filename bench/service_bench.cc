// Requests per second of the HTTP service on a cached model
// (docs/service.md, "Speed"; issue 5): Service::handle alone (routing, JSON
// parsing, the estimate and the report), and the same request over
// loopback HTTP with a keep-alive client. items_per_second is the request
// rate.
//
//   build/<dir>/bench/service_bench [--benchmark_filter=...]
//
// The model: $MEMFIT_BENCH_MODEL (default Qwen3-14B-MLX-4bit) under
// $MEMFIT_BENCH_MODEL_ROOT (default the source tree's examples/).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "memfit/service.h"

namespace memfit {
namespace {

std::string env_or(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::string model_root() {
  return env_or(
      "MEMFIT_BENCH_MODEL_ROOT",
      (std::filesystem::path(__FILE__).parent_path().parent_path() / "examples").string());
}

std::string estimate_body() {
  return "{\"model\":\"" + env_or("MEMFIT_BENCH_MODEL", "Qwen3-14B-MLX-4bit") +
         "\",\"max_tokens\":32768,\"batch\":1,\"kv_cache_mode\":\"fp16\"}";
}

// One service for the whole run, with the real host query (reused for
// 250 ms, as `memfit serve` runs it).
Service& shared_service() {
  static std::unique_ptr<Service> service = [] {
    ServiceOptions options;
    options.model_roots = {model_root()};
    Result<std::unique_ptr<Service>> created = Service::create(std::move(options));
    if (!created.ok()) {
      std::fprintf(stderr, "service_bench: %s\n", created.error().message().c_str());
      std::exit(1);
    }
    return std::move(*created);
  }();
  return *service;
}

void BM_ServiceHandleEstimate(benchmark::State& state) {
  Service& service = shared_service();
  const std::string body = estimate_body();
  if (service.handle("POST", "/v1/estimate", body).status != 200) {  // warms the cache
    state.SkipWithError("the estimate request failed");
    return;
  }
  for (auto _ : state) {
    HttpResponse response = service.handle("POST", "/v1/estimate", body);
    benchmark::DoNotOptimize(response.body.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ServiceHandleEstimate)->Threads(1)->Threads(2)->UseRealTime();

void BM_ServiceHandleAdmit(benchmark::State& state) {
  Service& service = shared_service();
  const std::string body = "{\"model\":\"" + env_or("MEMFIT_BENCH_MODEL", "Qwen3-14B-MLX-4bit") +
                           "\",\"prompt_tokens\":10000,\"hard_limit_bytes\":1000000000000}";
  for (auto _ : state) {
    HttpResponse response = service.handle("POST", "/v1/admit", body);
    benchmark::DoNotOptimize(response.body.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ServiceHandleAdmit);

// The service on 127.0.0.1:<free port> for the rest of the run.
struct LoopbackServer {
  LoopbackServer() : server(shared_service()) {
    Result<int> bound = server.bind(ListenAddress{"127.0.0.1", 0});
    if (!bound.ok()) {
      std::fprintf(stderr, "service_bench: %s\n", bound.error().message().c_str());
      std::exit(1);
    }
    port = *bound;
    thread = std::thread([this] { (void)server.serve(); });
  }
  ~LoopbackServer() {
    server.stop();
    thread.join();
  }
  HttpServer server;
  int port = 0;
  std::thread thread;
};

void BM_HttpEstimateKeepAlive(benchmark::State& state) {
  namespace beast = boost::beast;
  namespace http = boost::beast::http;
  using boost::asio::ip::tcp;
  static LoopbackServer loopback;
  boost::asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                               static_cast<unsigned short>(loopback.port)),
                 ec);
  if (ec) {
    state.SkipWithError("cannot connect");
    return;
  }
  socket.set_option(tcp::no_delay(true));  // else Nagle and delayed ACKs add ~40 ms a request
  http::request<http::string_body> request(http::verb::post, "/v1/estimate", 11);
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  request.body() = estimate_body();
  request.prepare_payload();
  beast::flat_buffer buffer;
  for (auto _ : state) {
    http::response<http::string_body> response;
    http::write(socket, request, ec);
    if (!ec) http::read(socket, buffer, response, ec);
    if (ec || response.result_int() != 200) {
      state.SkipWithError("HTTP request failed");
      break;
    }
    if (!response.keep_alive()) {  // the server's keep-alive request cap: reconnect
      socket.close();
      socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                   static_cast<unsigned short>(loopback.port)),
                     ec);
      if (ec) {
        state.SkipWithError("cannot reconnect");
        break;
      }
      socket.set_option(tcp::no_delay(true));
      buffer.clear();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HttpEstimateKeepAlive)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

}  // namespace
}  // namespace memfit

BENCHMARK_MAIN();
