// The model stores of the machine memfit runs on: Ollama's (ollama_store.h)
// and LM Studio's models folder, read by the names `-m` takes:
//
//   ollama:NAME[:TAG]                 ollama:qwen3:8b, ollama:me/tuned, ollama:host/ns/m:q4
//   lmstudio:PUBLISHER/REPO[/FILE]    lmstudio:lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf
//
// and every model those stores, the Hugging Face cache and a list of
// folders hold (list_local_models: what `memfit ls` prices). Only the
// stores' small files (manifests, params) and the weights' headers are
// read. Layouts, default folders and their sources: docs/stores.md.
#ifndef MEMFIT_MODEL_STORES_H_
#define MEMFIT_MODEL_STORES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/environment.h"
#include "memfit/file_system.h"
#include "memfit/hf_cache.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

inline constexpr std::string_view kOllamaPrefix = "ollama:";
inline constexpr std::string_view kLmStudioPrefix = "lmstudio:";

// The folders each store is looked for in, in order: a name is read from
// the first folder that holds it, and a listing lists each folder.
struct ModelStoreOptions {
  std::vector<std::string> ollama_dirs;    // each holds manifests/ and blobs/
  std::vector<std::string> lmstudio_dirs;  // each holds PUBLISHER/REPO/ folders
};

enum class StoreOs { kLinux, kMacos, kWindows };
StoreOs build_store_os();  // the OS this build runs on

// Ollama: $OLLAMA_MODELS alone when set (trimmed of spaces and quotes, as
// Ollama's envconfig.Var does); else <home>/.ollama/models, and on Linux
// also the system service's /usr/share/ollama/.ollama/models. LM Studio:
// the folder the LM Studio home pointer file names, when there is one
// (<home>/.lmstudio-home-pointer, read with at most 4 KiB: "<that>/models"),
// then <home>/.lmstudio/models, then the older <home>/.cache/lm-studio/models.
// <home> is $HOME (Windows: %USERPROFILE%); with none, only $OLLAMA_MODELS.
// Reads nothing but the pointer file; a folder need not exist.
ModelStoreOptions model_store_options_from_environment(const Environment& env, FileSystem& fs,
                                                       StoreOs os = build_store_os());

// True for a name with a store's prefix: open_store_model's to read.
bool is_store_model_name(std::string_view name);

// What a store says of how it runs a model (docs/stores.md).
struct StoreDefaults {
  std::string store;       // "ollama", "lmstudio"
  std::string model_path;  // the weights file or folder open_store_model opens
  // The context the store starts the model with (Ollama's num_ctx): the
  // request's context when it gives none (prepare(), request.h).
  std::optional<uint64_t> context_tokens;
  // Every Modelfile parameter, its value as compact JSON text, by name.
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<std::string> projector_paths;  // Ollama's projector blobs (llama.cpp's --mmproj)
  std::vector<std::string> adapter_paths;    // Ollama's adapter blobs (--lora)
  // What of them is not priced, one line each (the model's warnings).
  std::vector<std::string> warnings;
};

// The store's defaults for `name`, read as open_store_model reads them (the
// manifest and the params blob; no weights). Errors as open_store_model's.
Result<StoreDefaults> read_store_defaults(FileSystem& fs, const std::string& name,
                                          const ModelStoreOptions& stores);

// The stores of this process's environment, on the real file system
// (model_store_options_from_environment): what the CLI and the C API read
// store names from.
ModelStoreOptions process_model_store_options();

// Opens the model a store name names. Ollama: the manifest (bounded, at
// most kMaxOllamaManifestBytes), its model layer's blob by its GGUF header,
// its params (num_ctx and the rest), its projector and
// adapter blobs' paths (read_store_defaults; its warnings are the
// model's). LM Studio: PUBLISHER/REPO/FILE as open_model reads
// it; PUBLISHER/REPO is the folder (its one GGUF model, or an MLX
// safetensors folder). Errors, one line, kUsage for a name that breaks the
// store's rules, kInput for what the store lacks or holds wrong:
//   ollama:qwen3:8b: no manifest 'registry.ollama.ai/library/qwen3/8b' in
//     Ollama's models folders ('/home/u/.ollama/models'); set OLLAMA_MODELS
//   ollama:qwen3:8b: manifest: layer 0: digest ... ; its model blob
//     'sha256-ab12...' is missing from '/home/u/.ollama/models/blobs'
Result<Model> open_store_model(FileSystem& fs, const std::string& name,
                               const ModelStoreOptions& stores, const OpenModelOptions& open_options);

// One model a store or folder holds, as `memfit ls` lists it.
struct LocalModelEntry {
  std::string name;    // as -m takes it: "ollama:qwen3:8b", "org/name", a path
  std::string store;   // "ollama", "lmstudio", "hf-cache", "folder"
  std::string format;  // "gguf", "safetensors", "mlx" (an MLX safetensors folder), "config"
  std::string error;   // "": listed; else why the entry cannot be read (one line)
};

// Every model of the stores, the Hugging Face cache (each repo at its
// "main" ref, or its one snapshot when it has no ref) and `folders` (each
// entry of a folder that is a model: a GGUF file, a folder with a
// config.json or with GGUF files), in that order, each store sorted by
// name. A broken entry (a manifest that does not parse, a missing blob) is
// an entry with its error; a folder that does not exist is no entry.
// Nothing is opened past the stores' own files.
std::vector<LocalModelEntry> list_local_models(FileSystem& fs, const ModelStoreOptions& stores,
                                               const HfCacheOptions& hf_cache,
                                               const std::vector<std::string>& folders);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MODEL_STORES_H_
