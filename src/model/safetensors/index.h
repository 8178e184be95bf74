// The index parser on text that is already padded, where it lies.
//
// The index of a checkpoint with a tensor per expert matrix is ~13 MB, so
// load_index has the file system read it straight into a padded buffer
// (FileSystem::read_file_padded) and parses it there, with no second copy.
// parse_safetensors_index
// (include/memfit/weights.h) copies its argument into a padded buffer and
// calls this.
#ifndef MEMFIT_MODEL_SAFETENSORS_INDEX_H_
#define MEMFIT_MODEL_SAFETENSORS_INDEX_H_

#include <cstddef>
#include <optional>
#include <string_view>

#include "memfit/result.h"
#include "memfit/weights.h"

namespace memfit {

// Readable bytes the parser needs after the text (simdjson's padding; their
// value does not change the result).
inline constexpr size_t kSafetensorsIndexPaddingBytes = 64;

// parse_safetensors_index's contract, on `json` followed in memory by at
// least kSafetensorsIndexPaddingBytes readable bytes. The result owns its
// strings: `json` may be released afterwards.
Result<SafetensorsIndex> parse_padded_safetensors_index(std::string_view json);

// The fast path parse_padded_safetensors_index tries first
// (model/safetensors/canonical_index.cc): the index, when `json` (padded the
// same way) is in its writers' usual spelling and holds no error; nullopt
// otherwise, for the simdjson parser to read and word. Exposed for tests,
// which compare the two paths.
std::optional<SafetensorsIndex> scan_canonical_safetensors_index(std::string_view json);

// The simdjson parser alone: parse_padded_safetensors_index without the
// fast path, for the same tests.
Result<SafetensorsIndex> parse_padded_safetensors_index_with_simdjson(std::string_view json);

}  // namespace memfit

#endif  // MEMFIT_MODEL_SAFETENSORS_INDEX_H_
