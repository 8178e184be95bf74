// libFuzzer target for Hugging Face names: the input is one -m value or a
// request's "model" (parse_hub_model_ref, looks_like_hub_name), or a file
// inside a repo (check_hub_file). Errors must be clean (fuzz_checks.h). A
// name that parsed must be safe to join onto a cache folder: neither the
// repo id nor the revision holds "..", a leading '/' or a backslash; the
// quant (matched against file names, never joined) holds no '/'.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/hub_name.h"

namespace {

bool climbs(std::string_view part) {
  return part.find("..") != std::string_view::npos || part.starts_with('/') ||
         part.find('\\') != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  (void)memfit::looks_like_hub_name(text);
  memfit::Result<memfit::HubModelRef> ref = memfit::parse_hub_model_ref(text);
  if (!ref.ok()) {
    memfit_fuzz::check_message(ref.error().message());
  } else if (climbs(ref->repo_id) || climbs(ref->revision) || ref->revision.empty() ||
             ref->quant.find('/') != std::string::npos) {
    __builtin_trap();
  }

  memfit::Status file = memfit::check_hub_file(text);
  if (!file.ok()) {
    memfit_fuzz::check_message(file.error().message());
  } else if (text.starts_with('/') || text == ".." || text.starts_with("../") ||
             text.find("/../") != std::string_view::npos || text.ends_with("/..")) {
    __builtin_trap();
  }
  return 0;
}
