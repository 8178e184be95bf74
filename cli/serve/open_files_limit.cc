#include "serve/open_files_limit.h"

#include <sys/resource.h>

#include <algorithm>

namespace memfit::cli {

size_t descriptor_reserve(size_t worker_threads) { return 64 + 32 + worker_threads; }

std::optional<OpenFilesLimit> fit_open_files_limit(size_t max_connections, size_t worker_threads) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return std::nullopt;
  const size_t reserve = descriptor_reserve(worker_threads);
  const rlim_t wanted = static_cast<rlim_t>(max_connections) + reserve;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  OpenFilesLimit result;
  result.soft_limit = limit.rlim_cur == RLIM_INFINITY ? UINT64_MAX : limit.rlim_cur;
  result.connections_allowed = max_connections;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    // What is left after the reserve; at least one connection, so that a
    // tiny limit still serves (and refuses the rest with 503).
    result.connections_allowed =
        limit.rlim_cur > reserve ? static_cast<size_t>(limit.rlim_cur - reserve) : 1;
  }
  return result;
}

}  // namespace memfit::cli
