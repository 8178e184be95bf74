// libFuzzer target for the HTTP service's request bodies, through the
// public Service::handle: the input is one body, POSTed to /v1/estimate,
// /v1/fit and /v1/admit of a Service whose model root (made once per
// process, see ModelRoot) holds two small models, "a" (a llama) and "b" (a
// sliding-window mistral), so that bodies naming them are estimated.
//
// Service::handle catches every exception and answers 500 internal_error:
// a 500 is this target's "escaped exception" and traps. So does a body that
// is not JSON, and an error message or warning that fails fuzz_checks.h.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_checks.h"
#include "memfit/service.h"

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kLlamaConfig =
    R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,)"
    R"("num_key_value_heads":2,"intermediate_size":128,"vocab_size":256})";
constexpr std::string_view kMistralConfig =
    R"({"model_type":"mistral","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,)"
    R"("num_key_value_heads":1,"sliding_window":512,"vocab_size":256})";

// The model root: $MEMFIT_FUZZ_MODEL_ROOT when set (created if need be
// and left in place), else a temporary folder removed at exit. A fixed
// path makes runs repeatable: the path's text reaches hashing and string
// comparisons, so a random name would change the coverage libFuzzer sees.
class ModelRoot {
 public:
  ModelRoot() {
    if (const char* given = std::getenv("MEMFIT_FUZZ_MODEL_ROOT"); given != nullptr && *given) {
      path_ = given;
      fs::create_directories(path_);
    } else {
      std::string pattern = (fs::temp_directory_path() / "memfit-fuzz-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) std::abort();
      path_ = pattern;
      temporary_ = true;
    }
    write("a/config.json", kLlamaConfig);
    write("b/config.json", kMistralConfig);
  }
  ~ModelRoot() {
    if (!temporary_) return;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  void write(const std::string& name, std::string_view text) {
    const fs::path file = fs::path(path_) / name;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (!out) std::abort();
  }
  std::string path_;
  bool temporary_ = false;
};

memfit::Service& service() {
  static ModelRoot root;
  static std::unique_ptr<memfit::Service> instance = [] {
    memfit::ServiceOptions options;
    options.model_roots = {root.path()};
    // A fixed host (64 GiB, 32 GiB available), queried on every request,
    // and a fixed request id: no clock or random number decides which code
    // runs.
    options.query_host = [] {
      memfit::HostMemoryStatus s;
      s.os = "linux";
      s.ram_total_bytes = 64ull << 30;
      s.available_now_bytes = 40ull << 30;
      s.ram_available_bytes = 32ull << 30;
      s.budget_bytes = 32ull << 30;
      s.budget_source = memfit::BudgetSource::kMeminfoAvailable;
      s.device = "cpu";
      return s;
    };
    options.read_gauges = [] { return memfit::ProcessGauges{}; };
    options.host_reuse_ms = 0;
    options.make_request_id = [] { return std::string("req-fuzz"); };
    memfit::Result<std::unique_ptr<memfit::Service>> created =
        memfit::Service::create(std::move(options));
    if (!created.ok()) std::abort();
    return std::move(*created);
  }();
  return *instance;
}

void check_response(const memfit::HttpResponse& response) {
  if (response.status >= 500) __builtin_trap();
  const nlohmann::json body =
      nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) __builtin_trap();
  if (response.status >= 400) {
    auto error = body.find("error");
    if (error == body.end() || !error->is_object()) __builtin_trap();
    auto message = error->find("message");
    if (message == error->end() || !message->is_string()) __builtin_trap();
    memfit_fuzz::check_message(message->get<std::string>());
    return;
  }
  if (auto warnings = body.find("warnings"); warnings != body.end() && warnings->is_array()) {
    for (const nlohmann::json& warning : *warnings) {
      if (!warning.is_string()) __builtin_trap();
      memfit_fuzz::check_message(warning.get<std::string>());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  for (std::string_view path : {"/v1/estimate", "/v1/fit", "/v1/admit"}) {
    check_response(service().handle("POST", path, body));
  }
  return 0;
}
