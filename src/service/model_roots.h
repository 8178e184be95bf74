// ModelRoots: the folders a service may read models from, and the one
// place that turns a requested model name into a real path inside them.
//
// Rules (docs/service.md, "Security"):
//   - a name is a path relative to a root ("Qwen3-8B", "org/model"), tried
//     root by root, or an absolute path lexically inside a root (as given
//     at start-up or as its real path);
//   - ".." components, empty names, names over 4096 bytes and control
//     characters are refused before the disk is touched;
//   - the name's realpath() must equal a root's realpath() or start with it
//     followed by "/": a symlink inside a root that leads outside every
//     root is refused, as is an absolute path elsewhere; one whose target
//     is inside a root is followed;
//   - the model is opened by the path the name spells (its symlinks
//     unresolved, open_path), so a link keeps its own name: a
//     "model.gguf" linked to a content-addressed blob is still a GGUF.
//
// The check is made on the real file system on purpose: symlinks are what
// it guards against, so it cannot go through a FileSystem double. Tests use
// real temporary folders.
#ifndef MEMFIT_SERVICE_MODEL_ROOTS_H_
#define MEMFIT_SERVICE_MODEL_ROOTS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"
#include "service/api_error.h"

namespace memfit::service {

struct ResolvedModel {
  std::string real_path;  // realpath() of the named folder or file: the cache's key
  // The path the model is opened by: the root's real path and the name,
  // lexically normal, its symlinks left for the file system to follow.
  std::string open_path;
  std::string label;      // open_path relative to its root: the /metrics label
  // True for a Hugging Face name (the service's allow_hub): every path and
  // the label hold the name as the request gives it, for
  // open_model_by_name.
  bool hub = false;
  std::string name;  // the name as the request gave it
};

struct ListedModel {
  std::string name;  // the folder's or file's name, as a request names it
  size_t root = 0;   // the root's position among the --model-root flags, 0 first
  // "config": a folder with a config.json (priced by default by mlxcel);
  // "gguf": a GGUF file or a folder of them (by default by llama.cpp's
  // profile).
  std::string format;
};

// An entry of a root that a request cannot name, or that names another
// root's model, and why: GET /v1/models lists them, so nothing is left out
// without a word.
struct LeftOutModel {
  std::string name;
  size_t root = 0;
  std::string reason;  // "a symbolic link leading outside the model roots"
};

struct ModelListing {
  std::vector<ListedModel> models;
  std::vector<LeftOutModel> left_out;
};

class ModelRoots {
 public:
  // Fails with `model root 'x': <reason>` when a root is missing or not a
  // folder.
  static Result<ModelRoots> create(const std::vector<std::string>& roots);

  // The real path of a model name, or 400 invalid_model_path, 403
  // model_outside_roots, 404 model_not_found. Thread-safe.
  ApiResult<ResolvedModel> resolve(std::string_view name) const;

  // Whether a real path is a root or inside one.
  bool contains(std::string_view real_path) const;

  // The direct entries of each root that are models and resolve inside
  // the roots (model_format), sorted by name per root. Left out, with the
  // reason: a symbolic link leading outside the roots or to nothing, a
  // folder whose config.json or GGUF file leads outside, and a name
  // already listed under an earlier root (requests resolve to that one).
  // Entries that are no model at all (a text file, an empty folder) are
  // neither.
  ModelListing list_models() const;

  std::vector<std::string> real_paths() const;
  // Each root as given, made absolute, and as its real path: the folders
  // no answer may name (ServerPaths).
  std::vector<std::string> all_paths() const;

 private:
  // The model format of `path` (a root's entry, as named) whose real path
  // is `real_path`: "config" for a folder holding a config.json; "gguf"
  // for a GGUF model file ("*.gguf" by the entry's own name, not
  // "mmproj*", the first of a split set) or a folder holding one; "" when
  // it holds no model. A model file that resolves outside the roots is
  // named in `outside`. Whether the model opens is the request's business.
  std::string model_format(const std::string& path, const std::string& real_path,
                           std::string& outside) const;

  struct Root {
    std::string absolute;  // as given, made absolute, lexically normal
    std::string real;      // realpath()
  };
  explicit ModelRoots(std::vector<Root> roots) : roots_(std::move(roots)) {}

  std::vector<Root> roots_;
};

// A FileSystem that refuses every path whose realpath() leaves the roots,
// so a model folder inside a root cannot read through a symlinked
// config.json or shard. A path that does not exist is passed on (the inner
// file system reports it missing). `roots` must outlive the result.
std::unique_ptr<FileSystem> make_confined_file_system(const ModelRoots& roots,
                                                      std::unique_ptr<FileSystem> inner);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_MODEL_ROOTS_H_
