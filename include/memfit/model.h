// Model: a model named on the command line, opened by reading its config
// and its weight files' headers only.
#ifndef MEMFIT_MODEL_H_
#define MEMFIT_MODEL_H_

#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"
#include "memfit/weights.h"

namespace memfit {

struct Model {
  std::string path;            // the path as resolved
  bool has_config = false;     // false: no usable config.json; KV is unknown
  ModelSpec spec;
  WeightsInfo weights;
  // Every tensor of the weight headers, when OpenModelOptions::keep_tensors
  // asked for them and the weights have headers on disk; else empty.
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::string> warnings;  // for stderr and the report
};

struct OpenModelOptions {
  // Keep the weight headers' tensor list (Model::tensors): per-rank plans
  // and quantized weight modes price every tensor.
  bool keep_tensors = false;
};

// Opens a model folder or a single .safetensors file. Reads config.json
// whole (bounded to kMaxConfigBytes) and weight headers only. Errors name
// the file and the problem: a missing path, a config that is not JSON or
// lacks geometry, a hostile header.
Result<Model> open_model(FileSystem& fs, const std::string& path,
                         const OpenModelOptions& options = {});

// config.json files larger than this are refused (16 MiB).
inline constexpr uint64_t kMaxConfigBytes = 16ull << 20;

}  // namespace memfit

#endif  // MEMFIT_MODEL_H_
