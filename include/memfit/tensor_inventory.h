// The tensor list of a model's weights, read from safetensors headers
// only: the files find_folder_weights sizes in a folder (the shards a
// trusted index names; otherwise the folder's own files, less any that
// would count the weights twice), or the one file named.
//
// Prefer open_model(fs, path, {.keep_tensors = true}) and Model::tensors:
// it reads each header once, where calling this after open_model reads
// them a second time. Kept while the CLI moves to that.
#ifndef MEMFIT_TENSOR_INVENTORY_H_
#define MEMFIT_TENSOR_INVENTORY_H_

#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"
#include "memfit/safetensors.h"

namespace memfit {

// Empty when no header is on disk (a folder with an index alone, or with no
// weights). Errors name the file.
Result<std::vector<SafetensorsTensor>> read_tensor_inventory(FileSystem& fs, const std::string& path);

}  // namespace memfit

#endif  // MEMFIT_TENSOR_INVENTORY_H_
