// Parsing Hub names: the spellings -m takes, and the strict checks that
// keep every part inside the cache folder it is joined onto.
#include "memfit/hub_name.h"

#include <gtest/gtest.h>

#include <string>

namespace memfit {
namespace {

TEST(HubName, RepoAloneIsAtMain) {
  Result<HubModelRef> ref = parse_hub_model_ref("Qwen/Qwen3-8B");
  ASSERT_TRUE(ref.ok()) << ref.error().message();
  EXPECT_EQ(ref->repo_id, "Qwen/Qwen3-8B");
  EXPECT_EQ(ref->revision, "main");
  EXPECT_EQ(ref->quant, "");
  EXPECT_EQ(ref->file, "");
}

TEST(HubName, RevisionAndQuantSpellings) {
  Result<HubModelRef> ref = parse_hub_model_ref("unsloth/Qwen3-8B-GGUF@refs/pr/1:Q4_K_M");
  ASSERT_TRUE(ref.ok()) << ref.error().message();
  EXPECT_EQ(ref->repo_id, "unsloth/Qwen3-8B-GGUF");
  EXPECT_EQ(ref->revision, "refs/pr/1");
  EXPECT_EQ(ref->quant, "Q4_K_M");

  ref = parse_hub_model_ref("unsloth/Qwen3-8B-GGUF:q8_0");
  ASSERT_TRUE(ref.ok()) << ref.error().message();
  EXPECT_EQ(ref->revision, "main");
  EXPECT_EQ(ref->quant, "q8_0");

  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  ref = parse_hub_model_ref("org/model.v2_x@" + commit);
  ASSERT_TRUE(ref.ok()) << ref.error().message();
  EXPECT_EQ(ref->repo_id, "org/model.v2_x");
  EXPECT_EQ(ref->revision, commit);
  EXPECT_TRUE(is_hub_commit(ref->revision));
}

TEST(HubName, CommitsAreFortyLowerCaseHexDigits) {
  EXPECT_TRUE(is_hub_commit(std::string(40, 'f')));
  EXPECT_FALSE(is_hub_commit(std::string(40, 'F')));
  EXPECT_FALSE(is_hub_commit(std::string(39, 'a')));
  EXPECT_FALSE(is_hub_commit(std::string(41, 'a')));
  EXPECT_FALSE(is_hub_commit(std::string(39, 'a') + "g"));
}

TEST(HubName, BadRepoIdsAreUsageErrorsAboutTheModel) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"Qwen3-8B", "model: 'Qwen3-8B': a Hugging Face repo id is \"org/name\""},
      {"a/b/c", "model: 'a/b/c': a Hugging Face repo id is \"org/name\""},
      {"Qwen/Qwen3..8B", "model: 'Qwen/Qwen3..8B': a Hugging Face repo id may not hold \"..\" or \"--\""},
      {"Qwen/Qwen3--8B", "model: 'Qwen/Qwen3--8B': a Hugging Face repo id may not hold \"..\" or \"--\""},
      {"Qwen/-x", "model: 'Qwen/-x': each side of a Hugging Face repo id starts and ends with a "
                  "letter, a digit or '_'"},
      {"Qwen/x.", "model: 'Qwen/x.': each side of a Hugging Face repo id starts and ends with a "
                  "letter, a digit or '_'"},
      {"/x", "model: '/x': each side of a Hugging Face repo id holds 1 to 96 characters"},
      {"Qwen/a b", "model: 'Qwen/a b': a Hugging Face repo id holds only letters, digits, '-', "
                   "'_' and '.'"},
      {"Qwen/a\nb", "model: 'Qwen/a\\nb': a Hugging Face repo id holds only letters, digits, '-', "
                    "'_' and '.'"},
      {"o/" + std::string(97, 'n'),
       "model: 'o/" + std::string(97, 'n') +
           "': each side of a Hugging Face repo id holds 1 to 96 characters"},
  };
  for (const Case& c : cases) {
    Result<HubModelRef> ref = parse_hub_model_ref(c.text);
    ASSERT_FALSE(ref.ok()) << c.text;
    EXPECT_EQ(ref.error().kind(), ErrorKind::kUsage);
    EXPECT_EQ(ref.error().field(), "model");
    EXPECT_EQ(ref.error().message(), c.message);
  }
  // 96 is the most a side may hold.
  EXPECT_TRUE(parse_hub_model_ref("o/" + std::string(96, 'n')).ok());
}

