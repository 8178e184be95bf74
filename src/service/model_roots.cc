// Model names to real paths, confined to the model roots. The order of
// checks matters: the name's text is judged before anything is looked up,
// an absolute name must lie lexically inside a root before its realpath()
// is taken, and every realpath() is compared with the roots' realpath()s,
// so "..", absolute paths and symlinks cannot lead out.
#include "service/model_roots.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>
#include <variant>

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

namespace {

// Why a name under one root is not a model there.
struct Refusal {
  int status = 404;
  std::string_view code = "model_not_found";
  std::string detail;
  bool absent = false;  // nothing by that name: the next root may have it
};

constexpr std::string_view kNotFound = "not found under the model roots";
constexpr std::string_view kLeadsOutside =
    "leads outside the model roots through a symbolic link; a link is followed only when its "
    "target lies inside a root";

// `relative` (lexically normal, no "..") under `root_real`: the model, or
// why not.
std::variant<ResolvedModel, Refusal> resolve_under(const fs::path& root_real,
                                                   const fs::path& relative,
                                                   const ModelRoots& roots) {
  const fs::path lexical = (root_real / relative).lexically_normal();
  const std::string open_path = normal_string(lexical);
  std::error_code ec;
  const fs::path real_path = fs::canonical(lexical, ec);
  if (ec) {
    if (!is_absent(ec)) return Refusal{404, "model_not_found", ec.message()};
    std::error_code link_error;
    if (fs::is_symlink(fs::symlink_status(lexical, link_error))) {
      return Refusal{404, "model_not_found", "a symbolic link to nothing", true};
    }
    return Refusal{404, "model_not_found", std::string(kNotFound), true};
  }
  const std::string real = normal_string(real_path);
  if (!roots.contains(real)) return Refusal{403, "model_outside_roots", std::string(kLeadsOutside)};
  std::string label = open_path == normal_string(fs::path(root_real))
                          ? fs::path(open_path).filename().string()
                          : fs::path(open_path).lexically_relative(root_real).string();
  return ResolvedModel{real, open_path, std::move(label)};
}

}  // namespace

ApiResult<ResolvedModel> ModelRoots::resolve(std::string_view name) const {
  if (std::optional<ApiError> bad = check_name_text(name)) return *bad;

  // Each root's real path and the name relative to it.
  std::vector<std::pair<const Root*, fs::path>> candidates;
  if (name.front() == '/') {
    const std::string lexical = normal_string(fs::path(name));
    for (const Root& root : roots_) {
      for (const std::string* folder : {&root.absolute, &root.real}) {
        if (is_within(lexical, *folder)) {
          candidates.emplace_back(&root, fs::path(lexical).lexically_relative(*folder));
          break;
        }
      }
      if (!candidates.empty()) break;
    }
    if (candidates.empty()) {
      return model_error(403, "model_outside_roots", name, "not inside a model root");
    }
  } else {
    for (const Root& root : roots_) candidates.emplace_back(&root, fs::path(name).lexically_normal());
  }

  std::optional<Refusal> dangling;
  for (const auto& [root, relative] : candidates) {
    std::variant<ResolvedModel, Refusal> found = resolve_under(root->real, relative, *this);
    if (auto* model = std::get_if<ResolvedModel>(&found)) {
      model->name = std::string(name);
      return std::move(*model);
    }
    Refusal& refusal = std::get<Refusal>(found);
    if (!refusal.absent) return model_error(refusal.status, refusal.code, name, refusal.detail);
    // A link to nothing is named, unless another root has the model.
    if (!dangling && refusal.detail != kNotFound) dangling = refusal;
  }
  if (dangling) return model_error(dangling->status, dangling->code, name, dangling->detail);
  return model_error(404, "model_not_found", name, kNotFound);
}

ModelListing ModelRoots::list_models() const {
  ModelListing listing;
  std::map<std::string, size_t> listed_in;  // name -> the root that lists it
  for (size_t index = 0; index < roots_.size(); ++index) {
    const Root& root = roots_[index];
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(root.real, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      auto left_out = [&](std::string reason) {
        listing.left_out.push_back(LeftOutModel{name, index, std::move(reason)});
      };
      std::variant<ResolvedModel, Refusal> found = resolve_under(root.real, fs::path(name), *this);
      if (const auto* refusal = std::get_if<Refusal>(&found)) {
        if (refusal->status == 403) {
          left_out("a symbolic link leading outside the model roots");
        } else {
          left_out(refusal->detail);  // a link to nothing, an unreadable entry
        }
        continue;
      }
      const ResolvedModel& model = std::get<ResolvedModel>(found);
      std::string outside;
      std::string format = model_format(model.open_path, model.real_path, outside);
      if (!outside.empty()) {
        left_out(fmt::format("its {} is a symbolic link leading outside the model roots",
                             quote_untrusted(outside)));
        continue;
      }
      if (format.empty()) continue;  // no model: not one left out either
      if (auto first = listed_in.find(name); first != listed_in.end()) {
        left_out(fmt::format("root {} lists a model of this name first, and requests get that one",
                             first->second));
        continue;
      }
      listed_in.emplace(name, index);
      listing.models.push_back(ListedModel{name, index, std::move(format)});
    }
  }
  return listing;
}

std::string ModelRoots::model_format(const std::string& path, const std::string& real_path,
                                     std::string& outside) const {
  std::error_code ec;
  if (fs::is_regular_file(real_path, ec)) {
    // The entry's own name: a link to a content-addressed blob is a GGUF
    // by the name it is linked as.
    return is_gguf_model_file_name(fs::path(path).filename().string()) ? "gguf" : "";
  }
  if (!fs::is_directory(real_path, ec)) return "";
  // A file of the folder: inside the roots and regular, else its name in
  // `outside` when it leads out.
  auto confined_file = [&](const fs::path& file) {
    std::error_code e;
    const fs::path real = fs::canonical(file, e);
    if (e) return false;
    if (!contains(normal_string(real))) {
      if (outside.empty()) outside = file.filename().string();
      return false;
    }
    return fs::is_regular_file(real, e);
  };
  if (confined_file(fs::path(real_path) / "config.json")) return "config";
  if (!outside.empty()) return "";
  for (fs::directory_iterator it(real_path, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_gguf_model_file_name(it->path().filename().string()) && confined_file(it->path())) {
      outside.clear();
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

std::vector<std::string> ModelRoots::all_paths() const {
  std::vector<std::string> paths;
  for (const Root& root : roots_) {
    paths.push_back(root.absolute);
    if (root.real != root.absolute) paths.push_back(root.real);
  }
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
