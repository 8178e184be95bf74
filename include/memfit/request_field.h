// One request field, declared once: the CLI option, the JSON request's
// reading, the errors naming its engine, the docs' flags tables, the
// schema's request properties and GET /v1/engines all come from its row.
#ifndef MEMFIT_REQUEST_FIELD_H_
#define MEMFIT_REQUEST_FIELD_H_

#include <cstdint>
#include <limits>
#include <string_view>

#include "memfit/result.h"

namespace memfit {

struct EstimateRequest;

// How a field's value is written.
enum class FieldType {
  kCount,   // a whole number (tokens take k/K and M suffixes where the unit is tokens)
  kSize,    // bytes: a number of bytes or a size with its unit ("80GiB")
  kRatio,   // a real number
  kFlag,    // true or false; on the CLI a flag without a value
  kChoice,  // one of `choices`
  kText,    // free text (a name, a path)
  kList,    // repeatable text (paths)
};

struct RequestField {
  std::string_view name;          // the JSON request's name: "ctx_size"
  std::string_view flags;         // CLI spellings as CLI11 takes them: "-c,--ctx-size"
  std::string_view engine;        // the owning engine's name; "" when every engine reads it
  std::string_view help;          // one line
  std::string_view unit;          // "tokens", "bytes", "MiB", "" ...
  FieldType type = FieldType::kText;
  std::string_view choices;       // kChoice: "on|off|auto"
  std::string_view default_text;  // the default as text ("4096", "auto"); "" when computed
  uint64_t min = 0;               // kCount, kSize: the range, inclusive
  uint64_t max = std::numeric_limits<uint64_t>::max();
  // Reads `text` (a flag's argument, or a JSON value as text) into
  // `request`: kUsage naming the field when it does not parse or is out
  // of range.
  Status (*apply)(EstimateRequest& request, std::string_view text) = nullptr;
  // Whether `request` gives this field.
  bool (*given)(const EstimateRequest& request) = nullptr;
};

}  // namespace memfit

#endif  // MEMFIT_REQUEST_FIELD_H_
