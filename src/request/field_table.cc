// The request field table: the common rows, then each engine's own, and
// what is derived from them (the wrong-engine refusal, flag names, the
// GET /v1/engines answer).
#include "request/field_table.h"

#include <fmt/format.h>

#include "memfit/engine.h"
#include "request/field_text.h"

namespace memfit {
namespace request {
namespace {

nlohmann::ordered_json text_or_null(std::string_view text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

}  // namespace

// `text` cut at each `separator`.
std::vector<std::string_view> split_text(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return parts;
}

std::string_view to_string(FieldType type) {
  switch (type) {
    case FieldType::kCount:
      return "count";
    case FieldType::kSize:
      return "size";
    case FieldType::kRatio:
      return "ratio";
    case FieldType::kFlag:
      return "flag";
    case FieldType::kChoice:
      return "choice";
    case FieldType::kText:
      return "text";
    case FieldType::kList:
      return "list";
  }
  return "text";
}

nlohmann::ordered_json field_to_json(const RequestField& f) {
  nlohmann::ordered_json flags = nlohmann::ordered_json::array();
  for (std::string_view spelling : field_spellings(f)) flags.push_back(spelling);
  nlohmann::ordered_json choices = nlohmann::ordered_json::array();
  if (f.type == FieldType::kChoice) {
    for (std::string_view choice : split_text(f.choices, '|')) choices.push_back(choice);
  }
  const bool counted = f.type == FieldType::kCount;
  const bool bounded = f.max != std::numeric_limits<uint64_t>::max();
  return {{"name", f.name},
          {"flags", std::move(flags)},
          {"help", f.help},
          {"unit", text_or_null(f.unit)},
          {"type", to_string(f.type)},
          {"choices", std::move(choices)},
          {"default", text_or_null(f.default_text)},
          {"min", counted ? nlohmann::ordered_json(f.min) : nlohmann::ordered_json(nullptr)},
          {"max", counted && bounded ? nlohmann::ordered_json(f.max) : nlohmann::ordered_json(nullptr)},
          {"example", text_or_null(f.example)},
          {"required", f.required},
          {"gpu_setting", f.gpu_setting}};
}

nlohmann::ordered_json versions_to_json(const EngineVersions& v) {
  nlohmann::ordered_json differences = nlohmann::ordered_json::array();
  for (const ReleaseDifference& d : v.differences) {
    differences.push_back({{"releases", d.releases}, {"change", d.change}});
  }
  return {{"field", text_or_null(v.field)},
          {"default", text_or_null(v.default_text)},
          {"differences", std::move(differences)}};
}

nlohmann::ordered_json engines_to_json() {
  nlohmann::ordered_json engines = nlohmann::ordered_json::array();
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    nlohmann::ordered_json fields = nlohmann::ordered_json::array();
    for (const RequestField& f : engine->fields()) fields.push_back(field_to_json(f));
    engines.push_back({{"name", engine->name()},
                       {"summary", engine->summary()},
                       {"release", engine->release()},
                       {"default_for", text_or_null(engine->default_for_text())},
                       {"versions", versions_to_json(engine->versions())},
                       {"fields", std::move(fields)}});
  }
  nlohmann::ordered_json common = nlohmann::ordered_json::array();
  for (const RequestField& f : common_fields()) common.push_back(field_to_json(f));
  for (const RequestField& f : machine_fields()) common.push_back(field_to_json(f));
  return {{"engines", std::move(engines)}, {"common_fields", std::move(common)}};
}

}  // namespace request

std::vector<const RequestField*> request_fields() {
  std::vector<const RequestField*> rows;
  for (const RequestField& f : request::common_fields()) rows.push_back(&f);
  for (const RequestField& f : request::machine_fields()) rows.push_back(&f);
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    for (const RequestField& f : engine->fields()) rows.push_back(&f);
  }
  return rows;
}

const RequestField* find_request_field(std::string_view json_name) {
  for (const RequestField* f : request_fields()) {
    if (f->name == json_name) return f;
  }
  return nullptr;
}

std::vector<const RequestField*> engine_request_fields(std::string_view engine) {
  std::vector<const RequestField*> rows;
  for (const RequestField* f : request_fields()) {
    if (f->engine == engine) rows.push_back(f);
  }
  return rows;
}

Status apply_request_field(const RequestField& field, EstimateRequest& request, std::string_view text) {
  auto named = [&field](const Error& e) {
    return e.kind() == ErrorKind::kUsage && e.field().empty() ? Error::usage(field.name, e.message()) : e;
  };
  // A count's range and suffixes are the row's: apply() gets the number.
  std::string count_text;
  if (field.type == FieldType::kCount) {
    Result<uint64_t> n = request::parse_field_count(field, text);
    if (!n) return named(n.error());
    count_text = std::to_string(*n);
    text = count_text;
  }
  if (field.type == FieldType::kFlag) {
    if (Result<bool> on = request::parse_switch(text); !on) return named(on.error());
  }
  if (Status applied = field.apply(request, text); !applied) return named(applied.error());
  return Status::Ok();
}

std::string_view first_field_given(const EstimateRequest& request, std::string_view engine) {
  for (const RequestField* f : engine_request_fields(engine)) {
    if (f->given(request)) return f->name;
  }
  return "";
}

Error field_of_other_engine(const RequestField& field) {
  if (const EngineProfile* engine = EngineRegistry::instance().find(field.engine)) {
    return EngineRegistry::field_of_other_engine(field.name, *engine);
  }
  return Error::usage(field.name, fmt::format("is a {} setting: give engine {}", field.engine, field.engine));
}

std::string field_names_text(std::string_view engine) {
  const std::vector<const RequestField*> rows = engine_request_fields(engine);
  std::string text;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) text += i + 1 == rows.size() ? " and " : ", ";
    text += rows[i]->name;
  }
  return text;
}

std::vector<std::string_view> field_spellings(const RequestField& field) {
  return request::split_text(field.flags, ',');
}

bool is_runtime_short_flag(std::string_view spelling) {
  return spelling.size() > 2 && spelling[0] == '-' && spelling[1] != '-';
}

std::string field_flag(const RequestField& field) {
  std::string dashed = "--";
  for (char c : field.name) dashed.push_back(c == '_' ? '-' : c);
  std::string_view first_long;
  for (std::string_view spelling : field_spellings(field)) {
    if (spelling == dashed) return dashed;
    if (first_long.empty() && spelling.starts_with("--")) first_long = spelling;
  }
  return first_long.empty() ? dashed : std::string(first_long);
}

}  // namespace memfit
