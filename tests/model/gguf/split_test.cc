// Tests of split GGUF models: names, finding the set from any member, the
// split keys' agreement with the names, and the summed tensor bytes.
#include "memfit/gguf_split.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/gguf_writer.h"
#include "support/memory_file_system.h"
#include "support/recording_file_system.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

TEST(GgufSplitName, ParsesGgufSplitsNames) {
  std::optional<GgufSplitName> name = parse_gguf_split_name("Qwen3-8B-Q4_K_M-00002-of-00003.gguf");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->prefix, "Qwen3-8B-Q4_K_M");
  EXPECT_EQ(name->number, 2u);
  EXPECT_EQ(name->count, 3u);
  EXPECT_EQ(name->number_digits, 5u);
  EXPECT_EQ(name->count_digits, 5u);
  EXPECT_EQ(gguf_split_file_name(*name, 1), "Qwen3-8B-Q4_K_M-00001-of-00003.gguf");
  // Other widths are kept as written.
  std::optional<GgufSplitName> short_name = parse_gguf_split_name("m-2-of-12.gguf");
  ASSERT_TRUE(short_name.has_value());
  EXPECT_EQ(gguf_split_file_name(*short_name, 11), "m-11-of-12.gguf");
  EXPECT_EQ(gguf_split_file_name(*short_name, 3), "m-3-of-12.gguf");
}

TEST(GgufSplitName, OtherNamesAreNotSplits) {
  for (const char* name :
       {"model.gguf", "model-Q4_K_M.gguf", "-00001-of-00002.gguf", "model-00001-of-00000.gguf",
        "model-0001a-of-00002.gguf", "model-00001-of-00002.safetensors", "model-00001-00002.gguf",
        "model-1234567890-of-1234567890.gguf", "model--of-00002.gguf"}) {
    EXPECT_FALSE(parse_gguf_split_name(name).has_value()) << name;
  }
  // Numbered 0 or past the count: a split name, refused when read.
  EXPECT_EQ(parse_gguf_split_name("model-00000-of-00002.gguf")->number, 0u);
}

// Split `number` of `count` as gguf-split writes it: the metadata in the
// first only, the split keys in each.
struct Split {
  std::vector<GgufTensorSpec> tensors;
  std::optional<uint16_t> split_no;  // default number - 1; nullopt omits it
  std::optional<uint16_t> split_count;
  std::optional<int32_t> tensors_count;
  bool omit_split_keys = false;
};

std::string split_bytes(uint64_t number, uint64_t count, const Split& split, int32_t total) {
  GgufWriter writer;
  if (number == 1) writer.add_string("general.architecture", "llama");
  if (!split.omit_split_keys) {
    writer.add_u16("split.no", split.split_no.value_or(static_cast<uint16_t>(number - 1)))
        .add_u16("split.count", split.split_count.value_or(static_cast<uint16_t>(count)))
        .add_i32("split.tensors.count", split.tensors_count.value_or(total));
  }
  for (const GgufTensorSpec& tensor : split.tensors) writer.add_tensor(tensor);
  return writer.bytes();
}

GgufTensorSpec tensor(std::string name, GgmlType type, std::vector<uint64_t> dims) {
  return {std::move(name), static_cast<uint32_t>(type), std::move(dims), std::nullopt,
          std::nullopt};
}

// Three splits in m/: F16 [64, 100] = 12,800 bytes; Q4_K [256, 64] = 144 x
// 64 = 9,216; Q8_0 [64, 100] = 2 x 34 x 100 = 6,800. In all 28,816.
std::vector<Split> three_splits() {
  std::vector<Split> splits(3);
  splits[0].tensors = {tensor("token_embd.weight", GgmlType::kF16, {64, 100})};
  splits[1].tensors = {tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64})};
  splits[2].tensors = {tensor("output.weight", GgmlType::kQ8_0, {64, 100})};
  return splits;
}

std::string split_path(uint64_t number, uint64_t count = 3) {
  return "m/model-0000" + std::to_string(number) + "-of-0000" + std::to_string(count) + ".gguf";
}

void add_splits(MemoryFileSystem& fs, const std::vector<Split>& splits) {
  int32_t total = 0;
  for (const Split& split : splits) total += static_cast<int32_t>(split.tensors.size());
  for (size_t i = 0; i < splits.size(); ++i) {
    fs.add_file(split_path(i + 1, splits.size()),
                split_bytes(i + 1, splits.size(), splits[i], total));
  }
}

std::string error_of(const Result<GgufModelFiles>& model) {
  return model.ok() ? "ok" : model.error().message();
}

