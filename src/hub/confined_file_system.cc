#include "hub/confined_file_system.h"

#include <utility>

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit {

ConfinedFileSystem::ConfinedFileSystem(FileSystem& base, std::string root, std::string root_label)
    : base_(base), root_(std::move(root)), root_label_(std::move(root_label)) {}

Status ConfinedFileSystem::check(const std::string& path) {
  Result<std::optional<std::string>> real = base_.real_path(path);
  if (!real) return real.error();
  if (!*real) return Status::Ok();
  const std::string& target = **real;
  const bool inside = target == root_ || (target.size() > root_.size() &&
                                          target.starts_with(root_) && target[root_.size()] == '/');
  if (inside) return Status::Ok();
  return Error(fmt::format("{}: leads out of {} (to {}): refused", quote_untrusted(path),
                           quote_untrusted(root_label_), quote_untrusted(target)));
}

Result<FileStat> ConfinedFileSystem::stat(const std::string& path) {
  if (Status inside = check(path); !inside) return inside.error();
  return base_.stat(path);
}

Result<std::string> ConfinedFileSystem::read_range(const std::string& path, uint64_t offset_bytes,
                                                   uint64_t length_bytes) {
  if (Status inside = check(path); !inside) return inside.error();
  return base_.read_range(path, offset_bytes, length_bytes);
}

Status ConfinedFileSystem::read_range_into(const std::string& path, uint64_t offset_bytes,
                                           uint64_t length_bytes, char* destination) {
  if (Status inside = check(path); !inside) return inside;
  return base_.read_range_into(path, offset_bytes, length_bytes, destination);
}

Result<FileBytes> ConfinedFileSystem::read_file_padded(const std::string& path,
                                                       uint64_t length_bytes,
                                                       size_t padding_bytes) {
  if (Status inside = check(path); !inside) return inside.error();
  return base_.read_file_padded(path, length_bytes, padding_bytes);
}

Result<std::unique_ptr<OpenFile>> ConfinedFileSystem::open_file(const std::string& path) {
  if (Status inside = check(path); !inside) return inside.error();
  return base_.open_file(path);
}

Result<std::vector<std::string>> ConfinedFileSystem::list_dir(const std::string& path) {
  if (Status inside = check(path); !inside) return inside.error();
  return base_.list_dir(path);
}

Result<std::optional<std::string>> ConfinedFileSystem::real_path(const std::string& path) {
  return base_.real_path(path);
}

}  // namespace memfit
