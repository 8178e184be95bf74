// Weights: the bytes a model's weights occupy, from headers only.
//
// Sources, in order of trust: the safetensors headers themselves; a shard
// index whose every shard exists beside it; an index alone (no shard on
// disk, unverified); the config's parameter count at the quantization the
// config declares (16-bit when it declares none); a 7B x 2 bytes fallback
// when nothing else is known.
#ifndef MEMFIT_WEIGHTS_H_
#define MEMFIT_WEIGHTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class WeightsSource {
  kSafetensorsHeader,
  kSafetensorsIndex,
  kGgufHeader,
  kAnalyticalConfig,
  kFallback,
};

std::string_view to_string(WeightsSource source);

// The parts of a checkpoint, split by tensor name.
enum class WeightComponent { kLanguageModel, kVisionTower, kAudioTower, kProjector };
std::string_view to_string(WeightComponent component);
inline constexpr int kWeightComponentCount = 4;

struct WeightsInfo {
  uint64_t bytes = 0;
  WeightsSource source = WeightsSource::kFallback;
  uint64_t file_count = 0;    // weight files whose headers were read or trusted
  uint64_t tensor_count = 0;  // tensors seen in headers (0 when not read)
  bool verified = true;       // false for index-only totals and estimates
  // Bytes per WeightComponent (indexed by its value), from the headers'
  // tensor names; for config-only weights, the language model and the
  // config's vision tower when memfit counts one (model_loader.cc; the
  // engines that do not load it drop it: engines/shared/config_tower.h);
  // all zero otherwise.
  uint64_t component_bytes[kWeightComponentCount] = {0, 0, 0, 0};
};

// Bytes assumed when neither weights nor a usable config are present:
// 7 billion parameters x 2 bytes.
inline constexpr uint64_t kFallbackWeightsBytes = 7'000'000'000ull * 2;

// Finds and sizes the safetensors weights of the folder `dir`. Returns
// found == false (not an error) when the folder holds no weight file and
// no index. Warnings (stale index, unverified total, skipped files) are
// appended to `warnings`.
//
// Rules (docs/weights.md):
//  - An index whose every shard name is a plain file name (no separator,
//    drive, NUL, "." or "..") and exists beside it as a regular file is
//    trusted: bytes = total_size, kSafetensorsIndex, verified, file_count =
//    distinct shards, tensor_count = 0 (no header read). With keep_tensors
//    the headers of exactly the shards it names are read instead, once, and
//    their sum is the weights (kSafetensorsHeader; a warning when it
//    differs from total_size).
//  - Otherwise, when the folder holds *.safetensors files, their headers
//    are summed (kSafetensorsHeader) and a warning says why the index was
//    not used (stale, untrusted name, unusable file).
//  - An index with no *.safetensors beside it: bytes = total_size,
//    verified = false, file_count = the shards it names, and a warning.
//  - No index: the headers of the folder's *.safetensors files.
//  - An unusable index (bad JSON, no total_size, over
//    kMaxSafetensorsIndexBytes) and no *.safetensors: an error naming it.
// Whenever the folder's own files are summed (no index, or one not
// trusted), files that would count the same weights twice are left out
// (docs/weights.md): a complete numbered set "<prefix>-<i>-of-<N>
// .safetensors" (every i from 1 to N present) wins over any other file (a
// stray consolidated copy, another set; of two complete sets the larger N
// wins); with no complete set, loose (un-numbered) files at least as large
// on disk as the incomplete sets win over them (an interrupted shard
// download beside a consolidated copy); otherwise every file is summed.
// One warning names the skipped files.
// Weights bytes from headers are the sum of tensor data bytes, not file
// sizes. Any header error fails the whole call, naming the shard (the first
// bad one in name order). Headers of 8 or more shards are parsed on up to
// 8 threads; `fs` is still called from one thread at a time.
struct WeightsLookupOptions {
  // Keep every tensor's name, dtype, shape and bytes (WeightsLookup::
  // tensors), taken from the same header read that sizes the weights.
  bool keep_tensors = false;
};

struct WeightsLookup {
  bool found = false;
  WeightsInfo info;
  // With keep_tensors: the tensors of every file whose header was read, in
  // file-name order. Empty when no header was read (an index alone).
  std::vector<SafetensorsTensor> tensors;
};
Result<WeightsLookup> find_folder_weights(FileSystem& fs, const std::string& dir,
                                          std::vector<std::string>& warnings,
                                          const WeightsLookupOptions& options = {});

// Sizes one .safetensors file from its header. Errors name the file:
// "reading '<path>': safetensors header: <detail>".
Result<WeightsInfo> read_single_file_weights(FileSystem& fs, const std::string& path);
// The same, keeping the tensor list when options.keep_tensors; found is
// always true.
Result<WeightsLookup> read_single_file_weights(FileSystem& fs, const std::string& path,
                                               const WeightsLookupOptions& options);

// model.safetensors.index.json: which shard holds each tensor, and the
// total bytes of their data. Layout, as memfit reads it (other keys are
// skipped):
//   {"metadata": {"total_size": <bytes>, ...},
//    "weight_map": {"<tensor name>": "<shard file name>", ...}}
inline constexpr std::string_view kSafetensorsIndexName = "model.safetensors.index.json";

// Index files larger than this are refused: 64 MiB. (A 1-trillion-parameter
// checkpoint with a tensor per expert matrix has an index of ~10 MB.)
inline constexpr uint64_t kMaxSafetensorsIndexBytes = 64ull << 20;

struct SafetensorsIndex {
  std::vector<std::string> shard_names;  // distinct weight_map values, sorted
  uint64_t total_bytes = 0;              // metadata.total_size
  uint64_t tensor_count = 0;             // weight_map entries
};

// Parses an index's bytes; no file access. Fails ("safetensors index:
// <detail>") on invalid JSON, a root that is not an object, a weight_map
// that is missing, not an object or empty, a shard name that is not a
// string, and a metadata.total_size that is missing or not a non-negative
// integer (a float with an integral value, as some writers emit, is
// accepted). Shard names are returned as written: whether they are safe to
// open is the caller's rule.
Result<SafetensorsIndex> parse_safetensors_index(std::string_view json);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_WEIGHTS_H_
