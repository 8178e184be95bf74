#include "support/corpus.h"
#include "support/paths.h"

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

namespace {

ModelSpec spec_at(const std::string& relative) {
  Result<ModelSpec> spec = parse_model_config(read_test_data(relative + "/config.json"));
  EXPECT_TRUE(spec.ok()) << relative << ": " << (spec.ok() ? "" : spec.error().message());
  return spec.ok() ? *spec : ModelSpec{};
}

KvCacheEstimate kv_of(const ModelSpec& spec, const std::string& name, uint64_t tokens,
                      uint64_t batch, KvElement element) {
  Result<KvCacheEstimate> kv = estimate_kv_cache(spec, tokens, batch, element);
  EXPECT_TRUE(kv.ok()) << name;
  return kv.ok() ? *kv : KvCacheEstimate{};
}

}  // namespace

ModelSpec corpus_spec(const std::string& relative) { return spec_at("corpus/" + relative); }

Model corpus_model(const std::string& relative, uint64_t weight_bytes, WeightsSource source) {
  Model m;
  m.has_config = true;
  m.spec = corpus_spec(relative);
  m.weights.bytes = weight_bytes;
  m.weights.source = source;
  return m;
}

KvCacheEstimate corpus_kv(const std::string& relative, uint64_t tokens, uint64_t batch,
                          KvElement element) {
  return kv_of(corpus_spec(relative), relative, tokens, batch, element);
}

ModelSpec fixture_spec(const std::string& name) { return spec_at("fixtures/" + name); }

KvCacheEstimate fixture_kv(const std::string& name, uint64_t tokens, uint64_t batch) {
  return kv_of(fixture_spec(name), name, tokens, batch, KvElement::kFp16);
}

}  // namespace memfit::testing
