// memfit serve: the estimator and the admission guard over HTTP
// (docs/service.md has the endpoints).
//
//   memfit serve [--listen 127.0.0.1:8765] [--model-root DIR ...]
//                [--memory-limit SIZE] [--device D] [--threads N]
//                [--max-queued-requests N] [--max-connections N]
//                [--max-connections-per-address N]
//                [--request-deadline-ms MS] [--idle-timeout-ms MS]
//
// Prints the address it listens on to stderr, serves until SIGINT or
// SIGTERM, then exits 0. Exit 2 for a bad option, 1 when the address
// cannot be bound.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "serve/open_files_limit.h"
#include "serve/serve_command.h"
#include "memfit/memory_size.h"
#include "memfit/environment.h"
#include "memfit/header_cache.h"
#include "memfit/hub_options.h"
#include "memfit/host_memory.h"
#include "memfit/service.h"
#include "memfit/mlxcel_settings.h"

namespace memfit::cli {
namespace {

struct ServeOptions {
  std::string listen = "127.0.0.1:8765";
  std::vector<std::string> model_roots;
  std::string memory_limit;  // "" = not given
  std::string device = "auto";
  bool allow_hub = false;  // --allow-hub
  HttpServerOptions server;  // --threads and the limits
};

// Set by the signal handler, polled by the watcher thread: a lock-free
// atomic store is all a handler may do.
std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void request_stop(int) { g_stop_requested.store(true); }

void print_line(const std::string& line) {
  std::fprintf(stderr, "memfit: %s\n", line.c_str());
  std::fflush(stderr);
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// The service's options from the environment and the flags; a usage
// error names the flag.
Result<ServiceOptions> service_options_of(const ServeOptions& o, const Environment& env,
                                          std::vector<std::string>& warnings) {
  ServiceOptions service_options;
  service_options.model_roots = o.model_roots;
  service_options.allow_hub = o.allow_hub;
  service_options.hf_cache = hf_cache_options_from_environment(env);
  if (o.allow_hub) {
    service_options.hub = hub_options_from_environment(env);
    service_options.header_store = make_header_cache_from_environment(env);
  }
  service_options.settings = mlxcel_settings_from_environment(env, warnings);
  service_options.host = host_query_options_from_environment(env);
  service_options.host.explicit_limit_bytes = service_options.settings.memory_limit_bytes;
  if (!o.memory_limit.empty()) {
    Result<std::optional<uint64_t>> limit = parse_memory_size(o.memory_limit);
    if (!limit.ok()) return Error::usage("--memory-limit", limit.error().message());
    service_options.host.explicit_limit_bytes = *limit;
    service_options.settings.memory_limit_bytes = *limit;
  }
  Result<DeviceSelector> device = parse_device_selector(o.device);
  if (!device.ok()) return Error::usage("--device", device.error().message());
  service_options.host.device = *device;
  return service_options;
}

// The server's options, --max-connections lowered (with a warning) to what
// the open-file limit allows.
HttpServerOptions server_options_of(const ServeOptions& o) {
  HttpServerOptions server_options = o.server;
  if (std::optional<OpenFilesLimit> files =
          fit_open_files_limit(server_options.max_connections, server_options.worker_threads)) {
    if (files->connections_allowed < server_options.max_connections) {
      print_line(fmt::format(
          "warning: the open-file limit ({}) allows {} connections: --max-connections lowered "
          "from {} (raise it with ulimit -n)",
          files->soft_limit, files->connections_allowed, server_options.max_connections));
      server_options.max_connections = files->connections_allowed;
    }
  }
  return server_options;
}

// Where it serves, what it reads, and the warnings about either.
void print_banner(const ServeOptions& o, const ListenAddress& address, int port,
                  const std::vector<std::string>& roots, const std::string& hub_cache_dir) {
  const std::string host =
      address.host.find(':') != std::string::npos ? "[" + address.host + "]" : address.host;
  print_line(fmt::format("serving on http://{}:{} (model roots: {})", host, port,
                         roots.empty() ? "none" : fmt::format("{}", fmt::join(roots, ", "))));
  if (o.allow_hub) {
    print_line("Hugging Face names allowed (--allow-hub): read from the cache at " +
               hub_cache_dir);
  } else if (roots.empty()) {
    print_line("warning: no --model-root: every model request will be refused");
  }
  if (!is_loopback(address.host)) {
    print_line("warning: listening beyond loopback: anyone who reaches " + address.host +
               " can query the models under the roots" +
               (o.allow_hub ? std::string(" and in the Hugging Face cache") : std::string()));
  }
}

// Serves until SIGINT or SIGTERM; the exit status.
int serve_until_stopped(HttpServer& server) {
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
#ifdef SIGPIPE
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not end the service
#endif
  std::atomic<bool> served{false};
  std::thread watcher([&] {
    while (!g_stop_requested.load() && !served.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    server.stop();
  });
  Status status = server.serve();
  served.store(true);
  watcher.join();
  if (!status.ok()) {
    print_line("serve: " + status.error().message());
    return kExitError;
  }
  print_line("stopped");
  return kExitOk;
}

int run_serve(const ServeOptions& o) {
  std::unique_ptr<Environment> env = make_process_environment();
  std::vector<std::string> warnings;
  Result<ServiceOptions> service_options = service_options_of(o, *env, warnings);
  if (!service_options.ok()) {
    print_line("serve: " + service_options.error().message());
    return kExitUsage;
  }
  Result<ListenAddress> address = parse_listen_address(o.listen);
  if (!address.ok()) {
    print_line("serve: --listen: " + address.error().message());
    return kExitUsage;
  }
  for (const std::string& w : warnings) print_line("warning: " + w);
  service_options->settings_warnings = std::move(warnings);  // and in every estimate

  const std::string hub_cache_dir = service_options->hf_cache.hub_cache_dir;
  Result<std::unique_ptr<Service>> service = Service::create(std::move(*service_options));
  if (!service.ok()) {
    print_line("serve: " + service.error().message());
    return service.error().kind() == ErrorKind::kUsage ? kExitUsage : kExitError;
  }
  HttpServer server(**service, server_options_of(o));
  Result<int> port = server.bind(*address);
  if (!port.ok()) {
    print_line("serve: " + port.error().message());
    return kExitError;
  }
  print_banner(o, *address, *port, (*service)->model_roots(), hub_cache_dir);
  return serve_until_stopped(server);
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "serve estimates and prefill admission over HTTP, with Prometheus /metrics");
  command->add_option("--listen", options->listen, "host:port to listen on (port 0: any free port)")
      ->capture_default_str();
  command
      ->add_option("--model-root", options->model_roots,
                   "folder whose models may be named (repeatable)")
      ->check(CLI::ExistingDirectory);
  command->add_option("--memory-limit", options->memory_limit,
                      "memory budget, e.g. 48GiB (2^30 bytes) or 48GB (10^9 bytes); overrides "
                      "MEMFIT_MEMORY_LIMIT");
  command->add_option("--device", options->device, "budget device: auto, cpu, cuda:N or rocm:N");
  command->add_flag("--allow-hub", options->allow_hub,
                    "let requests name Hugging Face models (org/name[@rev][:QUANT]), read from "
                    "the Hugging Face cache; off: such names get 403 hub_not_allowed");
  HttpServerOptions& server = options->server;
  command
      ->add_option("--threads", server.worker_threads, "worker threads for the endpoints that work")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  command
      ->add_option("--max-queued-requests", server.max_queued_requests,
                   "requests that wait for a busy worker; past them: 503")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  command
      ->add_option("--max-connections", server.max_connections,
                   "connections held at once; past them: 503 at accept")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command
      ->add_option("--max-connections-per-address", server.max_connections_per_address,
                   "connections held at once from one client IP; behind a proxy, raise it to "
                   "--max-connections")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command
      ->add_option("--request-deadline-ms", server.request_deadline_ms,
                   "from a request's first byte to the end of its body; then 408")
      ->check(CLI::Range(1, 3600000))
      ->capture_default_str();
  command
      ->add_option("--idle-timeout-ms", server.idle_timeout_ms,
                   "an open connection with no request begun is closed after this")
      ->check(CLI::Range(1, 3600000))
      ->capture_default_str();
  command->callback([options, &exit_code] { exit_code = run_serve(*options); });
}

}  // namespace memfit::cli
