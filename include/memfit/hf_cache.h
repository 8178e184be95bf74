// The local Hugging Face cache, as huggingface_hub lays it out:
//
//   <hub cache>/models--<org>--<name>/
//     refs/<revision>          a branch or tag's commit: 40 hex digits, no
//                              newline ("refs/pr/1" is refs/refs/pr/1)
//     snapshots/<commit>/...   the repo's tree at that commit; each file a
//                              relative symbolic link into ../../blobs/
//     blobs/<hash>             the files' bytes (git blob sha1, or sha256
//                              for LFS files)
//
// Only reads: nothing here writes to the cache, and nothing here reaches
// the network.
#ifndef MEMFIT_HF_CACHE_H_
#define MEMFIT_HF_CACHE_H_

#include <optional>
#include <string>
#include <string_view>

#include "memfit/environment.h"
#include "memfit/file_system.h"
#include "memfit/hub_name.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct HfCacheOptions {
  std::string hub_cache_dir;  // the folder that holds models--org--name folders
  bool offline = false;       // HF_HUB_OFFLINE: only caches may be read
};

// huggingface_hub's own lookup: HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else $HOME/.cache/huggingface/hub (with
// no HOME: ".cache/huggingface/hub", relative). offline when HF_HUB_OFFLINE
// is 1, ON, YES or TRUE, in any case.
HfCacheOptions hf_cache_options_from_environment(const Environment& env);

// "models--Qwen--Qwen3-8B" for "Qwen/Qwen3-8B": a checked repo id's folder.
std::string hf_cache_repo_folder(std::string_view repo_id);

// A revision the cache holds.
struct HfCacheSnapshot {
  std::string repo_dir;      // <hub cache>/models--org--name
  std::string commit;        // 40 hex digits
  std::string snapshot_dir;  // <repo_dir>/snapshots/<commit>
};

// The cache's answer for one repo and revision: a snapshot, or what the
// cache lacks, as a phrase for a message ("no folder
// 'models--Qwen--Qwen3-8B'", "no ref 'v2' in 'models--Qwen--Qwen3-8B'",
// "no snapshot 'f47b...' in 'models--Qwen--Qwen3-8B'"). Absence is an
// outcome, not an error: later the Hub is asked instead.
struct HfCacheLookup {
  std::optional<HfCacheSnapshot> snapshot;
  std::string missing;
};

// Finds `ref`'s revision of its repo under `hub_cache_dir`: a 40-hex
// revision is the snapshot's name itself, any other is read from
// refs/<revision> (at most 1 KiB; its text, trimmed of white space, must be
// a commit). `ref` must have passed parse_hub_model_ref's checks. Errors
// (kInput): a ref that is not a commit, a refs or snapshots entry that is
// not what it should be, a failed read.
Result<HfCacheLookup> find_in_hf_cache(FileSystem& fs, const std::string& hub_cache_dir,
                                       const HubModelRef& ref);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HF_CACHE_H_
