// open_model's GGUF door (memfit/model.h): a .gguf file, any member of a
// split set, or a folder that holds one GGUF model and no safetensors
// model.
#ifndef MEMFIT_MODEL_GGUF_MODEL_H_
#define MEMFIT_MODEL_GGUF_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/model.h"
#include "memfit/result.h"

namespace memfit {

// The model `path` names (a file, or any split of a set): the spec from the
// first file's metadata (model_spec_from_gguf), the weights the exact sum
// of every file's tensor bytes (kGgufHeader, verified), the first file's
// header as Model::gguf, and with options.keep_tensors every tensor as a
// SafetensorsTensor (dtype the ggml type name, "q4_K"; shape outermost
// first, ne[3] .. ne[0], as safetensors writes it). Only headers are read.
// Errors name the file.
Result<Model> open_gguf_model(FileSystem& fs, const std::string& path,
                              const OpenModelOptions& options);

// The GGUF models of the folder `dir`, by the file that names each: a whole
// model's file, or the first split of a set. Projector files (names that
// start with "mmproj", llama.cpp's --mmproj files) are not models. Sorted.
Result<std::vector<std::string>> list_folder_gguf_models(FileSystem& fs, const std::string& dir);

// The GGUF model to open for a folder with no config.json: its only GGUF
// model, when it holds no safetensors weights (*.safetensors or the index);
// nullopt when it holds none; a usage error listing them when it holds
// several.
Result<std::optional<std::string>> folder_gguf_model(FileSystem& fs, const std::string& dir);

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_MODEL_H_
