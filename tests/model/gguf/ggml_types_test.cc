// Tests of the ggml type table and of exact tensor bytes. Every size below
// was worked out by hand from ggml's block structs (ggml/src/ggml-common.h;
// "half" = 2 bytes, QK_K = 256) and checked against the type_traits table
// of ggml/src/ggml.c and gguf-py's GGML_QUANT_SIZES (docs/gguf.md).
#include "memfit/ggml_types.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memfit {
namespace {

struct Expected {
  uint32_t id;
  std::string name;
  uint64_t block_elements;
  uint64_t block_bytes;
};

// id, ggml's name, elements per block, bytes per block.
const std::vector<Expected>& expected_types() {
  static const auto* types = new std::vector<Expected>{
      {0, "f32", 1, 4},         {1, "f16", 1, 2},       {2, "q4_0", 32, 18},  // 2 (d) + 32/2
      {3, "q4_1", 32, 20},       // 2 (d) + 2 (m) + 32/2
      {6, "q5_0", 32, 22},       // 2 + 4 (qh) + 32/2
      {7, "q5_1", 32, 24},       // 2 + 2 + 4 + 32/2
      {8, "q8_0", 32, 34},       // 2 + 32
      {9, "q8_1", 32, 36},       // 2 (d) + 2 (s) + 32
      {10, "q2_K", 256, 84},     // 256/16 + 256/4 + 2 + 2
      {11, "q3_K", 256, 110},    // 256/8 + 256/4 + 12 + 2
      {12, "q4_K", 256, 144},    // 2 + 2 + 12 + 256/2
      {13, "q5_K", 256, 176},    // 2 + 2 + 12 + 256/8 + 256/2
      {14, "q6_K", 256, 210},    // 256/2 + 256/4 + 256/16 + 2
      {15, "q8_K", 256, 292},    // 4 (float d) + 256 + 16 x 2
      {16, "iq2_xxs", 256, 66},  // 2 + 256/8 x 2
      {17, "iq2_xs", 256, 74},   // 2 + 256/8 x 2 + 256/32
      {18, "iq3_xxs", 256, 98},  // 2 + 3 x 256/8
      {19, "iq1_s", 256, 50},    // 2 + 256/8 + 256/32 x 2
      {20, "iq4_nl", 32, 18},    // 2 + 32/2
      {21, "iq3_s", 256, 110},   // 2 + 256/4 + 256/32 + 256/8 + 256/64
      {22, "iq2_s", 256, 82},    // 2 + 256/4 + 256/32 + 256/32
      {23, "iq4_xs", 256, 136},  // 2 + 2 + 256/64 + 256/2
      {24, "i8", 1, 1},         {25, "i16", 1, 2},      {26, "i32", 1, 4},   {27, "i64", 1, 8},
      {28, "f64", 1, 8},        {29, "iq1_m", 256, 56},  // 256/8 + 256/16 + 256/32
      {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},  // (256 - 4 x 256/64)/5 + 256/64 + 2 = 48 +
                                                         // 4 + 2
      {35, "tq2_0", 256, 66},                            // 256/4 + 2
      {39, "mxfp4", 32, 17},                             // 1 (E8M0) + 32/2
      {40, "nvfp4", 64, 36},                             // 64/16 (E4M3 scales) + 64/2
      {41, "q1_0", 128, 18},                             // 2 + 128/8
  };
  return *types;
}

TEST(GgmlTypes, EveryTypeHasGgmlsBlockSizeAndBytes) {
  ASSERT_EQ(ggml_type_table().size(), expected_types().size());
  for (const Expected& expected : expected_types()) {
    const GgmlTypeTraits* traits = find_ggml_type(expected.id);
    ASSERT_NE(traits, nullptr) << expected.name;
    EXPECT_EQ(static_cast<uint32_t>(traits->type), expected.id) << expected.name;
    EXPECT_EQ(traits->name, expected.name);
    EXPECT_EQ(traits->block_elements, expected.block_elements) << expected.name;
    EXPECT_EQ(traits->block_bytes, expected.block_bytes) << expected.name;
  }
}

TEST(GgmlTypes, TableIsInIdOrder) {
  uint32_t previous = 0;
  for (size_t i = 0; i < ggml_type_table().size(); ++i) {
    const auto id = static_cast<uint32_t>(ggml_type_table()[i].type);
    if (i > 0) {
      EXPECT_GT(id, previous);
    }
    previous = id;
  }
}

TEST(GgmlTypes, RetiredAndUnknownIdsAreNotValidInAFile) {
  for (uint32_t id : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 42u, 1000u, UINT32_MAX}) {
    EXPECT_EQ(find_ggml_type(id), nullptr) << id;
  }
  EXPECT_EQ(retired_ggml_type_name(4), "Q4_2");
  EXPECT_EQ(retired_ggml_type_name(5), "Q4_3");
  EXPECT_EQ(retired_ggml_type_name(31), "Q4_0_4_4");
  EXPECT_EQ(retired_ggml_type_name(32), "Q4_0_4_8");
  EXPECT_EQ(retired_ggml_type_name(33), "Q4_0_8_8");
  EXPECT_EQ(retired_ggml_type_name(36), "IQ4_NL_4_4");
  EXPECT_EQ(retired_ggml_type_name(37), "IQ4_NL_4_8");
  EXPECT_EQ(retired_ggml_type_name(38), "IQ4_NL_8_8");
  EXPECT_EQ(retired_ggml_type_name(12), "");
  EXPECT_EQ(retired_ggml_type_name(42), "");
}

