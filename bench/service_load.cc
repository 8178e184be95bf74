// A hostile-client load on a running memfit-serve, loopback only, bounded
// in connections and time (docs/reliability.md, "Service under hostile
// clients"; bench/service-load.sh starts the server and runs this). At the
// same time, for --duration-s seconds:
//
//   tricklers  --trickle connections over --trickle-addresses source
//              addresses 127.0.1.<i>, each sending a request (half stuck in
//              the head, half in the body) one byte a second; cut off by
//              the server's deadline, each reconnects at once. With
//              --prefill-bytes N, every trickler is in the body and sends
//              N bytes of it at once first: the most memory a connection
//              can make the server hold. Plus
//              --over-cap connections from 127.0.2.1 alone, to show the
//              per-address cap refusing the ones over it.
//   hostile    --hostile-clients clients from 127.0.3.<i>, each sending in
//              turn: malformed JSON, a 1 MiB body, a malformed request line,
//              a 16 KiB head, and a body that stops short.
//   valid      --valid-clients keep-alive clients from 127.0.0.1 sending
//              POST /v1/estimate for --model, one after another.
//   prober     GET /healthz on a new connection every --probe-period-ms.
//
// It prints what each group saw, with the latencies of the valid requests
// and the probes, and the server's peak RSS (VmHWM of --server-pid). Exit
// 0 when every valid request and probe was answered 200 and the probes'
// p99 is under --healthz-p99-target-ms; 1 otherwise; 2 for bad arguments.
//
//   service_load --port 8765 [--server-pid PID] [--duration-s 30] ...
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

struct Options {
  int port = 0;
  int server_pid = 0;
  int duration_s = 30;
  int trickle = 1000;
  int trickle_addresses = 20;
  int over_cap = 80;
  int hostile_clients = 50;
  int valid_clients = 8;
  int probe_period_ms = 50;
  int healthz_p99_target_ms = 100;
  int prefill_bytes = 0;
  std::string model = "Qwen3-14B-MLX-4bit";
};

bool parse_options(int argc, char** argv, Options& o) {
  const std::map<std::string_view, int*> ints = {
      {"--port", &o.port},
      {"--server-pid", &o.server_pid},
      {"--duration-s", &o.duration_s},
      {"--trickle", &o.trickle},
      {"--trickle-addresses", &o.trickle_addresses},
      {"--over-cap", &o.over_cap},
      {"--hostile-clients", &o.hostile_clients},
      {"--valid-clients", &o.valid_clients},
      {"--probe-period-ms", &o.probe_period_ms},
      {"--healthz-p99-target-ms", &o.healthz_p99_target_ms},
      {"--prefill-bytes", &o.prefill_bytes},
  };
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view name = argv[i];
    const std::string_view value = argv[i + 1];
    if (name == "--model") {
      o.model = value;
      continue;
    }
    auto it = ints.find(name);
    int parsed = 0;
    if (it == ints.end() ||
        std::from_chars(value.data(), value.data() + value.size(), parsed).ec != std::errc() ||
        parsed < 0) {
      std::fprintf(stderr, "service_load: bad argument %s %s\n", argv[i], argv[i + 1]);
      return false;
    }
    *it->second = parsed;
  }
  if (argc % 2 != 1 || o.port <= 0 || o.port > 65535 || o.trickle_addresses == 0 ||
      o.duration_s == 0 || o.duration_s > 600 || o.trickle > 5000 || o.over_cap > 1000 ||
      o.hostile_clients > 250 || o.valid_clients > 64 || o.probe_period_ms == 0 ||
      o.prefill_bytes >= 60000) {
    std::fprintf(stderr,
                 "usage: service_load --port P [--server-pid PID] [--duration-s 1-600] "
                 "[--trickle 0-5000] [--trickle-addresses N] [--over-cap 0-1000] "
                 "[--hostile-clients 0-250] [--valid-clients 0-64] [--probe-period-ms MS] "
                 "[--healthz-p99-target-ms MS] [--prefill-bytes 0-59999] [--model NAME]\n");
    return false;
  }
  return true;
}

// Nearest-rank percentile of `values` (sorted in place), in ms.
double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

