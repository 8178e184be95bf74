// One request field, declared once: the CLI option, the JSON request's
// reading, the errors naming its engine, the docs' flags tables, the
// schema's request properties and GET /v1/engines all come from its row.
#ifndef MEMFIT_REQUEST_FIELD_H_
#define MEMFIT_REQUEST_FIELD_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN
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

// How the JSON request writes a field's value.
enum class JsonForm {
  kTyped,    // as its type: kCount an integer, kSize an integer or a string,
             // kRatio a number, kFlag true or false, kList a string or an
             // array of strings, the others a string
  kScalar,   // a string, a non-negative integer or a boolean, each as its text
  kInteger,  // an integer, negative ones too
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
  // `request`: kUsage when it does not parse or is out of range (naming
  // no field, apply_request_field names it). A repeatable field's texts
  // are applied one by one, in order.
  Status (*apply)(EstimateRequest& request, std::string_view text) = nullptr;
  // Whether `request` gives this field.
  bool (*given)(const EstimateRequest& request) = nullptr;
  // The JSON request's reading, and what a JSON value of another kind is
  // told it should be ("a size such as \"48GB\" or bytes"); "": the
  // type's ("a positive integer", "a string", ...).
  JsonForm json = JsonForm::kTyped;
  std::string_view json_expects;
  bool required = false;     // a request must give it (model)
  std::string_view example;  // a value it takes, as text ("exps=CPU"): the docs, the tests, forms
  std::string_view doc;      // the docs' meaning when the help's one line is not all of it; "": help
  // A setting of the engine's GPUs (offload, split, memory): the calculator
  // page shows it beside the budget rather than among the other settings
  // (GET /v1/engines' "gpu_setting").
  bool gpu_setting = false;
};

// The table (src/request/field_table.cc): the fields every engine reads,
// then each engine's own, in the order the CLI lists them. The engine
// comes before the fields read for it (the cache types).
std::vector<const RequestField*> request_fields();
// By the JSON request's name; null when no field has it.
const RequestField* find_request_field(std::string_view json_name);
// The fields `engine` owns ("": the common ones), in table order.
std::vector<const RequestField*> engine_request_fields(std::string_view engine);

// field.apply, its usage error naming the field when it names none.
Status apply_request_field(const RequestField& field, EstimateRequest& request, std::string_view text);
// The first of `engine`'s own fields that `request` gives, as the JSON
// request names it; "" when none.
std::string_view first_field_given(const EstimateRequest& request, std::string_view engine);
// The one refusal of a field given to an engine that does not own it
// (kUsage, naming it): "<field> is a <runtime> setting: give engine <name>",
// "ctx_size is a llama.cpp setting: give engine llamacpp".
Error field_of_other_engine(const RequestField& field);
// `engine`'s own fields' JSON names as a list: "prompt_tokens,
// prefill_step_size, kv_bits, kv_group_size and max_kv_size".
std::string field_names_text(std::string_view engine);
// The field's CLI spellings: "-c,--ctx-size" is {"-c", "--ctx-size"}.
std::vector<std::string_view> field_spellings(const RequestField& field);
// Whether `spelling` is one of the runtime's multi-letter short flags
// ("-np", "-ctk"): CLI11 takes single letters only, so the CLI rewrites
// these to the field's first long flag before parsing.
bool is_runtime_short_flag(std::string_view spelling);
// The CLI spelling that names `field` in errors: its long flag of the
// JSON name's spelling ("--ctx-size"), else its first long flag.
std::string field_flag(const RequestField& field);

}  // namespace memfit
MEMFIT_PUBLIC_END

#endif  // MEMFIT_REQUEST_FIELD_H_
