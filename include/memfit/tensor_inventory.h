// The tensor list of a model's weights, read from safetensors headers
// only: every *.safetensors in a folder, or the one file named.
#ifndef MEMFIT_TENSOR_INVENTORY_H_
#define MEMFIT_TENSOR_INVENTORY_H_

#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

// Empty when the folder has no *.safetensors (an index-only download).
// Errors name the file.
Result<std::vector<SafetensorsTensor>> read_tensor_inventory(FileSystem& fs, const std::string& path);

}  // namespace memfit

#endif  // MEMFIT_TENSOR_INVENTORY_H_