double millis_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The status code of the first response in `bytes`; 0 when there is none.
int status_of(std::string_view bytes) {
  if (bytes.size() < 12 || bytes.substr(0, 5) != "HTTP/") return 0;
  int status = 0;
  std::from_chars(bytes.data() + 9, bytes.data() + 12, status);
  return status;
}

// VmHWM (peak resident set) of `pid` in KiB; 0 when unknown.
uint64_t peak_rss_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

// ---- tricklers and hostile clients: one I/O thread -----------------------

struct GroupStats {
  uint64_t connects = 0;
  uint64_t connect_failures = 0;
  uint64_t cut_408 = 0;
  uint64_t refused_503 = 0;
  uint64_t other_ends = 0;
  int open_now = 0;  // connected, no answer yet
  int open_peak = 0;
  double first_cut_ms = 0;  // connect to 408, the first time
  double max_cut_ms = 0;
};

struct HostileStats {
  std::map<int, uint64_t> by_status;  // 0: closed with no answer
  uint64_t requests = 0;
};

struct LoadState {
  LoadState(asio::io_context& io_context, const Options& o) : io(io_context), options(o) {}
  asio::io_context& io;
  const Options& options;
  tcp::endpoint server;
  bool running = true;
  std::vector<GroupStats> groups{2};  // 0: tricklers, 1: the over-cap address
  HostileStats hostile;
};

class Trickler : public std::enable_shared_from_this<Trickler> {
 public:
  // `in_body`: stuck in the body (else in the head). The request is built
  // once per kind and prefill and shared.
  Trickler(LoadState& state, int group, asio::ip::address_v4 source, bool in_body)
      : state_(state),
        group_(group),
        source_(source),
        in_body_(in_body),
        socket_(state.io),
        timer_(state.io) {}

  void start() {
    beast::error_code ec;
    socket_.open(tcp::v4(), ec);
    if (!ec) socket_.bind(tcp::endpoint(source_, 0), ec);
    if (ec) {
      ++stats().connect_failures;
      retry_later();
      return;
    }
    socket_.async_connect(
        state_.server, [self = shared_from_this()](beast::error_code ec) { self->on_connect(ec); });
  }

 private:
  GroupStats& stats() { return state_.groups[group_]; }

  void on_connect(beast::error_code ec) {
    if (ec) {
      ++stats().connect_failures;
      retry_later();
      return;
    }
    connected_at_ = Clock::now();
    ++stats().connects;
    stats().open_peak = std::max(stats().open_peak, ++stats().open_now);
    open_ = true;
    static const std::string kHead = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    static const std::string kBody =
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 60000\r\n\r\n{" +
        std::string(static_cast<size_t>(state_.options.prefill_bytes), ' ');
    asio::async_write(socket_, asio::buffer(in_body_ ? kBody : kHead),
                      [self = shared_from_this()](beast::error_code, size_t) { self->tick(); });
    read();
  }

  void tick() {
    if (!open_) return;
    timer_.expires_after(seconds(1));
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->open_) return;
      static const char kByte = 'a';
      asio::async_write(self->socket_, asio::buffer(&kByte, 1),
                        [self](beast::error_code, size_t) { self->tick(); });
    });
  }

  void read() {
    socket_.async_read_some(asio::buffer(buffer_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (self->received_.size() < 64)
                                self->received_.append(self->buffer_.data(), n);
                              if (!ec) {
                                self->read();
                                return;
                              }
                              self->on_end();
                            });
  }

  void on_end() {
    open_ = false;
    --stats().open_now;
    timer_.cancel();
    beast::error_code ignored;
    socket_.close(ignored);
    const int status = status_of(received_);
    if (status == 408) {
      ++stats().cut_408;
      const double lived_ms = millis_since(connected_at_);
      if (stats().first_cut_ms == 0) stats().first_cut_ms = lived_ms;
      stats().max_cut_ms = std::max(stats().max_cut_ms, lived_ms);
    } else if (status == 503) {
      ++stats().refused_503;
    } else {
      ++stats().other_ends;
    }
    if (status == 503) {
      retry_later();
    } else {
      again();
    }
  }

  void retry_later() {
    timer_.expires_after(seconds(1));
    timer_.async_wait([self = shared_from_this()](beast::error_code) { self->again(); });
  }

  void again() {
    if (!state_.running) return;
    std::make_shared<Trickler>(state_, group_, source_, in_body_)->start();
  }

  LoadState& state_;
  const int group_;
  const asio::ip::address_v4 source_;
  const bool in_body_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::array<char, 512> buffer_{};
  std::string received_;  // the first bytes of the answer
  Clock::time_point connected_at_;
  bool open_ = false;
};

