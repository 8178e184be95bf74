// Connection: one client of HttpServer, from accept to close (the phases
// are drawn in http_connection.h). Every member runs on the I/O thread;
// the only work elsewhere is the handler call a worker makes, which hands
// its response back through the io_context.
#include "service/http_connection.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string_view>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <fmt/format.h>

#include "service/api_error.h"

namespace memfit::service {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::asio::ip::tcp;

namespace {

// How long a closing connection keeps reading (and discarding) what the
// client still sends, so that the client reads our answer rather than a
// reset; and how much it discards before giving up.
constexpr uint64_t kLingerMs = 1000;
constexpr size_t kMaxLingerBytes = 1 << 20;
// A refusal is one small write into an empty socket buffer.
constexpr uint64_t kRefusalWriteMs = 1000;

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// Which thread answers a request. /healthz is a constant answer, made on
// the I/O thread so that it never waits behind anything. /metrics reads
// /proc and the shared host snapshot: its own thread, so a scrape is never
// queued behind estimates and a scrape flood cannot take the workers.
// Everything else may read model headers from disk: the workers.
enum class Lane { kInline, kControl, kWorkers };

Lane lane_for(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/healthz") return Lane::kInline;
  if (path == "/metrics") return Lane::kControl;
  return Lane::kWorkers;
}

HttpResponse server_error(int status, std::string code, std::string message) {
  return error_response(ApiError{status, std::move(code), std::move(message), Json::object()});
}

HttpResponse call_handler(const HttpHandler& handler, std::string_view method,
                          std::string_view target, std::string_view body) {
  try {
    return handler(method, target, body);
  } catch (const std::exception& e) {
    return server_error(500, "internal_error", std::string("internal error: ") + e.what());
  } catch (...) {
    return server_error(500, "internal_error", "internal error: unknown exception");
  }
}

bool is_parse_error(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category();
}

}  // namespace

Connection::Connection(ServerContext& server, tcp::socket socket, std::string address,
                       bool admitted)
    : server_(server),
      socket_(std::move(socket)),
      timer_(server.io),
      address_(std::move(address)),
      admitted_(admitted),
      // Room for a whole head and one read past it; the parser refuses a
      // head over the limit before the buffer is full.
      buffer_(server.options.max_header_bytes + 1024) {
  server_.live.insert(this);
}

void Connection::start() { wait_for_request(); }

void Connection::refuse(Admission why) {
  const HttpServerOptions& o = server_.options;
  std::string message =
      why == Admission::kOverAddress
          ? fmt::format(
                "{} connections from {} are open, the most one address may hold; retry later",
                o.max_connections_per_address, address_)
          : fmt::format("{} connections are open, the most the server holds; retry later",
                        o.max_connections);
  HttpResponse response = server_error(503, "too_many_connections", std::move(message));
  response.headers.emplace_back("Retry-After", "1");
  answer(std::move(response), /*close_after=*/true, kRefusalWriteMs);
}

void Connection::on_server_stop() {
  switch (phase_) {
    case Phase::kHandling:
    case Phase::kWriting:
      close_after_write_ = true;  // answered, then closed (on_written sees stopping)
      return;
    case Phase::kIdle:
    case Phase::kReading:
    case Phase::kLingering:
      close();
      return;
    case Phase::kClosed:
      return;
  }
}

void Connection::wait_for_request() {
  phase_ = Phase::kIdle;
  parser_.emplace();
  parser_->header_limit(
      static_cast<std::uint32_t>(std::min<size_t>(server_.options.max_header_bytes, UINT32_MAX)));
  parser_->body_limit(server_.max_body_bytes);
  if (buffer_.size() > 0) {  // a pipelined request has begun already
    read_request();
    return;
  }
  arm(server_.options.idle_timeout_ms);
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
    if (self->phase_ != Phase::kIdle) return;
    if (ec) {
      self->close();
      return;
    }
    self->read_request();  // the first byte is here (or the end: the read sees it)
  });
}

