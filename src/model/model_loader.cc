// open_model: resolve what -m names, read config.json whole and weight
// headers only, and decide the weights' source. GGUF models go through
// model/gguf/model.h: a .gguf path, or a folder with no config.json whose
// only model is a GGUF one.
#include <fmt/format.h>

#include "memfit/untrusted_text.h"
#include "memfit/model.h"
#include "model/config/config_tower.h"
#include "model/config/family.h"
#include "model/gguf/model.h"
#include "model/sentence_transformers.h"
#include "model/weight_components.h"

namespace memfit {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Reads and parses <dir>/config.json. found == false when there is none.
struct ConfigLookup {
  bool found = false;
  ModelSpec spec;
  uint64_t tower_bytes = 0;  // ConfigWithTower::tower_bytes
};

Result<ConfigLookup> read_config(FileSystem& fs, const std::string& dir) {
  const std::string path = join_path(dir, "config.json");
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kMissing) return ConfigLookup{};
  if (st->kind != FileKind::kRegular) return Error(quote_untrusted(path) + ": not a regular file");
  if (st->size_bytes > kMaxConfigBytes) {
    return Error(fmt::format("{}: {} bytes is larger than the {} bytes a config may have",
                             quote_untrusted(path), st->size_bytes, kMaxConfigBytes));
  }
  Result<std::string> text = fs.read_range(path, 0, st->size_bytes);
  if (!text) return text.error();
  Result<ConfigWithTower> parsed = parse_model_config_with_tower(*text);
  if (!parsed) return parsed.error().within(quote_untrusted(path));
  return ConfigLookup{true, std::move(parsed->spec), parsed->tower_bytes};
}

void note_spec(Model& model) {
  const std::string& type = model.spec.model_type;
  if (!type.empty() && !is_known_model_type(type)) {
    model.warnings.push_back(fmt::format(
        "model_type {} is not one memfit knows: the cache is sized from the config's geometry "
        "as a {} model; treat the KV figure as an estimate",
        quote_untrusted(type), model.spec.layout));
  }
}

// A folder with a config.json and GGUF files but no safetensors weights is
// sized from the config; say which files would size it exactly.
void note_gguf_beside_config(FileSystem& fs, const std::string& dir, Model& model) {
  Result<std::vector<std::string>> gguf = list_folder_gguf_models(fs, dir);
  if (!gguf || gguf->empty()) return;  // the estimate stands without this note
  std::vector<std::string> quoted;
  for (const std::string& name : *gguf) quoted.push_back(quote_untrusted(name));
  model.warnings.push_back(fmt::format(
      "{} also holds GGUF models ({}): name one to size it from its own header",
      quote_untrusted(dir), fmt::join(quoted, ", ")));
}

// Splits a multimodal checkpoint's header bytes into language model,
// towers and projector, from the tensor list the sizing pass kept.
void split_components(const std::vector<SafetensorsTensor>& tensors, Model& model) {
  for (const SafetensorsTensor& t : tensors) {
    model.weights.component_bytes[static_cast<int>(classify_tensor(t.name))] += t.data_bytes;
  }
}

// Sizing results: the weights, and their tensors when they were kept.
void take_weights(WeightsLookup lookup, const OpenModelOptions& options, Model& model) {
  model.weights = lookup.info;
  if (model.spec.multimodal) split_components(lookup.tensors, model);
  if (options.keep_tensors) model.tensors = std::move(lookup.tensors);
}

// A sentence-transformers folder (modules.json with a Pooling module) is
// an embedding model whatever its config's architecture says; its pooling
// config says how it pools.
Status note_sentence_transformers(FileSystem& fs, const std::string& dir, Model& model) {
  Result<std::optional<std::string>> pooling = read_sentence_transformers_pooling(fs, dir);
  if (!pooling) return pooling.error();
  if (!pooling->has_value()) return Status::Ok();
  model.spec.embedding.by_folder = true;
  if (!(*pooling)->empty()) model.spec.embedding.pooling = **pooling;
  return Status::Ok();
}

}  // namespace

