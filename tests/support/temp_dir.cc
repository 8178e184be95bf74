#include "support/temp_dir.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace memfit {

TempDir::TempDir() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/memfit-test-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror("TempDir: mkdtemp");
    std::abort();
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::file_path(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

std::string TempDir::write_file(std::string_view name, std::string_view bytes) const {
  const std::string full_path = file_path(name);
  std::filesystem::create_directories(std::filesystem::path(full_path).parent_path());
  std::ofstream out(full_path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::perror(("TempDir: writing " + full_path).c_str());
    std::abort();
  }
  return full_path;
}

std::string TempDir::make_dir(std::string_view name) const {
  const std::string full_path = file_path(name);
  std::filesystem::create_directories(full_path);
  return full_path;
}

}  // namespace memfit
