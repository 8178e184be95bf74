// Model: a model named on the command line, opened by reading its config
// and its weight files' headers only.
#ifndef MEMFIT_MODEL_H_
#define MEMFIT_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/visibility.h"
#include "memfit/weights.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct GgufHeader;  // memfit/gguf.h

struct Model {
  std::string path;            // the path as resolved: the file the engine loads
  // The name a store opened it by, when that is not its path
  // ("ollama:qwen3:8b", whose path is a blob): what reports name the model
  // by; "" for a model opened by its path.
  std::string name;
  bool has_config = false;     // false: no usable config.json; KV is unknown
  ModelSpec spec;
  WeightsInfo weights;
  std::vector<std::string> warnings;  // for stderr and the report
  // With OpenModelOptions::keep_tensors: every tensor of the weight files
  // the weights were sized from (names, dtypes, shapes, bytes), in file-name
  // order. Empty when no header was read (an index alone, weights from the
  // config, the fallback) or when not asked for.
  std::vector<SafetensorsTensor> tensors;
  // A GGUF model's first file's header as read (its metadata and that
  // file's tensor infos): what an engine reads beyond the spec (llama.cpp's
  // graph of the file, docs/llamacpp-rules.md). Null for other formats.
  std::shared_ptr<const GgufHeader> gguf;
};

struct OpenModelOptions {
  // Keep the headers' tensor list in Model::tensors, for callers that need
  // it (per-rank parallel plans, recommend-quant, plot --quants). It comes
  // from the one header pass that sizes the weights: each header is read
  // once. A trusted shard index is then checked against its shards' headers
  // rather than taken on trust (see find_folder_weights).
  bool keep_tensors = false;
};

// Opens a model folder, a single .safetensors file, or a GGUF model. Reads
// config.json whole (bounded to kMaxConfigBytes) and weight headers only,
// each header once. A multimodal config's weights are split into
// WeightsInfo::component_bytes from that same pass (a trusted index's
// shards are read for it). Errors name the file and the problem: a missing
// path, a config that is not JSON or lacks geometry, a hostile header.
//
// GGUF: a .gguf file, or any file of a split set (every split is read), is
// one model: the spec from its metadata (model_spec_from_gguf), has_config
// true, the weights the exact sum of its tensors' bytes (kGgufHeader,
// verified), the tensors (with keep_tensors) named as in the file with the
// ggml type name as dtype, the first file's header in `gguf`. A folder with no config.json and no safetensors
// weights that holds one GGUF model (projector files, "mmproj*", aside) is
// that model; one that holds several is a kUsage error naming them.
Result<Model> open_model(FileSystem& fs, const std::string& path);
Result<Model> open_model(FileSystem& fs, const std::string& path, const OpenModelOptions& options);

// config.json files larger than this are refused (16 MiB).
inline constexpr uint64_t kMaxConfigBytes = 16ull << 20;

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MODEL_H_
