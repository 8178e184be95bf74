// quote_untrusted, escape_untrusted and show_untrusted_json: whatever goes
// in, what comes out is one line of valid UTF-8 with no control character.
#include "memfit/untrusted_text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace memfit {
namespace {

TEST(QuoteUntrusted, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(quote_untrusted("model-00001-of-00002.safetensors"),
            "'model-00001-of-00002.safetensors'");
  EXPECT_EQ(quote_untrusted(""), "''");
  EXPECT_EQ(quote_untrusted("Qwen3 \xe2\x80\x94 8B"), "'Qwen3 \xe2\x80\x94 8B'");  // an em dash
}

TEST(QuoteUntrusted, ControlCharactersQuotesAndBackslashesAreEscaped) {
  EXPECT_EQ(quote_untrusted("a\nb\tc\rd"), "'a\\nb\\tc\\rd'");
  EXPECT_EQ(quote_untrusted(std::string("nul\0x", 5)), "'nul\\x00x'");
  EXPECT_EQ(quote_untrusted("\x1b[31mred"), "'\\x1b[31mred'");
  EXPECT_EQ(quote_untrusted("del\x7f"), "'del\\x7f'");
  EXPECT_EQ(quote_untrusted("it's a\\b"), "'it\\'s a\\\\b'");
}

TEST(QuoteUntrusted, C1ControlsAndInvalidUtf8AreEscapedByteByByte) {
  // U+009B (CSI) is C2 9B in UTF-8: some terminals read it as ESC [.
  EXPECT_EQ(quote_untrusted("a\xc2\x9b" "b"), "'a\\xc2\\x9bb'");
  // U+00A0 (C2 A0) is the first code point past the C1 block: kept.
  EXPECT_EQ(quote_untrusted("a\xc2\xa0" "b"), "'a\xc2\xa0" "b'");
  // A lone continuation byte, a truncated sequence, an overlong '/', a surrogate.
  EXPECT_EQ(quote_untrusted("\x80"), "'\\x80'");
  EXPECT_EQ(quote_untrusted("\xe2\x80"), "'\\xe2\\x80'");
  EXPECT_EQ(quote_untrusted("\xc0\xaf"), "'\\xc0\\xaf'");
  EXPECT_EQ(quote_untrusted("\xed\xa0\x80"), "'\\xed\\xa0\\x80'");
}

TEST(QuoteUntrusted, LongTextIsCutAtACharacterBoundary) {
  const std::string ascii(300, 'a');
  EXPECT_EQ(quote_untrusted(ascii), fmt::format("'{}...'", std::string(kMaxQuotedBytes, 'a')));
  // 199 ASCII bytes, then a 3-byte character that would end at byte 202:
  // cut before it, never inside it.
  const std::string text = std::string(199, 'b') + "\xe2\x80\x94" + "tail";
  EXPECT_EQ(quote_untrusted(text), fmt::format("'{}...'", std::string(199, 'b')));
  EXPECT_EQ(quote_untrusted(std::string(kMaxQuotedBytes, 'c')),
            fmt::format("'{}'", std::string(kMaxQuotedBytes, 'c')));
}

TEST(EscapeUntrusted, EscapesWithoutQuoting) {
  EXPECT_EQ(escape_untrusted("last read: '\x7f'"), "last read: '\\x7f'");
  EXPECT_EQ(escape_untrusted("line\nbreak", 4), "line...");
}

TEST(ShowUntrustedJson, ScalarsAreCompactJson) {
  EXPECT_EQ(show_untrusted_json(nlohmann::json(5)), "5");
  EXPECT_EQ(show_untrusted_json(nlohmann::json(-1)), "-1");
  EXPECT_EQ(show_untrusted_json(nlohmann::json(2.5)), "2.5");
  EXPECT_EQ(show_untrusted_json(nlohmann::json(true)), "true");
  EXPECT_EQ(show_untrusted_json(nlohmann::json(nullptr)), "null");
  EXPECT_EQ(show_untrusted_json(nlohmann::json("abc")), "\"abc\"");
}

TEST(ShowUntrustedJson, ControlAndNonAsciiCharactersAreEscaped) {
  EXPECT_EQ(show_untrusted_json(nlohmann::json("a\nb")), "\"a\\nb\"");
  EXPECT_EQ(show_untrusted_json(nlohmann::json("del\x7f")), "\"del\\u007f\"");
  EXPECT_EQ(show_untrusted_json(nlohmann::json("\xc2\x9b")), "\"\\u009b\"");
  EXPECT_EQ(show_untrusted_json(nlohmann::json::parse(R"({"k\n":["x",1]})")),
            "{\"k\\n\":[\"x\",1]}");
}

TEST(ShowUntrustedJson, LongValuesAreCut) {
  EXPECT_EQ(show_untrusted_json(nlohmann::json(std::string(50, 'x')), 10), "\"xxxxxxxxx...");
  nlohmann::json many = nlohmann::json::array();
  for (int i = 0; i < 100000; ++i) many.push_back(1);
  // The first 40 bytes: "[" and 20 ones with the 19 commas between them.
  EXPECT_EQ(show_untrusted_json(many, 40), "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1...");
}

TEST(ShowUntrustedJson, DeepValuesStopAtEightLevels) {
  // 100,000 nested arrays: shown without recursing past 8 levels.
  nlohmann::json deep = nlohmann::json::array({1});
  for (int i = 0; i < 100000; ++i) {
    nlohmann::json outer = nlohmann::json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  // Levels 0-7 are written; level 8 is "[...]".
  EXPECT_EQ(show_untrusted_json(deep), std::string(8, '[') + "[...]" + std::string(8, ']'));
  EXPECT_EQ(show_untrusted_json(nlohmann::json::parse(R"([[[[[[[[{}]]]]]]]])")),
            "[[[[[[[[{}]]]]]]]]");
}

}  // namespace
}  // namespace memfit
