// Step 3 of open_model_by_name (memfit/model_by_name.h): a model read from
// the Hugging Face Hub, headers only.
#ifndef MEMFIT_HUB_HUB_MODEL_H_
#define MEMFIT_HUB_HUB_MODEL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hub/hub_reader.h"
#include "hub/remote_file_system.h"
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

// The ref `name` means with the options' --file and --revision applied
// (kUsage: a bad name, a file with a quant, a bad file or revision, a
// revision flag that differs from the name's @revision).
Result<HubModelRef> hub_ref_with_options(const std::string& name, const ModelNameOptions& options);

// A repo of the Hub at one commit, as a file system: everything the
// file system reads through is owned here (moving it keeps `fs` valid).
struct HubRepo {
  std::unique_ptr<HttpClient> own_http;  // null when options.http is given, or offline
  std::unique_ptr<HubReader> reader;     // null offline
  HubRevision revision;                  // the commit and its files, with their exact sizes
  std::string at;  // "revision 'main' (commit 0123456789ab) on the Hub", for messages
  std::unique_ptr<RemoteFileSystem> fs;  // paths "<repo id>/<file>"
};

// The commit `ref.revision` names and its listing: from the Hub (online;
// a branch or tag is asked every time, a commit's listing may come from
// options.header_store), or from options.header_store alone
// (options.hf_cache.offline; the caller checks that a store is given).
// Errors: the Hub's (hub_reader.h), or offline, a revision or listing the
// store lacks. `name` is the name as given, quoted in every message.
Result<HubRepo> open_hub_repo(FileSystem& local_fs, const std::string& name, const HubModelRef& ref,
                              const ModelNameOptions& options);

// The files of `repo` whose headers the loader reads for `target` (a path
// inside the repo; "" for the whole tree: config.json, the index and the
// top-level safetensors files), as paths of repo.fs. For a GGUF file, the
// rest of its split set too.
std::vector<std::string> hub_files_to_prefetch(const HubRepo& repo, const std::string& target);

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
