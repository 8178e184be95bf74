// A folder of GGUF models (a quant repo such as unsloth/Qwen3-8B-GGUF, a
// local folder, a snapshot of the Hugging Face cache) priced file by file:
// what `memfit recommend-quant -m <GGUF repo>` prints.
//
// Everything is read through a FileSystem under a root folder, so the same
// pricing runs on a local folder, a cache snapshot or a remote listing.
// Only headers are read, never tensor data.
#ifndef MEMFIT_GGUF_REPO_H_
#define MEMFIT_GGUF_REPO_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/file_system.h"
#include "memfit/llamacpp.h"
#include "memfit/model_by_name.h"
#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"
#include "memfit/warning.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// One GGUF model of the folder: a whole file, or a split set summed.
struct GgufRepoModel {
  std::string path;         // relative to the root, its first split for a set
  std::string quant;        // the tag its file name ends with ("Q4_K_M"); "" when none
  std::string main_type;    // the ggml type holding most of its weight bytes ("q4_K")
  uint64_t file_count = 0;  // 1, or the splits of a set
  uint64_t size_bytes = 0;  // exact: the files' sizes, summed (what a download takes)
  LlamaCppEstimate estimate;  // at the request's settings; estimate.fits against the budget
  // Its decode at the end of the context (docs/speed.md, "Plans chosen for
  // speed"): the figure ranked (nullopt: unknown, or nothing decoded); as
  // the text says it ("31 tok/s", "at most ...", "unknown: give --gpu or
  // --mac"); as JSON ({"decode_tokens_per_second", "not_counted"}); and
  // the report's whole speed object.
  std::optional<double> decode_tokens_per_second;
  std::string decode_text;
  nlohmann::ordered_json decode_json;
  nlohmann::ordered_json speed;
};

// One model of the ranking by decode speed.
struct GgufRepoRankedPlan {
  size_t model = 0;  // its index in GgufRepoPricing::models
  // From the plan before it: "Q4_K_M -> Q8_0 (4.68 -> 8.11 GiB): decode
  // 60 -> 38 tok/s"; the first plan's own line ("Q4_K_M (4.68 GiB):
  // decode 60 tok/s"). A model without a quant tag is named by its path.
  std::string step;
};

struct GgufRepoPricing {
  std::vector<GgufRepoModel> models;  // sorted by path
  // The most precise model that fits: the largest size_bytes among those
  // that fit; on equal sizes, the main type with more bits per weight, then
  // the first path. nullopt when none fits.
  std::optional<size_t> recommended;
  // The model that fits and decodes fastest (speed_rank's order: the fewer
  // bytes a token reads at an unknown bandwidth, then the faster known
  // decode); nullopt when none fits or no model's speed is known.
  std::optional<size_t> fastest;
  // The models that fit, fastest first (on a tie the earlier path), each
  // with the step from the one before.
  std::vector<GgufRepoRankedPlan> plans_by_speed;
  // The first model's prepared request: the budget, the resolved llama.cpp
  // settings and the warnings the request and the host gave (each model's
  // own warnings are folded in, each line once).
  PreparedRequest prepared;
};

// Prices every GGUF model under `root` (list_repo_gguf_models: the root and
// its folders one level down, projectors aside) with `request` (its model
// field is ignored; its engine must be unset or llamacpp), reading files
// from `fs` and everything else (settings, platform, the host's budget)
// from `context`. Errors: kUsage for another engine; kInput when `root`
// holds no GGUF model; the first model's error (the loader's names its
// file; an estimate's is prefixed with the model's path in the folder).
Result<GgufRepoPricing> price_gguf_repo(FileSystem& fs, const std::string& root,
                                        const EstimateRequest& request, RequestContext& context);

// A folder of GGUF models that a model name names.
struct GgufRepoFolder {
  std::shared_ptr<FileSystem> base;  // what `fs` reads local files through
  // Confined to a cached repo's folder; the Hub's repo at one commit (it
  // owns its HTTP client); or `base`.
  std::shared_ptr<FileSystem> fs;
  std::string root;                  // the folder, as `fs` names it (the repo id on the Hub)
};

// What open_model_by_name would read for `name`, when that is a folder
// holding GGUF models and no safetensors files: a local folder; a Hub name
// without ":QUANT" or a file (options.file), at options.revision or the
// name's, whose snapshot the Hugging Face cache holds; else that repo on
// the Hub (online, or offline from options.header_store), its files and
// exact sizes from the Hub's listing, each GGUF model's header files'
// first blocks prefetched, 8 at a time (nothing past a header is ever
// read: remote_file_system.h). nullopt for anything else (a file, a
// checkpoint, a repo without GGUF models, an invalid name, offline with no
// header store: open_model_by_name then says what it is). Errors: the
// Hub's (no such repo, gated or private, network, timeout; hub_reader.h).
// Reads local files through `base`.
Result<std::optional<GgufRepoFolder>> find_gguf_repo_folder(std::shared_ptr<FileSystem> base,
                                                            const std::string& name,
                                                            const ModelNameOptions& options);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_GGUF_REPO_H_
