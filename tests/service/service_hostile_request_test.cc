// Regression test over the hostile request bodies in
// tests/data/hostile/service_request/ (also the seeds of
// fuzz/service_request_fuzz.cc): each must be refused by the parser of
// POST /v1/estimate, /v1/fit and /v1/admit with one line saying why, with
// no control character, never thrown. Every file at the top of the folder
// must have a row here (its corpus/ holds the fuzzer's finds).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "memfit/request_json.h"
#include "service/request_parser.h"
#include "support/paths.h"

namespace memfit::service {
namespace {

const std::string kHostileDir = std::string(MEMFIT_TEST_DATA_DIR) + "/hostile/service_request";

struct Expected {
  std::string estimate;  // parse_estimate_request's error (a prefix for invalid_utf8)
  std::string fit;
  std::string admit;
};

const std::map<std::string, Expected>& expected_errors() {
  static const auto* errors = new std::map<std::string, Expected>{
      {"cached_past_prompt",
       {"unknown field 'cached_tokens'", "unknown field 'cached_tokens'",
        "cached_tokens: 6 is more than prompt_tokens 5"}},
      // 2^64 is read as a double, and shown as one.
      // Issue 10: the fuzzer's body; the unknown key (JSON "\n") was echoed
      // with a raw newline.
      {"crash_unknown_field_newline",
       {"unknown field 'cbched_tok\\ns'", "unknown field 'cbched_tok\\ns'",
        "unknown field 'cbched_tok\\ns'"}},
      {"count_past_uint64",
       {"max_tokens: expected a positive integer, got 1.8446744073709552e+19",
        "unknown field 'max_tokens'", "prompt_tokens: required"}},
      {"deep_nesting",
       {"request body nests deeper than 32 levels", "request body nests deeper than 32 levels",
        "request body nests deeper than 32 levels"}},
      {"duplicate_and_huge_limit",
       {"memory_limit: memory size '99999999999999999999GB' is out of range",
        "memory_limit: memory size '99999999999999999999GB' is out of range",
        "prompt_tokens: required"}},
      // A number past a double: nlohmann reports it as out_of_range, which
      // once escaped the parser as an exception.
      {"huge_float",
       {"request body is not valid JSON: number overflow parsing '1e999'",
        "request body is not valid JSON: number overflow parsing '1e999'",
        "request body is not valid JSON: number overflow parsing '1e999'"}},
      {"invalid_utf8",
       {"request body is not valid JSON: parse error at line 1, column 1",
        "request body is not valid JSON: parse error at line 1, column 1",
        "request body is not valid JSON: parse error at line 1, column 1"}},
      // prompt_tokens is mlx-lm's field, which fit also takes (its prompt
      // when solving max_tokens or batch); request_id is admit's alone.
      {"long_request_id",
       {"unknown field 'request_id'", "unknown field 'request_id'",
        "request_id: expected 1-128 characters of [A-Za-z0-9._:/+=-], got \"xxxxxxxx"}},
      {"negative_batch",
       {"batch: expected a positive integer, got -1", "batch: expected a positive integer, got -1",
        "prompt_tokens: required"}},
      // nlohmann's message quotes the byte it last read, 0x7f unescaped.
      {"parse_error_del_byte",
       {"request body is not valid JSON: parse error at line 1, column 1: syntax error while "
        "parsing value - invalid literal; last read: '\\x7f'",
        "request body is not valid JSON: parse error at line 1, column 1: syntax error while "
        "parsing value - invalid literal; last read: '\\x7f'",
        "request body is not valid JSON: parse error at line 1, column 1: syntax error while "
        "parsing value - invalid literal; last read: '\\x7f'"}},
      {"too_many_curve_points",
       {"unknown field 'curve_tokens'",
        "curve_tokens: expected an array of at most 256 integers from 1 to 1073741824, got "
        "[1,1,1,",
        "prompt_tokens: required"}},
      {"unknown_field",
       {"unknown field 'max_token'", "unknown field 'max_token'", "prompt_tokens: required"}},
  };
  return *errors;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The error's message, or "ok" when the body was accepted.
template <typename T>
std::string message(const Result<T>& r) {
  return r.ok() ? "ok" : r.error().message();
}

// Refused with the expected message, which holds no control character.
void expect_refused(const std::string& got, const std::string& expected_prefix) {
  EXPECT_EQ(got.substr(0, expected_prefix.size()), expected_prefix);
  for (char c : got) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte >= 0x20 && byte != 0x7f) << "control byte in: " << got;
  }
}

TEST(ServiceHostileRequests, EveryBodyIsRefusedWithOneLine) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kHostileDir)) {
    // corpus/ holds fuzzer-found inputs, replayed by FuzzReplay.service_request.
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    auto row = expected_errors().find(name);
    ASSERT_NE(row, expected_errors().end()) << "no expected errors for " << name;
    const std::string body = read_file(entry.path());
    expect_refused(message(parse_estimate_request_json(body)), row->second.estimate);
    expect_refused(message(parse_fit_request(body)), row->second.fit);
    expect_refused(message(parse_admit_request(body)), row->second.admit);
    ++files;
  }
  EXPECT_EQ(files, expected_errors().size());
}

}  // namespace
}  // namespace memfit::service