uint64_t bytes_of(GgmlType type, std::vector<uint64_t> dims) {
  Result<uint64_t> bytes = ggml_tensor_bytes(type, dims);
  EXPECT_TRUE(bytes.ok()) << bytes.error().message();
  return bytes.ok() ? *bytes : 0;
}

// One hand-worked tensor per family: bytes = ne0 / block x block_bytes x
// ne1 x ne2 x ne3.
TEST(GgmlTensorBytes, PlainTypesAreElementsTimesWidth) {
  EXPECT_EQ(bytes_of(GgmlType::kF32, {4096}), 16384u);             // 4096 x 4
  EXPECT_EQ(bytes_of(GgmlType::kF16, {4096, 32000}), 262144000u);  // 131,072,000 x 2
  EXPECT_EQ(bytes_of(GgmlType::kBF16, {4096, 32000}), 262144000u);
  EXPECT_EQ(bytes_of(GgmlType::kI32, {7}), 28u);
  EXPECT_EQ(bytes_of(GgmlType::kF64, {3, 5}), 120u);  // 15 x 8
}

TEST(GgmlTensorBytes, LegacyQuantsCountBlocksOf32) {
  // 4096 / 32 = 128 blocks a row x 34 = 4,352 bytes a row, x 4096 rows.
  EXPECT_EQ(bytes_of(GgmlType::kQ8_0, {4096, 4096}), 17825792u);
  // 128 x 18 = 2,304 a row, x 11008 rows.
  EXPECT_EQ(bytes_of(GgmlType::kQ4_0, {4096, 11008}), 25362432u);
  // 128 x 24 = 3,072 a row, x 4096.
  EXPECT_EQ(bytes_of(GgmlType::kQ5_1, {4096, 4096}), 12582912u);
}

TEST(GgmlTensorBytes, KQuantsCountSuperBlocksOf256) {
  // 4096 / 256 = 16 blocks a row x 144 = 2,304 bytes a row, x 4096 rows.
  EXPECT_EQ(bytes_of(GgmlType::kQ4_K, {4096, 4096}), 9437184u);
  // 16 x 210 = 3,360 a row, x 32000 rows (an output matrix).
  EXPECT_EQ(bytes_of(GgmlType::kQ6_K, {4096, 32000}), 107520000u);
  // 16 x 84 = 1,344 a row, x 14336.
  EXPECT_EQ(bytes_of(GgmlType::kQ2_K, {4096, 14336}), 19267584u);
}

TEST(GgmlTensorBytes, IQuantsAndTernaryAndFp4Types) {
  // 16 x 66 = 1,056 a row, x 4096.
  EXPECT_EQ(bytes_of(GgmlType::kIQ2_XXS, {4096, 4096}), 4325376u);
  // IQ4_NL has 32-element blocks: 128 x 18 = 2,304 a row, x 4096.
  EXPECT_EQ(bytes_of(GgmlType::kIQ4_NL, {4096, 4096}), 9437184u);
  // 2048 / 256 = 8 x 54 = 432 a row, x 5632.
  EXPECT_EQ(bytes_of(GgmlType::kTQ1_0, {2048, 5632}), 2433024u);
  // gpt-oss experts: 2880 / 32 = 90 blocks x 17 = 1,530 a row, x 2880 rows
  // x 32 experts = 1,530 x 92,160.
  EXPECT_EQ(bytes_of(GgmlType::kMXFP4, {2880, 2880, 32}), 141004800u);
  // 4096 / 64 = 64 x 36 = 2,304 a row, x 4096.
  EXPECT_EQ(bytes_of(GgmlType::kNVFP4, {4096, 4096}), 9437184u);
  // 4096 / 128 = 32 x 18 = 576 a row, x 4096.
  EXPECT_EQ(bytes_of(GgmlType::kQ1_0, {4096, 4096}), 2359296u);
}

TEST(GgmlTensorBytes, FourDimensionsMultiply) {
  // 512 / 32 = 16 x 34 = 544 a row, x 2 x 3 x 4 = 24 rows: 13,056.
  EXPECT_EQ(bytes_of(GgmlType::kQ8_0, {512, 2, 3, 4}), 13056u);
}

TEST(GgmlTensorBytes, ScalarIsOneElementAndEmptyIsZero) {
  EXPECT_EQ(bytes_of(GgmlType::kF32, {}), 4u);
  EXPECT_EQ(bytes_of(GgmlType::kQ4_K, {4096, 0}), 0u);
  // A zero dimension empties the tensor however large the others.
  EXPECT_EQ(bytes_of(GgmlType::kF32, {0, 1ull << 62, 1ull << 62}), 0u);
}

TEST(GgmlTensorBytes, RowNotAWholeNumberOfBlocksIsAnError) {
  Result<uint64_t> bytes = ggml_tensor_bytes(GgmlType::kQ4_K, std::vector<uint64_t>{100, 3});
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message(),
            "100 elements per row is not a multiple of q4_K's block of 256");
}

TEST(GgmlTensorBytes, MoreThan64BitsOfBytesIsAnOverflow) {
  // 2^62 elements x 4 bytes = 2^64.
  Result<uint64_t> bytes = ggml_tensor_bytes(GgmlType::kF32, std::vector<uint64_t>{1ull << 62});
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().message(), "more than 2^64 bytes");
  EXPECT_EQ(bytes.error().kind(), ErrorKind::kOverflow);
  // One element fewer fits: (2^62 - 1) x 4.
  EXPECT_EQ(bytes_of(GgmlType::kF32, {(1ull << 62) - 1}), 18446744073709551612u);
}

}  // namespace
}  // namespace memfit
