#include "support/corpus.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace memfit::testing {

std::string read_test_data(const std::string& relative) {
  std::ifstream in(std::string(MEMFIT_TEST_DATA_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read tests/data/" << relative;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ModelSpec corpus_spec(const std::string& relative) {
  Result<ModelSpec> spec = parse_model_config(read_test_data("corpus/" + relative + "/config.json"));
  EXPECT_TRUE(spec.ok()) << relative << ": " << (spec.ok() ? "" : spec.error().message());
  return spec.ok() ? *spec : ModelSpec{};
}

KvCacheEstimate corpus_kv(const std::string& relative, uint64_t tokens, uint64_t batch,
                          KvElement element) {
  Result<KvCacheEstimate> kv = estimate_kv_cache(corpus_spec(relative), tokens, batch, element);
  EXPECT_TRUE(kv.ok()) << relative;
  return kv.ok() ? *kv : KvCacheEstimate{};
}

}  // namespace memfit::testing