TEST(GgufModelFiles, FindsEverySplitFromAnyOfThem) {
  MemoryFileSystem fs;
  add_splits(fs, three_splits());
  for (uint64_t given = 1; given <= 3; ++given) {
    Result<GgufModelFiles> model = read_gguf_model_files(fs, split_path(given));
    ASSERT_TRUE(model.ok()) << model.error().message();
    EXPECT_EQ(model->first.get_string("general.architecture").value(), "llama");
    ASSERT_EQ(model->files.size(), 3u);
    EXPECT_EQ(model->files[0].path, "m/model-00001-of-00003.gguf");
    EXPECT_EQ(model->files[2].path, "m/model-00003-of-00003.gguf");
    EXPECT_EQ(model->files[1].tensor_count, 1u);
    EXPECT_EQ(model->files[1].tensor_bytes, 9216u);
    EXPECT_EQ(model->tensor_count, 3u);
    EXPECT_EQ(model->tensor_bytes, 28816u);  // 12,800 + 9,216 + 6,800
    EXPECT_EQ(model->first.tensors.size(), 1u);
  }
}

TEST(GgufModelFiles, SplitKeysAreOptional) {
  std::vector<Split> splits = three_splits();
  for (Split& split : splits) split.omit_split_keys = true;
  MemoryFileSystem fs;
  add_splits(fs, splits);
  EXPECT_EQ(read_gguf_model_files(fs, split_path(3))->tensor_bytes, 28816u);
}

TEST(GgufModelFiles, SingleFileIsTheWholeModel) {
  MemoryFileSystem fs;
  fs.add_file("m/model.gguf", GgufWriter()
                                  .add_string("general.architecture", "llama")
                                  .add_tensor("a", GgmlType::kQ8_0, {64, 100})
                                  .bytes());
  Result<GgufModelFiles> model = read_gguf_model_files(fs, "m/model.gguf");
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_EQ(model->files.size(), 1u);
  EXPECT_EQ(model->files[0].path, "m/model.gguf");
  EXPECT_EQ(model->files[0].file_bytes, model->first.file_bytes);
  EXPECT_EQ(model->tensor_bytes, 6800u);
  EXPECT_EQ(model->tensor_count, 1u);
}

TEST(GgufModelFiles, OneFileSetAndBareNames) {
  MemoryFileSystem fs;
  fs.add_file("x-00001-of-00001.gguf", GgufWriter().add_tensor("a", GgmlType::kF32, {4}).bytes());
  EXPECT_EQ(read_gguf_model_files(fs, "x-00001-of-00001.gguf")->tensor_bytes, 16u);
  add_splits(fs, three_splits());
  fs.add_file("model-00001-of-00002.gguf", split_bytes(1, 2, three_splits()[0], 2));
  fs.add_file("model-00002-of-00002.gguf", split_bytes(2, 2, three_splits()[1], 2));
  EXPECT_EQ(read_gguf_model_files(fs, "model-00002-of-00002.gguf")->tensor_bytes, 22016u);
}

TEST(GgufModelFiles, MissingSplitIsNamed) {
  MemoryFileSystem fs;
  std::vector<Split> splits = three_splits();
  add_splits(fs, splits);
  MemoryFileSystem partial;
  partial.add_file(split_path(1), split_bytes(1, 3, splits[0], 3));
  partial.add_file(split_path(3), split_bytes(3, 3, splits[2], 3));
  EXPECT_EQ(error_of(read_gguf_model_files(partial, split_path(3))),
            "gguf split set of 'm/model-00003-of-00003.gguf': split 2 of 3, "
            "'m/model-00002-of-00003.gguf', is missing");
  partial.add_file("m/model-00002-of-00003.gguf/inside", "");  // a folder of that name
  EXPECT_EQ(error_of(read_gguf_model_files(partial, split_path(1))),
            "gguf split set of 'm/model-00001-of-00003.gguf': split 2 of 3, "
            "'m/model-00002-of-00003.gguf', is not a regular file");
}

TEST(GgufModelFiles, SplitKeysMustAgreeWithTheNames) {
  std::vector<Split> count_wrong = three_splits();
  count_wrong[1].split_count = 2;
  MemoryFileSystem fs1;
  add_splits(fs1, count_wrong);
  EXPECT_EQ(error_of(read_gguf_model_files(fs1, split_path(1))),
            "gguf split set of 'm/model-00001-of-00003.gguf': 'm/model-00002-of-00003.gguf' "
            "has split.count 2, but the names say 3 files");

  std::vector<Split> no_wrong = three_splits();
  no_wrong[2].split_no = 1;
  MemoryFileSystem fs2;
  add_splits(fs2, no_wrong);
  EXPECT_EQ(error_of(read_gguf_model_files(fs2, split_path(1))),
            "gguf split set of 'm/model-00001-of-00003.gguf': 'm/model-00003-of-00003.gguf' "
            "has split.no 1, but its name makes it split.no 2 (split.no counts from 0)");

  std::vector<Split> total_wrong = three_splits();
  total_wrong[0].tensors_count = 4;
  MemoryFileSystem fs3;
  add_splits(fs3, total_wrong);
  EXPECT_EQ(error_of(read_gguf_model_files(fs3, split_path(2))),
            "gguf split set of 'm/model-00002-of-00003.gguf': 'm/model-00001-of-00003.gguf' "
            "has split.tensors.count 4, but the 3 files hold 3 tensors");
}

