// A GGUF header's geometry spelled as config.json fields, so that the
// config path's planner (model/config/config_spec.h) sizes GGUF models too:
// llama.cpp's per-architecture rules, which the file does not carry, are
// applied once, here, and the layers are written out one by one
// (layer_types, or block_configs where attention layers differ in KV heads),
// so both front doors share one family table, one layer planner and one
// recurrent-state model. docs/gguf.md, "Design: the metadata spelled as
// config fields", says why and has the key -> field table with every
// rule's source.
#ifndef MEMFIT_MODEL_GGUF_CONFIG_H_
#define MEMFIT_MODEL_GGUF_CONFIG_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/result.h"

namespace memfit {

struct GgufConfig {
  // general.architecture, verbatim. When it is not one whose rules memfit
  // applies (is_known_gguf_architecture), every layer with KV heads is
  // taken as full attention.
  std::string architecture;
  nlohmann::json config;  // an object of config.json fields
  // llama.cpp's rules applied where the file says nothing, for the report:
  // "gemma3: every 6th layer attends globally, the others within the
  // window (llama.cpp's rule; the file does not say)".
  std::vector<std::string> assumptions;
  // <arch>.nextn_predict_layers: multi-token-prediction blocks after the
  // decoder layers (not among the config's layers).
  uint64_t nextn_layers = 0;
};

// Fails, naming the key, on a missing general.architecture or block_count,
// a value of the wrong type, a count past 32 bits, a per-layer array whose
// length is not block_count, a block count outside 1..kMaxLayers, and on
// what an architecture needs and lacks (gemma3 without its sliding window).
Result<GgufConfig> gguf_config(const GgufHeader& header);

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_CONFIG_H_
