// Hugging Face model names: what `-m org/name[@revision][:QUANT]` asks for.
//
//   Qwen/Qwen3-8B                   the repo at revision "main"
//   Qwen/Qwen3-8B@v1.0              a branch or tag (may hold '/': refs/pr/1)
//   Qwen/Qwen3-8B@<40 hex digits>   a commit, used as the snapshot directly
//   unsloth/Qwen3-8B-GGUF:Q4_K_M    the repo's GGUF file of that quant
//   unsloth/Qwen3-8B-GGUF@main:Q8_0 both
//
// A file of the repo may be named instead of a quant (HubModelRef::file,
// the request's --file). Names are checked as strictly as the Hub checks
// repo ids, so a parsed name is safe to join onto a cache folder: no part
// can climb out of it.
#ifndef MEMFIT_HUB_NAME_H_
#define MEMFIT_HUB_NAME_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Bounds on each part, in bytes: a repo id's org and name (the Hub's 96),
// a revision, a quant tag, a file path inside the repo.
inline constexpr size_t kMaxHubNamePartBytes = 96;
inline constexpr size_t kMaxHubRevisionBytes = 128;
inline constexpr size_t kMaxHubQuantBytes = 32;
inline constexpr size_t kMaxHubFileBytes = 512;

inline constexpr std::string_view kDefaultHubRevision = "main";

struct HubModelRef {
  std::string repo_id;                            // "org/name"
  std::string revision{kDefaultHubRevision};      // a branch, a tag or a 40-hex commit
  std::string quant;  // "" or a GGUF quant tag as written ("Q4_K_M")
  std::string file;   // "" or a path inside the repo ("gguf/model-Q8_0.gguf")
};

// True when the text before the first '@' or ':' of `text` is a valid repo
// id: `text` was meant as a Hub name, so parse errors about its other parts
// are worth reporting (rather than "no such file").
bool looks_like_hub_name(std::string_view text);

// Parses "org/name[@revision][:QUANT]". kUsage errors about the field
// "model", one line, the offending text quoted:
//   'Qwen/Qwen3..8B': a Hugging Face repo id may not hold ".." or "--"
Result<HubModelRef> parse_hub_model_ref(std::string_view text);

// The checks parse_hub_model_ref applies to each part, each a kUsage error
// naming no field.
//   repo id   "org/name": one '/', each side 1..96 of [A-Za-z0-9._-],
//             starting and ending with a letter, a digit or '_', no ".."
//             and no "--" (the cache's folder separator)
//   revision  1..128 of [A-Za-z0-9._/-]; '/'-separated parts, none empty
//             and none starting with '.'
//   quant     1..32 of [A-Za-z0-9._-], starting with a letter or a digit
//   file      1..512 printable ASCII bytes but \ : * ? " < > |, '/'-separated
//             parts, none empty, "." or ".."
Status check_hub_repo_id(std::string_view repo_id);
Status check_hub_revision(std::string_view revision);
Status check_hub_quant(std::string_view quant);
Status check_hub_file(std::string_view file);

// True when `revision` is a full commit hash: 40 lower-case hex digits.
bool is_hub_commit(std::string_view revision);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HUB_NAME_H_
