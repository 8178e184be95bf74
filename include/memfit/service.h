// The memfit HTTP service (`memfit serve`, docs/service.md): the estimator
// and the prefill admission guard over JSON, and Prometheus gauges.
//
//   GET  /              the calculator page (web/, embedded at build time),
//                       and its files /calculator.js, /calculator.css
//   GET  /healthz       200 {"status":"ok"}
//   GET  /v1/models     the folders under each model root holding a config.json
//   POST /v1/estimate   {model, max_tokens, batch, kv_cache_mode, ...} -> the
//                       JSON object of `memfit inspect --json`
//   POST /v1/fit        {model, batch, curve_tokens, ...} -> the largest
//                       context that fits for each KV mode, and the total at
//                       each context of curve_tokens
//   POST /v1/admit      {model, prompt_tokens, cached_tokens, ...} -> 200
//                       {admitted: true, peak_bytes, ...} or 400 with error
//                       code "prefill_memory_exceeded"
//   GET  /metrics       Prometheus text format, memfit_* gauges and counters
//
// Every error is 4xx/5xx with the body {"error": {"code", "message", ...}};
// docs/service.md lists the request fields, codes and security rules.
//
// Service is the whole service without sockets: handle() maps a method,
// path and body to a response, so it can be tested and benchmarked
// directly. HttpServer binds one Service to a TCP port.
#ifndef MEMFIT_SERVICE_H_
#define MEMFIT_SERVICE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/mlxcel.h"
#include "memfit/header_store.h"
#include "memfit/hf_cache.h"
#include "memfit/hub_options.h"
#include "memfit/host_memory.h"
#include "memfit/prefill_guard.h"
#include "memfit/process_gauges.h"
#include "memfit/result.h"
#include "memfit/mlxcel_settings.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct HttpResponse {
  int status = 200;
  std::string content_type;  // "application/json"; Prometheus text for /metrics; the page's types
  std::string body;
  // Extra headers: "Allow" on 405; the page's Content-Security-Policy.
  std::vector<std::pair<std::string, std::string>> headers;
};

struct ServiceOptions {
  // Folders whose models may be named. Each must exist; it is resolved to
  // its real path once, at create(). A request names a model by a path
  // relative to a root (tried in order) or by an absolute path inside one;
  // a path that leaves every root (by "..", by being elsewhere, or through
  // a symlink) is refused, and so is any file a model's loader would read
  // outside the roots.
  std::vector<std::string> model_roots;

  // Hugging Face names in requests ("org/name[@revision][:QUANT]",
  // model_by_name.h). A name no root holds that is a Hub name is refused
  // with 403 hub_not_allowed, unless allow_hub: then it is opened by
  // open_model_by_name from the Hugging Face cache at `hf_cache`, else from
  // the Hub at `hub` (its endpoint and the operator's token: every caller
  // reads what that token may read), keeping headers in `header_store`
  // (null: none), never as a local path. Off by default: a public service
  // must not read or fetch on any caller's behalf unless asked. An empty
  // hf_cache.hub_cache_dir is read from the process environment at create().
  bool allow_hub = false;
  HfCacheOptions hf_cache;
  HubOptions hub;
  std::shared_ptr<HeaderStore> header_store;

  MlxcelSettings settings;  // as mlxcel_settings_from_environment reads them
  // What reading the settings warned about: in every estimate's warnings,
  // as the CLI and the C API give them.
  std::vector<std::string> settings_warnings;
  Platform platform = build_platform();
  // An explicit budget, host.explicit_limit_bytes (else
  // settings.memory_limit_bytes), wins over the machine's memory for every
  // request that gives no limit of its own; it is also /v1/admit's hard
  // limit when a request names none. host.device is the service's device.
  HostQueryOptions host;
  SdpaKernels kernels;  // tiled head dims the admitting runtime serves

  // Bodies larger than this are refused with 413 (64 KiB).
  size_t max_body_bytes = 64 * 1024;
  // One host query is reused for this long by estimates, admissions and
  // /metrics; 0 queries on every request.
  uint64_t host_reuse_ms = 250;

  // Test doubles; empty means the real machine (query_host_memory(host),
  // read_process_gauges(host.sysroot)). query_host is called by one request
  // thread at a time; read_gauges may be called by several at once.
  std::function<HostMemoryStatus()> query_host;
  std::function<ProcessGauges()> read_gauges;
  // The request_id of a /v1/admit request that names none; empty means a
  // random "req-<16 hex digits>" (check_prefill's own). A fixed one makes a
  // run repeatable (the fuzz target). May be called by several threads.
  std::function<std::string()> make_request_id;
};

