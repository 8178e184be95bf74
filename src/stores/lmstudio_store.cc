// LM Studio's models folder (lmstudio_store.h). Its files are what the
// Hugging Face repos hold, so a name is checked as a repo file path
// (check_hub_file) and read with open_model.
#include "stores/lmstudio_store.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "memfit/hub_name.h"
#include "memfit/untrusted_text.h"
#include "model/gguf/model.h"

namespace memfit {
namespace {

bool is_folder(FileSystem& fs, const std::string& path) {
  Result<FileStat> st = fs.stat(path);
  return st && st->kind == FileKind::kDirectory;
}

std::string dirs_text(const std::vector<std::string>& dirs) {
  std::string out;
  for (const std::string& dir : dirs) out += (out.empty() ? "" : ", ") + quote_untrusted(dir);
  return out.empty() ? "none: no HOME" : out;
}

// The repo folder's models, by the names -m takes.
void list_repo(FileSystem& fs, const std::string& repo_dir, const std::string& repo,
               std::set<std::string>& seen, std::vector<LocalModelEntry>& out) {
  Result<FileStat> config = fs.stat(join_path(repo_dir, "config.json"));
  if (config && config->kind == FileKind::kRegular) {
    const std::string name = std::string(kLmStudioPrefix) + repo;
    if (seen.insert(name).second) out.push_back({name, "lmstudio", "safetensors", ""});
    return;
  }
  Result<std::vector<std::string>> ggufs = list_folder_gguf_models(fs, repo_dir);
  if (!ggufs) return;
  for (const std::string& file : *ggufs) {
    const std::string name = fmt::format("{}{}/{}", kLmStudioPrefix, repo, file);
    if (seen.insert(name).second) out.push_back({name, "lmstudio", "gguf", ""});
  }
}

}  // namespace

Result<Model> open_lmstudio_model(FileSystem& fs, const std::string& name,
                                  const std::vector<std::string>& dirs,
                                  const OpenModelOptions& open_options) {
  const std::string label = std::string(kLmStudioPrefix) + name;
  if (Status checked = check_hub_file(name); !checked || name.find('/') == std::string::npos) {
    return Error::usage("model", fmt::format("{}: give lmstudio:PUBLISHER/REPO[/FILE]{}",
                                             quote_untrusted(label),
                                             checked ? "" : " (" + checked.error().message() + ")"));
  }
  for (const std::string& dir : dirs) {
    const std::string path = join_path(dir, name);
    Result<FileStat> st = fs.stat(path);
    if (!st) return st.error().within(quote_untrusted(label));
    if (st->kind == FileKind::kMissing) continue;
    Result<Model> model = open_model(fs, path, open_options);
    if (!model) return model.error().within(quote_untrusted(label));
    return model;
  }
  return Error(fmt::format("{}: not in LM Studio's models folders ({})", quote_untrusted(label),
                           dirs_text(dirs)));
}

void list_lmstudio_models(FileSystem& fs, const std::vector<std::string>& dirs,
                          std::vector<LocalModelEntry>& out) {
  std::set<std::string> seen;
  const size_t first = out.size();
  for (const std::string& dir : dirs) {
    Result<std::vector<std::string>> publishers = fs.list_dir(dir);
    if (!publishers) continue;
    for (const std::string& publisher : *publishers) {
      const std::string publisher_dir = join_path(dir, publisher);
      if (publisher.starts_with('.') || !is_folder(fs, publisher_dir)) continue;
      Result<std::vector<std::string>> repos = fs.list_dir(publisher_dir);
      if (!repos) continue;
      for (const std::string& repo : *repos) {
        const std::string repo_dir = join_path(publisher_dir, repo);
        if (repo.starts_with('.') || !is_folder(fs, repo_dir)) continue;
        list_repo(fs, repo_dir, publisher + "/" + repo, seen, out);
      }
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [](const LocalModelEntry& a, const LocalModelEntry& b) { return a.name < b.name; });
}

}  // namespace memfit
