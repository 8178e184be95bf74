// libFuzzer target for the safetensors header parser. The input is a whole
// .safetensors file in memory: no disk, no FileSystem.
//
// Two paths per input: (1) as a file: the 8-byte length prefix, then the
// header it delimits against the rest of the "file"; (2) the bytes after
// the first 8 as a header on their own, with a large data region, so the
// fuzzer reaches the JSON checks without first guessing a valid length.
// On (2), the parse with the canonical scan and the parse without it
// (simdjson alone) must have the same outcome.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_checks.h"
#include "memfit/safetensors.h"
#include "model/safetensors/json_parser.h"

namespace {

// Properties every successful parse must have.
void check(const memfit::Result<memfit::SafetensorsHeader>& header, uint64_t data_region_bytes) {
  if (!header.ok()) {
    memfit_fuzz::check_message(header.error().message());
    return;
  }
  uint64_t total_bytes = 0;
  for (const memfit::SafetensorsTensor& tensor : header->tensors) {
    if (tensor.data_bytes > data_region_bytes) __builtin_trap();
    total_bytes += tensor.data_bytes;
  }
  if (total_bytes != header->data_bytes || total_bytes > data_region_bytes) __builtin_trap();
}

// The canonical scan never changes an outcome: same totals and tensors,
// or the same error.
void check_scans_agree(std::string_view json, uint64_t data_region_bytes) {
  using memfit::SafetensorsJsonParser;
  SafetensorsJsonParser scanning(SafetensorsJsonParser::CanonicalScan::kOn);
  SafetensorsJsonParser general(SafetensorsJsonParser::CanonicalScan::kOff);
  std::vector<memfit::SafetensorsTensor> scanned_tensors, general_tensors;
  auto scanned = scanning.parse(json, data_region_bytes, &scanned_tensors);
  auto parsed = general.parse(json, data_region_bytes, &general_tensors);
  if (scanned.ok() != parsed.ok()) __builtin_trap();
  if (!parsed.ok()) {
    if (scanned.error().message() != parsed.error().message()) __builtin_trap();
    return;
  }
  if (scanned->data_bytes != parsed->data_bytes ||
      scanned->tensor_count != parsed->tensor_count ||
      scanned_tensors.size() != general_tensors.size()) {
    __builtin_trap();
  }
  for (size_t i = 0; i < general_tensors.size(); ++i) {
    const auto& a = scanned_tensors[i];
    const auto& b = general_tensors[i];
    if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape ||
        a.data_bytes != b.data_bytes) {
      __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);

  memfit::Result<uint64_t> header_bytes = memfit::parse_safetensors_length(file, file.size());
  if (!header_bytes.ok()) {
    memfit_fuzz::check_message(header_bytes.error().message());
  } else {
    const uint64_t data_region_bytes = file.size() - 8 - *header_bytes;
    check(memfit::parse_safetensors_header(file.substr(8, *header_bytes), data_region_bytes),
          data_region_bytes);
  }

  if (file.size() >= 8) {
    constexpr uint64_t kDataRegionBytes = 1ull << 40;
    check(memfit::parse_safetensors_header(file.substr(8), kDataRegionBytes), kDataRegionBytes);
    check_scans_agree(file.substr(8), kDataRegionBytes);
  }
  return 0;
}
