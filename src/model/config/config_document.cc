// ConfigDocument (model/config/config_document.h): config.json parsed, with
// Python's bare Infinity/NaN read as null, and its language-model part.
#include "model/config/config_document.h"

#include <fmt/format.h>

#include <cmath>

#include "base/json_nesting.h"
#include "base/json_parse_error.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// Replaces the bare literals Infinity, -Infinity and NaN that Python's
// json writes (outside strings) with null.
std::string replace_non_json_literals(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
      if (text.substr(i, word.size()) == word) {
        out += "null";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

bool has_layer_count(const nlohmann::json& object) {
  if (!object.is_object()) return false;
  for (std::string_view alias : kLayerAliases) {
    auto it = object.find(alias);
    if (it != object.end() && !it->is_null()) return true;
  }
  return false;
}

}  // namespace

Result<uint64_t> json_to_u64(const nlohmann::json& value, std::string_view name) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if (v >= 0) return static_cast<uint64_t>(v);
    return Error(std::string(name) + ": expected a non-negative integer, got " +
                 show_untrusted_json(value));
  }
  if (value.is_number_float()) {
    double v = value.get<double>();
    if (std::isfinite(v) && v >= 0 && v < 1.8e19 && std::floor(v) == v) return static_cast<uint64_t>(v);
  }
  return Error(std::string(name) + ": expected a non-negative integer, got " +
                 show_untrusted_json(value));
}

ConfigDocument& ConfigDocument::operator=(const ConfigDocument& other) {
  if (this == &other) return *this;
  top_ = other.top_;
  text_key_ = other.text_key_;
  takes_family_defaults_ = other.takes_family_defaults_;
  text_ = text_key_.empty() ? &top_ : &top_[text_key_];
  return *this;
}

Result<ConfigDocument> ConfigDocument::parse(std::string_view text) {
  if (json_nesting_depth(text, kMaxConfigNesting) > kMaxConfigNesting) {
    return Error(fmt::format("config nests deeper than {} levels", kMaxConfigNesting));
  }
  ConfigDocument doc;
  // Lines are as written; a column after a replaced literal on its line
  // is off by the literal's length less 4.
  try {
    doc.top_ = nlohmann::json::parse(replace_non_json_literals(text));
  } catch (const nlohmann::json::exception& e) {
    return Error("not valid JSON: " + json_parse_error_text(e));
  }
  if (!doc.top_.is_object()) return Error("expected a JSON object at the top level");
  for (const char* key : {"text_config", "language_config", "llm_config"}) {
    auto it = doc.top_.find(key);
    if (it != doc.top_.end() && has_layer_count(*it)) {
      doc.text_key_ = key;
      doc.text_ = &*it;
      break;
    }
  }
  return doc;
}

Result<ConfigDocument> ConfigDocument::from_json(nlohmann::json top) {
  if (!top.is_object()) return Error("expected a JSON object at the top level");
  ConfigDocument doc;
  doc.top_ = std::move(top);
  doc.takes_family_defaults_ = false;
  return doc;
}

const nlohmann::json* ConfigDocument::find(std::string_view name) const {
  auto it = text_->find(name);
  if (it == text_->end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<uint64_t>> ConfigDocument::u64(
    std::initializer_list<std::string_view> aliases) const {
  for (std::string_view alias : aliases) {
    const nlohmann::json* value = find(alias);
    if (value == nullptr) continue;
    Result<uint64_t> v = json_to_u64(*value, alias);
    if (!v) return v.error();
    return std::optional<uint64_t>(*v);
  }
  return std::optional<uint64_t>();
}

Result<std::optional<uint64_t>> ConfigDocument::u64_or_top(
    std::initializer_list<std::string_view> aliases) const {
  Result<std::optional<uint64_t>> nested = u64(aliases);
  if (!nested || nested->has_value() || text_ == &top_) return nested;
  for (std::string_view alias : aliases) {
    auto it = top_.find(alias);
    if (it == top_.end() || it->is_null()) continue;
    Result<uint64_t> v = json_to_u64(*it, alias);
    if (!v) return v.error();
    return std::optional<uint64_t>(*v);
  }
  return std::optional<uint64_t>();
}

Result<std::optional<bool>> ConfigDocument::boolean(std::string_view name) const {
  const nlohmann::json* value = find(name);
  if (value == nullptr) return std::optional<bool>();
  if (!value->is_boolean()) {
    return Error(std::string(name) + ": expected true or false, got " +
                 show_untrusted_json(*value));
  }
  return std::optional<bool>(value->get<bool>());
}

std::string ConfigDocument::string_field(std::string_view name) const {
  const nlohmann::json* value = find(name);
  if (value == nullptr && text_ != &top_) {
    auto it = top_.find(name);
    if (it != top_.end()) value = &*it;
  }
  if (value == nullptr || !value->is_string()) return "";
  return value->get<std::string>();
}

}  // namespace memfit