struct ServiceState;  // src/service/service_state.h

class Service {
 public:
  // Fails when a model root does not exist or is not a folder:
  // `model root 'x': No such file or directory`.
  static Result<std::unique_ptr<Service>> create(ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Serves one request. `path` is the request target's path (a query
  // string is ignored); HEAD is answered as GET. Never throws and never
  // fails: every problem is an error response. Thread-safe.
  HttpResponse handle(std::string_view method, std::string_view path, std::string_view body);

  // The 413 response handle() gives for an oversized body, for a server
  // that refuses the body before reading it.
  HttpResponse payload_too_large() const;
  size_t max_body_bytes() const;

  // The model roots as real paths, in order.
  const std::vector<std::string>& model_roots() const;

 private:
  explicit Service(std::unique_ptr<ServiceState> state);
  std::unique_ptr<ServiceState> state_;
};

// Where `memfit serve` listens: "host:port" or a bare port (host
// 127.0.0.1). Port 0 asks the OS for a free one.
struct ListenAddress {
  std::string host = "127.0.0.1";
  int port = 8765;
};
// Fails with `listen address 'x': expected host:port with a port 0-65535`.
Result<ListenAddress> parse_listen_address(std::string_view text);

// What HttpServer does with a request: the method, the request target (the
// path, with any query string) and the body, to the response. Called on
// the server's threads, several at once; must not throw.
using HttpHandler = std::function<HttpResponse(std::string_view method, std::string_view target,
                                               std::string_view body)>;

// The limits that keep the server answering under hostile clients
// (docs/service.md, "Limits", has the reasons for each default). A request
// over a limit is answered with an error and its connection closed.
struct HttpServerOptions {
  // Threads for the endpoints that do work (estimates, fits, admissions,
  // models, the page). /healthz is answered on the I/O thread and
  // /metrics on a thread of its own, so neither waits behind them.
  size_t worker_threads = 8;
  // Requests that wait while every worker is busy; one more is answered
  // 503 (server_busy) at once.
  size_t max_queued_requests = 64;

  // Connections held at once, in all and from one client IP address. A
  // connection over either cap is answered 503 (too_many_connections) and
  // closed without its request being read.
  size_t max_connections = 2048;
  size_t max_connections_per_address = 64;

  // From a request's first byte to the last byte of its body: a client
  // that trickles its request is answered 408 (request_timeout) and
  // dropped when this runs out, however steadily it sends.
  uint64_t request_deadline_ms = 10000;
  // An open connection with no request begun (before the first one, and
  // between keep-alive requests) is closed after this long.
  uint64_t idle_timeout_ms = 5000;
  // Writing one response; a client that does not take it is dropped.
  uint64_t write_deadline_ms = 5000;
  // The request line and headers together; larger: 431 (header_too_large).
  size_t max_header_bytes = 8192;
  // Requests served on one connection; then it is closed.
  size_t keep_alive_max_requests = 100;
};

// A TCP server for one Service (Boost.Beast over Asio). Usage: bind(), then
// serve() on one thread and stop() from any other (a signal watcher, a
// test). `service` must outlive the server.
class HttpServer {
 public:
  explicit HttpServer(Service& service, HttpServerOptions options = {});
  // Serves `handler` instead of a Service (tests: a handler that blocks
  // until released fills the workers). Bodies over `max_body_bytes` are
  // refused with 413 before they are read.
  HttpServer(HttpHandler handler, size_t max_body_bytes, HttpServerOptions options = {});
  // Stops serving and waits for serve() to return; the caller still joins
  // the thread that ran it.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens; returns the bound port (the OS's pick for port 0).
  // Fails with `listen on 127.0.0.1:80: cannot bind: Permission denied`.
  Result<int> bind(const ListenAddress& address);

  // Accepts and serves connections until stop(); returns at once when
  // stop() came first. Runs the I/O on the calling thread and the workers
  // on threads it starts and joins. Precondition: bind() succeeded.
  Status serve();

  // Makes serve() return: stops accepting, closes every connection that
  // has no request being handled, and answers the requests being handled.
  // Thread-safe; idempotent; may be called before serve() starts.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_SERVICE_H_
