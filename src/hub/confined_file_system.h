// ConfinedFileSystem: a FileSystem that reads only what lies inside one
// folder once every symbolic link is followed.
//
// A Hugging Face cache snapshot is a tree of symbolic links into the repo
// folder's blobs/; a link that leads anywhere else (/etc, another repo, a
// home folder) was not written by huggingface_hub, and reading through it
// is refused. Each call resolves its path with the base's real_path() and
// checks it is the root or under it; then the base is called with the path
// as given, so its messages keep naming the snapshot's files. (The link
// could be changed between the check and the read: this guards against a
// cache that is malformed, not against a writer racing the reader.)
#ifndef MEMFIT_HUB_CONFINED_FILE_SYSTEM_H_
#define MEMFIT_HUB_CONFINED_FILE_SYSTEM_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memfit/file_system.h"

namespace memfit {

class ConfinedFileSystem : public FileSystem {
 public:
  // `base` must outlive this. `root` is a real path (base.real_path()'s
  // answer, no trailing '/'); `root_label` names it in messages.
  ConfinedFileSystem(FileSystem& base, std::string root, std::string root_label);

  Result<FileStat> stat(const std::string& path) override;
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override;
  Status read_range_into(const std::string& path, uint64_t offset_bytes, uint64_t length_bytes,
                         char* destination) override;
  Result<FileBytes> read_file_padded(const std::string& path, uint64_t length_bytes,
                                     size_t padding_bytes) override;
  Result<std::unique_ptr<OpenFile>> open_file(const std::string& path) override;
  Result<std::vector<std::string>> list_dir(const std::string& path) override;
  Result<std::optional<std::string>> real_path(const std::string& path) override;
  bool allows_concurrent_calls() const override { return base_.allows_concurrent_calls(); }

 private:
  // Ok when `path` is missing (the base call then says so) or resolves
  // inside the root; a kInput error naming the link's target otherwise.
  Status check(const std::string& path);

  FileSystem& base_;
  std::string root_;
  std::string root_label_;
};

}  // namespace memfit

#endif  // MEMFIT_HUB_CONFINED_FILE_SYSTEM_H_
