// HttpServer: cpp-httplib (Debian's compiled libcpp-httplib, 0.11) in front
// of Service::handle. Every method and path goes to the Service, which owns
// routing, 404 and 405; httplib itself only answers what it refuses before
// routing (a body over the limit: 413; a malformed request line: 400), and
// the error handler gives those the service's JSON error body.
//
// Stopping: httplib's Server::stop() does nothing until listen_after_bind()
// has marked the server running, so stop() waits for that, or for serve()
// to have seen the stop request first (both flags are sequentially
// consistent atomics: one of the two threads always sees the other's store).
#include <atomic>
#include <charconv>
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "memfit/service.h"
#include "service/api_error.h"

namespace memfit {

Result<ListenAddress> parse_listen_address(std::string_view text) {
  const auto fail = [&] {
    return Error(fmt::format("listen address '{}': expected host:port with a port 0-65535", text));
  };
  ListenAddress address;
  std::string_view port = text;
  if (size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {  // [::1]:8765
      host = host.substr(1, host.size() - 2);
    }
    if (host.empty()) return fail();
    address.host = std::string(host);
  }
  int value = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return fail();
  }
  address.port = value;
  return address;
}

struct HttpServer::Impl {
  Impl(Service& s, HttpServerOptions o) : service(s), options(o) {}

  Service& service;
  HttpServerOptions options;
  httplib::Server server;
  bool bound = false;
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> serving{false};
};

HttpServer::HttpServer(Service& service, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(service, options)) {
  Impl& impl = *impl_;
  const auto handler = [&service](const httplib::Request& request, httplib::Response& response) {
    HttpResponse answer = service.handle(request.method, request.path, request.body);
    response.status = answer.status;
    for (const auto& [name, value] : answer.headers) response.set_header(name, value);
    response.set_content(answer.body, answer.content_type);
  };
  const std::string any = ".*";
  impl.server.Get(any, handler);
  impl.server.Post(any, handler);
  impl.server.Put(any, handler);
  impl.server.Patch(any, handler);
  impl.server.Delete(any, handler);
  impl.server.Options(any, handler);
  impl.server.set_error_handler(httplib::Server::HandlerWithResponse(
      [&service](const httplib::Request&, httplib::Response& response) {
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        HttpResponse answer =
            response.status == 413
                ? service.payload_too_large()
                : service::error_response(service::ApiError{
                      response.status, response.status == 400 ? "bad_request" : "http_error",
                      fmt::format("HTTP {}: the request was refused before routing",
                                  response.status),
                      service::Json::object()});
        response.set_content(answer.body, answer.content_type);
        return httplib::Server::HandlerResponse::Handled;
      }));
  impl.server.set_payload_max_length(service.max_body_bytes());
  const auto read_timeout = std::chrono::milliseconds(options.read_timeout_ms);
  impl.server.set_read_timeout(read_timeout);
  impl.server.set_write_timeout(read_timeout);
  // Idle keep-alive connections hold a worker until this runs out, and
  // stop() waits for the workers.
  impl.server.set_keep_alive_timeout(2);
  impl.server.set_keep_alive_max_count(options.keep_alive_max_requests);
  impl.server.set_tcp_nodelay(true);
  // httplib sets SO_REUSEPORT by default, which lets a second server bind
  // the same port and silently share its connections; SO_REUSEADDR alone
  // only allows a restart while old connections linger in TIME_WAIT.
  impl.server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&yes), sizeof(yes));
  });
  const size_t threads = options.worker_threads > 0 ? options.worker_threads : 1;
  impl.server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
}

HttpServer::~HttpServer() {
  stop();
  while (impl_->serving) std::this_thread::yield();
}

Result<int> HttpServer::bind(const ListenAddress& address) {
  bool ok = false;
  int port = address.port;
  if (address.port == 0) {
    port = impl_->server.bind_to_any_port(address.host);
    ok = port > 0;
  } else {
    ok = impl_->server.bind_to_port(address.host, address.port);
  }
  if (!ok) return Error(fmt::format("listen on {}:{}: cannot bind", address.host, address.port));
  impl_->bound = true;
  return port;
}

Status HttpServer::serve() {
  if (!impl_->bound) return Error("serve: not bound to a port");
  impl_->serving = true;
  if (impl_->stop_requested) {
    impl_->serving = false;
    return Status::Ok();
  }
  const bool ok = impl_->server.listen_after_bind();
  // listen_after_bind() is false when stop() closed the socket too: only
  // an unrequested end is an error.
  Status result = Status::Ok();
  if (!ok && !impl_->stop_requested) result = Error("serve: the listening socket failed");
  impl_->serving = false;  // the last touch of *impl_: the destructor waits for it
  return result;
}

void HttpServer::stop() {
  impl_->stop_requested = true;
  while (impl_->serving && !impl_->server.is_running()) std::this_thread::yield();
  impl_->server.stop();
}

}  // namespace memfit
