// GgufArchKeys: a GGUF header's "<arch>.<name>" keys, read as llama.cpp's
// load_hparams reads them.
//
// Counts are unsigned integers of at most 32 bits (llama.cpp's hparams are
// uint32_t); a per-layer value is one number for every layer or an array of
// exactly <arch>.block_count numbers (llama.cpp's get_key_or_arr). Any
// integer type is accepted where llama.cpp insists on u32: the value, not
// its width, decides. Errors name the key, one line:
//   gguf metadata: 'qwen3.block_count' is str 'x', not a non-negative integer
//   gguf metadata: 'qwen3.attention.head_count_kv' has 35 entries, but 'qwen3.block_count' is 36
#ifndef MEMFIT_MODEL_GGUF_KEYS_H_
#define MEMFIT_MODEL_GGUF_KEYS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/result.h"

namespace memfit {

// The largest count llama.cpp reads: UINT32_MAX.
inline constexpr uint64_t kMaxGgufCount = 0xffffffffull;

class GgufArchKeys {
 public:
  // `header` must outlive this reader.
  GgufArchKeys(const GgufHeader& header, std::string arch)
      : header_(header), arch_(std::move(arch)) {}

  const GgufHeader& header() const { return header_; }
  const std::string& arch() const { return arch_; }
  // "<arch>.<name>".
  std::string key(std::string_view name) const;
  bool has(std::string_view name) const { return header_.find(key(name)) != nullptr; }

  // The count, or nullopt when the key is absent.
  Result<std::optional<uint64_t>> count(std::string_view name) const;
  // The count; absent is an error, "is missing (<why>)" when `why` is given.
  Result<uint64_t> required_count(std::string_view name, std::string_view why = {}) const;
  // One count per layer for `layers` layers (a scalar repeated, or an array
  // of exactly `layers` entries); nullopt when the key is absent. `layers`
  // is a checked block count (at most kMaxLayers): it sizes the result.
  Result<std::optional<std::vector<uint64_t>>> per_layer(std::string_view name,
                                                         uint64_t layers) const;
  // One flag per layer: a bool or integer array of exactly `layers`
  // entries (non-zero is true); nullopt when the key is absent or a scalar.
  Result<std::optional<std::vector<bool>>> per_layer_flags(std::string_view name,
                                                           uint64_t layers) const;

  // "gguf metadata: '<arch>.<name>' <detail>".
  Error error(std::string_view name, std::string_view detail) const;

 private:
  const GgufHeader& header_;
  std::string arch_;
};

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_KEYS_H_
