// Ollama's store on disk (ollama_store.h; layout and sources:
// docs/stores.md). A manifest is read whole but bounded
// (kMaxOllamaManifestBytes), the params blob likewise; the model blob only
// by its GGUF header.
#include "stores/ollama_store.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "model/gguf/model.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// The bytes of a small store file, refused before reading past `max_bytes`.
Result<std::string> read_small_file(FileSystem& fs, const std::string& path, uint64_t max_bytes,
                                    std::string_view what) {
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind != FileKind::kRegular) {
    return Error(fmt::format("{} {} is not a file", what, quote_untrusted(path)));
  }
  if (st->size_bytes > max_bytes) {
    return Error(fmt::format("{} {}: {} bytes, more than the {} it may hold", what,
                             quote_untrusted(path), st->size_bytes, max_bytes));
  }
  return fs.read_range(path, 0, st->size_bytes);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The manifest's path for `name` under `dir`: as spelled, else lower-cased
// (older Ollama releases wrote names lower-cased); nullopt when neither is
// there.
Result<std::optional<std::string>> find_manifest(FileSystem& fs, const std::string& dir,
                                                 const OllamaName& name) {
  const std::string manifests = join_path(dir, "manifests");
  for (const std::string& relative : {name.manifest_path(), lower(name.manifest_path())}) {
    const std::string path = join_path(manifests, relative);
    Result<FileStat> st = fs.stat(path);
    if (!st) return st.error();
    if (st->kind != FileKind::kMissing) return std::optional<std::string>(path);
  }
  return std::optional<std::string>();
}

// The blob of `layer` under `dir`, which must be a file.
Result<std::string> layer_blob(FileSystem& fs, const std::string& dir, const OllamaLayer& layer,
                               std::string_view role) {
  const std::string path = join_path(dir, layer.blob_path());
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind != FileKind::kRegular) {
    return Error(fmt::format("its {} blob 'sha256-{}' is missing from {}", role,
                             layer.digest_hex.substr(0, 12), quote_untrusted(join_path(dir, "blobs"))));
  }
  return path;
}

const OllamaLayer* model_layer(const OllamaManifest& manifest) {
  for (const OllamaLayer& layer : manifest.layers) {
    if (layer.media_type == kOllamaModelMediaType) return &layer;
  }
  return nullptr;
}

// The manifest at `path`, with its model layer's blob checked.
Result<OllamaManifest> read_manifest(FileSystem& fs, const std::string& dir, const std::string& path,
                                     std::string& model_blob) {
  Result<std::string> bytes = read_small_file(fs, path, kMaxOllamaManifestBytes, "manifest");
  if (!bytes) return bytes.error();
  Result<OllamaManifest> manifest = parse_ollama_manifest(*bytes);
  if (!manifest) return manifest.error();
  const OllamaLayer* model = model_layer(*manifest);
  if (model == nullptr) return Error("manifest: no model layer (application/vnd.ollama.image.model)");
  Result<std::string> blob = layer_blob(fs, dir, *model, "model");
  if (!blob) return blob.error();
  model_blob = std::move(*blob);
  return manifest;
}

// The store's defaults from the manifest's layers, and the warnings that
// say what of them is not priced.
Result<StoreDefaults> store_defaults(FileSystem& fs, const std::string& dir,
                                     const OllamaManifest& manifest, std::string model_blob) {
  StoreDefaults d;
  d.store = "ollama";
  d.model_path = std::move(model_blob);
  for (const OllamaLayer& layer : manifest.layers) {
    if (layer.media_type == kOllamaParamsMediaType) {
      Result<std::string> path = layer_blob(fs, dir, layer, "params");
      if (!path) return path.error();
      Result<std::string> bytes = read_small_file(fs, *path, kMaxOllamaParamsBytes, "params");
      if (!bytes) return bytes.error();
      Result<OllamaParameters> params = parse_ollama_params(*bytes);
      if (!params) return params.error();
      d.context_tokens = params->num_ctx;
      d.parameters = std::move(params->values);
    } else if (layer.media_type == kOllamaProjectorMediaType ||
               layer.media_type == kOllamaAdapterMediaType) {
      const bool projector = layer.media_type == kOllamaProjectorMediaType;
      Result<std::string> path = layer_blob(fs, dir, layer, projector ? "projector" : "adapter");
      if (!path) return path.error();
      (projector ? d.projector_paths : d.adapter_paths).push_back(*path);
      d.warnings.push_back(fmt::format("Ollama loads its {} {} beside the model: give {} {} to price it",
                                       projector ? "projector" : "adapter", quote_untrusted(*path),
                                       projector ? "--mmproj" : "--lora", quote_untrusted(*path)));
    }
  }
  std::string recorded;
  for (const auto& [key, value] : d.parameters) {
    if (key == "num_ctx") continue;
    recorded += fmt::format("{}{} {}", recorded.empty() ? "" : ", ", escape_untrusted(key),
                            escape_untrusted(value, 64));
  }
  if (!recorded.empty()) {
    d.warnings.push_back("Ollama's Modelfile parameters, recorded and not priced: " + recorded);
  }
  return d;
}