// The hostile requests, in the order each client sends them.
const std::vector<std::string>& hostile_requests() {
  static const std::vector<std::string> requests = [] {
    const std::string big(1 << 20, 'x');
    return std::vector<std::string>{
        // malformed JSON: the service answers 400
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\nConnection: close\r\n\r\n"
        "{\"model\":",
        // a 1 MiB body: 413 from the head
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + big,
        // a malformed request line: 400
        "GET\x01 / HTTP/1.1\r\n\r\n",
        // a 16 KiB head: 431
        "GET /healthz HTTP/1.1\r\nX-Pad: " + std::string(16384, 'p') + "\r\n\r\n",
        // a body that stops short: 408 at the deadline
        "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\"",
    };
  }();
  return requests;
}

class HostileRequest : public std::enable_shared_from_this<HostileRequest> {
 public:
  HostileRequest(LoadState& state, asio::ip::address_v4 source, size_t turn)
      : state_(state), source_(source), turn_(turn), socket_(state.io) {}

  void start() {
    beast::error_code ec;
    socket_.open(tcp::v4(), ec);
    if (!ec) socket_.bind(tcp::endpoint(source_, 0), ec);
    if (ec) {
      finish();
      return;
    }
    socket_.async_connect(state_.server, [self = shared_from_this()](beast::error_code ec) {
      if (ec) {
        self->finish();
        return;
      }
      const std::string& request = hostile_requests()[self->turn_ % hostile_requests().size()];
      asio::async_write(self->socket_, asio::buffer(request),
                        [self](beast::error_code, size_t) {});  // the read decides
      self->read();
    });
  }

 private:
  void read() {
    socket_.async_read_some(asio::buffer(buffer_),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (self->received_.size() < 64)
                                self->received_.append(self->buffer_.data(), n);
                              if (!ec) {
                                self->read();
                                return;
                              }
                              self->finish();
                            });
  }

  void finish() {
    ++state_.hostile.requests;
    ++state_.hostile.by_status[status_of(received_)];
    beast::error_code ignored;
    socket_.close(ignored);
    if (!state_.running) return;
    std::make_shared<HostileRequest>(state_, source_, turn_ + 1)->start();
  }

  LoadState& state_;
  const asio::ip::address_v4 source_;
  const size_t turn_;
  tcp::socket socket_;
  std::array<char, 4096> buffer_{};
  std::string received_;
};

// ---- valid clients and the prober: a thread each, deadlines via Asio ----

struct Samples {
  std::mutex mu;
  std::vector<double> latencies_ms;
  uint64_t answered = 0;  // 200 with the expected body
  uint64_t errors = 0;
  std::map<std::string, uint64_t> error_kinds;

  void ok(double ms) {
    std::lock_guard<std::mutex> lock(mu);
    latencies_ms.push_back(ms);
    ++answered;
  }
  void error(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mu);
    ++errors;
    ++error_kinds[kind];
  }
};

// One HTTP client connection whose every exchange has a deadline.
class Client {
 public:
  explicit Client(const tcp::endpoint& server) : server_(server), stream_(io_) {}

  // Sends `request` (connecting first when needed) and reads the response
  // within `deadline`. Returns the error text, or "" on success.
  std::string exchange(http::request<http::string_body>& request,
                       http::response<http::string_body>& response, Clock::duration deadline) {
    beast::error_code result;
    stream_.expires_after(deadline);
    auto read = [&] {
      http::async_read(stream_, buffer_, response,
                       [&](beast::error_code ec, size_t) { result = ec; });
    };
    auto write = [&] {
      http::async_write(stream_, request, [&](beast::error_code ec, size_t) {
        if (ec) {
          result = ec;
          return;
        }
        read();
      });
    };
    if (!connected_) {
      stream_.async_connect(server_, [&](beast::error_code ec) {
        if (ec) {
          result = ec;
          return;
        }
        stream_.socket().set_option(tcp::no_delay(true));
        connected_ = true;
        write();
      });
    } else {
      write();
    }
    io_.restart();
    io_.run();
    if (result) {
      reset();
      return result.message();
    }
    if (!response.keep_alive()) reset();
    return "";
  }

