// Reading LM Studio's models folder through a FileSystem:
//
//   <models>/<publisher>/<repo>/<file>.gguf        a GGUF model (mmproj* files beside it)
//   <models>/<publisher>/<repo>/config.json ...    an MLX (safetensors) model folder
//
// (LM Studio's docs, "Import Models": docs/stores.md.) Private to the library.
#ifndef MEMFIT_STORES_LMSTUDIO_STORE_H_
#define MEMFIT_STORES_LMSTUDIO_STORE_H_

#include <string>
#include <vector>

#include "memfit/model.h"
#include "memfit/model_stores.h"

namespace memfit {

// The model `name` (the text after "lmstudio:") from the first of `dirs`
// that holds it.
Result<Model> open_lmstudio_model(FileSystem& fs, const std::string& name,
                                  const std::vector<std::string>& dirs,
                                  const OpenModelOptions& open_options);

// Every model under each of `dirs`: each GGUF model file of a repo folder
// ("lmstudio:pub/repo/file.gguf"), and each repo folder with a config.json
// ("lmstudio:pub/repo"). A name an earlier folder holds is not listed again.
void list_lmstudio_models(FileSystem& fs, const std::vector<std::string>& dirs,
                          std::vector<LocalModelEntry>& out);

}  // namespace memfit

#endif  // MEMFIT_STORES_LMSTUDIO_STORE_H_
