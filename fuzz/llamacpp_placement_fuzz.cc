// libFuzzer target for the llama.cpp placement flags' text
// (llamacpp_placement.h): the input is one value given to every field of
// set_placement_field (-ngl, -ot, -ts, --gpu-memory, ...). Errors must be
// clean (fuzz_checks.h); what parses is bounded: at most 64 GPUs, 64
// override rules, proportions not all 0. The same text goes to
// parse_cache_ram (llamacpp_extras.h, --cache-ram): -1 .. 2^31 - 1.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/llamacpp_extras.h"
#include "memfit/llamacpp_placement.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view field : {"n_gpu_layers", "n_cpu_moe", "override_tensor", "split_mode",
                                 "tensor_split", "main_gpu", "no_mmap", "gpu_memory", "gpu_margin"}) {
    memfit::LlamaCppPlacementRequest r;
    memfit::Status set = memfit::set_placement_field(r, field, text);
    if (!set.ok()) {
      memfit_fuzz::check_message(set.error().message());
      continue;
    }
    if (r.override_tensor.size() > 64) __builtin_trap();
    if (r.gpu_memory && (r.gpu_memory->empty() || r.gpu_memory->size() > 64)) __builtin_trap();
    if (r.tensor_split.size() > 64) __builtin_trap();
  }
  memfit::Result<int64_t> mib = memfit::parse_cache_ram("cache_ram", text);
  if (!mib.ok()) {
    memfit_fuzz::check_message(mib.error().message());
  } else if (*mib < -1 || *mib > memfit::kLlamaCppMaxCacheRamMib) {
    __builtin_trap();
  }
  return 0;
}
