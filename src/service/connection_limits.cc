#include "service/connection_limits.h"

namespace memfit::service {

Admission ConnectionLimits::try_admit(std::string_view address) {
  if (open_total_ >= max_total_) return Admission::kOverTotal;
  if (open_from(address) >= max_per_address_) return Admission::kOverAddress;
  ++open_by_address_[std::string(address)];
  ++open_total_;
  return Admission::kAdmitted;
}

void ConnectionLimits::release(std::string_view address) {
  auto it = open_by_address_.find(std::string(address));
  if (it == open_by_address_.end()) return;  // a broken precondition: count nothing
  if (--it->second == 0) open_by_address_.erase(it);
  --open_total_;
}

size_t ConnectionLimits::open_from(std::string_view address) const {
  auto it = open_by_address_.find(std::string(address));
  return it == open_by_address_.end() ? 0 : it->second;
}

}  // namespace memfit::service