 private:
  void reset() {
    beast::error_code ignored;
    stream_.socket().close(ignored);
    buffer_.clear();
    connected_ = false;
  }

  tcp::endpoint server_;
  asio::io_context io_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  bool connected_ = false;
};

void valid_client(const tcp::endpoint& server, const Options& o, Clock::time_point end,
                  Samples& samples) {
  Client client(server);
  http::request<http::string_body> request(http::verb::post, "/v1/estimate", 11);
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  request.body() = "{\"model\":\"" + o.model + "\",\"max_tokens\":32768}";
  request.prepare_payload();
  while (Clock::now() < end) {
    http::response<http::string_body> response;
    const auto start = Clock::now();
    std::string error = client.exchange(request, response, seconds(30));
    if (!error.empty()) {
      samples.error(error);
    } else if (response.result_int() != 200 ||
               response.body().find("\"total_bytes\":") == std::string::npos) {
      samples.error("HTTP " + std::to_string(response.result_int()));
    } else {
      samples.ok(millis_since(start));
    }
  }
}

void prober(const tcp::endpoint& server, const Options& o, Clock::time_point end,
            Samples& samples) {
  http::request<http::string_body> request(http::verb::get, "/healthz", 11);
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(false);
  auto next = Clock::now();
  while (next < end) {
    std::this_thread::sleep_until(next);
    next += milliseconds(o.probe_period_ms);
    Client client(server);  // a new connection each time, as a health checker makes
    http::response<http::string_body> response;
    const auto start = Clock::now();
    std::string error = client.exchange(request, response, seconds(5));
    if (!error.empty()) {
      samples.error(error);
    } else if (response.result_int() != 200) {
      samples.error("HTTP " + std::to_string(response.result_int()));
    } else {
      samples.ok(millis_since(start));
    }
  }
}

