// Tests of FileSystem::read_file_padded (text, then zeros, whatever the
// text's length against the page size; a copy that a file truncated by
// another process cannot reach) and FileSystem::open_file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/weights.h"
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
  // end, or runs into the next page (and the text may fill its page).
  constexpr size_t kTwoMiB = size_t{2} << 20;
  for (size_t length : {size_t{1}, size_t{100}, page - kPaddingBytes - 1, page - kPaddingBytes,
                        page - kPaddingBytes + 1, page - 1, page, page + 1, 3 * page, kTwoMiB,
                        kTwoMiB + 100}) {
    const std::string text = pattern_text(length);
    const std::string path = dir.write_file("file-" + std::to_string(length), text);
    Result<FileBytes> bytes = fs->read_file_padded(path, length, kPaddingBytes);
    ASSERT_TRUE(bytes.ok()) << length << ": " << bytes.error().message();
    EXPECT_EQ(bytes->view().size(), length);
    EXPECT_EQ(bytes->view(), text) << length;
    EXPECT_EQ(padding_of(*bytes), std::string(kPaddingBytes, '\0')) << length;
  }
}

// Another process truncates the file while its bytes are held. A mapping
// of it would raise SIGBUS on the first page past the new end (here every
// page: the file is cut to 0); the copy still holds the text.
TEST(RealFileSystem, ReadFilePaddedBytesOutliveATruncationOfTheFile) {
  TempDir dir;
  auto fs = make_real_file_system();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const std::string text = pattern_text(3 * page + 100);
  const std::string path = dir.write_file("file", text);
  Result<FileBytes> bytes = fs->read_file_padded(path, text.size(), kPaddingBytes);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  EXPECT_EQ(bytes->view(), text);  // reads every byte
  EXPECT_EQ(padding_of(*bytes), std::string(kPaddingBytes, '\0'));
}

// The file is cut between open and read: the read is an error, not a crash.
// 10 bytes cut to 4: the read of [0, 10) ends at byte 4.
TEST(RealFileSystem, OpenFileTruncatedBeforeTheReadFails) {
  TempDir dir;
  auto fs = make_real_file_system();
  const std::string path = dir.write_file("file", "0123456789");
  Result<std::unique_ptr<OpenFile>> file = fs->open_file(path);
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ((*file)->stat().size_bytes, 10u);  // as opened
  ASSERT_EQ(::truncate(path.c_str(), 4), 0);
  char bytes[10];
  Status read = (*file)->read_range_into(0, 10, bytes);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), "'" + path + "': file ends at byte 4, expected 10");
}

// Cuts `path` to `cut_to_bytes` when read_file_padded is asked for it:
// before the read (a shrink between the loader's stat() and its read), or
// after it, while the loader still parses the bytes.
class TruncatingFileSystem : public FileSystem {
 public:
  TruncatingFileSystem(FileSystem& inner, std::string path, uint64_t cut_to_bytes, bool before)
      : inner_(inner), path_(std::move(path)), cut_to_bytes_(cut_to_bytes), before_(before) {}

  Result<FileStat> stat(const std::string& path) override { return inner_.stat(path); }
  Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                 uint64_t length_bytes) override {
    return inner_.read_range(path, offset_bytes, length_bytes);
  }
  Result<std::vector<std::string>> list_dir(const std::string& path) override {
    return inner_.list_dir(path);
  }
  Result<FileBytes> read_file_padded(const std::string& path, uint64_t length_bytes,
                                     size_t padding_bytes) override {
    if (path == path_ && before_) cut();
    Result<FileBytes> bytes = inner_.read_file_padded(path, length_bytes, padding_bytes);
    if (path == path_ && !before_) cut();
    return bytes;
  }

 private:
  void cut() { EXPECT_EQ(::truncate(path_.c_str(), static_cast<off_t>(cut_to_bytes_)), 0); }

  FileSystem& inner_;
  std::string path_;
  uint64_t cut_to_bytes_;
  bool before_;
};

// An index naming one shard, total_size 8: 88 bytes of text (32 up to the
// weight map's brace, 56 from it).
constexpr std::string_view kIndex =
    R"({"metadata": {"total_size": 8}, )"
    R"("weight_map": {"w": "model-00001-of-00001.safetensors"}})";

// A folder with that index and its (empty) shard, for a loader whose index
// another process cuts while it is read.
struct IndexedFolder {
  IndexedFolder() {
    dir.write_file("m/model-00001-of-00001.safetensors", "");
    index_path = dir.write_file("m/model.safetensors.index.json", kIndex);
  }
  TempDir dir;
  std::string index_path;
};

TEST(RealFileSystem, IndexCutBeforeTheLoaderReadsItIsAnError) {
  IndexedFolder folder;
  auto real = make_real_file_system();
  TruncatingFileSystem fs(*real, folder.index_path, 10, /*before=*/true);
  std::vector<std::string> warnings;
  Result<WeightsLookup> lookup = find_folder_weights(fs, folder.dir.file_path("m"), warnings);
  ASSERT_FALSE(lookup.ok());
  // The loader's stat() saw the 88 bytes of kIndex; the read finds 10.
  EXPECT_EQ(lookup.error().message(),
            "'" + folder.index_path + "': file ends at byte 10, expected 88");
}

TEST(RealFileSystem, IndexCutWhileTheLoaderParsesItIsParsedAsRead) {
  IndexedFolder folder;
  auto real = make_real_file_system();
  TruncatingFileSystem fs(*real, folder.index_path, 0, /*before=*/false);
  std::vector<std::string> warnings;
  Result<WeightsLookup> lookup = find_folder_weights(fs, folder.dir.file_path("m"), warnings);
  ASSERT_TRUE(lookup.ok()) << lookup.error().message();
  EXPECT_EQ(lookup->info.source, WeightsSource::kSafetensorsIndex);
  EXPECT_EQ(lookup->info.bytes, 8u);  // the index's total_size
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