TEST(GgufModelFiles, SplitKeyOfTheWrongTypeIsNamed) {
  MemoryFileSystem fs;
  fs.add_file(split_path(1, 2), GgufWriter().add_string("split.count", "two").bytes());
  fs.add_file(split_path(2, 2), GgufWriter().bytes());
  EXPECT_EQ(error_of(read_gguf_model_files(fs, split_path(2, 2))),
            "reading 'm/model-00001-of-00002.gguf': gguf metadata: 'split.count' is str 'two', "
            "not a non-negative integer");
}

TEST(GgufModelFiles, TensorInTwoSplitsIsRefused) {
  std::vector<Split> splits = three_splits();
  splits[2].tensors.push_back(tensor("token_embd.weight", GgmlType::kF32, {4}));
  MemoryFileSystem fs;
  add_splits(fs, splits);
  EXPECT_EQ(error_of(read_gguf_model_files(fs, split_path(1))),
            "gguf split set of 'm/model-00001-of-00003.gguf': tensor 'token_embd.weight' is in "
            "both 'm/model-00001-of-00003.gguf' and 'm/model-00003-of-00003.gguf'");
}

TEST(GgufModelFiles, NamesOutsideTheirSet) {
  MemoryFileSystem fs;
  EXPECT_EQ(error_of(read_gguf_model_files(fs, "m/model-00004-of-00003.gguf")),
            "gguf split set of 'm/model-00004-of-00003.gguf': the name numbers it 4, outside "
            "1..3");
  EXPECT_EQ(error_of(read_gguf_model_files(fs, "m/model-00000-of-00003.gguf")),
            "gguf split set of 'm/model-00000-of-00003.gguf': the name numbers it 0, outside "
            "1..3");
  EXPECT_EQ(error_of(read_gguf_model_files(fs, "m/model-00001-of-70000.gguf")),
            "gguf split set of 'm/model-00001-of-70000.gguf': the name says 70000 splits, more "
            "than llama.cpp's 65535");
}

TEST(GgufModelFiles, UnsplitNameWithASplitCountIsRefused) {
  MemoryFileSystem fs;
  fs.add_file("m/model.gguf", GgufWriter().add_u16("split.count", 3).bytes());
  EXPECT_EQ(error_of(read_gguf_model_files(fs, "m/model.gguf")),
            "gguf split set of 'm/model.gguf': split.count is 3, but the name is not "
            "'<prefix>-<i>-of-<n>.gguf', by which llama.cpp finds the other splits");
  fs.add_file("m/one.gguf", GgufWriter().add_u16("split.count", 1).bytes());
  EXPECT_EQ(error_of(read_gguf_model_files(fs, "m/one.gguf")), "ok");
}

TEST(GgufModelFiles, BrokenSplitNamesItsFile) {
  MemoryFileSystem fs;
  add_splits(fs, three_splits());
  fs.add_file(split_path(2), "GGML" + std::string(20, '\0'));
  EXPECT_EQ(error_of(read_gguf_model_files(fs, split_path(1))),
            "reading 'm/model-00002-of-00003.gguf': gguf header: not a GGUF file: it starts with "
            "'GGML', not 'GGUF'");
}

TEST(GgufModelFiles, ReadsOnlyHeadersOfLargeSparseSplits) {
  TempDir dir;
  // Two splits of 4096 x 131072 F16 = 1 GiB of data each, never written.
  for (uint64_t number = 1; number <= 2; ++number) {
    GgufWriter()
        .add_u16("split.no", static_cast<uint16_t>(number - 1))
        .add_u16("split.count", 2)
        .add_tensor(fmt::format("t{}", number), GgmlType::kF16, {4096, 131072})
        .write(dir.file_path("big-0000" + std::to_string(number) + "-of-00002.gguf"));
  }
  auto real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<GgufModelFiles> model =
      read_gguf_model_files(fs, dir.file_path("big-00002-of-00002.gguf"));
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_EQ(model->tensor_bytes, 2ull << 30);
  const std::string first = dir.file_path("big-00001-of-00002.gguf");
  const std::string second = dir.file_path("big-00002-of-00002.gguf");
  EXPECT_EQ(fs.reads(), (std::vector<FileRead>{{first, 0, 1ull << 20}, {second, 0, 1ull << 20}}));
}

}  // namespace
}  // namespace memfit
