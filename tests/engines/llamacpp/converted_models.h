// Helpers for the converter's tensor-list tests (converted_decoders_test.cc,
// converted_encoders_test.cc): a model from a config.json, the GGUF
// llama-quantize would write from it, its tensor counts by type, and one
// tensor by name. Each helper records a gtest failure where the library
// returns an error.
#ifndef MEMFIT_TESTS_ENGINES_LLAMACPP_CONVERTED_MODELS_H_
#define MEMFIT_TESTS_ENGINES_LLAMACPP_CONVERTED_MODELS_H_

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/quantize_plan.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp::converted_test {

inline Model from_config(std::string_view json) {
  Result<ModelSpec> spec = parse_model_config(json);
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  Model m;
  if (spec.ok()) m.spec = *spec;
  return m;
}

inline Model quantized(const Model& m, std::string_view file_type) {
  Result<Model> q = quantized_gguf_model(m, *find_gguf_file_type(file_type));
  EXPECT_TRUE(q.ok()) << (q.ok() ? "" : q.error().message());
  return q.ok() ? *q : Model{};
}

inline std::map<std::string, int> type_counts(const Model& m) {
  std::map<std::string, int> counts;
  for (const SafetensorsTensor& t : m.tensors) ++counts[t.dtype];
  return counts;
}

// nullptr when the model has no tensor of that name.
// How many of the converter's tensors it writes in F32 (norms, biases,
// routers: the dump's "f32" count before llama-quantize).
inline int f32_count(const std::vector<ConvertedTensor>& tensors) {
  int n = 0;
  for (const ConvertedTensor& t : tensors) n += t.type == GgmlType::kF32;
  return n;
}

inline const SafetensorsTensor* find(const Model& m, std::string_view name) {
  for (const SafetensorsTensor& t : m.tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace memfit::llamacpp::converted_test

#endif  // MEMFIT_TESTS_ENGINES_LLAMACPP_CONVERTED_MODELS_H_
