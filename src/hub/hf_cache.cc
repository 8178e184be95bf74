// The local Hugging Face cache (memfit/hf_cache.h): where it is, and which
// snapshot a repo's revision names.
#include "memfit/hf_cache.h"

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// A ref file holds 40 hex digits; anything past this is not a ref.
constexpr uint64_t kMaxRefFileBytes = 1024;

// The variable's value; nullopt when unset or empty (an empty setting
// means "not set" to a shell user, not "the current folder").
std::optional<std::string> non_empty(const Environment& env, const std::string& name) {
  std::optional<std::string> value = env.get(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

// huggingface_hub expands "~" in its paths (os.path.expanduser).
std::string expand_home(const Environment& env, std::string path) {
  if (path != "~" && !path.starts_with("~/")) return path;
  std::optional<std::string> home = non_empty(env, "HOME");
  if (!home) return path;
  return *home + path.substr(1);
}

bool is_true(std::string value) {
  for (char& c : value) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return value == "1" || value == "ON" || value == "YES" || value == "TRUE";
}

std::string trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

// The commit refs/<revision> names; nullopt when there is no such ref.
Result<std::optional<std::string>> read_ref(FileSystem& fs, const std::string& path) {
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kMissing) return std::optional<std::string>();
  if (st->kind != FileKind::kRegular) return Error(quote_untrusted(path) + ": not a regular file");
  if (st->size_bytes > kMaxRefFileBytes) {
    return Error(fmt::format("{}: {} bytes is not a ref (a commit is 40 hex digits)",
                             quote_untrusted(path), st->size_bytes));
  }
  Result<std::string> text = fs.read_range(path, 0, st->size_bytes);
  if (!text) return text.error();
  std::string commit = trim(*text);
  if (!is_hub_commit(commit)) {
    return Error(fmt::format("{}: {} is not a commit (40 hex digits)", quote_untrusted(path),
                             quote_untrusted(commit)));
  }
  return std::optional<std::string>(std::move(commit));
}

}  // namespace

HfCacheOptions hf_cache_options_from_environment(const Environment& env) {
  HfCacheOptions options;
  if (std::optional<std::string> dir = non_empty(env, "HF_HUB_CACHE")) {
    options.hub_cache_dir = *dir;
  } else if (std::optional<std::string> legacy = non_empty(env, "HUGGINGFACE_HUB_CACHE")) {
    options.hub_cache_dir = *legacy;
  } else if (std::optional<std::string> home = non_empty(env, "HF_HOME")) {
    options.hub_cache_dir = join_path(*home, "hub");
  } else if (std::optional<std::string> xdg = non_empty(env, "XDG_CACHE_HOME")) {
    options.hub_cache_dir = join_path(*xdg, "huggingface/hub");
  } else {
    options.hub_cache_dir = "~/.cache/huggingface/hub";
  }
  options.hub_cache_dir = expand_home(env, options.hub_cache_dir);
  if (options.hub_cache_dir.starts_with("~/")) options.hub_cache_dir.erase(0, 2);
  if (std::optional<std::string> offline = env.get("HF_HUB_OFFLINE")) options.offline = is_true(*offline);
  return options;
}

std::string hf_cache_repo_folder(std::string_view repo_id) {
  std::string folder = "models--";
  for (char c : repo_id) {
    if (c == '/') {
      folder += "--";
    } else {
      folder.push_back(c);
    }
  }
  return folder;
}

Result<HfCacheLookup> find_in_hf_cache(FileSystem& fs, const std::string& hub_cache_dir,
                                       const HubModelRef& ref) {
  const std::string folder = hf_cache_repo_folder(ref.repo_id);
  HfCacheLookup lookup;
  HfCacheSnapshot snapshot;
  snapshot.repo_dir = join_path(hub_cache_dir, folder);
  Result<FileStat> repo = fs.stat(snapshot.repo_dir);
  if (!repo) return repo.error();
  if (repo->kind != FileKind::kDirectory) {
    lookup.missing = "no folder " + quote_untrusted(folder);
    return lookup;
  }

  if (is_hub_commit(ref.revision)) {
    snapshot.commit = ref.revision;
  } else {
    Result<std::optional<std::string>> commit =
        read_ref(fs, join_path(snapshot.repo_dir, "refs/" + ref.revision));
    if (!commit) return commit.error();
    if (!*commit) {
      lookup.missing = fmt::format("no ref {} in {}", quote_untrusted(ref.revision),
                                   quote_untrusted(folder));
      return lookup;
    }
    snapshot.commit = std::move(**commit);
  }

  snapshot.snapshot_dir = join_path(snapshot.repo_dir, "snapshots/" + snapshot.commit);
  Result<FileStat> tree = fs.stat(snapshot.snapshot_dir);
  if (!tree) return tree.error();
  if (tree->kind == FileKind::kMissing) {
    lookup.missing = fmt::format("no snapshot {} in {}", snapshot.commit, quote_untrusted(folder));
    return lookup;
  }
  if (tree->kind != FileKind::kDirectory) {
    return Error(quote_untrusted(snapshot.snapshot_dir) + ": not a folder");
  }
  lookup.snapshot = std::move(snapshot);
  return lookup;
}

}  // namespace memfit