TEST(HubName, RevisionsCannotClimbOutOfRefs) {
  const std::string rule =
      ": expected a branch, a tag or a commit: 1 to 128 letters, digits, '-', '_', '.' and '/', "
      "no part empty or starting with '.', no '..'";
  for (const std::string& revision :
       {std::string(""), std::string("../x"), std::string("a/../../b"), std::string("/abs"),
        std::string("a//b"), std::string("a/"), std::string(".hidden"), std::string("a b"),
        std::string(129, 'r'),
        // Found by hub_name_fuzz: ".." inside a part (git's ref names hold none).
        std::string("012345678../9ab")}) {
    Result<HubModelRef> ref = parse_hub_model_ref("org/name@" + revision + ":Q4_0");
    ASSERT_FALSE(ref.ok()) << revision;
    EXPECT_EQ(ref.error().message(), "model: revision '" + revision + "'" + rule) << revision;
  }
  EXPECT_TRUE(parse_hub_model_ref("org/name@" + std::string(128, 'r')).ok());
  EXPECT_TRUE(parse_hub_model_ref("org/name@v1.0-rc.2/fix_x").ok());
}

TEST(HubName, QuantTagsAreShortWords) {
  Result<HubModelRef> ref = parse_hub_model_ref("org/name:");
  ASSERT_FALSE(ref.ok());
  EXPECT_EQ(ref.error().message(),
            "model: quant '': expected a GGUF quant tag such as Q4_K_M: 1 to 32 letters, "
            "digits, '-', '_' and '.'");
  EXPECT_FALSE(parse_hub_model_ref("org/name:Q4/../x").ok());
  EXPECT_FALSE(parse_hub_model_ref("org/name:-Q4").ok());
  EXPECT_FALSE(parse_hub_model_ref("org/name:Q4:x").ok());
  EXPECT_FALSE(parse_hub_model_ref("org/name:" + std::string(33, 'Q')).ok());
  EXPECT_TRUE(parse_hub_model_ref("org/name:UD-Q4_K_XL").ok());
}

TEST(HubName, FilesStayInsideTheRepo) {
  EXPECT_TRUE(check_hub_file("model-Q8_0.gguf").ok());
  EXPECT_TRUE(check_hub_file("Q2_K/model-Q2_K-00001-of-00002.gguf").ok());
  EXPECT_TRUE(check_hub_file(".gitattributes").ok());
  for (const char* file : {"", "../x.gguf", "a/../../x", "/etc/passwd", "a//b", "a/", "./a",
                           "a\\b", "c:x", "a\nb"}) {
    Status status = check_hub_file(file);
    ASSERT_FALSE(status.ok()) << file;
    EXPECT_EQ(status.error().kind(), ErrorKind::kUsage);
  }
  EXPECT_EQ(check_hub_file("../x").error().message(),
            "'../x': expected a path inside the repo: 1 to 512 printable characters, "
            "'/'-separated, no part empty, \".\" or \"..\"");
}

TEST(HubName, LooksLikeAHubNameWhenTheRepoPartIsValid) {
  EXPECT_TRUE(looks_like_hub_name("Qwen/Qwen3-8B"));
  EXPECT_TRUE(looks_like_hub_name("Qwen/Qwen3-8B@../bad"));
  EXPECT_TRUE(looks_like_hub_name("Qwen/Qwen3-8B:"));
  EXPECT_FALSE(looks_like_hub_name("/nonexistent/model"));
  EXPECT_FALSE(looks_like_hub_name("./models/x"));
  EXPECT_FALSE(looks_like_hub_name("models/a/b"));
  EXPECT_FALSE(looks_like_hub_name("model.gguf"));
}

}  // namespace
}  // namespace memfit
