// ConfigDocument: a parsed config.json and the part of it that describes
// the language model.
//
// Multimodal configs nest the language model under text_config,
// language_config or llm_config; the nested one is preferred whenever it
// has a layer count, because on some models the top-level count is the
// vision tower's.
#ifndef MEMFIT_MODEL_CONFIG_CONFIG_DOCUMENT_H_
#define MEMFIT_MODEL_CONFIG_CONFIG_DOCUMENT_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/result.h"

namespace memfit {

// Largest layer count memfit accepts: real models have at most a few
// hundred; the cap bounds every per-layer allocation.
inline constexpr uint64_t kMaxLayers = 4096;

// Deepest nesting of arrays and objects a config may have: real ones nest
// four or five levels (quantization_config.config_groups.<group>.weights).
inline constexpr int kMaxConfigNesting = 64;

// Layer-count aliases, first present wins.
inline const std::initializer_list<std::string_view> kLayerAliases = {
    "num_hidden_layers", "n_layers", "num_layers", "n_layer"};

class ConfigDocument {
 public:
  // Fails when the text nests deeper than kMaxConfigNesting, is not JSON or
  // is not an object. Python's json writes Infinity and NaN; they are read
  // as null.
  static Result<ConfigDocument> parse(std::string_view text);
  // A document built in memory (a GGUF header's geometry spelled as config
  // fields, model/gguf/config.h): the language model is `top` itself, and
  // it states every field it has a value for, so the transformers defaults
  // of its model_type (FieldReader) do not apply to it. Fails when `top` is
  // not an object.
  static Result<ConfigDocument> from_json(nlohmann::json top);

  // False for from_json documents: a field they leave out is unknown, not
  // its config class's default.
  bool takes_family_defaults() const { return takes_family_defaults_; }

  const nlohmann::json& top() const { return top_; }
  // The language model's object: a nested text config or the top level.
  const nlohmann::json& text() const { return *text_; }
  // The key the text config came from ("" for the top level).
  const std::string& text_key() const { return text_key_; }

  // The first present, non-null alias in the text config as a
  // non-negative integer (integral floats such as 32.0 accepted).
  // nullopt when none is present; an error for any other type.
  Result<std::optional<uint64_t>> u64(std::initializer_list<std::string_view> aliases) const;
  // Like u64, falling back to the top level when the text config lacks it.
  Result<std::optional<uint64_t>> u64_or_top(std::initializer_list<std::string_view> aliases) const;
  // A boolean field of the text config; nullopt when absent or null.
  Result<std::optional<bool>> boolean(std::string_view name) const;
  // A string field of the text config, then the top level; "" when absent.
  std::string string_field(std::string_view name) const;
  // The field of the text config, or nullptr when absent or null.
  const nlohmann::json* find(std::string_view name) const;

  ConfigDocument(const ConfigDocument& other) { *this = other; }
  ConfigDocument& operator=(const ConfigDocument& other);

 private:
  ConfigDocument() = default;
  nlohmann::json top_;
  const nlohmann::json* text_ = &top_;
  std::string text_key_;
  bool takes_family_defaults_ = true;
};

// Reads `value` as a non-negative integer; `name` is used in the error.
Result<uint64_t> json_to_u64(const nlohmann::json& value, std::string_view name);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_CONFIG_DOCUMENT_H_
