// Opening a model file for its header (model/regular_file.h).
#include "model/regular_file.h"

namespace memfit {

Result<std::unique_ptr<OpenFile>> open_regular_file(FileSystem& fs, const std::string& path,
                                                    std::string_view context) {
  Result<std::unique_ptr<OpenFile>> opened = fs.open_file(path);
  if (!opened.ok()) return opened.error();
  const FileStat stat = (*opened)->stat();
  if (stat.kind == FileKind::kMissing) return Error(std::string(context) + ": no such file");
  if (stat.kind != FileKind::kRegular) return Error(std::string(context) + ": not a regular file");
  return opened;
}

}  // namespace memfit