void Connection::read_request() {
  phase_ = Phase::kReading;
  http_version_ = 11;  // until the head says otherwise: a 408 or 431 is 1.1
  head_ = false;
  arm(server_.options.request_deadline_ms);
  http::async_read_header(socket_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, size_t) {
                            if (self->phase_ != Phase::kReading) return;  // timed out or stopped
                            self->on_header(ec);
                          });
}

void Connection::on_header(beast::error_code ec) {
  if (ec) {
    on_read_error(ec);
    return;
  }
  if (parser_->is_done()) {
    on_request();
    return;
  }
  // A chunked body has no length to reserve up front; growing by doubling
  // could take its string to twice the limit. Reserved whole, it stays
  // within max_body_bytes (the parser refuses a chunk past the limit
  // before storing it).
  if (parser_->chunked()) parser_->get().body().reserve(server_.max_body_bytes);
  // A client that waits for "100 Continue" before its body (curl does for
  // bodies over 1 KiB) gets it, under the same deadline.
  const auto expect = parser_->get().find(http::field::expect);
  if (expect != parser_->get().end() && beast::iequals(expect->value(), "100-continue")) {
    asio::async_write(socket_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](beast::error_code write_ec, size_t) {
                        if (self->phase_ != Phase::kReading) return;
                        if (write_ec) {
                          self->close();
                          return;
                        }
                        self->read_body();
                      });
    return;
  }
  read_body();
}

void Connection::read_body() {
  http::async_read(socket_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code ec, size_t) {
                     if (self->phase_ != Phase::kReading) return;
                     if (ec) {
                       self->on_read_error(ec);
                       return;
                     }
                     self->on_request();
                   });
}

void Connection::on_read_error(beast::error_code ec) {
  if (ec == http::error::body_limit) {
    answer(server_.payload_too_large, /*close_after=*/true, server_.options.write_deadline_ms);
  } else if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
    answer(server_error(431, "header_too_large",
                        fmt::format("request line and headers larger than {} bytes",
                                    server_.options.max_header_bytes)),
           /*close_after=*/true, server_.options.write_deadline_ms);
  } else if (is_parse_error(ec) && ec != http::error::end_of_stream &&
             ec != http::error::partial_message) {
    answer(server_error(400, "bad_request", "malformed HTTP request: " + ec.message()),
           /*close_after=*/true, server_.options.write_deadline_ms);
  } else {
    close();  // the client left (or reset) mid-request: nobody to answer
  }
}

void Connection::on_request() {
  disarm();
  phase_ = Phase::kHandling;
  auto& request = parser_->get();
  http_version_ = request.version() == 10 ? 10 : 11;
  head_ = request.method() == http::verb::head;
  keep_alive_ = request.keep_alive();
  std::string method(request.method_string());
  std::string target(request.target());
  std::string body = std::move(request.body());
  parser_.reset();  // the request's memory goes now, not at the next one

  switch (lane_for(target)) {
    case Lane::kInline:
      answer(call_handler(server_.handler, method, target, body), false,
             server_.options.write_deadline_ms);
      return;
    case Lane::kControl:
      dispatch(server_.control, std::move(method), std::move(target), std::move(body));
      return;
    case Lane::kWorkers:
      dispatch(server_.workers, std::move(method), std::move(target), std::move(body));
      return;
  }
}

void Connection::dispatch(WorkerPool* pool, std::string method, std::string target,
                          std::string body) {
  // The guard keeps io.run() going until the answer is posted back, so
  // serve() cannot return with a request still being handled.
  auto guard = std::make_shared<asio::executor_work_guard<asio::io_context::executor_type>>(
      server_.io.get_executor());
  auto job = [self = shared_from_this(), guard = std::move(guard), method = std::move(method),
              target = std::move(target), body = std::move(body)]() mutable {
    HttpResponse response = call_handler(self->server_.handler, method, target, body);
    ServerContext& server = self->server_;
    asio::post(server.io, [self = std::move(self), response = std::move(response)]() mutable {
      self->answer(std::move(response), false, self->server_.options.write_deadline_ms);
    });
  };
  if (pool != nullptr && pool->try_submit(std::move(job))) return;
  HttpResponse busy = server_error(
      503, "server_busy",
      fmt::format("all {} workers are busy and {} requests wait; retry later",
                  server_.options.worker_threads, server_.options.max_queued_requests));
  busy.headers.emplace_back("Retry-After", "1");
  answer(std::move(busy), /*close_after=*/true, server_.options.write_deadline_ms);
}

