// open_model_by_name with local_paths off (the service's --allow-hub):
// a name is never read as a local path, even where one exists.
#include <unistd.h>

#include <gtest/gtest.h>

#include "memfit/model_by_name.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr char kConfig[] = R"({"model_type":"llama","num_hidden_layers":2,
    "hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})";

// Runs with the working folder at `dir`, restoring it after.
class InFolder {
 public:
  explicit InFolder(const std::string& dir) {
    char buffer[4096];
    if (::getcwd(buffer, sizeof buffer) != nullptr) previous_ = buffer;
    EXPECT_EQ(::chdir(dir.c_str()), 0);
  }
  ~InFolder() { EXPECT_EQ(::chdir(previous_.c_str()), 0); }

 private:
  std::string previous_;
};

TEST(ModelByNameLocalPaths, OffReadsOnlyTheCache) {
  TempDir dir;
  dir.write_file("org/local/config.json", kConfig);
  const std::string hub = dir.make_dir("hub");
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  ModelNameOptions options;
  options.hf_cache.hub_cache_dir = hub;
  InFolder here(dir.path());

  // On: the local folder "org/local" is read.
  ASSERT_TRUE(open_model_by_name(*fs, "org/local", options, {}).ok());

  options.local_paths = false;
  options.hf_cache.offline = true;  // the Hub is never asked here
  Result<Model> hub_only = open_model_by_name(*fs, "org/local", options, {});
  ASSERT_FALSE(hub_only.ok());
  EXPECT_NE(hub_only.error().message().find("not in the Hugging Face cache"), std::string::npos)
      << hub_only.error().message();
  Result<Model> path = open_model_by_name(*fs, dir.path() + "/org/local", options, {});
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(path.error().message(),
            "model: '" + dir.path() + "/org/local': not a Hugging Face name (org/name)");
}

}  // namespace
}  // namespace memfit
