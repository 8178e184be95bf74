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
//     root is refused, as is an absolute path elsewhere.
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
  std::string real_path;  // realpath() of the named folder or file
  std::string label;      // real_path relative to its root: the /metrics label
  // True for a Hugging Face name (the service's allow_hub): real_path and
  // label hold the name as the request gives it, for open_model_by_name.
  bool hub = false;
};

struct ListedModel {
  std::string name;  // the folder's name, as a request names it
  std::string root;  // the root's real path
  // "config": a folder with a config.json (priced by default by mlxcel);
  // "gguf": a GGUF file or a folder of them (by default by llama.cpp's
  // profile).
  std::string format;
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
  // the roots (is_model), sorted by name per root; a name already listed
  // under an earlier root is left out (requests resolve to the earlier
  // one).
  std::vector<ListedModel> list_models() const;

  std::vector<std::string> real_paths() const;

 private:
  // "config" for a folder holding a config.json; "gguf" for a GGUF model
  // file ("*.gguf", not "mmproj*", the first of a split set) or a folder
  // holding one; "" otherwise. Every file counted resolves inside the
  // roots. Whether the model opens is the request's business.
  std::string model_format(const std::string& real_path) const;

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
