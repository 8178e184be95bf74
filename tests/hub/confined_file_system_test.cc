// ConfinedFileSystem: every call is refused for a path that resolves
// outside its root, including a sibling whose name merely starts with the
// root's; a missing path passes through, for the base to say so.
#include "hub/confined_file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "support/temp_dir.h"

namespace memfit {
namespace {

class Confined : public ::testing::Test {
 protected:
  void SetUp() override {
    char* real = ::realpath(dir_.path().c_str(), nullptr);
    ASSERT_NE(real, nullptr);
    real_dir_ = real;
    std::free(real);
    dir_.write_file("models--a--b/blobs/1", "inside");
    dir_.write_file("models--a--bc/blobs/1", "sibling");
    dir_.make_dir("models--a--b/snap");
    ASSERT_EQ(::symlink("../blobs/1", dir_.file_path("models--a--b/snap/in").c_str()), 0);
    ASSERT_EQ(::symlink("../../models--a--bc/blobs/1",
                        dir_.file_path("models--a--b/snap/sibling").c_str()),
              0);
  }

  TempDir dir_;
  std::string real_dir_;
  std::unique_ptr<FileSystem> base_ = make_real_file_system();
};

TEST_F(Confined, ReadsInsideTheRootPassThrough) {
  ConfinedFileSystem fs(*base_, real_dir_ + "/models--a--b", "models--a--b");
  const std::string in = dir_.file_path("models--a--b/snap/in");
  Result<FileStat> st = fs.stat(in);
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(st->size_bytes, 6u);  // "inside"
  Result<std::string> text = fs.read_range(in, 0, 6);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "inside");
  Result<std::vector<std::string>> names = fs.list_dir(dir_.file_path("models--a--b/snap"));
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"in", "sibling"}));
  // Missing: the base's answer.
  Result<FileStat> missing = fs.stat(dir_.file_path("models--a--b/snap/none"));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->kind, FileKind::kMissing);
}

TEST_F(Confined, ASiblingFolderWithTheRootAsPrefixIsOutside) {
  ConfinedFileSystem fs(*base_, real_dir_ + "/models--a--b", "models--a--b");
  const std::string sibling = dir_.file_path("models--a--b/snap/sibling");
  const std::string refused = "'" + sibling + "': leads out of 'models--a--b' (to '" + real_dir_ +
                              "/models--a--bc/blobs/1'): refused";
  Result<FileStat> st = fs.stat(sibling);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message(), refused);
  EXPECT_EQ(fs.read_range(sibling, 0, 1).error().message(), refused);
  char byte = 0;
  EXPECT_EQ(fs.read_range_into(sibling, 0, 1, &byte).error().message(), refused);
  EXPECT_EQ(fs.read_file_padded(sibling, 7, 8).error().message(), refused);
  EXPECT_EQ(fs.open_file(sibling).error().message(), refused);
  EXPECT_FALSE(fs.list_dir(dir_.file_path("models--a--bc/blobs")).ok());
}

}  // namespace
}  // namespace memfit
