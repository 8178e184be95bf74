// A thin wrapper over the weights lookup: the same files, rules and single
// header pass as open_model.
#include "memfit/tensor_inventory.h"

#include "memfit/weights.h"

namespace memfit {

Result<std::vector<SafetensorsTensor>> read_tensor_inventory(FileSystem& fs, const std::string& path) {
  const WeightsLookupOptions keep{/*keep_tensors=*/true};
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  std::vector<std::string> ignored_warnings;  // open_model reports them
  Result<WeightsLookup> lookup = st->kind == FileKind::kRegular
                                     ? read_single_file_weights(fs, path, keep)
                                     : find_folder_weights(fs, path, ignored_warnings, keep);
  if (!lookup) return lookup.error();
  return std::move(lookup->tensors);
}

}  // namespace memfit
