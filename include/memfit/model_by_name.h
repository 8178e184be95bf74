// A model by the name a user gives (-m, a request's "model"): the one
// place that decides what a name means, below every local front end (the
// CLI, the C API; the service keeps its own model roots).
//
//   1. A local path: a folder or file of that name, as open_model() reads
//      it (relative to the working folder). It wins, so a folder that
//      happens to be called "org/name" is still read as before.
//   2. A Hugging Face name, "org/name[@revision][:QUANT]" (hub_name.h),
//      found in the local Hugging Face cache (hf_cache.h): the snapshot
//      folder, the file HubModelRef::file names in it, or the GGUF model
//      of the quant. Every read is confined to the repo's cache folder: a
//      snapshot link that leads out of it is refused.
//   3. The Hugging Face Hub (hub_options.h): the revision's commit and file
//      list from the model API, then config.json whole and each weight
//      file's header by HTTP Range requests (src/hub/remote_file_system.h),
//      never tensor data. Offline (HF_HUB_OFFLINE, --offline), only
//      `header_store` is read, when there is one; else the name is not
//      found, one kInput error saying so.
#ifndef MEMFIT_MODEL_BY_NAME_H_
#define MEMFIT_MODEL_BY_NAME_H_

#include <cstddef>
#include <functional>
#include <string>

#include "memfit/file_system.h"
#include "memfit/header_store.h"
#include "memfit/hf_cache.h"
#include "memfit/hub_options.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

class HttpClient;  // src/net/http_client.h

struct ModelNameOptions {
  HfCacheOptions hf_cache;  // hf_cache_options_from_environment()
  // A file inside the repo ("model-Q8_0.gguf", "sub/model.safetensors"),
  // as --file gives it; "" for the whole snapshot. Only with a Hub name,
  // and not with a ":QUANT" tag (kUsage).
  std::string file;
  // The revision, as --revision gives it; "" = the name's own ("@v1.0")
  // or main. Giving both, different, is a usage error.
  std::string revision;
  // Step 3. hub_options_from_environment() and the command's flags.
  HubOptions hub;
  HttpClient* http = nullptr;           // null: libcurl's client
  HeaderStore* header_store = nullptr;  // null: no cache of headers between runs
  // Called while the shards' headers are read from the Hub, when there
  // are kHubProgressMinFiles or more: (files read, files in all).
  std::function<void(size_t, size_t)> progress;
  // false: step 1 is skipped, and a name that is not a Hub name is a
  // kUsage error: a caller that must not read local paths outside its
  // own folders (the service, with --allow-hub) reads caches only.
  bool local_paths = true;
};

inline constexpr size_t kHubProgressMinFiles = 8;

// Opens what `name` means (above) with `open_options`. The Model's path is
// the local path read (for a cached name, inside its snapshot folder).
// Errors, each one line:
//   kUsage   a Hub name that breaks the Hub's rules; a quant that matches
//            no GGUF model of the snapshot or several (listing them); a
//            file with a local path or with a quant
//   kInput   offline, and not a local path and not in the cache:
//              'Qwen/Qwen3-8B': not a local path, and not in the Hugging
//              Face cache at '/home/u/.cache/huggingface/hub' (no folder
//              'models--Qwen--Qwen3-8B'); offline (HF_HUB_OFFLINE or
//              --offline): only the caches are read
//            the Hub's answers (hub_reader.h: no such repo, gated or
//            private, no such revision, no weight files, network down,
//            timeout, a server that ignores Range); a file the snapshot lacks; a snapshot with
//            no config.json and no weight files (where a local folder gets
//            open_model()'s 7B placeholder); a link out of the repo's
//            folder; and whatever open_model() says of the files.
// A name that is not a valid Hub name and names no local path gets
// open_model()'s "no such file or directory".
Result<Model> open_model_by_name(FileSystem& fs, const std::string& name,
                                 const ModelNameOptions& options,
                                 const OpenModelOptions& open_options);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MODEL_BY_NAME_H_
