// GgufTensorData::kRandom (tests/support/gguf_writer.h): the validation
// models' data is deterministic and every f32, f16 and block scale finite.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "support/gguf_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

uint16_t half_at(const std::string& bytes, uint64_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(bytes[at]) |
                               (static_cast<uint8_t>(bytes[at + 1]) << 8));
}

// Exponent field of an f16: 1..13 is a normal value below 0.5 in magnitude
// (0 would be zero/subnormal, 31 infinity or NaN).
int half_exponent(uint16_t h) { return (h >> 10) & 0x1f; }

TEST(GgufWriterRandom, DataIsDeterministicAndFinite) {
  TempDir dir;
  GgufWriter w;
  w.add_string("general.architecture", "llama");
  w.add_tensor("a", GgmlType::kF32, {64});    // 256 B at data offset 0
  w.add_tensor("b", GgmlType::kF16, {64});    // 128 B at 256
  w.add_tensor("c", GgmlType::kQ8_0, {64});   // 2 blocks of 34 B at 384
  w.add_tensor("d", GgmlType::kQ4_K, {256});  // 1 block of 144 B at 480 (68 padded to 96)
  const std::string first = dir.file_path("first.gguf");
  const std::string second = dir.file_path("second.gguf");
  ASSERT_EQ(w.write(first, GgufTensorData::kRandom), w.file_bytes());
  ASSERT_EQ(w.write(second, GgufTensorData::kRandom), w.file_bytes());
  const std::string bytes = read_all(first);
  ASSERT_EQ(bytes.size(), w.file_bytes());
  EXPECT_EQ(bytes, read_all(second));

  const uint64_t data = w.header().size();
  // 256 + 128 + pad32(68) = 96 + pad32(144) = 160: 640 bytes of data.
  ASSERT_EQ(w.data_section_bytes(), 640u);
  int nonzero = 0;
  for (uint64_t i = 0; i < 64; ++i) {
    float value;
    std::memcpy(&value, bytes.data() + data + 4 * i, 4);
    EXPECT_TRUE(std::isfinite(value));
    EXPECT_LT(std::fabs(value), 0.5f);
    nonzero += value != 0.0f;
  }
  EXPECT_GT(nonzero, 60);
  for (uint64_t i = 0; i < 64; ++i) {
    const int e = half_exponent(half_at(bytes, data + 256 + 2 * i));
    EXPECT_GE(e, 1);
    EXPECT_LE(e, 13);
  }
  // q8_0: d (f16) at the start of each 34-byte block.
  for (uint64_t block : {384u, 418u}) {
    const int e = half_exponent(half_at(bytes, data + block));
    EXPECT_GE(e, 1);
    EXPECT_LE(e, 13);
  }
  // q4_K: d and dmin (f16) at bytes 0 and 2 of its 144-byte block.
  for (uint64_t at : {480u, 482u}) {
    const int e = half_exponent(half_at(bytes, data + at));
    EXPECT_GE(e, 1);
    EXPECT_LE(e, 13);
  }
}

}  // namespace
}  // namespace memfit
