// A small HTTP/1.1 client for the service tests, on plain POSIX sockets so
// that it shares nothing with the server under test and can misbehave on
// purpose: send a request a byte at a time, stop halfway, or connect from
// another loopback address (Linux routes all of 127.0.0.0/8 to lo, so a
// socket bound to 127.0.0.2 reaches a server on 127.0.0.1 as another
// client). Every call is bounded by a timeout, so a broken server fails a
// test instead of hanging it.
#ifndef MEMFIT_TESTS_SUPPORT_HTTP_TEST_CLIENT_H_
#define MEMFIT_TESTS_SUPPORT_HTTP_TEST_CLIENT_H_

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/result.h"

namespace memfit::testing {

struct HttpReply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // in the order received
  std::string body;

  // The first header named `name`, in any case; "" when there is none.
  std::string header(std::string_view name) const;
};

// The bytes of one request: the request line, Host, Content-Length when
// there is a body or the method is POST, `extra_headers` (each line ending
// "\r\n"), a blank line and the body.
std::string format_request(std::string_view method, std::string_view target,
                           std::string_view body = {}, std::string_view extra_headers = {});

// One TCP connection to 127.0.0.1:<port>. Move-only; closed by the
// destructor.
class HttpTestConnection {
 public:
  // Connects within 5 s, from `source_address` (an IPv4 address of this
  // host, e.g. "127.0.0.2") when it is not empty.
  static Result<HttpTestConnection> open(int port, const std::string& source_address = "");

  HttpTestConnection(HttpTestConnection&& other) noexcept;
  HttpTestConnection& operator=(HttpTestConnection&& other) noexcept;
  HttpTestConnection(const HttpTestConnection&) = delete;
  HttpTestConnection& operator=(const HttpTestConnection&) = delete;
  ~HttpTestConnection();

  // Sends all of `bytes` within 10 s.
  Status send(std::string_view bytes);
  // Reads one response within `timeout`: the body is Content-Length bytes
  // (none after a HEAD request()), or everything up to the close. A
  // "100 Continue" is skipped, or returned when `return_interim`.
  Result<HttpReply> read_reply(std::chrono::milliseconds timeout = std::chrono::seconds(10),
                               bool return_interim = false);
  // send(format_request(...)), then read_reply().
  Result<HttpReply> request(std::string_view method, std::string_view target,
                            std::string_view body = {});
  // True when the server ends the connection (a close or a reset) within
  // `timeout`; whatever arrives first is appended to *received.
  bool closed_within(std::chrono::milliseconds timeout, std::string* received = nullptr);

 private:
  explicit HttpTestConnection(int fd) : fd_(fd) {}
  // Reads what is there (waiting at most until `deadline`) onto pending_:
  // > 0 bytes read, 0 the server's end, -1 a timeout or an error (error_).
  int read_some(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string pending_;     // read and not yet returned
  bool head_sent_ = false;  // the last request() was HEAD: its reply has no body
  std::string error_;
};

// One request on a connection of its own.
Result<HttpReply> http_request(int port, std::string_view method, std::string_view target,
                               std::string_view body = {});

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_HTTP_TEST_CLIENT_H_
