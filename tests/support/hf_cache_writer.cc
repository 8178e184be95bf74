#include "support/hf_cache_writer.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

namespace memfit {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const std::error_code& error) {
  std::fprintf(stderr, "HfCacheWriter: %s: %s\n", what.c_str(), error.message().c_str());
  std::abort();
}

void make_dirs(const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) fail("creating " + dir.string(), error);
}

void write_bytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail("writing " + path, std::make_error_code(std::errc::io_error));
}

}  // namespace

std::string fake_commit(char digit) { return std::string(40, digit); }

HfCacheWriter::HfCacheWriter(std::string hub_cache_dir) : hub_cache_dir_(std::move(hub_cache_dir)) {}

std::string HfCacheWriter::repo_dir(std::string_view repo_id) const {
  std::string folder = "models--";
  for (char c : repo_id) folder += c == '/' ? std::string("--") : std::string(1, c);
  return hub_cache_dir_ + "/" + folder;
}

void HfCacheWriter::set_ref(std::string_view repo_id, std::string_view revision,
                            std::string_view commit) const {
  const fs::path ref = fs::path(repo_dir(repo_id)) / "refs" / std::string(revision);
  make_dirs(ref.parent_path());
  write_bytes(ref.string(), commit);
}

std::string HfCacheWriter::new_blob(std::string_view repo_id) {
  const fs::path blobs = fs::path(repo_dir(repo_id)) / "blobs";
  make_dirs(blobs);
  return (blobs / fmt::format("{:064x}", ++blobs_written_)).string();
}

void HfCacheWriter::link_blob(std::string_view repo_id, std::string_view commit,
                              std::string_view file, const std::string& blob) const {
  // huggingface_hub links with os.path.relpath(blob, dirname(pointer)).
  const fs::path pointer = fs::path(repo_dir(repo_id)) / "snapshots" / std::string(commit) /
                           std::string(file);
  make_dirs(pointer.parent_path());
  link(repo_id, commit, file, fs::path(blob).lexically_relative(pointer.parent_path()).string());
}

void HfCacheWriter::link(std::string_view repo_id, std::string_view commit, std::string_view file,
                         const std::string& target) const {
  const fs::path pointer = fs::path(repo_dir(repo_id)) / "snapshots" / std::string(commit) /
                           std::string(file);
  make_dirs(pointer.parent_path());
  std::error_code error;
  fs::create_symlink(target, pointer, error);
  if (error) fail("linking " + pointer.string(), error);
}

std::string HfCacheWriter::add_file(std::string_view repo_id, std::string_view commit,
                                    std::string_view file, std::string_view bytes) {
  const std::string blob = new_blob(repo_id);
  write_bytes(blob, bytes);
  link_blob(repo_id, commit, file, blob);
  return blob;
}

std::string HfCacheWriter::add_safetensors(std::string_view repo_id, std::string_view commit,
                                           std::string_view file,
                                           const std::vector<TensorSpec>& tensors) {
  const std::string blob = new_blob(repo_id);
  write_safetensors_file(blob, tensors);
  link_blob(repo_id, commit, file, blob);
  return blob;
}

std::string HfCacheWriter::add_gguf(std::string_view repo_id, std::string_view commit,
                                    std::string_view file, const GgufWriter& gguf) {
  const std::string blob = new_blob(repo_id);
  gguf.write(blob);
  link_blob(repo_id, commit, file, blob);
  return blob;
}

}  // namespace memfit
