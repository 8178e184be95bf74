// sentence-transformers folders (model/sentence_transformers.h). The file
// layouts are sentence-transformers' own (SentenceTransformer._load_sbert_model
// reads modules.json; models/Pooling.py writes its config.json).
#include "model/sentence_transformers.h"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/json_nesting.h"
#include "base/json_parse_error.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 16;
constexpr std::string_view kPoolingType = "sentence_transformers.models.Pooling";

Result<Json> parse_bounded(std::string_view text, std::string_view what) {
  if (text.size() > kMaxSentenceTransformersJsonBytes) {
    return Error(fmt::format("{}: {} bytes, more than the {} memfit reads", what, text.size(),
                             kMaxSentenceTransformersJsonBytes));
  }
  if (json_nesting_depth(text, kMaxDepth) > kMaxDepth) {
    return Error(fmt::format("{}: nested deeper than {} levels", what, kMaxDepth));
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return Error(fmt::format("{}: not JSON: {}", what, json_parse_error_text(e)));
  }
}

// A relative path that stays inside the folder: not absolute, no ".."
// component, no backslash (a Windows separator smuggled in).
bool stays_inside(std::string_view path) {
  if (path.starts_with('/') || path.find('\\') != std::string_view::npos) return false;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const std::string_view part = path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part == "..") return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

// Reads `path` whole when it is a regular file of at most the bound;
// nullopt when it is missing.
Result<std::optional<std::string>> read_small_file(FileSystem& fs, const std::string& path) {
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kMissing) return std::optional<std::string>();
  if (st->kind != FileKind::kRegular) return Error(quote_untrusted(path) + ": not a regular file");
  if (st->size_bytes > kMaxSentenceTransformersJsonBytes) {
    return Error(fmt::format("{}: {} bytes, more than the {} memfit reads", quote_untrusted(path),
                             st->size_bytes, kMaxSentenceTransformersJsonBytes));
  }
  Result<std::string> text = fs.read_range(path, 0, st->size_bytes);
  if (!text) return text.error();
  return std::optional<std::string>(std::move(*text));
}

}  // namespace

Result<std::optional<std::string>> pooling_module_path(std::string_view modules_json) {
  Result<Json> doc = parse_bounded(modules_json, "modules.json");
  if (!doc) return doc.error();
  if (!doc->is_array()) return Error("modules.json: expected a list of modules");
  for (size_t i = 0; i < doc->size(); ++i) {
    const Json& module = (*doc)[i];
    if (!module.is_object()) continue;
    auto type = module.find("type");
    if (type == module.end() || !type->is_string() || type->get<std::string>() != kPoolingType) continue;
    auto path = module.find("path");
    if (path == module.end() || !path->is_string()) {
      return Error(fmt::format("modules.json: module {}: a Pooling module without a path", i));
    }
    const std::string text = path->get<std::string>();
    if (!stays_inside(text)) {
      return Error(fmt::format("modules.json: module {}: path {} leaves the model folder", i,
                               quote_untrusted(text)));
    }
    return std::optional<std::string>(text);
  }
  return std::optional<std::string>();
}

Result<std::string> pooling_mode(std::string_view pooling_config_json) {
  Result<Json> doc = parse_bounded(pooling_config_json, "pooling config.json");
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error("pooling config.json: expected an object");
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kModes = {{
      {"pooling_mode_cls_token", "cls"},
      {"pooling_mode_mean_tokens", "mean"},
      {"pooling_mode_mean_sqrt_len_tokens", "mean"},
      {"pooling_mode_max_tokens", "max"},
      {"pooling_mode_weightedmean_tokens", "weightedmean"},
      {"pooling_mode_lasttoken", "last"},
  }};
  for (const auto& [key, mode] : kModes) {
    auto it = doc->find(key);
    if (it != doc->end() && it->is_boolean() && it->get<bool>()) return std::string(mode);
  }
  return std::string();
}

Result<std::optional<std::string>> read_sentence_transformers_pooling(FileSystem& fs,
                                                                      const std::string& dir) {
  const std::string modules_path = join_path(dir, "modules.json");
  Result<std::optional<std::string>> modules = read_small_file(fs, modules_path);
  if (!modules) return modules.error();
  if (!modules->has_value()) return std::optional<std::string>();
  Result<std::optional<std::string>> module = pooling_module_path(**modules);
  if (!module) return module.error().within(quote_untrusted(modules_path));
  if (!module->has_value()) return std::optional<std::string>();
  // An empty path would be the folder itself, whose config.json is the
  // transformer's: such a Pooling module states no mode memfit can read.
  if ((*module)->empty()) return std::optional<std::string>(std::string());
  const std::string config_path = join_path(join_path(dir, **module), "config.json");
  Result<std::optional<std::string>> config = read_small_file(fs, config_path);
  if (!config) return config.error();
  if (!config->has_value()) return std::optional<std::string>(std::string());
  Result<std::string> mode = pooling_mode(**config);
  if (!mode) return mode.error().within(quote_untrusted(config_path));
  return std::optional<std::string>(std::move(*mode));
}

}  // namespace memfit
