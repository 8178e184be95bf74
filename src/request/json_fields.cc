// Request bodies are parsed with nlohmann::json after a depth pre-scan (a
// body is already bounded by whoever read it: the service's size limit),
// then read field by field through Fields, which remembers what was read so
// that anything left over can be refused by name.
#include "request/json_fields.h"

#include <fmt/format.h>

#include <limits>
#include <optional>

#include "base/json_nesting.h"
#include "base/json_parse_error.h"
#include "memfit/untrusted_text.h"

namespace memfit::request {
namespace {

constexpr size_t kMaxShownValueBytes = 40;

// What a value of the wrong kind is told: the row's, else its type's.
std::string expectation(const RequestField& f) {
  if (!f.json_expects.empty()) return std::string(f.json_expects);
  if (f.json == JsonForm::kScalar) return "a string, a count or a boolean";
  if (f.json == JsonForm::kInteger) return "an integer";
  switch (f.type) {
    case FieldType::kCount:
      if (f.max != std::numeric_limits<uint64_t>::max()) {
        return fmt::format("an integer from {} to {}", f.min, f.max);
      }
      return f.min == 0 ? "a non-negative integer" : "a positive integer";
    case FieldType::kSize:
      return "a size or bytes";
    case FieldType::kRatio:
      return "a number";
    case FieldType::kFlag:
      return "true or false";
    case FieldType::kList:
      return "a string or an array of strings";
    case FieldType::kChoice:
    case FieldType::kText:
      break;
  }
  return "a string";
}

// The one text of a value of the row's form; nullopt for another kind.
std::optional<std::string> scalar_text(const RequestField& f, const Json& v) {
  const bool scalar = f.json == JsonForm::kScalar;
  const bool integer = f.json == JsonForm::kInteger;
  const bool typed = f.json == JsonForm::kTyped;
  const bool takes_string = scalar || (typed && f.type != FieldType::kCount &&
                                       f.type != FieldType::kRatio && f.type != FieldType::kFlag);
  const bool takes_count = scalar || integer ||
                           (typed && (f.type == FieldType::kCount || f.type == FieldType::kSize));
  if (v.is_string() && takes_string) return v.get<std::string>();
  // A size's integer is bytes: its text says so, since a size's text
  // needs its unit (memory_size.h).
  if (v.is_number_unsigned() && takes_count) {
    return std::to_string(v.get<uint64_t>()) + (f.type == FieldType::kSize ? "B" : "");
  }
  if (v.is_number_integer() && integer) return std::to_string(v.get<int64_t>());
  if (v.is_boolean() && (scalar || (typed && f.type == FieldType::kFlag))) {
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_number() && typed && f.type == FieldType::kRatio) return v.dump();
  return std::nullopt;
}

// A JSON integer >= 0 (parsed text holds one as unsigned; a caller's own
// object may hold it signed); nullopt for anything else.
std::optional<uint64_t> non_negative(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

}  // namespace

Result<Json> parse_object(std::string_view body) {
  if (json_nesting_depth(body, kMaxNesting) > kMaxNesting) {
    return Error::usage(fmt::format("request body nests deeper than {} levels", kMaxNesting));
  }
  Json json;
  try {
    json = Json::parse(body.begin(), body.end());
  } catch (const Json::exception& e) {
    return Error::usage("request body is not valid JSON: " + json_parse_error_text(e));
  }
  if (!json.is_object()) return Error::usage("request body must be a JSON object");
  return json;
}

std::string shown(const Json& value) { return show_untrusted_json(value, kMaxShownValueBytes); }

Error expected(std::string_view key, std::string_view what, const Json& value) {
  return Error::usage(key, fmt::format("expected {}, got {}", what, shown(value)));
}

Result<std::vector<std::string>> field_texts(const RequestField& f, const Json& value) {
  std::vector<std::string> texts;
  if (f.type == FieldType::kList && f.json == JsonForm::kTyped && value.is_array()) {
    for (const Json& item : value) {
      if (!item.is_string()) return expected(f.name, expectation(f), value);
      texts.push_back(item.get<std::string>());
    }
    return texts;
  }
  std::optional<std::string> text = scalar_text(f, value);
  if (!text) return expected(f.name, expectation(f), value);
  // A count's range is checked on the JSON value, so the message shows it
  // as sent ("got 0").
  if (f.type == FieldType::kCount && f.json == JsonForm::kTyped &&
      (value.get<uint64_t>() < f.min || value.get<uint64_t>() > f.max)) {
    return expected(f.name, expectation(f), value);
  }
  texts.push_back(std::move(*text));
  return texts;
}

const Json* Fields::find(std::string_view key) {
  read_.emplace(key);
  auto it = object_.find(std::string(key));
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<std::string>> Fields::string(std::string_view key) {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return expected(key, "a string", *v);
  return std::optional<std::string>(v->get_ref<const std::string&>());
}

Result<std::optional<uint64_t>> Fields::count(std::string_view key, uint64_t min) {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<uint64_t>();
  const char* what = min == 0 ? "a non-negative integer" : "a positive integer";
  const std::optional<uint64_t> n = non_negative(*v);
  if (!n || *n < min) return expected(key, what, *v);
  return n;
}

Result<std::optional<std::vector<uint64_t>>> Fields::counts(std::string_view key, uint64_t min,
                                                            uint64_t max, size_t max_items) {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<std::vector<uint64_t>>();
  const std::string what =
      fmt::format("an array of at most {} integers from {} to {}", max_items, min, max);
  if (!v->is_array() || v->size() > max_items) return expected(key, what, *v);
  std::vector<uint64_t> out;
  for (const Json& element : *v) {
    const std::optional<uint64_t> n = non_negative(element);
    if (!n || *n < min || *n > max) return expected(key, what, element);
    out.push_back(*n);
  }
  return std::optional<std::vector<uint64_t>>(std::move(out));
}

Result<std::optional<bool>> Fields::boolean(std::string_view key) {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<bool>();
  if (!v->is_boolean()) return expected(key, "true or false", *v);
  return std::optional<bool>(v->get<bool>());
}

Status Fields::no_others() const {
  for (const auto& [key, value] : object_.items()) {
    if (read_.count(key) == 0) {
      return Error::usage(fmt::format("unknown field {}", quote_untrusted(key)));
    }
  }
  return Status::Ok();
}

}  // namespace memfit::request
