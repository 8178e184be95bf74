// FieldReader: config fields with the defaults of the model type's
// transformers config class.
//
// Real configs omit every field that equals its class default (a Gemma 2
// config says only sliding_window, though its layers alternate). When a
// field is absent and the family has a default, the reader returns the
// default and records "<field> = <value> (<model_type> default)" as an
// assumption for the report. Documents that state every field they know
// (ConfigDocument::takes_family_defaults() false: a GGUF header's) get no
// defaults.
#ifndef MEMFIT_MODEL_CONFIG_FIELD_READER_H_
#define MEMFIT_MODEL_CONFIG_FIELD_READER_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"
#include "model/config/config_document.h"

namespace memfit {

struct FieldDefault {
  std::string_view field;
  uint64_t value;
};

// Defaults for `model_type` (the text config's own model_type when it has
// one); empty for families memfit does not carry defaults for.
std::vector<FieldDefault> family_defaults(std::string_view model_type);

class FieldReader {
 public:
  FieldReader(const ConfigDocument& doc, std::string model_type,
              std::vector<std::string>& assumptions);

  const ConfigDocument& doc() const { return doc_; }
  const std::string& model_type() const { return model_type_; }

  // The first present alias; else the family default of the first alias
  // (recorded as an assumption); else nullopt. Errors on wrong types.
  Result<std::optional<uint64_t>> u64(std::initializer_list<std::string_view> aliases);
  // Same, with `fallback` when neither config nor family says, recorded as
  // an assumption naming `why`.
  Result<uint64_t> u64_or(std::initializer_list<std::string_view> aliases, uint64_t fallback,
                          std::string_view why);

  // Records an assumption once, however often the field is read.
  void assume(std::string text);

 private:
  const ConfigDocument& doc_;
  std::string model_type_;
  std::vector<FieldDefault> defaults_;
  std::vector<std::string>& assumptions_;
};

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_FIELD_READER_H_
