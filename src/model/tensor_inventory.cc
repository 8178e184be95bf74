#include "memfit/tensor_inventory.h"

namespace memfit {
namespace {

bool is_safetensors(const std::string& name) {
  constexpr std::string_view kSuffix = ".safetensors";
  return name.size() > kSuffix.size() &&
         name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
}

Status append_file(FileSystem& fs, const std::string& path, std::vector<SafetensorsTensor>& out) {
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  Result<std::string> prefix = fs.read_range(path, 0, std::min<uint64_t>(8, st->size_bytes));
  if (!prefix) return prefix.error();
  Result<uint64_t> length = parse_safetensors_length(*prefix, st->size_bytes);
  if (!length) return length.error().within(path);
  Result<std::string> json = fs.read_range(path, 8, *length);
  if (!json) return json.error();
  Result<SafetensorsHeader> header =
      parse_safetensors_header(*json, st->size_bytes - 8 - *length);
  if (!header) return header.error().within(path);
  for (SafetensorsTensor& t : header->tensors) out.push_back(std::move(t));
  return Status::Ok();
}

}  // namespace

Result<std::vector<SafetensorsTensor>> read_tensor_inventory(FileSystem& fs, const std::string& path) {
  std::vector<SafetensorsTensor> tensors;
  Result<FileStat> st = fs.stat(path);
  if (!st) return st.error();
  if (st->kind == FileKind::kRegular) {
    Status s = append_file(fs, path, tensors);
    if (!s) return s.error();
    return tensors;
  }
  Result<std::vector<std::string>> names = fs.list_dir(path);
  if (!names) return names.error();
  for (const std::string& name : *names) {
    if (!is_safetensors(name)) continue;
    Status s = append_file(fs, join_path(path, name), tensors);
    if (!s) return s.error();
  }
  return tensors;
}

}  // namespace memfit
