// Regression test over the GGUF corpus in tests/data/hostile/gguf/
// (written by make_corpus.py there): each valid_* file is read, every other
// file fails with one clean, one-line error naming it. Every file in the
// folder must have a row here.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "memfit/gguf.h"
#include "memfit/model_spec.h"
#include "support/paths.h"

namespace memfit {
namespace {

const std::string kHostileDir = std::string(MEMFIT_TEST_DATA_DIR) + "/hostile/gguf";

// File name (without ".gguf") -> "ok", or the detail after "reading '<path>': ".
const std::map<std::string, std::string>& expected_outcomes() {
  static const auto* outcomes = new std::map<std::string, std::string>{
      {"valid_empty", "ok"},
      {"valid_types_v2", "ok"},
      // LoRA adapters (--lora): valid headers; the fuzz target reads them
      // as adapters too (the half pair is refused there, not here).
      {"lora_adapter", "ok"},
      {"lora_adapter_half_pair", "ok"},
      {"valid_tokenizer", "ok"},
      {"valid_nested_8_levels", "ok"},
      {"valid_geometry_qwen3", "ok"},
      {"valid_geometry_nemotron_h", "ok"},
      {"empty_file", "gguf header: file is 0 bytes, too short to be a GGUF file"},
      {"magic_ggml", "gguf header: not a GGUF file: it starts with 'GGML', not 'GGUF'"},
      {"magic_control_bytes",
       "gguf header: not a GGUF file: it starts with '\\x1b[2J', not 'GGUF'"},
      {"version_0", "gguf header: version 0 is not a GGUF version"},
      {"version_1",
       "gguf header: version 1 is no longer read (nor by llama.cpp); convert the model again"},
      {"version_4", "gguf header: version 4 is newer than memfit reads (2 and 3)"},
      {"big_endian_v3",
       "gguf header: version reads as 0x03000000: a big-endian GGUF file; memfit reads "
       "little-endian files only"},
      {"preamble_truncated",
       "gguf header: the tensor count (8 bytes at byte 8) runs past the end of the 13-byte file"},
      {"tensor_count_uint64_max",
       "gguf header: 0 metadata entries and 18446744073709551615 tensor infos cannot fit in the "
       "0 bytes left of the 24-byte file (an entry takes at least 14 bytes, a tensor info 24)"},
      {"metadata_count_past_file",
       "gguf header: 1000 metadata entries and 0 tensor infos cannot fit in the 100 bytes left "
       "of the 124-byte file (an entry takes at least 14 bytes, a tensor info 24)"},
      {"key_length_uint64_max",
       "gguf header: the key of metadata entry 0 (18446744073709551615 bytes at byte 32) runs "
       "past the end of the 42-byte file"},
      {"key_empty", "gguf header: metadata entry 0 has an empty key"},
      {"key_duplicate", "gguf header: key 'k' appears twice"},
      {"key_control_characters", "gguf header: 'evil\\nkey\\x1b[31m' has unknown value type 99"},
      {"value_type_unknown", "gguf header: 'k' has unknown value type 13"},
      {"value_string_past_file",
       "gguf header: the value of 'k' (9223372036854775808 bytes at byte 45) runs past the end "
       "of the 45-byte file"},
      {"value_u64_truncated",
       "gguf header: the value of 'k' (8 bytes at byte 37) runs past the end of the 41-byte "
       "file"},
      {"array_element_type_unknown", "gguf header: array 'k' has unknown element type 13"},
      {"array_bytes_overflow",
       "gguf header: array 'k' of 4611686018427387904 u32 is more than 2^64 bytes"},
      {"array_u32_past_file",
       "gguf header: array 'k' of 1000 u32 (4000 bytes at byte 49) runs past the end of the "
       "59-byte file"},
      {"array_strings_cannot_fit",
       "gguf header: array 'k' of 1000000 str cannot fit in the 10 bytes left of the 59-byte "
       "file (each takes at least 8 bytes)"},
      {"array_nested_9_levels", "gguf header: 'k' nests arrays more than 8 deep"},
      {"alignment_not_u32", "gguf header: general.alignment is i32; it must be u32"},
      {"alignment_not_power_of_two", "gguf header: general.alignment 48 is not a power of two"},
      {"alignment_zero", "gguf header: general.alignment 0 is not a power of two"},
      {"tensor_5_dims", "gguf header: tensor 'x' has 5 dimensions; ggml allows at most 4"},
      {"tensor_dim_negative", "gguf header: tensor 'x' has a negative dimension: ne[1] = -5"},
      {"tensor_elements_overflow",
       "gguf header: tensor 'x' has dims [4294967296, 4294967296]: 2^63 or more elements"},
      {"tensor_bytes_overflow",
       "gguf header: tensor 'x' (f32 [4611686018427387904]): more than 2^64 bytes"},
      {"tensor_type_unknown", "gguf header: tensor 'x' has unknown ggml type 99"},
      {"tensor_type_retired",
       "gguf header: tensor 'x' has ggml type 31 (Q4_0_4_4), which ggml no longer reads from "
       "files"},
      {"tensor_row_not_whole_blocks",
       "gguf header: tensor 'x' (q4_K [100, 3]): 100 elements per row is not a multiple of "
       "q4_K's block of 256"},
      {"tensor_name_control_characters",
       "gguf header: tensor 'bad\\r\\nname' has unknown ggml type 99"},
      {"tensor_name_duplicate", "gguf header: tensor name 'a' appears twice"},
      {"tensor_offset_overlaps",
       "gguf header: tensor 'b' is at offset 16, expected 64: tensors lie in order, each padded "
       "to the 32-byte alignment"},
      {"tensor_offset_gap",
       "gguf header: tensor 'b' is at offset 96, expected 64: tensors lie in order, each padded "
       "to the 32-byte alignment"},
      {"tensor_past_end_of_file",
       "gguf header: tensor 'a' (40 bytes at byte 64) runs past the end of the 84-byte file"},
      {"data_section_past_end_of_file",
       "gguf header: the data section would start at byte 64, past the end of the 60-byte "
       "file"},
  };
  return *outcomes;
}

TEST(GgufHostileCorpus, EveryFileHasItsOutcome) {
  auto fs = make_real_file_system();
  int files_seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kHostileDir)) {
    if (entry.path().extension() != ".gguf") continue;
    ++files_seen;
    const std::string path = entry.path().string();
    const std::string stem = entry.path().stem().string();
    auto expected = expected_outcomes().find(stem);
    ASSERT_NE(expected, expected_outcomes().end()) << "no row for " << stem;
    Result<GgufHeader> header = read_gguf_header(*fs, path);
    if (expected->second == "ok") {
      EXPECT_TRUE(header.ok()) << stem << ": " << header.error().message();
      continue;
    }
    ASSERT_FALSE(header.ok()) << stem << " was accepted";
    const std::string& message = header.error().message();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message, "reading '" + path + "': " + expected->second) << stem;
  }
  EXPECT_EQ(files_seen, static_cast<int>(expected_outcomes().size()));
}

