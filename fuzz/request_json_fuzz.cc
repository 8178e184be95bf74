// libFuzzer target for the library's JSON request, parse_estimate_request_json
// (include/memfit/request_json.h): the body of POST /v1/estimate, of the C
// API's memfit_estimate_request_json and of the Python module. The input
// is one body. An error must be a clean usage error (fuzz_checks.h) whose
// JSON form is valid; a parsed request must hold what the parser promises.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/request_json.h"
#include "memfit/vllm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  memfit::Result<memfit::EstimateRequest> request = memfit::parse_estimate_request_json(body);
  if (!request.ok()) {
    const memfit::Error& e = request.error();
    memfit_fuzz::check_message(e.message());
    if (e.kind() != memfit::ErrorKind::kUsage) __builtin_trap();
    // The field a usage error names starts its message.
    if (!e.field().empty() && e.message().compare(0, e.field().size(), e.field()) != 0) {
      __builtin_trap();
    }
    (void)memfit::error_to_json(e).dump();  // throws (and so traps) on invalid UTF-8
    return 0;
  }
  const memfit::EstimateRequest& r = *request;
  if (r.max_tokens == 0 || r.batch == 0 || r.parallel.tensor_parallel == 0 ||
      r.parallel.pipeline_parallel == 0) {
    __builtin_trap();
  }
  if (r.memory_limit_bytes && *r.memory_limit_bytes == 0) __builtin_trap();
  // A vLLM release reads back as itself.
  if (r.vllm.vllm_version) {
    const memfit::Result<memfit::VllmRelease> again =
        memfit::parse_vllm_version(memfit::to_string(*r.vllm.vllm_version));
    if (!again.ok() || memfit::to_string(*again) != memfit::to_string(*r.vllm.vllm_version)) {
      __builtin_trap();
    }
  }
  // A GPU's name is 1 to kMaxGpuNameBytes printable ASCII characters.
  if (r.vllm.gpu_name) {
    const std::string& name = *r.vllm.gpu_name;
    if (name.empty() || name.size() > memfit::kMaxGpuNameBytes) __builtin_trap();
    for (char c : name) {
      if (c < 0x20 || c > 0x7e) __builtin_trap();
    }
  }
  return 0;
}
