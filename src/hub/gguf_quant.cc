#include "hub/gguf_quant.h"

#include <algorithm>

#include <fmt/format.h>

#include "memfit/gguf_split.h"
#include "memfit/untrusted_text.h"
#include "model/gguf/model.h"

namespace memfit {
namespace {

constexpr std::string_view kGgufSuffix = ".gguf";

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_without_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

std::string list_quoted(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::vector<std::string> quoted;
  for (const std::string& name : names) quoted.push_back(quote_untrusted(name));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

}  // namespace

Result<std::vector<std::string>> list_repo_gguf_models(FileSystem& fs, const std::string& dir) {
  Result<std::vector<std::string>> models = list_folder_gguf_models(fs, dir);
  if (!models) return models.error();
  Result<std::vector<std::string>> entries = fs.list_dir(dir);
  if (!entries) return entries.error();
  for (const std::string& entry : *entries) {
    const std::string sub = join_path(dir, entry);
    Result<FileStat> st = fs.stat(sub);
    if (!st) return st.error();
    if (st->kind != FileKind::kDirectory) continue;
    Result<std::vector<std::string>> inner = list_folder_gguf_models(fs, sub);
    if (!inner) return inner.error();
    for (const std::string& name : *inner) models->push_back(entry + "/" + name);
  }
  std::sort(models->begin(), models->end());
  return models;
}

namespace {

// A model entry's file name without its folder, its split numbering and
// ".gguf": "q/Model-Q4_K_M-00001-of-00002.gguf" -> "Model-Q4_K_M".
std::string model_stem(std::string_view entry) {
  const size_t slash = entry.rfind('/');
  std::string_view stem = slash == std::string_view::npos ? entry : entry.substr(slash + 1);
  if (std::optional<GgufSplitName> split = parse_gguf_split_name(stem)) return split->prefix;
  if (stem.ends_with(kGgufSuffix)) stem.remove_suffix(kGgufSuffix.size());
  return std::string(stem);
}

}  // namespace

bool gguf_model_has_quant(std::string_view entry, std::string_view tag) {
  const std::string name = model_stem(entry);
  const std::string_view stem = name;
  if (tag.empty() || stem.size() < tag.size()) return false;
  if (!equal_without_case(stem.substr(stem.size() - tag.size()), tag)) return false;
  if (stem.size() == tag.size()) return true;
  const char before = stem[stem.size() - tag.size() - 1];
  return before == '-' || before == '.';
}

std::string gguf_model_quant_tag(std::string_view entry) {
  const std::string name = model_stem(entry);
  const std::string_view stem = name;
  const size_t cut = stem.find_last_of("-.");
  if (cut == std::string_view::npos) return "";
  const std::string_view tag = stem.substr(cut + 1);
  for (std::string_view type : {"q", "iq", "tq", "f", "bf", "mxfp"}) {
    if (tag.size() > type.size() && equal_without_case(tag.substr(0, type.size()), type) &&
        tag[type.size()] >= '0' && tag[type.size()] <= '9') {
      return std::string(tag);
    }
  }
  return "";
}

Result<std::string> find_gguf_quant(FileSystem& fs, const std::string& dir, std::string_view tag,
                                    std::string_view repo_label) {
  Result<std::vector<std::string>> models = list_repo_gguf_models(fs, dir);
  if (!models) return models.error();
  std::vector<std::string> matches;
  for (const std::string& model : *models) {
    if (gguf_model_has_quant(model, tag)) matches.push_back(model);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    return Error::usage("model", fmt::format("no GGUF file of quant {} in {}; its GGUF models: {}",
                                             quote_untrusted(tag), repo_label,
                                             list_quoted(*models)));
  }
  return Error::usage("model", fmt::format("{} GGUF models of quant {} in {}: {}; a longer tag, "
                                           "the end of one's file name, picks it",
                                           matches.size(), quote_untrusted(tag), repo_label,
                                           list_quoted(matches)));
}

}  // namespace memfit
