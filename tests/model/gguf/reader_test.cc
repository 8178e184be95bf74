// Tests of reading GGUF headers from files: only the first bytes are read,
// in a window that grows, and the outcome never depends on the window.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "support/gguf_writer.h"
#include "support/memory_file_system.h"
#include "support/recording_file_system.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

// A summary of an outcome, to compare two of them.
std::string outcome(const Result<GgufHeader>& header) {
  if (!header.ok()) return header.error().message();
  return "ok: " + std::to_string(header->metadata.size()) + " entries, " +
         std::to_string(header->tensors.size()) + " tensors, header " +
         std::to_string(header->header_bytes) + ", data at " +
         std::to_string(header->data_offset_bytes) + ", " + std::to_string(header->tensor_bytes) +
         " tensor bytes";
}

TEST(GgufReader, ReadsOnlyTheFirstWindowOfALargeSparseFile) {
  TempDir dir;
  const std::string path = dir.file_path("model.gguf");
  // 4096 x 262144 F16 = 2 GiB of tensor data, never written (sparse).
  const uint64_t file_bytes = GgufWriter()
                                  .add_string("general.architecture", "llama")
                                  .add_tensor("token_embd.weight", GgmlType::kF16, {4096, 262144})
                                  .write(path);
  auto real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<GgufHeader> header = read_gguf_header(fs, path);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_EQ(header->file_bytes, file_bytes);
  EXPECT_EQ(header->tensor_bytes, 2 * kGiB);  // 4096 x 262144 x 2
  // One read: the first MiB. The header is 24 + 45 + 57 = 126 bytes.
  EXPECT_EQ(header->header_bytes, 126u);
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{path, 0, kMiB}}));
}

TEST(GgufReader, GrowsTheWindowReadingOnlyTheNewBytes) {
  TempDir dir;
  const std::string path = dir.file_path("vocab.gguf");
  // 100,000 tokens "t0".."t99999" (8 + 2..6 bytes each, 1,388,890 in all):
  // the header passes 1 MiB, not 2.
  std::vector<std::string> tokens;
  for (int i = 0; i < 100000; ++i) tokens.push_back(fmt::format("t{}", i));
  GgufWriter()
      .add_string_array("tokenizer.ggml.tokens", tokens)
      .add_tensor("output.weight", GgmlType::kQ8_0, {4096, 100000})
      .write(path);
  auto real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<GgufHeader> header = read_gguf_header(fs, path);
  ASSERT_TRUE(header.ok()) << header.error().message();
  EXPECT_GT(header->header_bytes, kMiB);
  EXPECT_LT(header->header_bytes, 2 * kMiB);
  EXPECT_EQ(header->get_array_count("tokenizer.ggml.tokens").value(), 100000u);
  // The first MiB, then the second: the window doubled.
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{path, 0, kMiB}, {path, kMiB, kMiB}}));
}

TEST(GgufReader, SmallFileIsReadWhole) {
  MemoryFileSystem memory;
  const std::string bytes = GgufWriter().add_tensor("a", GgmlType::kF32, {10}).bytes();
  memory.add_file("m/a.gguf", bytes);
  RecordingFileSystem fs(memory);
  ASSERT_TRUE(read_gguf_header(fs, "m/a.gguf").ok());
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{"m/a.gguf", 0, bytes.size()}}));
}

std::string sample_file() {
  std::vector<std::string> tokens;
  for (int i = 0; i < 40; ++i) tokens.push_back(fmt::format("token{}", i));
  return GgufWriter()
      .add_string("general.architecture", "qwen3")
      .add_u32_array("qwen3.attention.head_count_kv", {8, 8, 4})
      .add_string_array("tokenizer.ggml.tokens", tokens)
      .add_tensor("token_embd.weight", GgmlType::kQ6_K, {256, 40})
      .add_tensor("output_norm.weight", GgmlType::kF32, {256})
      .bytes();
}

