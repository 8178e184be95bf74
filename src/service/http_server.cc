// HttpServer: Boost.Beast over Asio in front of a handler (Service::handle).
//
// Why not a thread per connection (cpp-httplib, which this replaced): there
// a slow client holds a thread for as long as it trickles, so as many slow
// clients as threads stop the service, and nothing can refuse a
// connection before a thread has taken it. Here one I/O thread (serve()'s)
// multiplexes every connection, each with its own deadline timer
// (http_connection.h), and threads are spent only on complete requests:
//
//   accept ── over a cap? ── yes: canned 503, close (nothing read)
//     │ no
//   Connection: read the head and body under one deadline (408), with the
//     │         header (431) and body (413) limits checked as they arrive
//     ├── /healthz: answered on the I/O thread
//     ├── /metrics: a one-thread lane (WorkerPool of 1 and a short queue)
//     └── the rest: WorkerPool(worker_threads, max_queued_requests); full: 503
//
// Stopping: stop() posts to the I/O thread, which closes the acceptor and
// every connection without a request being handled; io.run() returns once
// the last answer is written (each queued job holds a work guard).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include "memfit/service.h"
#include "service/api_error.h"
#include "service/http_connection.h"
#include "service/worker_pool.h"

namespace memfit {

namespace asio = boost::asio;
using boost::asio::ip::tcp;
using service::Admission;
using service::Connection;
using service::ServerContext;

namespace {

// The /metrics lane: one thread, and scrapes that may wait behind it.
constexpr size_t kControlQueue = 8;
// After an accept error other than a client's abort (out of descriptors:
// EMFILE, ENFILE; out of memory), the pending connection stays in the
// backlog; accepting again at once would spin.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);

// Sent whole, non-blocking, into a new socket's empty buffer when even the
// refusals are over their cap.
const std::string& canned_busy() {
  static const std::string response = [] {
    const std::string body =
        "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"too many connections; "
        "retry later\"}}\n";
    return fmt::format(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{}",
        body.size(), body);
  }();
  return response;
}

}  // namespace

struct HttpServer::Impl {
  Impl(HttpHandler handler, size_t max_body_bytes, HttpResponse too_large, HttpServerOptions o)
      : context(io, o, std::move(handler), max_body_bytes, std::move(too_large)) {}

  void accept();
  void on_accepted(tcp::socket socket);
  void shutdown();  // on the I/O thread

  // Declared first, destroyed last: what is below refers to it.
  asio::io_context io;
  ServerContext context;
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  bool bound = false;

  std::atomic<bool> stop_requested{false};
  std::mutex mu;
  std::condition_variable serve_returned;
  bool serving = false;  // guarded by mu
};

void HttpServer::Impl::accept() {
  acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (context.stopping) return;
    if (!ec) {
      on_accepted(std::move(socket));
      accept();
      return;
    }
    if (ec == asio::error::operation_aborted) return;
    if (ec == asio::error::connection_aborted) {  // that client gave up: the next one
      accept();
      return;
    }
    accept_retry.expires_after(kAcceptRetryDelay);
    accept_retry.async_wait([this](boost::system::error_code wait_ec) {
      if (!wait_ec && !context.stopping) accept();
    });
  });
}

void HttpServer::Impl::on_accepted(tcp::socket socket) {
  boost::system::error_code ec;
  const tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) return;                              // reset before we looked: the socket closes here
  socket.set_option(tcp::no_delay(true), ec);  // small answers, no Nagle delay
  std::string address = peer.address().to_string();
  const Admission admission = context.limits.try_admit(address);
  if (admission == Admission::kAdmitted) {
    std::make_shared<Connection>(context, std::move(socket), std::move(address), true)->start();
    return;
  }
  if (context.refusals_in_flight < service::kMaxRefusalsInFlight) {
    ++context.refusals_in_flight;
    std::make_shared<Connection>(context, std::move(socket), std::move(address), false)
        ->refuse(admission);
    return;
  }
  socket.non_blocking(true, ec);
  socket.write_some(asio::buffer(canned_busy()), ec);
  socket.close(ec);
}

void HttpServer::Impl::shutdown() {
  if (context.stopping) return;
  context.stopping = true;
  boost::system::error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  std::vector<std::shared_ptr<Connection>> live;
  live.reserve(context.live.size());
  for (Connection* c : context.live) live.push_back(c->shared_from_this());
  for (const std::shared_ptr<Connection>& c : live) c->on_server_stop();
}

HttpServer::HttpServer(Service& service, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(
          [&service](std::string_view method, std::string_view target, std::string_view body) {
            return service.handle(method, target, body);
          },
          service.max_body_bytes(), service.payload_too_large(), options)) {}

HttpServer::HttpServer(HttpHandler handler, size_t max_body_bytes, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(
          std::move(handler), max_body_bytes,
          service::error_response(
              service::ApiError{413, "payload_too_large",
                                fmt::format("request body larger than {} bytes", max_body_bytes),
                                service::Json::object()}),
          options)) {}

HttpServer::~HttpServer() {
  stop();
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->serve_returned.wait(lock, [this] { return !impl_->serving; });
}

Result<int> HttpServer::bind(const ListenAddress& address) {
  const auto fail = [&](const boost::system::error_code& ec) {
    return Error(
        fmt::format("listen on {}:{}: cannot bind: {}", address.host, address.port, ec.message()));
  };
  boost::system::error_code ec;
  tcp::endpoint endpoint(asio::ip::make_address(address.host, ec),
                         static_cast<unsigned short>(address.port));
  if (ec) {  // a name, not an address: "localhost"
    tcp::resolver resolver(impl_->io);
    auto results = resolver.resolve(address.host, std::to_string(address.port), ec);
    if (ec) return fail(ec);
    if (results.empty()) return fail(asio::error::host_not_found);
    endpoint = results.begin()->endpoint();
  }
  tcp::acceptor& acceptor = impl_->acceptor;
  if (acceptor.is_open()) acceptor.close(ec);
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail(ec);
  // SO_REUSEADDR allows a restart while old connections sit in TIME_WAIT;
  // SO_REUSEPORT, never set, would let a second server share the port.
  acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    return fail(ec);
  }
  const tcp::endpoint local = acceptor.local_endpoint(ec);
  if (ec) return fail(ec);
  impl_->bound = true;
  return static_cast<int>(local.port());
}

Status HttpServer::serve() {
  Impl& impl = *impl_;
  if (!impl.bound) return Error("serve: not bound to a port");
  {
    std::lock_guard<std::mutex> lock(impl.mu);
    impl.serving = true;
  }
  Status result = Status::Ok();
  if (!impl.stop_requested) {
    service::WorkerPool workers(impl.context.options.worker_threads,
                                impl.context.options.max_queued_requests);
    service::WorkerPool control(1, kControlQueue);
    impl.context.workers = &workers;
    impl.context.control = &control;
    try {
      impl.accept();
      impl.io.run();
    } catch (const std::exception& e) {
      result = Error(std::string("serve: ") + e.what());
    }
    if (!result.ok()) {  // unwind what is left, so the pools can finish
      impl.io.stop();
    }
    impl.context.workers = nullptr;
    impl.context.control = nullptr;
  }  // the pools join here: every job has already answered
  {
    std::lock_guard<std::mutex> lock(impl.mu);
    impl.serving = false;
  }
  impl.serve_returned.notify_all();
  return result;
}

void HttpServer::stop() {
  impl_->stop_requested = true;
  asio::post(impl_->io, [impl = impl_.get()] { impl->shutdown(); });
}

}  // namespace memfit
