// Step 3 of open_model_by_name (memfit/model_by_name.h): a model read from
// the Hugging Face Hub, headers only.
#ifndef MEMFIT_HUB_HUB_MODEL_H_
#define MEMFIT_HUB_HUB_MODEL_H_

#include <string>

#include "memfit/file_system.h"
#include "memfit/hub_name.h"
#include "memfit/model.h"
#include "memfit/model_by_name.h"
#include "memfit/result.h"

namespace memfit {

// At most this many files' headers are fetched at once.
inline constexpr unsigned kMaxConcurrentHeaderReads = 8;
// The token file is read up to this size.
inline constexpr uint64_t kMaxTokenFileBytes = 4096;

// Opens `ref` from the Hub (online), or from options.header_store alone
// (options.hf_cache.offline; the caller checks that a store is given).
// `local_fs` reads the token file. `name` is the name as given, quoted in
// every message.
Result<Model> open_model_from_hub(FileSystem& local_fs, const std::string& name,
                                  const HubModelRef& ref, const ModelNameOptions& options,
                                  const OpenModelOptions& open_options);

// The token options.hub says: its token, else the token file's text
// trimmed of white space (no file: ""). Errors: a file that cannot be read
// or is over kMaxTokenFileBytes.
Result<std::string> resolve_hub_token(FileSystem& local_fs, const HubOptions& options);

}  // namespace memfit

#endif  // MEMFIT_HUB_HUB_MODEL_H_
