// open_model_by_name (memfit/model_by_name.h): a local path, else the
// Hugging Face cache, else the Hub (hub_model.h), through a FileSystem that
// reads over HTTP ranges.
#include "memfit/model_by_name.h"

#include <optional>

#include <fmt/format.h>

#include "hub/confined_file_system.h"
#include "hub/gguf_quant.h"
#include "hub/hub_model.h"
#include "memfit/hub_name.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

Error not_in_cache(const std::string& name, const HfCacheOptions& cache, const std::string& missing) {
  return Error(fmt::format("{}: not a local path, and not in the Hugging Face cache at {} ({}); "
                           "offline (HF_HUB_OFFLINE or --offline): only the caches are read",
                           quote_untrusted(name), quote_untrusted(cache.hub_cache_dir), missing));
}

// The path inside the snapshot that `ref` asks for: the folder, a file, or
// a quant's GGUF model.
Result<std::string> target_in_snapshot(FileSystem& fs, const HubModelRef& ref,
                                       const HfCacheSnapshot& snapshot) {
  const std::string label =
      fmt::format("{} at {}", quote_untrusted(ref.repo_id + "@" + ref.revision),
                  snapshot.commit.substr(0, 12));
  if (!ref.quant.empty()) {
    Result<std::string> entry = find_gguf_quant(fs, snapshot.snapshot_dir, ref.quant, label);
    if (!entry) return entry.error();
    return join_path(snapshot.snapshot_dir, *entry);
  }
  if (ref.file.empty()) return snapshot.snapshot_dir;
  const std::string path = join_path(snapshot.snapshot_dir, ref.file);
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kMissing) {
    return Error(fmt::format("no file {} in {} in the Hugging Face cache",
                             quote_untrusted(ref.file), label));
  }
  return path;
}

// Whether `name` ("models/nope") starts with a folder that is here: then
// it is most likely a path, whatever the Hub says of it.
bool names_a_local_folder(FileSystem& fs, const std::string& name, const ModelNameOptions& options) {
  const size_t slash = name.find('/');
  if (!options.local_paths || slash == std::string::npos) return false;
  Result<FileStat> parent = fs.stat(name.substr(0, slash));
  return parent && parent->kind == FileKind::kDirectory;
}

// A name that is a missing path here and that the Hub could not give:
// the missing path first, what the Hub said after it.
Error missing_here(const std::string& name, const Error& hub) {
  return Error(fmt::format("{}: no such file or folder (and not from the Hugging Face Hub: {})",
                           quote_untrusted(name), hub.message()),
               hub.kind());
}

}  // namespace

Result<Model> open_model_by_name(FileSystem& fs, const std::string& name,
                                 const ModelNameOptions& options,
                                 const OpenModelOptions& open_options) {
  if (!options.local_paths && !looks_like_hub_name(name)) {
    return Error::usage("model", fmt::format("{}: not a Hugging Face name (org/name)",
                                             quote_untrusted(name)));
  }
  Result<FileStat> local = options.local_paths ? fs.stat(name) : Result<FileStat>(FileStat{});
  if (!local) return local.error();
  if (local->kind != FileKind::kMissing || !looks_like_hub_name(name)) {
    if (!options.file.empty()) {
      return Error::usage("file", "names a file inside a Hugging Face repo: give -m org/name");
    }
    return open_model(fs, name, open_options);
  }

  Result<HubModelRef> ref = hub_ref_with_options(name, options);
  if (!ref) return ref.error();

  // Every read in the repo's cache folder, its refs and the snapshot's
  // listing included, stays inside it. No folder: the lookup says so.
  const std::string folder = hf_cache_repo_folder(ref->repo_id);
  Result<std::optional<std::string>> root =
      fs.real_path(join_path(options.hf_cache.hub_cache_dir, folder));
  if (!root) return root.error();
  std::optional<ConfinedFileSystem> confined;
  if (*root) confined.emplace(fs, **root, folder);
  FileSystem& repo_fs = confined ? static_cast<FileSystem&>(*confined) : fs;

  Result<HfCacheLookup> lookup = find_in_hf_cache(repo_fs, options.hf_cache.hub_cache_dir, *ref);
  if (!lookup) return lookup.error();
  if (!lookup->snapshot) {
    if (options.hf_cache.offline && !options.header_store) {
      return not_in_cache(name, options.hf_cache, lookup->missing);
    }
    Result<Model> hub = open_model_from_hub(fs, name, *ref, options, open_options);
    if (!hub && names_a_local_folder(fs, name, options)) return missing_here(name, hub.error());
    return hub;
  }
  Result<std::string> target = target_in_snapshot(repo_fs, *ref, *lookup->snapshot);
  if (!target) return target.error();
  Result<Model> model = open_model(repo_fs, *target, open_options);
  // A local folder with nothing to size gets the loud 7B placeholder; a
  // snapshot with nothing to size is not a model (a README, a tokenizer).
  if (model && model->weights.source == WeightsSource::kFallback) {
    return Error(fmt::format("{}: no config.json and no weight files in its snapshot {} in the "
                             "Hugging Face cache",
                             quote_untrusted(name), lookup->snapshot->commit.substr(0, 12)));
  }
  return model;
}

}  // namespace memfit
