// open_store_model and list_local_models (memfit/model_stores.h): each
// store's reader (ollama_store.h, lmstudio_store.h), the Hugging Face
// cache's repos and plain folders of models, one list.
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "hub/gguf_quant.h"
#include "memfit/hub_name.h"
#include "memfit/model_stores.h"
#include "model/gguf/model.h"
#include "stores/lmstudio_store.h"
#include "stores/ollama_store.h"

namespace memfit {
namespace {

constexpr std::string_view kHfRepoFolderPrefix = "models--";

bool has_config(FileSystem& fs, const std::string& dir) {
  Result<FileStat> st = fs.stat(join_path(dir, "config.json"));
  return st && st->kind == FileKind::kRegular;
}

// A cached repo's models at its main ref: the repo itself when its
// snapshot has a config.json, else one name per GGUF model (by its quant
// tag; a file without one is an entry that says so).
void list_hf_repo(FileSystem& fs, const std::string& hub_cache_dir, const std::string& repo_id,
                  std::vector<LocalModelEntry>& out) {
  Result<HubModelRef> ref = parse_hub_model_ref(repo_id);
  if (!ref) return;
  Result<HfCacheLookup> lookup = find_in_hf_cache(fs, hub_cache_dir, *ref);
  if (!lookup) {
    out.push_back({repo_id, "hf-cache", "", lookup.error().message()});
    return;
  }
  if (!lookup->snapshot) return;  // no main ref: a download under way, or another revision only
  const std::string& snapshot = lookup->snapshot->snapshot_dir;
  if (has_config(fs, snapshot)) {
    out.push_back({repo_id, "hf-cache", "safetensors", ""});
    return;
  }
  Result<std::vector<std::string>> ggufs = list_repo_gguf_models(fs, snapshot);
  if (!ggufs) return;
  if (ggufs->size() == 1) {
    out.push_back({repo_id, "hf-cache", "gguf", ""});
    return;
  }
  for (const std::string& file : *ggufs) {
    const std::string tag = gguf_model_quant_tag(file);
    if (tag.empty()) {
      out.push_back({fmt::format("{} --file {}", repo_id, file), "hf-cache", "gguf",
                     "no quant tag in its file name: name it with --file"});
    } else {
      out.push_back({repo_id + ":" + tag, "hf-cache", "gguf", ""});
    }
  }
}

void list_hf_cache(FileSystem& fs, const HfCacheOptions& hf_cache, std::vector<LocalModelEntry>& out) {
  if (hf_cache.hub_cache_dir.empty()) return;
  Result<std::vector<std::string>> folders = fs.list_dir(hf_cache.hub_cache_dir);
  if (!folders) return;
  for (const std::string& folder : *folders) {
    if (!folder.starts_with(kHfRepoFolderPrefix)) continue;
    std::string repo_id = folder.substr(kHfRepoFolderPrefix.size());
    const size_t separator = repo_id.find("--");
    if (separator == std::string::npos) continue;
    repo_id.replace(separator, 2, "/");
    list_hf_repo(fs, hf_cache.hub_cache_dir, repo_id, out);
  }
}

// A folder's models, as the service's model roots list them (GET
// /v1/models): its GGUF model files, and each sub-folder with a
// config.json or with GGUF models (one entry: a request for a folder of
// several is refused, naming them).
void list_folder(FileSystem& fs, const std::string& folder, std::vector<LocalModelEntry>& out) {
  Result<std::vector<std::string>> entries = fs.list_dir(folder);
  if (!entries) return;
  Result<std::vector<std::string>> top = list_folder_gguf_models(fs, folder);
  for (const std::string& name : *entries) {
    const std::string path = join_path(folder, name);
    if (top && std::find(top->begin(), top->end(), name) != top->end()) {
      out.push_back({path, "folder", "gguf", ""});
      continue;
    }
    Result<FileStat> st = fs.stat(path);
    if (!st || st->kind != FileKind::kDirectory) continue;
    if (has_config(fs, path)) {
      out.push_back({path, "folder", "safetensors", ""});
      continue;
    }
    Result<std::vector<std::string>> ggufs = list_folder_gguf_models(fs, path);
    if (ggufs && !ggufs->empty()) out.push_back({path, "folder", "gguf", ""});
  }
}

}  // namespace

Result<Model> open_store_model(FileSystem& fs, const std::string& name,
                               const ModelStoreOptions& stores, const OpenModelOptions& open_options) {
  if (name.starts_with(kOllamaPrefix)) {
    return open_ollama_model(fs, name.substr(kOllamaPrefix.size()), stores.ollama_dirs, open_options);
  }
  if (name.starts_with(kLmStudioPrefix)) {
    return open_lmstudio_model(fs, name.substr(kLmStudioPrefix.size()), stores.lmstudio_dirs,
                               open_options);
  }
  return Error::usage("model", "not a store's name: give ollama:NAME[:TAG] or lmstudio:PUBLISHER/REPO[/FILE]");
}

Result<StoreDefaults> read_store_defaults(FileSystem& fs, const std::string& name,
                                          const ModelStoreOptions& stores) {
  if (name.starts_with(kOllamaPrefix)) {
    return read_ollama_defaults(fs, name.substr(kOllamaPrefix.size()), stores.ollama_dirs);
  }
  // LM Studio keeps its load settings in its own app data, not beside the
  // files: its models start with the engine's defaults.
  StoreDefaults none;
  none.store = "lmstudio";
  return none;
}

ModelStoreOptions process_model_store_options() {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  return model_store_options_from_environment(*make_process_environment(), *fs);
}

std::vector<LocalModelEntry> list_local_models(FileSystem& fs, const ModelStoreOptions& stores,
                                               const HfCacheOptions& hf_cache,
                                               const std::vector<std::string>& folders) {
  std::vector<LocalModelEntry> out;
  list_ollama_models(fs, stores.ollama_dirs, out);
  list_lmstudio_models(fs, stores.lmstudio_dirs, out);
  list_hf_cache(fs, hf_cache, out);
  for (const std::string& folder : folders) list_folder(fs, folder, out);
  return out;
}

}  // namespace memfit
