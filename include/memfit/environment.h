// Environment: the process environment behind an interface, so settings
// can be tested without touching the real one.
#ifndef MEMFIT_ENVIRONMENT_H_
#define MEMFIT_ENVIRONMENT_H_

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

class Environment {
 public:
  virtual ~Environment() = default;
  // The variable's value; nullopt when unset.
  virtual std::optional<std::string> get(const std::string& name) const = 0;
};

// Reads the real process environment.
std::unique_ptr<Environment> make_process_environment();

// A fixed set of variables, for tests and embedders.
class MapEnvironment : public Environment {
 public:
  explicit MapEnvironment(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}
  MapEnvironment(std::initializer_list<std::pair<const std::string, std::string>> vars)
      : vars_(vars) {}
  std::optional<std::string> get(const std::string& name) const override {
    auto it = vars_.find(name);
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, std::string> vars_;
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_ENVIRONMENT_H_
