// Helpers shared by the service tests: a Service over chosen model roots
// with a fake host (64 GiB of RAM, 32 GiB available) and fake process
// gauges, and requests that read like a script.
#ifndef MEMFIT_TESTS_SERVICE_SERVICE_FIXTURE_H_
#define MEMFIT_TESTS_SERVICE_SERVICE_FIXTURE_H_

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/service.h"
#include "support/paths.h"

namespace memfit::testing {

inline const std::string kExamplesRoot = std::string(MEMFIT_SOURCE_DIR) + "/examples";
inline const std::string kQwen3Root = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/qwen3";
inline constexpr const char* kExampleModel = "Qwen3-14B-MLX-4bit";

inline HostMemoryStatus fake_host() {
  HostMemoryStatus s;
  s.os = "linux";
  s.ram_total_bytes = 64ull << 30;
  s.available_now_bytes = 40ull << 30;
  s.ram_available_bytes = 32ull << 30;
  s.budget_bytes = 32ull << 30;
  s.budget_source = BudgetSource::kMeminfoAvailable;
  s.device = "cpu";
  return s;
}

inline ServiceOptions fake_options(std::vector<std::string> roots,
                                   std::optional<uint64_t> memory_limit_bytes = std::nullopt) {
  ServiceOptions options;
  options.model_roots = std::move(roots);
  options.host.explicit_limit_bytes = memory_limit_bytes;
  options.query_host = [] { return fake_host(); };
  options.read_gauges = [] {
    ProcessGauges g;
    g.footprint_bytes = 123456789;
    return g;
  };
  return options;
}

inline std::unique_ptr<Service> make_service(ServiceOptions options) {
  Result<std::unique_ptr<Service>> service = Service::create(std::move(options));
  if (!service.ok()) {
    ADD_FAILURE() << service.error().message();
    return nullptr;
  }
  return std::move(*service);
}

inline std::unique_ptr<Service> make_service(std::vector<std::string> roots,
                                             std::optional<uint64_t> memory_limit_bytes = {}) {
  return make_service(fake_options(std::move(roots), memory_limit_bytes));
}

// A response's body as JSON (discarded when it is not JSON).
inline nlohmann::json body_json(const HttpResponse& response) {
  return nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
}

inline std::string error_code(const HttpResponse& response) {
  nlohmann::json j = body_json(response);
  if (!j.is_object() || !j.contains("error")) return "<no error object>";
  return j["error"].value("code", "<no code>");
}

inline std::string error_message(const HttpResponse& response) {
  nlohmann::json j = body_json(response);
  if (!j.is_object() || !j.contains("error")) return "<no error object>";
  return j["error"].value("message", "<no message>");
}

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SERVICE_SERVICE_FIXTURE_H_
