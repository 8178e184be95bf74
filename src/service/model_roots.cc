// Model names to real paths, confined to the model roots. The order of
// checks matters: the name's text is judged before anything is looked up,
// an absolute name must lie lexically inside a root before its realpath()
// is taken, and every realpath() is compared with the roots' realpath()s,
// so "..", absolute paths and symlinks cannot lead out.
#include "service/model_roots.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "memfit/gguf_split.h"
#include "memfit/untrusted_text.h"

namespace memfit::service {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxModelNameBytes = 4096;

// A file a request may name as a GGUF model: "*.gguf", not a multimodal
// projector ("mmproj*"), and of a split set only the first file (the set
// is opened from it).
bool is_gguf_model_file_name(std::string_view name) {
  constexpr std::string_view kSuffix = ".gguf";
  if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix) || name.starts_with("mmproj")) {
    return false;
  }
  std::optional<GgufSplitName> split = parse_gguf_split_name(name);
  return !split || split->number == 1;
}

// "model '<name>': <detail>", the name quoted: it is the request's text.
ApiError model_error(int status, std::string_view code, std::string_view name,
                     std::string_view detail) {
  return ApiError{status, std::string(code),
                  fmt::format("model {}: {}", quote_untrusted(name), detail), Json::object()};
}

ApiError invalid_path(std::string_view name, std::string_view why) {
  return model_error(400, "invalid_model_path", name, why);
}

// "/a/b/" and "/a/./b" -> "/a/b".
std::string normal_string(const fs::path& path) {
  fs::path p = path.lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

bool is_within(std::string_view path, std::string_view root) {
  if (path == root) return true;
  if (root == "/") return !path.empty() && path.front() == '/';
  return path.size() > root.size() && path.substr(0, root.size()) == root &&
         path[root.size()] == '/';
}

// Judges the text of a name; nothing is looked up.
std::optional<ApiError> check_name_text(std::string_view name) {
  if (name.empty()) return invalid_path(name, "the name is empty");
  if (name.size() > kMaxModelNameBytes) {
    return ApiError{
        400, "invalid_model_path",
        fmt::format("model name of {} bytes: longer than {}", name.size(), kMaxModelNameBytes),
        Json::object()};
  }
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return invalid_path(name, "contains a control character");
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == "..") return invalid_path(name, "'..' is not allowed");
    start = end + 1;
  }
  return std::nullopt;
}

bool is_absent(const std::error_code& ec) {
  return ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
}

}  // namespace

Result<ModelRoots> ModelRoots::create(const std::vector<std::string>& roots) {
  std::vector<Root> resolved;
  for (const std::string& given : roots) {
    std::error_code ec;
    fs::path absolute = fs::absolute(given, ec);
    if (ec) {
      return Error::usage(fmt::format("model root {}: {}", quote_untrusted(given), ec.message()));
    }
    fs::path real = fs::canonical(given, ec);
    if (ec) {
      return Error::usage(fmt::format("model root {}: {}", quote_untrusted(given), ec.message()));
    }
    if (!fs::is_directory(real, ec)) {
      return Error::usage(fmt::format("model root {}: not a folder", quote_untrusted(given)));
    }
    resolved.push_back(Root{normal_string(absolute), normal_string(real)});
  }
  return ModelRoots(std::move(resolved));
}

bool ModelRoots::contains(std::string_view real_path) const {
  return std::any_of(roots_.begin(), roots_.end(),
                     [&](const Root& root) { return is_within(real_path, root.real); });
}

