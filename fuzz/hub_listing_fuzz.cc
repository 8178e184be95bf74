// libFuzzer target for the Hugging Face Hub's model API answer (the JSON
// of GET /api/models/{repo}/revision/{rev}?blobs=true), which a mirror or
// a hostile HF_ENDPOINT controls: parse_hub_listing (src/hub/hub_reader.h,
// the one internal function fuzzed: the Hub reader's only parser). Errors
// must be clean (fuzz_checks.h); a listing that parsed holds a 40-hex
// commit and only paths that pass check_hub_file, sorted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "hub/hub_reader.h"
#include "memfit/hub_name.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  memfit::Result<memfit::HubRevision> listing = memfit::parse_hub_listing(text);
  if (!listing.ok()) {
    memfit_fuzz::check_message(listing.error().message());
    return 0;
  }
  if (!memfit::is_hub_commit(listing->commit)) __builtin_trap();
  for (const memfit::StoredListingEntry& entry : listing->listing) {
    if (!memfit::check_hub_file(entry.path).ok()) __builtin_trap();
  }
  if (!std::is_sorted(listing->listing.begin(), listing->listing.end(),
                      [](const auto& a, const auto& b) { return a.path < b.path; })) {
    __builtin_trap();
  }
  return 0;
}