std::string kinds(const std::map<std::string, uint64_t>& counts) {
  std::string text;
  for (const auto& [kind, count] : counts) text += fmt::format(" [{}: {}]", kind, count);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_options(argc, argv, o)) return 2;
  asio::io_context io;
  LoadState state(io, o);
  state.server =
      tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), static_cast<unsigned short>(o.port));
  const auto start = Clock::now();
  const auto end = start + seconds(o.duration_s);

  // Tricklers, started over the first 2 s so that the connects do not all
  // land in one instant (nor, later, all their deadlines).
  std::vector<std::shared_ptr<asio::steady_timer>> starters;
  auto start_later = [&](milliseconds delay, std::function<void()> what) {
    auto timer = std::make_shared<asio::steady_timer>(io, delay);
    timer->async_wait([what = std::move(what)](beast::error_code ec) {
      if (!ec) what();
    });
    starters.push_back(std::move(timer));
  };
  for (int i = 0; i < o.trickle; ++i) {
    const auto source =
        asio::ip::make_address_v4(fmt::format("127.0.1.{}", 1 + i % o.trickle_addresses));
    start_later(milliseconds(2000 * i / std::max(o.trickle, 1)), [&state, source, i] {
      std::make_shared<Trickler>(state, 0, source, i % 2 == 1 || state.options.prefill_bytes > 0)
          ->start();
    });
  }
  for (int i = 0; i < o.over_cap; ++i) {
    start_later(milliseconds(2000 * i / std::max(o.over_cap, 1)), [&state, i] {
      std::make_shared<Trickler>(state, 1, asio::ip::make_address_v4("127.0.2.1"), i % 2 == 1)
          ->start();
    });
  }
  for (int i = 0; i < o.hostile_clients; ++i) {
    const auto source = asio::ip::make_address_v4(fmt::format("127.0.3.{}", 1 + i % 10));
    std::make_shared<HostileRequest>(state, source, static_cast<size_t>(i))->start();
  }
  asio::steady_timer finish(io, end);
  int held_at_end[2] = {0, 0};
  finish.async_wait([&](beast::error_code) {
    state.running = false;
    held_at_end[0] = state.groups[0].open_now;
    held_at_end[1] = state.groups[1].open_now;
    io.stop();  // the rest is dropped with the io_context
  });
  std::thread hostile_thread([&] { io.run(); });

  Samples valid;
  Samples probes;
  std::vector<std::thread> threads;
  // The valid clients start once the tricklers are all connecting.
  std::this_thread::sleep_for(seconds(std::min(2, o.duration_s)));
  for (int i = 0; i < o.valid_clients; ++i) {
    threads.emplace_back([&] { valid_client(state.server, o, end, valid); });
  }
  threads.emplace_back([&] { prober(state.server, o, end, probes); });
  for (std::thread& t : threads) t.join();
  hostile_thread.join();
  const uint64_t peak_kib = o.server_pid > 0 ? peak_rss_kib(o.server_pid) : 0;

  const GroupStats& t = state.groups[0];
  const GroupStats& over = state.groups[1];
  std::printf("duration: %d s (valid clients and prober from 2 s)\n", o.duration_s);
  std::printf(
      "tricklers: %d connections over %d addresses (127.0.1.x), a byte a second after %d bytes "
      "of body\n"
      "  open at the end: %d (peak %d); connects %llu, failed connects %llu\n"
      "  cut off by the deadline (408): %llu, first after %.0f ms, latest %.0f ms after its "
      "connect\n"
      "  refused at accept (503): %llu; other ends: %llu\n",
      o.trickle, o.trickle_addresses, o.prefill_bytes, held_at_end[0], t.open_peak,
      static_cast<unsigned long long>(t.connects),
      static_cast<unsigned long long>(t.connect_failures),
      static_cast<unsigned long long>(t.cut_408), t.first_cut_ms, t.max_cut_ms,
      static_cast<unsigned long long>(t.refused_503),
      static_cast<unsigned long long>(t.other_ends));
  std::printf(
      "over the per-address cap: %d connections from 127.0.2.1\n"
      "  open at the end: %d (peak %d); refused at accept (503): %llu (retried each second); "
      "cut off (408): %llu\n",
      o.over_cap, held_at_end[1], over.open_peak, static_cast<unsigned long long>(over.refused_503),
      static_cast<unsigned long long>(over.cut_408));
  std::string hostile_statuses;
  for (const auto& [status, count] : state.hostile.by_status) {
    hostile_statuses +=
        fmt::format(" {}: {}", status == 0 ? "none" : std::to_string(status), count);
  }
  std::printf("hostile: %d clients (127.0.3.x), %llu requests; answers by status:%s\n",
              o.hostile_clients, static_cast<unsigned long long>(state.hostile.requests),
              hostile_statuses.c_str());
  const double valid_p50 = percentile(valid.latencies_ms, 0.50);
  const double valid_p99 = percentile(valid.latencies_ms, 0.99);
  const double valid_max = valid.latencies_ms.empty() ? 0 : valid.latencies_ms.back();
  std::printf(
      "valid /v1/estimate: %d clients, %llu answered 200, %llu errors%s\n"
      "  latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      o.valid_clients, static_cast<unsigned long long>(valid.answered),
      static_cast<unsigned long long>(valid.errors), kinds(valid.error_kinds).c_str(), valid_p50,
      valid_p99, valid_max);
  const double probe_p50 = percentile(probes.latencies_ms, 0.50);
  const double probe_p99 = percentile(probes.latencies_ms, 0.99);
  const double probe_max = probes.latencies_ms.empty() ? 0 : probes.latencies_ms.back();
  std::printf(
      "/healthz (new connection every %d ms): %llu answered 200, %llu errors%s\n"
      "  latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
      o.probe_period_ms, static_cast<unsigned long long>(probes.answered),
      static_cast<unsigned long long>(probes.errors), kinds(probes.error_kinds).c_str(), probe_p50,
      probe_p99, probe_max);
  if (o.server_pid > 0) {
    std::printf("server peak RSS (VmHWM): %.1f MiB\n", static_cast<double>(peak_kib) / 1024);
  }

  const bool met = valid.errors == 0 && valid.answered > 0 && probes.errors == 0 &&
                   probes.answered > 0 && probe_p99 < o.healthz_p99_target_ms;
  std::printf("targets (every valid request and probe answered, /healthz p99 < %d ms): %s\n",
              o.healthz_p99_target_ms, met ? "met" : "MISSED");
  return met ? 0 : 1;
}