ApiResult<ResolvedModel> ModelRoots::resolve(std::string_view name) const {
  if (std::optional<ApiError> bad = check_name_text(name)) return *bad;

  std::vector<fs::path> candidates;
  if (name.front() == '/') {
    const std::string lexical = normal_string(fs::path(name));
    const bool inside = std::any_of(roots_.begin(), roots_.end(), [&](const Root& root) {
      return is_within(lexical, root.absolute) || is_within(lexical, root.real);
    });
    if (!inside) {
      return model_error(403, "model_outside_roots", name, "not inside a model root");
    }
    candidates.emplace_back(lexical);
  } else {
    for (const Root& root : roots_) candidates.push_back(fs::path(root.real) / fs::path(name));
  }

  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    const fs::path real_path = fs::canonical(candidate, ec);
    if (ec) {
      if (is_absent(ec)) continue;
      return model_error(404, "model_not_found", name, ec.message());
    }
    const std::string real = normal_string(real_path);
    auto root = std::find_if(roots_.begin(), roots_.end(),
                             [&](const Root& r) { return is_within(real, r.real); });
    if (root == roots_.end()) {
      return model_error(403, "model_outside_roots", name, "resolves outside the model roots");
    }
    std::string label = real == root->real ? fs::path(real).filename().string()
                                           : fs::path(real).lexically_relative(root->real).string();
    return ResolvedModel{real, std::move(label)};
  }
  return model_error(404, "model_not_found", name, "not found under the model roots");
}

std::vector<ListedModel> ModelRoots::list_models() const {
  std::vector<ListedModel> listed;
  std::set<std::string> seen;
  for (const Root& root : roots_) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(root.real, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (seen.count(name) != 0) continue;
      ApiResult<ResolvedModel> model = resolve(name);
      if (!model.ok()) continue;
      std::string format = model_format(model->real_path);
      if (format.empty()) continue;
      seen.insert(name);
      listed.push_back(ListedModel{name, root.real, std::move(format)});
    }
  }
  return listed;
}

std::string ModelRoots::model_format(const std::string& real_path) const {
  std::error_code ec;
  if (fs::is_regular_file(real_path, ec)) {
    return is_gguf_model_file_name(fs::path(real_path).filename().string()) ? "gguf" : "";
  }
  if (!fs::is_directory(real_path, ec)) return "";
  auto confined_file = [&](const fs::path& path) {
    std::error_code e;
    const fs::path real = fs::canonical(path, e);
    return !e && contains(normal_string(real)) && fs::is_regular_file(real, e);
  };
  if (confined_file(fs::path(real_path) / "config.json")) return "config";
  for (fs::directory_iterator it(real_path, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_gguf_model_file_name(it->path().filename().string()) && confined_file(it->path())) {
      return "gguf";
    }
  }
  return "";
}

std::vector<std::string> ModelRoots::real_paths() const {
  std::vector<std::string> paths;
  for (const Root& root : roots_) paths.push_back(root.real);
  return paths;
}

namespace {

class ConfinedFileSystem : public FileSystem {
 public:
  ConfinedFileSystem(const ModelRoots& roots, std::unique_ptr<FileSystem> inner)
      : roots_(roots), inner_(std::move(inner)) {}

  Result<FileStat> stat(const std::string& path) override {
    if (Status s = check(path); !s) return s.error();
    return inner_->stat(path);
  }
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override {
    if (Status s = check(path); !s) return s.error();
    return inner_->read_range(path, offset_bytes, length_bytes);
  }
  Status read_range_into(const std::string& path, uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override {
    if (Status s = check(path); !s) return s.error();
    return inner_->read_range_into(path, offset_bytes, length_bytes, destination);
  }
  Result<std::vector<std::string>> list_dir(const std::string& path) override {
    if (Status s = check(path); !s) return s.error();
    return inner_->list_dir(path);
  }
  // check() reads only the immutable roots.
  bool allows_concurrent_calls() const override { return inner_->allows_concurrent_calls(); }

 private:
  Status check(const std::string& path) const {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) return Status::Ok();  // missing: the inner file system says so
    if (!roots_.contains(normal_string(real))) {
      return Error(quote_untrusted(path) + ": resolves outside the model roots");
    }
    return Status::Ok();
  }

  const ModelRoots& roots_;
  std::unique_ptr<FileSystem> inner_;
};

}  // namespace

std::unique_ptr<FileSystem> make_confined_file_system(const ModelRoots& roots,
                                                      std::unique_ptr<FileSystem> inner) {
  return std::make_unique<ConfinedFileSystem>(roots, std::move(inner));
}

}  // namespace memfit::service
