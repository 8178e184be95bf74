#include "support/http_test_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>

namespace memfit::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string errno_text(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

int millis_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// "HTTP/1.1 200 OK\r\nName: value\r\n..." (without the blank line).
Result<HttpReply> parse_head(std::string_view head) {
  HttpReply reply;
  size_t end = head.find("\r\n");
  std::string_view status_line = head.substr(0, end);
  if (status_line.substr(0, 5) != "HTTP/" || status_line.size() < 12) {
    return Error("malformed status line '" + std::string(status_line) + "'");
  }
  std::string_view code = status_line.substr(9, 3);
  if (std::from_chars(code.data(), code.data() + 3, reply.status).ec != std::errc()) {
    return Error("malformed status line '" + std::string(status_line) + "'");
  }
  while (end != std::string_view::npos) {
    size_t start = end + 2;
    end = head.find("\r\n", start);
    std::string_view line = head.substr(start, end == std::string_view::npos ? end : end - start);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos)
      return Error("malformed header '" + std::string(line) + "'");
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    reply.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  return reply;
}

}  // namespace

std::string HttpReply::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequal(key, name)) return value;
  }
  return "";
}

std::string format_request(std::string_view method, std::string_view target, std::string_view body,
                           std::string_view extra_headers) {
  std::string request =
      std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!body.empty() || method == "POST") {
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += extra_headers;
  request += "\r\n";
  request += body;
  return request;
}

Result<HttpTestConnection> HttpTestConnection::open(int port, const std::string& source_address) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Error(errno_text("socket"));
  HttpTestConnection connection(fd);
  int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  if (!source_address.empty()) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source_address.c_str(), &local.sin_addr) != 1) {
      return Error("bad source address '" + source_address + "'");
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof(local)) != 0) {
      return Error(errno_text("bind " + source_address));
    }
  }
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(static_cast<uint16_t>(port));
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof(server)) != 0) {
    if (errno != EINPROGRESS) return Error(errno_text("connect"));
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 5000) != 1) return Error("connect: no answer within 5 s");
    int error = 0;
    socklen_t length = sizeof(error);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return Error(std::string("connect: ") + std::strerror(error));
  }
  return connection;
}

HttpTestConnection::HttpTestConnection(HttpTestConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      pending_(std::move(other.pending_)),
      head_sent_(other.head_sent_),
      error_(std::move(other.error_)) {}

HttpTestConnection& HttpTestConnection::operator=(HttpTestConnection&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    pending_ = std::move(other.pending_);
    head_sent_ = other.head_sent_;
    error_ = std::move(other.error_);
  }
  return *this;
}

HttpTestConnection::~HttpTestConnection() {
  if (fd_ >= 0) ::close(fd_);
}

Status HttpTestConnection::send(std::string_view bytes) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Error(errno_text("send"));
    }
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, millis_until(deadline)) != 1) return Error("send: not taken within 10 s");
  }
  return Status::Ok();
}

int HttpTestConnection::read_some(Clock::time_point deadline) {
  for (;;) {
    char buffer[16384];
    ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n > 0) {
      pending_.append(buffer, static_cast<size_t>(n));
      return static_cast<int>(n);
    }
    if (n == 0) return 0;
    if (errno == ECONNRESET) return 0;  // the server's end, abruptly
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      error_ = errno_text("recv");
      return -1;
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, millis_until(deadline)) != 1) {
      error_ = "no answer in time";
      return -1;
    }
  }
}

Result<HttpReply> HttpTestConnection::read_reply(std::chrono::milliseconds timeout,
                                                 bool return_interim) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    size_t head_end = pending_.find("\r\n\r\n");
    while (head_end == std::string::npos) {
      int n = read_some(deadline);
      if (n == 0)
        return Error("connection closed before a reply (" + std::to_string(pending_.size()) +
                     " bytes)");
      if (n < 0) return Error("reading the reply: " + error_);
      head_end = pending_.find("\r\n\r\n");
    }
    Result<HttpReply> reply = parse_head(std::string_view(pending_).substr(0, head_end));
    if (!reply.ok()) return reply;
    pending_.erase(0, head_end + 4);
    if (reply->status == 100 && !return_interim) continue;  // the real one follows
    if (reply->status == 100 || std::exchange(head_sent_, false)) return reply;  // no body

    const std::string length_text = reply->header("Content-Length");
    std::optional<size_t> length;
    if (!length_text.empty()) {
      size_t value = 0;
      if (std::from_chars(length_text.data(), length_text.data() + length_text.size(), value).ec !=
          std::errc()) {
        return Error("malformed Content-Length '" + length_text + "'");
      }
      length = value;
    }
    for (;;) {
      if (length && pending_.size() >= *length) break;
      int n = read_some(deadline);
      if (n == 0 && !length) break;  // the body ends with the connection
      if (n == 0) return Error("connection closed inside the body");
      if (n < 0) return Error("reading the body: " + error_);
    }
    const size_t body_bytes = length ? *length : pending_.size();
    reply->body = pending_.substr(0, body_bytes);
    pending_.erase(0, body_bytes);
    return reply;
  }
}

Result<HttpReply> HttpTestConnection::request(std::string_view method, std::string_view target,
                                              std::string_view body) {
  Status sent = send(format_request(method, target, body));
  if (!sent.ok()) return sent.error();
  head_sent_ = method == "HEAD";
  return read_reply();
}

bool HttpTestConnection::closed_within(std::chrono::milliseconds timeout, std::string* received) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int n = read_some(deadline);
    if (n > 0) continue;
    if (received != nullptr) received->append(pending_);
    pending_.clear();
    return n == 0;
  }
}

Result<HttpReply> http_request(int port, std::string_view method, std::string_view target,
                               std::string_view body) {
  Result<HttpTestConnection> connection = HttpTestConnection::open(port);
  if (!connection.ok()) return connection.error();
  return connection->request(method, target, body);
}

}  // namespace memfit::testing
