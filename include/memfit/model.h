// Model: a model named on the command line, opened by reading its config
// and its weight files' headers only.
#ifndef MEMFIT_MODEL_H_
#define MEMFIT_MODEL_H_

#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/weights.h"

namespace memfit {

struct Model {
  std::string path;            // the path as resolved
  bool has_config = false;     // false: no usable config.json; KV is unknown
  ModelSpec spec;
  WeightsInfo weights;
  std::vector<std::string> warnings;  // for stderr and the report
};

// Opens a model folder or a single .safetensors file. Reads config.json
// whole (bounded to kMaxConfigBytes) and weight headers only. Errors name
// the file and the problem: a missing path, a config that is not JSON or
// lacks geometry, a hostile header.
Result<Model> open_model(FileSystem& fs, const std::string& path);

// config.json files larger than this are refused (16 MiB).
inline constexpr uint64_t kMaxConfigBytes = 16ull << 20;

}  // namespace memfit

#endif  // MEMFIT_MODEL_H_
