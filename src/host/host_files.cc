// SysrootFiles: std::ifstream under a prefix. Files in /proc report a size
// of 0, so the text is read until end of file, bounded by kMaxHostFileBytes.
#include "host/host_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace memfit::host {

SysrootFiles::SysrootFiles(std::string sysroot) : sysroot_(std::move(sysroot)) {
  // "/" and "" both mean the host itself; "/tmp/root/" and "/tmp/root" are
  // the same tree. The path asked for always starts with '/'.
  while (!sysroot_.empty() && sysroot_.back() == '/') sysroot_.pop_back();
}

Result<std::optional<std::string>> SysrootFiles::read(const std::string& path) {
  const std::string full = sysroot_ + path;
  std::error_code ec;
  const auto status = std::filesystem::status(full, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    return std::optional<std::string>();
  }
  if (ec) return Error(full + ": " + ec.message());
  if (status.type() == std::filesystem::file_type::directory) {
    return Error(full + ": is a directory");
  }
  std::ifstream in(full, std::ios::binary);
  if (!in) return Error(full + ": " + std::strerror(errno));
  std::string text;
  char buffer[4096];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxHostFileBytes) {
      return Error(full + ": larger than " + std::to_string(kMaxHostFileBytes) + " bytes");
    }
  }
  if (in.bad()) return Error(full + ": read failed");
  return std::optional<std::string>(std::move(text));
}

}  // namespace memfit::host