TEST(GgufHostileCorpus, TheGeometrySeedsAreModels) {
  auto fs = make_real_file_system();
  Result<GgufHeader> qwen3 = read_gguf_header(*fs, kHostileDir + "/valid_geometry_qwen3.gguf");
  ASSERT_TRUE(qwen3.ok()) << qwen3.error().message();
  Result<ModelSpec> dense = model_spec_from_gguf(*qwen3);
  ASSERT_TRUE(dense.ok()) << dense.error().message();
  // 4 layers of 2 x 2 KV heads x 64 = 256 elements per token each.
  EXPECT_EQ(dense->layers, (std::vector<LayerCache>(4, {LayerKind::kFullAttention, 256, 0, 0, 0})));
  Result<GgufHeader> nemotron =
      read_gguf_header(*fs, kHostileDir + "/valid_geometry_nemotron_h.gguf");
  ASSERT_TRUE(nemotron.ok()) << nemotron.error().message();
  Result<ModelSpec> hybrid = model_spec_from_gguf(*nemotron);
  ASSERT_TRUE(hybrid.ok()) << hybrid.error().message();
  // M * E M. Mamba-2: conv 3 x (512 + 2 x 2 x 16) = 1,728; ssm 8 heads x
  // 64 x 16 = 8,192; (1,728 + 8,192) x 4 B = 39,680 B.
  ASSERT_EQ(hybrid->layers.size(), 4u);
  EXPECT_EQ(hybrid->layers[0], (LayerCache{LayerKind::kSsm, 0, 0, 0, 39680}));
  EXPECT_EQ(hybrid->layers[1], (LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0}));
  EXPECT_EQ(hybrid->layers[2], (LayerCache{LayerKind::kNone, 0, 0, 0, 0}));
  EXPECT_EQ(hybrid->layers[3], hybrid->layers[0]);
}

TEST(GgufHostileCorpus, ValidFilesHoldWhatMakeCorpusWrote) {
  auto fs = make_real_file_system();
  Result<GgufHeader> types = read_gguf_header(*fs, kHostileDir + "/valid_types_v2.gguf");
  ASSERT_TRUE(types.ok()) << types.error().message();
  EXPECT_EQ(types->version, 2u);
  EXPECT_EQ(types->metadata.size(), 15u);
  EXPECT_EQ(types->get_int64("i64").value(), INT64_MIN);
  EXPECT_EQ(types->get_uint64_array("heads").value(), (std::vector<uint64_t>{32, 32, 8}));
  // F32 [8] = 32 bytes, then Q8_0 [32, 2] = 2 x 34 = 68 bytes at 32.
  EXPECT_EQ(types->tensor_bytes, 100u);
  Result<GgufHeader> tokenizer = read_gguf_header(*fs, kHostileDir + "/valid_tokenizer.gguf");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.error().message();
  EXPECT_EQ(tokenizer->alignment_bytes, 64u);
  EXPECT_EQ(tokenizer->data_offset_bytes % 64, 0u);
  EXPECT_EQ(tokenizer->tensor_bytes, 432u);  // Q4_K [256, 3]: 3 x 144
  EXPECT_EQ(tokenizer->get_array_count("tokenizer.ggml.tokens").value(), 3u);
}

}  // namespace
}  // namespace memfit
