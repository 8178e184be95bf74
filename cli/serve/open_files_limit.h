// The open-file limit `memfit serve` needs: one descriptor per connection
// it holds, and a reserve for the rest of the process.
#ifndef MEMFIT_CLI_SERVE_OPEN_FILES_LIMIT_H_
#define MEMFIT_CLI_SERVE_OPEN_FILES_LIMIT_H_

#include <cstddef>
#include <cstdint>
#include <optional>

namespace memfit::cli {

// Descriptors that are not held connections: refusals being answered
// (at most 64 at once, src/service/http_connection.h), stdio, the
// listening socket and the I/O machinery (32), and a model file being read
// by each worker.
size_t descriptor_reserve(size_t worker_threads);

struct OpenFilesLimit {
  uint64_t soft_limit = 0;         // RLIMIT_NOFILE's soft limit, after raising it
  size_t connections_allowed = 0;  // max_connections, or fewer when the limit is too low
};

// Raises the soft RLIMIT_NOFILE toward the hard limit until it covers
// `max_connections` plus descriptor_reserve(worker_threads), and says how
// many connections the resulting limit allows (at least 1). nullopt when
// the limit cannot be read: the caller keeps max_connections.
std::optional<OpenFilesLimit> fit_open_files_limit(size_t max_connections, size_t worker_threads);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_SERVE_OPEN_FILES_LIMIT_H_
