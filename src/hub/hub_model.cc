// open_model_from_hub (hub_model.h): the revision's file list, then the
// model loader over a RemoteFileSystem, its shards' first blocks fetched
// in parallel before the loader asks for them.
#include "hub/hub_model.h"

#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "hub/gguf_quant.h"
#include "hub/hub_reader.h"
#include "hub/remote_file_system.h"
#include "memfit/gguf_split.h"
#include "memfit/untrusted_text.h"
#include "net/http_client.h"

namespace memfit {
namespace {

bool has_suffix(std::string_view path, std::string_view suffix) { return path.ends_with(suffix); }

std::string_view file_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view folder_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

// The files whose headers the loader reads for `target` (a path inside the
// repo, "" for the whole tree): config.json, the index and every
// safetensors file at the top, or a GGUF file with the rest of its split
// set. As paths of the remote file system (under `root`).
std::vector<std::string> files_to_prefetch(const std::vector<StoredListingEntry>& listing,
                                           const std::string& root, const std::string& target) {
  std::vector<std::string> paths;
  std::optional<GgufSplitName> split;
  if (has_suffix(target, ".gguf")) split = parse_gguf_split_name(file_name(target));
  for (const StoredListingEntry& entry : listing) {
    const std::string_view path = entry.path;
    bool wanted = false;
    if (target.empty()) {
      wanted = path.find('/') == std::string_view::npos &&
               (path == "config.json" || path == "model.safetensors.index.json" ||
                has_suffix(path, ".safetensors"));
    } else if (path == target) {
      wanted = true;
    } else if (split && folder_of(path) == folder_of(target)) {
      std::optional<GgufSplitName> other = parse_gguf_split_name(file_name(path));
      wanted = other && other->prefix == split->prefix && other->count == split->count;
    }
    if (wanted) paths.push_back(root + "/" + entry.path);
  }
  return paths;
}

bool has_model_files(const std::vector<StoredListingEntry>& listing) {
  for (const StoredListingEntry& entry : listing) {
    const std::string_view name = file_name(entry.path);
    if (name == "config.json" || has_suffix(name, ".safetensors") || has_suffix(name, ".gguf")) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<std::string> resolve_hub_token(FileSystem& local_fs, const HubOptions& options) {
  if (!options.token.empty() || options.token_path.empty()) return options.token;
  Result<FileStat> st = local_fs.stat(options.token_path);
  if (!st) return st.error();
  if (st->kind != FileKind::kRegular) return std::string();
  if (st->size_bytes > kMaxTokenFileBytes) {
    return Error(fmt::format("{}: a token file of {} bytes, over {}: refused",
                             quote_untrusted(options.token_path), st->size_bytes,
                             kMaxTokenFileBytes));
  }
  Result<std::string> text = local_fs.read_range(options.token_path, 0, st->size_bytes);
  if (!text) return text.error();
  const size_t first = text->find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const size_t last = text->find_last_not_of(" \t\r\n");
  return text->substr(first, last - first + 1);
}

Result<HubModelRef> hub_ref_with_options(const std::string& name, const ModelNameOptions& options) {
  Result<HubModelRef> ref = parse_hub_model_ref(name);
  if (!ref) return ref.error();
  if (!options.file.empty()) {
    if (!ref->quant.empty()) {
      return Error::usage("file", "and a :QUANT tag both choose the file: give one");
    }
    if (Status file = check_hub_file(options.file); !file) {
      return Error::usage("file", file.error().message());
    }
    ref->file = options.file;
  }
  if (!options.revision.empty()) {
    if (Status revision = check_hub_revision(options.revision); !revision) {
      return Error::usage("revision", revision.error().message());
    }
    if (name.find('@') != std::string::npos && ref->revision != options.revision) {
      return Error::usage("revision", "and the name's @revision differ: give one");
    }
    ref->revision = options.revision;
  }
  return ref;
}

Result<HubRepo> open_hub_repo(FileSystem& local_fs, const std::string& name, const HubModelRef& ref,
                              const ModelNameOptions& options) {
  const std::string label = quote_untrusted(name);
  HeaderStore* store = options.header_store;
  const bool offline = options.hf_cache.offline;

  HubRepo repo;
  if (!offline) {
    HubOptions hub = options.hub;
    Result<std::string> token = resolve_hub_token(local_fs, hub);
    if (!token) return token.error();
    hub.token = std::move(*token);
    HttpClient* http = options.http;
    if (!http) {
      repo.own_http = make_curl_http_client();
      http = repo.own_http.get();
    }
    repo.reader = std::make_unique<HubReader>(*http, std::move(hub), ref.repo_id, label);
  }

  // The commit and its files: a commit's listing never changes, so a
  // stored one is used; a branch or tag is asked of the Hub every time
  // (online), since it moves.
  HubRevision& revision = repo.revision;
  std::optional<std::vector<StoredListingEntry>> stored_listing;
  if (is_hub_commit(ref.revision)) {
    revision.commit = ref.revision;
  } else if (offline) {
    std::optional<std::string> commit = store->load_revision(ref.repo_id, ref.revision);
    if (commit) revision.commit = std::move(*commit);
  }
  if (store && !revision.commit.empty()) {
    stored_listing = store->load_listing(ref.repo_id, revision.commit);
  }
  if (stored_listing) {
    revision.listing = std::move(*stored_listing);
  } else if (offline) {
    return Error(fmt::format("{}: not a local path, and revision {} is neither in the Hugging "
                             "Face cache at {} nor in memfit's header cache; offline "
                             "(HF_HUB_OFFLINE or --offline): only the caches are read",
                             label, quote_untrusted(ref.revision),
                             quote_untrusted(options.hf_cache.hub_cache_dir)));
  } else {
    Result<HubRevision> resolved = repo.reader->resolve(ref.revision);
    if (!resolved) return resolved.error();
    revision = std::move(*resolved);
    if (store) {
      store->store_revision(ref.repo_id, ref.revision, revision.commit);
      store->store_listing(ref.repo_id, revision.commit, revision.listing);
    }
  }

  repo.at = fmt::format("revision {} (commit {}) on the Hub", quote_untrusted(ref.revision),
                        revision.commit.substr(0, 12));
  repo.fs = std::make_unique<RemoteFileSystem>(repo.reader.get(), store, ref.repo_id,
                                               revision.commit, ref.repo_id, revision.listing);
  return repo;
}

std::vector<std::string> hub_files_to_prefetch(const HubRepo& repo, const std::string& target) {
  return files_to_prefetch(repo.revision.listing, repo.fs->root(), target);
}

Result<Model> open_model_from_hub(FileSystem& local_fs, const std::string& name,
                                  const HubModelRef& ref, const ModelNameOptions& options,
                                  const OpenModelOptions& open_options) {
  const std::string label = quote_untrusted(name);
  Result<HubRepo> repo = open_hub_repo(local_fs, name, ref, options);
  if (!repo) return repo.error();
  const std::string& at = repo->at;
  if (!has_model_files(repo->revision.listing)) {
    return Error(fmt::format("{}: no config.json and no weight files (*.safetensors, *.gguf) at {}",
                             label, at));
  }

  const std::string& root = ref.repo_id;
  RemoteFileSystem& fs = *repo->fs;
  std::string target;  // inside the repo; "" = the whole tree
  if (!ref.quant.empty()) {
    Result<std::string> entry = find_gguf_quant(
        fs, root, ref.quant, fmt::format("{} at {}", quote_untrusted(ref.repo_id + "@" + ref.revision),
                                         repo->revision.commit.substr(0, 12)));
    if (!entry) return entry.error();
    target = *entry;
  } else if (!ref.file.empty()) {
    Result<FileStat> st = fs.stat(root + "/" + ref.file);
    if (!st) return st.error();
    if (st->kind == FileKind::kMissing) {
      return Error(fmt::format("{}: no file {} at {}", label, quote_untrusted(ref.file), at));
    }
    target = ref.file;
  }

  const std::vector<std::string> prefetch = hub_files_to_prefetch(*repo, target);
  std::function<void(size_t, size_t)> progress;
  if (options.progress && prefetch.size() >= kHubProgressMinFiles) progress = options.progress;
  if (Status read = fs.prefetch(prefetch, kMaxConcurrentHeaderReads, progress); !read) {
    return read.error();
  }

  Result<Model> model = open_model(fs, target.empty() ? root : root + "/" + target, open_options);
  if (model && model->weights.source == WeightsSource::kFallback) {
    return Error(fmt::format("{}: no config.json and no weight files (*.safetensors, *.gguf) at {}",
                             label, at));
  }
  return model;
}

}  // namespace memfit
