// Replays inputs through a fuzz target without libFuzzer: linked with one
// fuzz/<name>_fuzz.cc by the ordinary build (any compiler, with or without
// sanitizers), it is the regression test of every committed input and crash
// reproducer (tests/fuzz/CMakeLists.txt runs it over
// tests/data/hostile/<name>/).
//
// Usage: <name>_replay PATH...
//   Each PATH is a file or a folder (read recursively); the files are run
//   in sorted order, each once, from a heap buffer of exactly its size (so
//   a sanitizer sees any read past its end). Before each input its path is
//   printed to stderr, so a crash is attributed to its file.
// Exit status: 0 when every input ran; 1 when a PATH does not exist, no
// file was found, a file cannot be read, or the target returned non-zero.
// A crash of an input (a trap, a sanitizer report, an exception escaping
// LLVMFuzzerTestOneInput) ends the process abnormally, as under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional, as under libFuzzer.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

// The regular files at `path`, or false when it does not exist.
bool collect(const fs::path& path, std::vector<fs::path>& files) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
    return true;
  }
  if (!fs::is_directory(path, ec)) return false;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  return !ec;
}

bool read_all(const fs::path& path, std::vector<char>& bytes) {
  std::ifstream in(path, std::ios::binary);
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH...\n", argv[0]);
    return 1;
  }
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!collect(argv[i], files)) {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 1;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no input files\n");
    return 1;
  }
  std::sort(files.begin(), files.end());
  std::vector<char> bytes;
  for (const fs::path& file : files) {
    if (!read_all(file, bytes)) {
      std::fprintf(stderr, "replay: %s: cannot be read\n", file.c_str());
      return 1;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
    std::fflush(stderr);
    // Exactly the input's size: no slack for an overread to land in.
    auto input = std::make_unique<uint8_t[]>(bytes.size());
    std::copy(bytes.begin(), bytes.end(), input.get());
    if (LLVMFuzzerTestOneInput(input.get(), bytes.size()) != 0) {
      std::fprintf(stderr, "replay: %s: the target returned non-zero\n", file.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "replay: %zu inputs ran\n", files.size());
  return 0;
}