Result<Model> open_model(FileSystem& fs, const std::string& path) {
  return open_model(fs, path, OpenModelOptions{});
}

Result<Model> open_model(FileSystem& fs, const std::string& path, const OpenModelOptions& options) {
  Model model;
  model.path = path;
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kMissing) {
    return Error(quote_untrusted(path) + ": no such file or folder");
  }

  std::string dir = path;
  if (st->kind == FileKind::kRegular) {
    if (ends_with(path, ".gguf")) return open_gguf_model(fs, path, options);
    if (!ends_with(path, ".safetensors")) {
      return Error(quote_untrusted(path) +
                   ": not a model folder, a .safetensors file or a .gguf file");
    }
    dir = parent_dir(path);
  } else if (st->kind != FileKind::kDirectory) {
    return Error(quote_untrusted(path) + ": not a model folder or a weights file");
  }

  Result<ConfigLookup> config = read_config(fs, dir);
  if (!config) return config.error();
  if (!config->found && st->kind == FileKind::kDirectory) {
    Result<std::optional<std::string>> gguf = folder_gguf_model(fs, dir);
    if (!gguf) return gguf.error();
    if (gguf->has_value()) return open_gguf_model(fs, **gguf, options);
  }
  model.has_config = config->found;
  const uint64_t config_tower_bytes = config->tower_bytes;
  if (config->found) {
    model.spec = std::move(config->spec);
    note_spec(model);
    if (Status read = note_sentence_transformers(fs, dir, model); !read.ok()) return read.error();
  } else {
    model.warnings.push_back(fmt::format(
        "{}: no config.json: the model's geometry is unknown, so the KV cache, activation and "
        "decode workspace cannot be sized",
        quote_untrusted(dir)));
  }

  // The tensor list is kept from the sizing pass only when someone needs
  // it: the caller, or the multimodal split. Text-only inspection keeps
  // totals alone.
  const WeightsLookupOptions lookup_options{options.keep_tensors || model.spec.multimodal};
  if (st->kind == FileKind::kRegular) {
    Result<WeightsLookup> weights = read_single_file_weights(fs, path, lookup_options);
    if (!weights) return weights.error();
    take_weights(std::move(*weights), options, model);
    return model;
  }

  Result<WeightsLookup> weights = find_folder_weights(fs, dir, model.warnings, lookup_options);
  if (!weights) return weights.error();
  if (weights->found) {
    take_weights(std::move(*weights), options, model);
  } else if (model.has_config && model.spec.analytical_weights.bytes > 0) {
    model.weights.source = WeightsSource::kAnalyticalConfig;
    model.weights.verified = false;
    model.weights.bytes = model.spec.analytical_weights.bytes;
    // A vision tower as a part of its own, for the engines that do not
    // load it (engines/shared/config_tower.h); no split without one.
    if (const uint64_t tower = config_tower_bytes; tower > 0) {
      model.weights.component_bytes[static_cast<int>(WeightComponent::kVisionTower)] = tower;
      model.weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)] =
          model.weights.bytes - tower;  // tower_bytes <= bytes
    }
    model.warnings.push_back(fmt::format(
        "{}: no weight files: weights estimated from config.json as {}", quote_untrusted(dir),
        model.spec.analytical_weights.detail));
    note_gguf_beside_config(fs, dir, model);
  } else {
    model.weights.source = WeightsSource::kFallback;
    model.weights.verified = false;
    model.weights.bytes = kFallbackWeightsBytes;
    model.warnings.push_back(fmt::format(
        "{}: no weight files and no usable config: ASSUMING a 7B model at 2 bytes per parameter "
        "({} bytes); this figure is a placeholder, not an estimate",
        quote_untrusted(dir), kFallbackWeightsBytes));
  }
  return model;
}

}  // namespace memfit
