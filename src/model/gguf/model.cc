// GGUF models for open_model: one header pass over every file of the model,
// the spec from the first file's metadata, the weights from every file's
// tensor infos.
#include "model/gguf/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "memfit/gguf.h"
#include "memfit/gguf_split.h"
#include "memfit/model_spec.h"
#include "memfit/untrusted_text.h"
#include "memfit/weights.h"
#include "model/gguf/arch_rules.h"

namespace memfit {
namespace {

constexpr std::string_view kGgufSuffix = ".gguf";
constexpr std::string_view kProjectorPrefix = "mmproj";

SafetensorsTensor as_tensor(const GgufTensorInfo& info) {
  SafetensorsTensor t;
  t.name = info.name;
  t.dtype = std::string(ggml_type_traits(info.type).name);
  // ggml lists the row (ne[0]) first; safetensors and torch the outermost.
  for (uint32_t d = info.n_dims; d-- > 0;) t.shape.push_back(info.dims[d]);
  t.data_bytes = info.data_bytes;
  return t;
}

}  // namespace

Result<Model> open_gguf_model(FileSystem& fs, const std::string& path,
                              const OpenModelOptions& options) {
  Result<GgufModelFiles> files =
      read_gguf_model_files(fs, path, GgufReadOptions{.keep_tensors = options.keep_tensors});
  if (!files.ok()) return files.error();
  Model model;
  model.path = path;
  Result<ModelSpec> spec = model_spec_from_gguf(files->first);
  if (!spec.ok()) return spec.error().within(quote_untrusted(files->files.front().path));
  model.spec = std::move(*spec);
  model.gguf = std::make_shared<const GgufHeader>(std::move(files->first));
  model.has_config = true;  // the metadata gives the geometry a config would
  if (!is_known_gguf_architecture(model.spec.model_type)) {
    model.warnings.push_back(fmt::format(
        "GGUF architecture {} is not one memfit knows: every layer with KV heads is sized as "
        "full attention; treat the KV figure as an estimate",
        quote_untrusted(model.spec.model_type)));
  }
  model.weights.bytes = files->tensor_bytes;
  model.weights.source = WeightsSource::kGgufHeader;
  model.weights.file_count = files->files.size();
  model.weights.tensor_count = files->tensor_count;
  model.weights.verified = true;
  if (options.keep_tensors) {
    model.tensors.reserve(files->tensors.size());
    for (const GgufTensorInfo& info : files->tensors) model.tensors.push_back(as_tensor(info));
  }
  return model;
}

Result<std::vector<std::string>> list_folder_gguf_models(FileSystem& fs, const std::string& dir) {
  Result<std::vector<std::string>> names = fs.list_dir(dir);
  if (!names.ok()) return names.error();
  std::vector<std::string> models;
  for (const std::string& name : *names) {
    if (name.size() <= kGgufSuffix.size() || !name.ends_with(kGgufSuffix) ||
        name.starts_with(kProjectorPrefix)) {
      continue;
    }
    // A set is named by its first split, whether or not that file exists
    // (read_gguf_model_files then says which split is missing).
    std::string entry = name;
    if (std::optional<GgufSplitName> split = parse_gguf_split_name(name)) {
      entry = gguf_split_file_name(*split, 1);
    }
    Result<FileStat> stat = fs.stat(join_path(dir, name));
    if (!stat.ok()) return stat.error();
    if (stat->kind != FileKind::kRegular) continue;
    if (std::find(models.begin(), models.end(), entry) == models.end()) models.push_back(entry);
  }
  std::sort(models.begin(), models.end());
  return models;
}

Result<std::optional<std::string>> folder_gguf_model(FileSystem& fs, const std::string& dir) {
  Result<std::vector<std::string>> names = fs.list_dir(dir);
  if (!names.ok()) return names.error();
  for (const std::string& name : *names) {
    if (name == kSafetensorsIndexName || name.ends_with(".safetensors")) {
      return std::optional<std::string>();
    }
  }
  Result<std::vector<std::string>> models = list_folder_gguf_models(fs, dir);
  if (!models.ok()) return models.error();
  if (models->empty()) return std::optional<std::string>();
  if (models->size() == 1) return std::optional<std::string>(join_path(dir, models->front()));
  std::vector<std::string> quoted;
  for (const std::string& name : *models) quoted.push_back(quote_untrusted(name));
  return Error::usage(fmt::format("{} holds {} GGUF models ({}): name the file of the one to size",
                                  quote_untrusted(dir), models->size(), fmt::join(quoted, ", ")));
}

}  // namespace memfit