std::string dirs_text(const std::vector<std::string>& dirs) {
  std::string out;
  for (const std::string& dir : dirs) out += (out.empty() ? "" : ", ") + quote_untrusted(dir);
  return out.empty() ? "none: no HOME" : out;
}

}  // namespace

Result<StoreDefaults> read_ollama_defaults(FileSystem& fs, const std::string& name,
                                           const std::vector<std::string>& dirs) {
  const std::string label = std::string(kOllamaPrefix) + name;
  Result<OllamaName> parsed = parse_ollama_name(name);
  if (!parsed) return parsed.error();
  for (const std::string& dir : dirs) {
    Result<std::optional<std::string>> manifest_path = find_manifest(fs, dir, *parsed);
    if (!manifest_path) return manifest_path.error().within(quote_untrusted(label));
    if (!*manifest_path) continue;
    std::string blob;
    Result<OllamaManifest> manifest = read_manifest(fs, dir, **manifest_path, blob);
    if (!manifest) return manifest.error().within(quote_untrusted(label));
    Result<StoreDefaults> defaults = store_defaults(fs, dir, *manifest, std::move(blob));
    if (!defaults) return defaults.error().within(quote_untrusted(label));
    return defaults;
  }
  return Error(fmt::format("{}: no manifest {} in Ollama's models folders ({}); set OLLAMA_MODELS "
                           "to the folder that holds it",
                           quote_untrusted(label), quote_untrusted(parsed->manifest_path()),
                           dirs_text(dirs)));
}

Result<Model> open_ollama_model(FileSystem& fs, const std::string& name,
                                const std::vector<std::string>& dirs,
                                const OpenModelOptions& open_options) {
  Result<StoreDefaults> defaults = read_ollama_defaults(fs, name, dirs);
  if (!defaults) return defaults.error();
  Result<Model> model = open_gguf_model(fs, defaults->model_path, open_options);
  if (!model) return model.error().within(quote_untrusted(std::string(kOllamaPrefix) + name));
  for (std::string& warning : defaults->warnings) model->warnings.push_back(std::move(warning));
  // Reports name it as -m and `memfit ls` do, the blob path beside it.
  Result<OllamaName> parsed = parse_ollama_name(name);
  model->name = std::string(kOllamaPrefix) + (parsed ? parsed->display() : name);
  return model;
}

void list_ollama_models(FileSystem& fs, const std::vector<std::string>& dirs,
                        std::vector<LocalModelEntry>& out) {
  std::set<std::string> seen;
  const size_t first = out.size();
  for (const std::string& dir : dirs) {
    const std::string manifests = join_path(dir, "manifests");
    // manifests/<host>/<namespace>/<model>/<tag>: four levels, as
    // Ollama's own Manifests() globs them.
    Result<std::vector<std::string>> hosts = fs.list_dir(manifests);
    if (!hosts) continue;
    for (const std::string& host : *hosts) {
      Result<std::vector<std::string>> spaces = fs.list_dir(join_path(manifests, host));
      if (!spaces) continue;
      for (const std::string& space : *spaces) {
        const std::string space_dir = join_path(join_path(manifests, host), space);
        Result<std::vector<std::string>> models = fs.list_dir(space_dir);
        if (!models) continue;
        for (const std::string& model : *models) {
          Result<std::vector<std::string>> tags = fs.list_dir(join_path(space_dir, model));
          if (!tags) continue;
          for (const std::string& tag : *tags) {
            Result<OllamaName> name = parse_ollama_name(fmt::format("{}/{}/{}:{}", host, space, model, tag));
            if (!name) continue;  // not a name Ollama could have written
            const std::string listed = std::string(kOllamaPrefix) + name->display();
            if (!seen.insert(lower(listed)).second) continue;
            LocalModelEntry entry{listed, "ollama", "gguf", ""};
            std::string blob;
            Result<OllamaManifest> manifest =
                read_manifest(fs, dir, join_path(join_path(space_dir, model), tag), blob);
            if (!manifest) entry.error = manifest.error().message();
            out.push_back(std::move(entry));
          }
        }
      }
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [](const LocalModelEntry& a, const LocalModelEntry& b) { return a.name < b.name; });
}

}  // namespace memfit