void Connection::answer(HttpResponse response, bool close_after, uint64_t write_deadline_ms) {
  if (phase_ == Phase::kClosed) return;
  if (phase_ == Phase::kReading) socket_.cancel();  // a deadline or an error: stop the read
  close_after_write_ = close_after_write_ || close_after || !keep_alive_ || server_.stopping ||
                       requests_answered_ + 1 >= server_.options.keep_alive_max_requests;
  response_ = {};
  response_.version(http_version_);
  response_.result(static_cast<unsigned>(response.status));
  if (!response.content_type.empty()) {
    response_.set(http::field::content_type, response.content_type);
  }
  for (const auto& [name, value] : response.headers) response_.insert(name, value);
  response_.body() = std::move(response.body);
  response_.prepare_payload();  // Content-Length of the full body, HEAD included
  if (head_) response_.body().clear();
  response_.keep_alive(!close_after_write_);

  phase_ = Phase::kWriting;
  arm(write_deadline_ms);
  http::async_write(socket_, response_, [self = shared_from_this()](beast::error_code ec, size_t) {
    if (self->phase_ != Phase::kWriting) return;
    self->on_written(ec);
  });
}

void Connection::on_written(beast::error_code ec) {
  disarm();
  response_ = {};
  if (ec || server_.stopping) {
    close();
    return;
  }
  ++requests_answered_;
  if (close_after_write_) {
    linger();
    return;
  }
  wait_for_request();
}

void Connection::linger() {
  phase_ = Phase::kLingering;
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  // A separate buffer: a cancelled read may still name buffer_ until its
  // handler has run.
  drain_buffer_ = std::make_unique<std::array<char, 4096>>();
  arm(kLingerMs);
  drain();
}

void Connection::drain() {
  socket_.async_read_some(asio::buffer(*drain_buffer_),
                          [self = shared_from_this()](beast::error_code ec, size_t n) {
                            if (self->phase_ != Phase::kLingering) return;
                            self->drained_bytes_ += n;
                            if (ec || self->drained_bytes_ > kMaxLingerBytes) {
                              self->close();  // the client's end, an error, or enough
                              return;
                            }
                            self->drain();
                          });
}

void Connection::close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  disarm();
  beast::error_code ignored;
  socket_.close(ignored);
  server_.live.erase(this);
  if (admitted_) {
    server_.limits.release(address_);
  } else {
    --server_.refusals_in_flight;
  }
}

void Connection::arm(uint64_t ms) {
  const uint64_t generation = ++timer_generation_;
  timer_.expires_after(std::chrono::milliseconds(ms));
  timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
    if (ec || generation != self->timer_generation_) return;  // re-armed, disarmed or closed
    self->on_deadline();
  });
}

void Connection::disarm() {
  ++timer_generation_;
  timer_.cancel();
}

void Connection::on_deadline() {
  switch (phase_) {
    case Phase::kReading:
      answer(server_error(408, "request_timeout",
                          fmt::format("the request was not received within {} ms",
                                      server_.options.request_deadline_ms)),
             /*close_after=*/true, server_.options.write_deadline_ms);
      return;
    case Phase::kIdle:       // nothing begun: nothing to answer
    case Phase::kWriting:    // the client does not read
    case Phase::kLingering:  // enough waiting for the client's end
      close();
      return;
    case Phase::kHandling:
    case Phase::kClosed:
      return;
  }
}

}  // namespace memfit::service
