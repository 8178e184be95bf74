// One client connection of HttpServer, and what all of them share. Private
// to src/service; everything here runs on the server's one I/O thread
// unless a comment says otherwise.
//
// A connection's phases, each with at most one timer running:
//
//   phase       what happens                           when its timer runs out
//   kIdle       waiting for a request's first byte     idle_timeout_ms: closed
//   kReading    the head, then the body                request_deadline_ms: 408
//   kHandling   the handler (inline or on a worker)    no timer: the pools bound it
//   kWriting    the answer                             write_deadline_ms: closed
//   kLingering  send side shut; what the client still  1 s (or 1 MiB read): closed
//               sends is read and dropped
//   kClosed     released from the limits
//
//   kIdle -> kReading -> kHandling -> kWriting -> kIdle         (keep-alive)
//                                              -> kLingering    (Connection: close)
//   kReading -> kWriting: an error answer (over a limit, malformed, the deadline)
//   a refused connection starts in kWriting with its 503
//
// The request deadline runs from the first byte of the request line to the
// last byte of the body, across every read, so a client sending a byte a
// second is cut off as surely as one that stops. A handler's own time is
// not the client's to spend and has no timer: the worker pool bounds it.
#ifndef MEMFIT_SERVICE_HTTP_CONNECTION_H_
#define MEMFIT_SERVICE_HTTP_CONNECTION_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "memfit/service.h"
#include "service/connection_limits.h"
#include "service/worker_pool.h"

namespace memfit::service {

class Connection;

// Refused connections being answered at once; past this a refusal is a
// best-effort write and an immediate close, so a connect flood cannot
// hold descriptors through refusals.
inline constexpr size_t kMaxRefusalsInFlight = 64;

// What the connections of one server share. Owned by HttpServer::Impl.
struct ServerContext {
  ServerContext(boost::asio::io_context& io_context, HttpServerOptions server_options,
                HttpHandler request_handler, size_t body_limit_bytes,
                HttpResponse too_large_response)
      : io(io_context),
        options(server_options),
        handler(std::move(request_handler)),
        max_body_bytes(body_limit_bytes),
        payload_too_large(std::move(too_large_response)),
        limits(server_options.max_connections, server_options.max_connections_per_address) {}

  boost::asio::io_context& io;
  const HttpServerOptions options;
  const HttpHandler handler;  // called on any thread
  const size_t max_body_bytes;
  const HttpResponse payload_too_large;

  ConnectionLimits limits;               // admitted connections, counted until closed
  size_t refusals_in_flight = 0;         // refused connections still being answered
  std::unordered_set<Connection*> live;  // every Connection not yet closed
  bool stopping = false;                 // stop() has begun: no new requests
  WorkerPool* workers = nullptr;         // the endpoints that work; set while serve() runs
  WorkerPool* control = nullptr;         // /metrics; set while serve() runs
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `admitted`: counted in server.limits under `address` (released on
  // close); otherwise a refusal, counted in refusals_in_flight.
  Connection(ServerContext& server, boost::asio::ip::tcp::socket socket, std::string address,
             bool admitted);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Serves requests until the client leaves, a limit ends it, or stop().
  void start();
  // Answers 503 too_many_connections without reading, then closes.
  void refuse(Admission why);
  // The server is stopping: closes now unless a request is being handled
  // or answered, which is answered first.
  void on_server_stop();

 private:
  enum class Phase { kIdle, kReading, kHandling, kWriting, kLingering, kClosed };

  void wait_for_request();
  void read_request();
  void on_header(boost::beast::error_code ec);
  void read_body();
  void on_read_error(boost::beast::error_code ec);
  void on_request();
  void dispatch(WorkerPool* pool, std::string method, std::string target, std::string body);
  void answer(HttpResponse response, bool close_after, uint64_t write_deadline_ms);
  void on_written(boost::beast::error_code ec);
  void linger();
  void drain();
  void close();

  // Runs on_deadline() after `ms` unless re-armed or disarmed first.
  void arm(uint64_t ms);
  void disarm();
  void on_deadline();

  ServerContext& server_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer timer_;
  uint64_t timer_generation_ = 0;  // a wait whose generation is stale is ignored
  const std::string address_;
  const bool admitted_;

  Phase phase_ = Phase::kIdle;
  // Holds at most max_header_bytes plus one read of the body; the body
  // itself goes to the parser's string (at most max_body_bytes).
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  unsigned http_version_ = 11;  // the request's: 11 or 10
  bool head_ = false;           // the request was HEAD: the answer has no body
  bool keep_alive_ = false;     // the request allows another on this connection
  bool close_after_write_ = false;
  size_t requests_answered_ = 0;
  // The discarded rest of a refused request while lingering; allocated
  // only then.
  std::unique_ptr<std::array<char, 4096>> drain_buffer_;
  size_t drained_bytes_ = 0;
};

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_HTTP_CONNECTION_H_
