// Tests of FileSystem::read_file_padded (the real file system's mapping:
// text, then zeros, whatever the text's length against the page size; the
// default read into a buffer) and FileSystem::open_file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memfit/file_system.h"
#include "support/recording_file_system.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr size_t kPaddingBytes = 64;

// `length` bytes of a repeating, non-zero pattern.
std::string pattern_text(size_t length) {
  std::string text(length, '\0');
  for (size_t i = 0; i < length; ++i) text[i] = static_cast<char>('a' + i % 26);
  return text;
}

// The kPaddingBytes after `bytes`' text, as a string.
std::string padding_of(const FileBytes& bytes) {
  return std::string(bytes.view().data() + bytes.view().size(), kPaddingBytes);
}

TEST(RealFileSystem, ReadFilePaddedHoldsTheWholeFileThenZeros) {
  TempDir dir;
  auto fs = make_real_file_system();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  // The padding fits in the text's last page, ends exactly at the page's
  // end, or runs into the next page (and the text may fill its page); from
  // 2 MiB up the mapping is placed on a 2 MiB boundary.
  constexpr size_t kTwoMiB = size_t{2} << 20;
  for (size_t length : {size_t{1}, size_t{100}, page - kPaddingBytes - 1, page - kPaddingBytes,
                        page - kPaddingBytes + 1, page - 1, page, page + 1, 3 * page, kTwoMiB,
                        kTwoMiB + 100}) {
    const std::string text = pattern_text(length);
    const std::string path = dir.write_file("file-" + std::to_string(length), text);
    Result<FileBytes> bytes = fs->read_file_padded(path, length, kPaddingBytes);
    ASSERT_TRUE(bytes.ok()) << length << ": " << bytes.error().message();
    EXPECT_EQ(bytes->size_bytes(), length);
    EXPECT_EQ(bytes->view(), text) << length;
    EXPECT_EQ(padding_of(*bytes), std::string(kPaddingBytes, '\0')) << length;
    if (length >= kTwoMiB) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes->view().data()) % kTwoMiB, 0u) << length;
    }
  }
}

TEST(RealFileSystem, ReadFilePaddedOfAPrefixHasZerosAfterIt) {
  TempDir dir;
  auto fs = make_real_file_system();
  const std::string path = dir.write_file("file", pattern_text(1000));
  Result<FileBytes> bytes = fs->read_file_padded(path, 10, kPaddingBytes);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  EXPECT_EQ(bytes->view(), "abcdefghij");
  EXPECT_EQ(padding_of(*bytes), std::string(kPaddingBytes, '\0'));  // not "klmn..."
}

TEST(RealFileSystem, ReadFilePaddedOfAnEmptyFileIsPaddingOnly) {
  TempDir dir;
  auto fs = make_real_file_system();
  const std::string path = dir.write_file("empty", "");
  Result<FileBytes> bytes = fs->read_file_padded(path, 0, kPaddingBytes);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  EXPECT_EQ(bytes->view(), "");
  EXPECT_EQ(padding_of(*bytes), std::string(kPaddingBytes, '\0'));
}

TEST(RealFileSystem, ReadFilePaddedPastTheEndFails) {
  TempDir dir;
  auto fs = make_real_file_system();
  const std::string path = dir.write_file("short", "0123456789");
  Result<FileBytes> bytes = fs->read_file_padded(path, 20, kPaddingBytes);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message(), "'" + path + "': file ends at byte 10, expected 20");
}

TEST(RealFileSystem, ReadFilePaddedOfAMissingFileFails) {
  TempDir dir;
  auto fs = make_real_file_system();
  Result<FileBytes> bytes = fs->read_file_padded(dir.file_path("absent"), 20, kPaddingBytes);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message(), "'" + dir.file_path("absent") + "': No such file or directory");
}

TEST(RealFileSystem, ReadFilePaddedOutlivesItsFileSystemAndIsSharedByCopies) {
  TempDir dir;
  const std::string path = dir.write_file("file", "{\"a\": 1}");
  FileBytes copy;
  {
    auto fs = make_real_file_system();
    Result<FileBytes> bytes = fs->read_file_padded(path, 8, kPaddingBytes);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message();
    copy = *bytes;
  }
  EXPECT_EQ(copy.view(), "{\"a\": 1}");
}

// The default implementation goes through read_range (here recorded).
TEST(FileSystemDefault, ReadFilePaddedReadsTheRangeIntoABuffer) {
  TempDir dir;
  auto real = make_real_file_system();
  RecordingFileSystem fs(*real);
  const std::string path = dir.write_file("file", "0123456789");
  Result<FileBytes> bytes = fs.read_file_padded(path, 10, kPaddingBytes);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  EXPECT_EQ(bytes->view(), "0123456789");
  EXPECT_EQ(padding_of(*bytes), std::string(kPaddingBytes, '\0'));
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{path, 0, 10}}));

  Result<FileBytes> too_long = fs.read_file_padded(path, 11, kPaddingBytes);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().message(), "'" + path + "': file ends at byte 10, expected 11");
}

