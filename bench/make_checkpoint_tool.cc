// make_checkpoint_tool: writes the synthetic 163-shard, ~140,000-tensor,
// 1-trillion-parameter checkpoint of synthetic_checkpoint.h into a folder,
// as sparse files (disk cost: the headers only, ~18 MB).
//
//   make_checkpoint_tool DIR [--with-index] [--shuffled]
//
// Without --with-index no model.safetensors.index.json is written (an old
// one is removed), so memfit must read all 163 headers. --shuffled lists
// each shard's tensors by name while their data stays in layer order, so
// offsets are out of header order (the parser's worst case).
#include <fmt/format.h>

#include <cstring>
#include <exception>
#include <string>

#include "synthetic_checkpoint.h"

int main(int argc, char** argv) {
  std::string dir;
  bool with_index = false;
  bool shuffled = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--with-index") == 0) {
      with_index = true;
    } else if (std::strcmp(argv[i], "--shuffled") == 0) {
      shuffled = true;
    } else if (argv[i][0] != '-' && dir.empty()) {
      dir = argv[i];
    } else {
      dir.clear();
      break;
    }
  }
  if (dir.empty()) {
    fmt::print(stderr, "usage: make_checkpoint_tool DIR [--with-index] [--shuffled]\n");
    return 2;
  }
  try {
    const auto stats = memfit::bench::write_synthetic_checkpoint(dir, with_index, shuffled);
    fmt::print("{}: {} shards, {} tensors, {} header bytes, {} data bytes{}{}\n", dir,
               stats.shard_count, stats.tensor_count, stats.header_bytes, stats.data_bytes,
               with_index ? ", with model.safetensors.index.json" : "",
               shuffled ? ", shuffled" : "");
  } catch (const std::exception& e) {
    fmt::print(stderr, "make_checkpoint_tool: {}\n", e.what());
    return 1;
  }
  return 0;
}