TEST(GgufReader, OutcomeNeverDependsOnTheWindow) {
  const std::string good = sample_file();
  // The same file with a string length past the end, and cut inside its
  // first tensor.
  std::string long_string = good;
  // The top byte of general.architecture's length (at 24 + 8 + 20 + 4 = 56).
  long_string[63] = '\x7f';
  const std::vector<std::string> files = {good, long_string, good.substr(0, good.size() - 300)};
  for (const std::string& bytes : files) {
    const std::string expected = outcome(parse_gguf_header(bytes, bytes.size()));
    MemoryFileSystem fs;
    fs.add_file("f.gguf", bytes);
    // Every window through the header (under 1,024 bytes), and past the end.
    std::vector<uint64_t> windows = {bytes.size(), bytes.size() + 1, 1ull << 20};
    for (uint64_t window = 1; window <= 1024; ++window) windows.push_back(window);
    for (uint64_t window : windows) {
      Result<GgufHeader> header = read_gguf_header(fs, "f.gguf", window);
      std::string got = outcome(header);
      if (!header.ok()) {
        ASSERT_EQ(got.rfind("reading 'f.gguf': ", 0), 0u) << got;
        got = got.substr(std::string("reading 'f.gguf': ").size());
      }
      ASSERT_EQ(got, expected) << "window " << window;
    }
  }
}

TEST(GgufReader, ReadsStayWithinTwiceTheHeader) {
  const std::string bytes = sample_file();
  const uint64_t header_bytes = parse_gguf_header(bytes, bytes.size())->header_bytes;
  MemoryFileSystem memory;
  memory.add_file("f.gguf", bytes);
  for (uint64_t window : {1u, 7u, 64u, 100u}) {
    RecordingFileSystem fs(memory);
    ASSERT_TRUE(read_gguf_header(fs, "f.gguf", window).ok());
    // Contiguous reads from byte 0, each window at least double the last.
    uint64_t end = 0;
    for (const FileRead& read : fs.reads()) {
      EXPECT_EQ(read.offset_bytes, end);
      end += read.length_bytes;
    }
    EXPECT_LE(end, std::max<uint64_t>(window, 2 * header_bytes)) << window;
    EXPECT_GE(end, header_bytes);
  }
}

TEST(GgufReader, ErrorsNameTheFile) {
  MemoryFileSystem fs;
  fs.add_file("dir/bad.gguf", "GGML" + std::string(20, '\0'));
  EXPECT_EQ(read_gguf_header(fs, "dir/bad.gguf").error().message(),
            "reading 'dir/bad.gguf': gguf header: not a GGUF file: it starts with 'GGML', not "
            "'GGUF'");
  EXPECT_EQ(read_gguf_header(fs, "dir/none.gguf").error().message(),
            "reading 'dir/none.gguf': no such file");
  EXPECT_EQ(read_gguf_header(fs, "dir").error().message(), "reading 'dir': not a regular file");
}

TEST(GgufReader, HeaderPastTheLimitIsRefusedWithoutReadingIt) {
  TempDir dir;
  const std::string path = dir.file_path("huge_key.gguf");
  // A key of 300 MiB in a sparse 1 GiB file: within the file, past the
  // 256 MiB limit. The key's bytes would start at 32.
  const std::string head =
      "GGUF" + gguf_le32(3) + gguf_le64(0) + gguf_le64(1) + gguf_le64(300 * kMiB);
  dir.write_file("huge_key.gguf", head);
  std::filesystem::resize_file(path, kGiB);
  auto real = make_real_file_system();
  RecordingFileSystem fs(*real);
  EXPECT_EQ(read_gguf_header(fs, path).error().message(),
            "reading '" + path +
                "': gguf header: the key of metadata entry 0 (314572800 bytes at byte 32) runs "
                "past memfit's 268435456-byte (256 MiB) header limit");
  EXPECT_EQ(fs.bytes_read(), kMiB);
}

}  // namespace
}  // namespace memfit
