// Test helpers for the real configs under tests/data/corpus.
#ifndef MEMFIT_TESTS_SUPPORT_CORPUS_H_
#define MEMFIT_TESTS_SUPPORT_CORPUS_H_

#include <string>

#include "memfit/kv_cache.h"
#include "memfit/model.h"
#include "memfit/model_spec.h"

namespace memfit::testing {

// The text of tests/data/<relative>; fails the test when unreadable.
std::string read_test_data(const std::string& relative);

// Parses tests/data/corpus/<relative>/config.json; fails the test on error.
ModelSpec corpus_spec(const std::string& relative);

// A model of the corpus config with `weight_bytes` of weights from
// `source` and no tensor list (the engines' unit tests).
Model corpus_model(const std::string& relative, uint64_t weight_bytes,
                   WeightsSource source = WeightsSource::kSafetensorsIndex);

// The KV cache of a corpus model at `tokens` x `batch`.
KvCacheEstimate corpus_kv(const std::string& relative, uint64_t tokens, uint64_t batch = 1,
                          KvElement element = KvElement::kFp16);

// The same for the hand-written configs under tests/data/fixtures/<name>.
ModelSpec fixture_spec(const std::string& name);
KvCacheEstimate fixture_kv(const std::string& name, uint64_t tokens, uint64_t batch = 1);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_CORPUS_H_
