// ConnectionLimits: how many connections the HTTP server holds, in total
// and per client address, and whether it may take one more. Checked at
// accept, before anything is read, so a client over a cap costs one canned
// 503 and no request parsing (docs/service.md, "Limits").
#ifndef MEMFIT_SERVICE_CONNECTION_LIMITS_H_
#define MEMFIT_SERVICE_CONNECTION_LIMITS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace memfit::service {

enum class Admission {
  kAdmitted,
  kOverTotal,    // max_total connections are open
  kOverAddress,  // max_per_address connections from this address are open
};

class ConnectionLimits {
 public:
  // A cap of 0 admits nothing.
  ConnectionLimits(size_t max_total, size_t max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}

  // Counts one more connection from `address` (any stable spelling of the
  // client's IP) and returns kAdmitted, or counts nothing and says which
  // cap is full. Each admission is undone by exactly one release().
  Admission try_admit(std::string_view address);
  // Precondition: a connection from `address` was admitted and not yet
  // released.
  void release(std::string_view address);

  // Connections open from `address`.
  size_t open_from(std::string_view address) const;

 private:
  size_t max_total_;
  size_t max_per_address_;
  size_t open_total_ = 0;
  // Only addresses with an open connection have an entry: the map never
  // outgrows the total cap.
  std::unordered_map<std::string, size_t> open_by_address_;
};

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_CONNECTION_LIMITS_H_
