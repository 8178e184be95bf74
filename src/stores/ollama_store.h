// Reading Ollama's store through a FileSystem: one name's manifest and
// blobs (open_store_model's Ollama half) and every manifest of a models
// folder (list_local_models'). Private to the library.
#ifndef MEMFIT_STORES_OLLAMA_STORE_H_
#define MEMFIT_STORES_OLLAMA_STORE_H_

#include <string>
#include <vector>

#include "memfit/model.h"
#include "memfit/model_stores.h"
#include "memfit/ollama_store.h"

namespace memfit {

// The store's defaults for `name` (the text after "ollama:") from the
// first of `dirs` that holds its manifest: its model blob checked, its
// params read; no weights.
Result<StoreDefaults> read_ollama_defaults(FileSystem& fs, const std::string& name,
                                           const std::vector<std::string>& dirs);

// The model `name` from the first of `dirs` that holds its manifest, its
// defaults' warnings among the model's.
Result<Model> open_ollama_model(FileSystem& fs, const std::string& name,
                                const std::vector<std::string>& dirs,
                                const OpenModelOptions& open_options);

// Every manifest under each of `dirs` (manifests/<host>/<ns>/<model>/<tag>),
// as entries named "ollama:<display>"; a manifest that does not parse or
// whose model blob is missing carries the reason. A name held by an
// earlier folder is not listed again.
void list_ollama_models(FileSystem& fs, const std::vector<std::string>& dirs,
                        std::vector<LocalModelEntry>& out);

}  // namespace memfit

#endif  // MEMFIT_STORES_OLLAMA_STORE_H_
