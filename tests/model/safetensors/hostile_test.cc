// Regression test over the hostile corpus in tests/data/hostile/safetensors/
// (written by make_corpus.py there): each file must fail with one clean,
// one-line error naming it. Every file in the folder must have a row here.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "memfit/weights.h"
#include "support/paths.h"

namespace memfit {
namespace {

const std::string kHostileDir = std::string(MEMFIT_TEST_DATA_DIR) + "/hostile/safetensors";

// File name (without ".safetensors") -> the detail after "reading '<path>': ".
const std::map<std::string, std::string>& expected_errors() {
  static const auto* errors = new std::map<std::string, std::string>{
      {"bytes_overflow_uint64",
       "safetensors header: 'x' is F32 [4611686018427387904]: more than 2^64 bytes"},
      {"control_characters_in_name",
       "safetensors header: entry 'evil\\nname\\x1b[31m' is not an object"},
      {"deeply_nested_shape",
       "safetensors header: shape of 'x' is not an array of non-negative integers"},
      {"dtype_not_string", "safetensors header: dtype of 'x' is not a string"},
      {"dtype_width_mismatch",
       "safetensors header: 'x' is BF16 [2, 3], 12 bytes, but its data_offsets [0, 10] hold 10 "
       "bytes"},
      {"empty_file", "safetensors header: file is 0 bytes, shorter than the 8-byte length prefix"},
      {"entry_not_object", "safetensors header: entry 'x.weight' is not an object"},
      {"invalid_utf8_name", "safetensors header: invalid JSON: The input is not valid UTF-8"},
      {"length_one_past_end_of_file",
       "safetensors header: length 3 bytes runs past the end of the 10-byte file"},
      {"length_past_end_of_file",
       "safetensors header: length 9007199254740992 bytes runs past the end of the 10-byte file"},
      {"length_uint64_max",
       "safetensors header: length 18446744073709551615 bytes runs past the end of the 10-byte "
       "file"},
      {"length_zero", "safetensors header: length is 0 bytes; even an empty header is '{}'"},
      {"missing_dtype", "safetensors header: tensor 'x' has no dtype"},
      {"nul_padding",
       "safetensors header: invalid JSON: JSON document ended early in the middle of an object or "
       "array."},
      {"offsets_near_uint64_max",
       "safetensors header: data_offsets of 'x' [18446744073709551614, 18446744073709551615] run "
       "past the 16-byte data region"},
      {"offsets_overlap",
       "safetensors header: data_offsets of 'b' [4, 12] overlap those of 'a' [0, 8]"},
      {"offsets_past_data_region",
       "safetensors header: data_offsets of 'x' [0, 32] run past the 16-byte data region"},
      {"offsets_reversed", "safetensors header: data_offsets of 'x.weight' [10, 4] are reversed"},
      {"offsets_three_values",
       "safetensors header: data_offsets of 'x' is not an array of two non-negative integers"},
      {"prefix_truncated_5_bytes",
       "safetensors header: file is 5 bytes, shorter than the 8-byte length prefix"},
      {"root_is_array", "safetensors header: JSON is an array, not an object"},
      {"root_is_string", "safetensors header: JSON is a string, not an object"},
      {"root_left_open",
       "safetensors header: invalid JSON: The JSON document has an improper structure: missing or "
       "superfluous commas, braces, missing keys, etc."},
      {"shape_above_uint64",
       "safetensors header: shape of 'x' is not an array of non-negative integers"},
      {"shape_float", "safetensors header: shape of 'x' is not an array of non-negative integers"},
      {"shape_negative",
       "safetensors header: shape of 'x' is not an array of non-negative integers"},
      {"shape_overflows_uint64",
       "safetensors header: shape [4294967296, 4294967296] of 'x' has more than 2^64 elements"},
      {"shape_string", "safetensors header: shape of 'x' is not an array of non-negative integers"},
      {"trailing_object", "safetensors header: unexpected text after the JSON object"},
      {"unclosed_string",
       "safetensors header: invalid JSON: A string is opened, but never closed."},

  };
  return *errors;
}

TEST(SafetensorsHostileCorpus, EveryFileFailsWithItsCleanError) {
  auto fs = make_real_file_system();
  int files_seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kHostileDir)) {
    if (entry.path().extension() != ".safetensors") continue;
    ++files_seen;
    const std::string path = entry.path().string();
    const std::string stem = entry.path().stem().string();
    Result<WeightsInfo> info = read_single_file_weights(*fs, path);
    ASSERT_FALSE(info.ok()) << stem << " was accepted";
    const std::string& message = info.error().message();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    auto expected = expected_errors().find(stem);
    ASSERT_NE(expected, expected_errors().end()) << "no row for " << stem << ": " << message;
    EXPECT_EQ(message, "reading '" + path + "': " + expected->second) << stem;
  }
  EXPECT_EQ(files_seen, static_cast<int>(expected_errors().size()));
}

}  // namespace
}  // namespace memfit
