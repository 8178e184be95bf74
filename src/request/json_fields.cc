// Request bodies are parsed with nlohmann::json after a depth pre-scan (a
// body is already bounded by whoever read it: the service's size limit),
// then read field by field through Fields, which remembers what was read so
// that anything left over can be refused by name.
#include "request/json_fields.h"

#include <algorithm>

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit::request {
namespace {

constexpr size_t kMaxShownValueBytes = 40;

// The deepest nesting of arrays and objects in `body`, counting brackets
// outside strings; stops early once past `limit`.
int nesting_depth(std::string_view body, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : body) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Result<Json> parse_object(std::string_view body) {
  if (nesting_depth(body, kMaxNesting) > kMaxNesting) {
    return Error::usage(fmt::format("request body nests deeper than {} levels", kMaxNesting));
  }
  Json json;
  try {
    json = Json::parse(body.begin(), body.end());
  } catch (const Json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at ...", or
    // out_of_range.406 for a number past a double ("1e999"); the lexer
    // shows control characters of the input as <U+000A>.
    std::string_view what = e.what();
    if (size_t end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
    return Error::usage(fmt::format("request body is not valid JSON: {}", what));
  }
  if (!json.is_object()) return Error::usage("request body must be a JSON object");
  return json;
}

std::string shown(const Json& value) {
  // dump() escapes control characters below 0x20 inside strings; DEL is
  // escaped here so that nothing unprintable reaches a message.
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > kMaxShownValueBytes) {
    size_t keep = kMaxShownValueBytes;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;
    text = text.substr(0, keep) + "...";
  }
  std::string out;
  for (char c : text) {
    if (c == '\x7f') {
      out += "\\u007f";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Error expected(std::string_view key, std::string_view what, const Json& value) {
  return Error::usage(key, fmt::format("expected {}, got {}", what, shown(value)));
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
  if (!v->is_number_unsigned()) return expected(key, what, *v);
  const uint64_t n = v->get<uint64_t>();
  if (n < min) return expected(key, what, *v);
  return std::optional<uint64_t>(n);
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
