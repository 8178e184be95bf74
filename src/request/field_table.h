// The request field table's parts (request_field.h has its public face):
// the common rows (each engine's follow them: EngineProfile::fields) and
// the table as GET /v1/engines answers it. Private to the library and the service.
#ifndef MEMFIT_REQUEST_FIELD_TABLE_H_
#define MEMFIT_REQUEST_FIELD_TABLE_H_

#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/engine.h"
#include "memfit/request_field.h"

namespace memfit::request {

// The fields every engine reads (common_fields.cc), in table order.
std::span<const RequestField> common_fields();
// The fields that describe the machine priced (machine_fields.cc: gpu,
// mac), every engine's too; they follow the common ones in the table.
std::span<const RequestField> machine_fields();

// `text` cut at each `separator`: "on|off" is {"on", "off"}.
std::vector<std::string_view> split_text(std::string_view text, char separator);
// "count", "size", "ratio", "flag", "choice", "text", "list".
std::string_view to_string(FieldType type);

// One field as GET /v1/engines lists it: {"name", "flags", "help",
// "unit", "type", "choices", "default", "min", "max", "example",
// "required"} ("unit", "default", "min", "max", "example" null when the
// row has none; "choices" [] but for a choice).
nlohmann::ordered_json field_to_json(const RequestField& field);
// An engine's releases (EngineProfile::versions): {"field", "default",
// "differences": [{"releases", "change"}]} ("field", "default" null when
// the engine takes no release).
nlohmann::ordered_json versions_to_json(const EngineVersions& versions);
// GET /v1/engines: {"engines": [{"name", "summary", "release",
// "default_for", "versions", "fields": [...]}], "common_fields": [...]}.
nlohmann::ordered_json engines_to_json();

}  // namespace memfit::request

#endif  // MEMFIT_REQUEST_FIELD_TABLE_H_
