// Untrusted text a client sends (field names, model names, values, the
// path and method) comes back in error messages quoted and escaped: no
// control character reaches the JSON error or a log line raw.
#include <gtest/gtest.h>

#include <string>

#include "service/service_fixture.h"

namespace memfit {
namespace {

using testing::error_message;
using testing::kExamplesRoot;
using testing::make_service;

bool has_control_byte(const std::string& text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return true;
  }
  return false;
}

// The error message of POST `path` with `body`, checked to be clean.
std::string refused(Service& service, const std::string& path, const std::string& body) {
  HttpResponse r = service.handle("POST", path, body);
  EXPECT_GE(r.status, 400) << r.body;
  EXPECT_LT(r.status, 500) << r.body;
  const std::string message = error_message(r);
  EXPECT_FALSE(has_control_byte(message)) << message;
  return message;
}

TEST(ServiceUntrustedText, UnknownFieldNameIsEscaped) {
  // Issue 10: the fuzzer's body; "\n" is JSON's escape, so the key holds a newline.
  auto service = make_service({kExamplesRoot});
  const std::string body = R"({"model":"a","prompt_tokens":5,"cbched_tok\ns":6})";
  for (const char* path : {"/v1/estimate", "/v1/fit", "/v1/admit"}) {
    EXPECT_EQ(refused(*service, path, body), "unknown field 'cbched_tok\\ns'") << path;
  }
}

TEST(ServiceUntrustedText, ModelNameWithAControlCharacterIsEscaped) {
  auto service = make_service({kExamplesRoot});
  EXPECT_EQ(refused(*service, "/v1/estimate", R"({"model":"a\u001b[2Jb"})"),
            "model 'a\\x1b[2Jb': contains a control character");
  EXPECT_EQ(refused(*service, "/v1/admit", R"({"model":"x\u007f","prompt_tokens":1})"),
            "model 'x\\x7f': contains a control character");
}

TEST(ServiceUntrustedText, ValuesAreShownAsEscapedJson) {
  auto service = make_service({kExamplesRoot});
  EXPECT_EQ(refused(*service, "/v1/estimate",
                    std::string(R"({"model":"m","quant":"a\u007fb"})")),
            "quant: 'a\\x7fb': expected fp16, int8, int4, <b>bit[-g<g>] (b: 2, 3, 4, 5, 6, 8; "
            "g: 32, 64, 128) or a mixed recipe (mixed_2_6, mixed_3_4, mixed_3_6, mixed_4_6)[-g<g>], "
            "or a GGUF file type (F32, F16, BF16, "
            "Q8_0, Q6_K, Q5_1, Q5_K_M, Q5_0, Q5_K_S, Q4_1, Q4_K_M, Q4_0, Q4_K_S, IQ4_NL, IQ4_XS, "
            "MXFP4_MOE, Q3_K_L, Q3_K_M, IQ3_M, IQ3_S, Q3_K_S, Q2_K)");
  EXPECT_EQ(refused(*service, "/v1/estimate", R"({"model":"m","memory_limit":"4\u0001GB"})"),
            "memory_limit: memory size '4\\x01GB': expected a number and its unit: B, KB, MB, GB, "
            "TB (10^3 ...), KiB, MiB, GiB, TiB (2^10 ...)");
}

TEST(ServiceUntrustedText, ParseErrorQuotingTheBodyIsEscaped) {
  // nlohmann's message quotes what it last read; it leaves 0x7f raw.
  auto service = make_service({kExamplesRoot});
  const std::string message = refused(*service, "/v1/estimate", "\x7f");
  EXPECT_NE(message.find("last read: '\\x7f'"), std::string::npos) << message;
}

TEST(ServiceUntrustedText, PathAndMethodAreEscaped) {
  auto service = make_service({kExamplesRoot});
  HttpResponse not_found = service->handle("GET", "/v1/x\ny", "");
  EXPECT_EQ(not_found.status, 404);
  EXPECT_EQ(error_message(not_found), "no endpoint '/v1/x\\ny'");
  HttpResponse wrong_method = service->handle(std::string("G\0T", 3), "/v1/estimate", "");
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(error_message(wrong_method), "/v1/estimate accepts POST, not 'G\\x00T'");
}

}  // namespace
}  // namespace memfit
