// model_spec_from_gguf: the GGUF metadata spelled as config fields
// (model/gguf/config.h), then the config path's own planner.
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <variant>

#include "base/exception_boundary.h"
#include "memfit/gguf.h"
#include "memfit/model_spec.h"
#include "memfit/untrusted_text.h"
#include "model/config/config_document.h"
#include "model/config/config_spec.h"
#include "model/gguf/config.h"

namespace memfit {
namespace {

// <arch>.pooling_type, llama.h's enum llama_pooling_type: 0 none, 1 mean,
// 2 cls, 3 last, 4 rank. "" when absent or not one of these.
std::string gguf_pooling(const GgufHeader& header, const std::string& arch) {
  const GgufValue* value = header.find(arch + ".pooling_type");
  if (value == nullptr) return "";
  uint64_t code = 0;
  if (const uint64_t* u = std::get_if<uint64_t>(&value->data)) code = *u;
  else if (const int64_t* i = std::get_if<int64_t>(&value->data); i != nullptr && *i >= 0) code = *i;
  else return "";
  constexpr std::string_view kNames[] = {"none", "mean", "cls", "last", "rank"};
  return code < std::size(kNames) ? std::string(kNames[code]) : "";
}

// A GGUF that declares a pooling type is an embedding (or, with rank
// pooling, a reranking) model: llama.cpp reads it into hparams.pooling_type
// and uses it under --embedding unless --pooling overrides it.
void note_gguf_embedding(const GgufHeader& header, const std::string& arch, ModelSpec& spec) {
  const std::string pooling = gguf_pooling(header, arch);
  if (header.find(arch + ".pooling_type") == nullptr) return;
  spec.embedding.by_architecture = true;
  spec.embedding.pooling = pooling;
  spec.embedding.reranker = pooling == "rank";
}

}  // namespace

Result<ModelSpec> model_spec_from_gguf(const GgufHeader& header) {
  return without_exceptions("model_spec_from_gguf", [&]() -> Result<ModelSpec> {
    Result<GgufConfig> translated = gguf_config(header);
    if (!translated.ok()) return translated.error();
    const std::string model_type = translated->config.value("model_type", std::string());
    Result<ConfigDocument> doc = ConfigDocument::from_json(std::move(translated->config));
    if (!doc.ok()) return doc.error();
    Result<ModelSpec> spec = model_spec_from_document(*doc);
    if (!spec.ok()) {
      // The planner words its errors with config fields; say which ones.
      return spec.error().within(fmt::format("gguf metadata of {}, read as a {} config",
                                             quote_untrusted(translated->architecture),
                                             quote_untrusted(model_type)));
    }
    note_gguf_embedding(header, translated->architecture, *spec);
    spec->model_type = std::move(translated->architecture);
    spec->nextn_layers = translated->nextn_layers;
    spec->assumptions.insert(spec->assumptions.begin(), translated->assumptions.begin(),
                             translated->assumptions.end());
    return spec;
  });
}

}  // namespace memfit
