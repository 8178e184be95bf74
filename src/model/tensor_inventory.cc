#include "memfit/tensor_inventory.h"

namespace memfit {
namespace {

bool is_safetensors(const std::string& name) {
  constexpr std::string_view kSuffix = ".safetensors";
  return name.size() > kSuffix.size() &&
         name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

// One reader for every shard: its parser and buffers are reused, and its
// errors name the file.
Status append_file(SafetensorsHeaderReader& reader, FileSystem& fs, const std::string& path,
                   std::vector<SafetensorsTensor>& out) {
  Result<SafetensorsHeader> header = reader.read(fs, path);
  if (!header) return header.error();
  for (SafetensorsTensor& t : header->tensors) out.push_back(std::move(t));
  return Status::Ok();
}

}  // namespace

Result<std::vector<SafetensorsTensor>> read_tensor_inventory(FileSystem& fs, const std::string& path) {
  std::vector<SafetensorsTensor> tensors;
  SafetensorsHeaderReader reader;
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kRegular) {
    Status s = append_file(reader, fs, path, tensors);
    if (!s) return s.error();
    return tensors;
  }
  Result<std::vector<std::string>> names = fs.list_dir(path);
  if (!names) return names.error();
  for (const std::string& name : *names) {
    if (!is_safetensors(name)) continue;
    Status s = append_file(reader, fs, join_path(path, name), tensors);
    if (!s) return s.error();
  }
  return tensors;
}

}  // namespace memfit
