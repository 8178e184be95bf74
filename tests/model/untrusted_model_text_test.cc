// Untrusted text in the model area's messages (config values, paths,
// model_type) comes out escaped: no control character reaches an error,
// a warning or an assumption raw.
#include <gtest/gtest.h>

#include <string>

#include "memfit/file_system.h"
#include "memfit/model.h"
#include "memfit/model_spec.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

const std::string kSmallConfig =
    R"({"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4)";

TEST(UntrustedModelText, HybridPatternCharacterIsEscaped) {
  Result<ModelSpec> spec =
      parse_model_config(kSmallConfig + R"(,"hybrid_override_pattern":"M\n"})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message(), "hybrid_override_pattern[1] = '\\n' is not one of M * - E");
}

TEST(UntrustedModelText, UnknownLayerTypeNameIsEscapedInTheAssumption) {
  Result<ModelSpec> spec =
      parse_model_config(kSmallConfig + R"(,"layer_types":["full_attention","x\u001b[2J"]})");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  ASSERT_FALSE(spec->assumptions.empty());
  EXPECT_EQ(spec->assumptions[0],
            "layer_types[1] = \"x\\u001b[2J\" is unknown; counted as full attention");
}

TEST(UntrustedModelText, WrongTypeValueIsEscaped) {
  Result<ModelSpec> spec = parse_model_config(R"({"num_hidden_layers":"2\n\u007f"})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message(),
            "num_hidden_layers: expected a non-negative integer, got \"2\\n\\u007f\"");
}

TEST(UntrustedModelText, MissingPathIsQuotedAndEscaped) {
  TempDir dir;
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  const std::string path = dir.path() + "/evil\nname";
  Result<Model> model = open_model(*fs, path);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message(),
            "'" + dir.path() + "/evil\\nname': no such file or folder");
}

TEST(UntrustedModelText, ConfigErrorNamesTheFolderEscaped) {
  TempDir dir;
  dir.write_file("a\tb/config.json", "{not json");
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, dir.file_path("a\tb"));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message(), "'" + dir.path() + "/a\\tb/config.json': not valid JSON: "
            "parse error at line 1, column 3: syntax error while parsing object key - invalid "
            "literal; last read: '{no'; expected string literal");
}

TEST(UntrustedModelText, UnknownModelTypeWarningIsEscaped) {
  TempDir dir;
  dir.write_file("m/config.json", R"({"model_type":"evil\u001b[31m","num_hidden_layers":2,)"
                                  R"("hidden_size":64,"num_attention_heads":4})");
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, dir.file_path("m"));
  ASSERT_TRUE(model.ok()) << model.error().message();
  ASSERT_FALSE(model->warnings.empty());
  EXPECT_EQ(model->warnings[0].rfind("model_type 'evil\\x1b[31m' is not one memfit knows", 0), 0u)
      << model->warnings[0];
}

TEST(UntrustedModelText, FileSystemErrorsQuoteThePath) {
  TempDir dir;
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<std::string> text = fs->read_range(dir.path() + "/no\rfile", 0, 1);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message(), "'" + dir.path() + "/no\\rfile': No such file or directory");
}

}  // namespace
}  // namespace memfit
