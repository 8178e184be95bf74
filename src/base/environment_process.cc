#include <cstdlib>

#include "memfit/environment.h"

namespace memfit {
namespace {

class ProcessEnvironment : public Environment {
 public:
  std::optional<std::string> get(const std::string& name) const override {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }
};

}  // namespace

std::unique_ptr<Environment> make_process_environment() {
  return std::make_unique<ProcessEnvironment>();
}

}  // namespace memfit