TEST(RealFileSystem, OpenFileGivesKindAndSizeAndReadsRanges) {
  TempDir dir;
  auto fs = make_real_file_system();
  const std::string path = dir.write_file("file", "0123456789");
  Result<std::unique_ptr<OpenFile>> file = fs->open_file(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ((*file)->stat().kind, FileKind::kRegular);
  EXPECT_EQ((*file)->stat().size_bytes, 10u);
  char bytes[4];
  ASSERT_TRUE((*file)->read_range_into(3, 4, bytes).ok());
  EXPECT_EQ(std::string(bytes, 4), "3456");
  ASSERT_TRUE((*file)->read_range_into(0, 2, bytes).ok());
  EXPECT_EQ(std::string(bytes, 2), "01");
  Status past_end = (*file)->read_range_into(8, 4, bytes);
  ASSERT_FALSE(past_end.ok());
  EXPECT_EQ(past_end.error().message(), "'" + path + "': file ends at byte 10, expected 12");
}

TEST(RealFileSystem, OpenFileOfWhatIsNotARegularFileSaysWhatItIs) {
  TempDir dir;
  auto fs = make_real_file_system();
  Result<std::unique_ptr<OpenFile>> missing = fs->open_file(dir.file_path("absent"));
  ASSERT_TRUE(missing.ok()) << missing.error().message();
  EXPECT_EQ((*missing)->stat().kind, FileKind::kMissing);
  Result<std::unique_ptr<OpenFile>> under_a_file =
      fs->open_file(dir.write_file("file", "x") + "/child");
  ASSERT_TRUE(under_a_file.ok()) << under_a_file.error().message();
  EXPECT_EQ((*under_a_file)->stat().kind, FileKind::kMissing);
  Result<std::unique_ptr<OpenFile>> folder = fs->open_file(dir.make_dir("folder"));
  ASSERT_TRUE(folder.ok()) << folder.error().message();
  EXPECT_EQ((*folder)->stat().kind, FileKind::kDirectory);
  char byte;
  Status read = (*folder)->read_range_into(0, 1, &byte);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), "'" + dir.file_path("folder") + "': not a regular file");
  // A FIFO with no writer: opening it must not wait for one.
  const std::string fifo = dir.file_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<std::unique_ptr<OpenFile>> pipe = fs->open_file(fifo);
  ASSERT_TRUE(pipe.ok()) << pipe.error().message();
  EXPECT_EQ((*pipe)->stat().kind, FileKind::kOther);
}

// The default open_file: stat() once, then read_range_into by path, as a
// test double records them.
TEST(FileSystemDefault, OpenFileStatsOnceThenReadsByPath) {
  TempDir dir;
  auto real = make_real_file_system();
  RecordingFileSystem fs(*real);
  const std::string path = dir.write_file("file", "0123456789");
  Result<std::unique_ptr<OpenFile>> file = fs.open_file(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ((*file)->stat().size_bytes, 10u);
  char bytes[3];
  ASSERT_TRUE((*file)->read_range_into(7, 3, bytes).ok());
  EXPECT_EQ(std::string(bytes, 3), "789");
  EXPECT_EQ(fs.stats(), std::vector<std::string>{path});
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{path, 7, 3}}));
}

TEST(RealFileSystem, RealPathFollowsLinksAndMissingIsNullopt) {
  TempDir dir;
  dir.write_file("blobs/1", "x");
  dir.make_dir("snap");
  ASSERT_EQ(::symlink("../blobs/1", dir.file_path("snap/f").c_str()), 0);
  ASSERT_EQ(::symlink("../blobs/none", dir.file_path("snap/dangling").c_str()), 0);
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  char* real_dir = ::realpath(dir.path().c_str(), nullptr);  // TMPDIR may be a link itself
  ASSERT_NE(real_dir, nullptr);
  const std::string root = real_dir;
  std::free(real_dir);

  Result<std::optional<std::string>> linked = fs->real_path(dir.file_path("snap/f"));
  ASSERT_TRUE(linked.ok()) << linked.error().message();
  EXPECT_EQ(*linked, root + "/blobs/1");
  Result<std::optional<std::string>> dotted = fs->real_path(dir.file_path("snap/../blobs/./1"));
  ASSERT_TRUE(dotted.ok());
  EXPECT_EQ(*dotted, root + "/blobs/1");
  for (const char* missing : {"snap/dangling", "snap/none", "blobs/1/under-a-file"}) {
    Result<std::optional<std::string>> none = fs->real_path(dir.file_path(missing));
    ASSERT_TRUE(none.ok()) << missing << ": " << none.error().message();
    EXPECT_FALSE(none->has_value()) << missing;
  }
}

}  // namespace
}  // namespace memfit
