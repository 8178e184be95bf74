// The docs' flags tables, the request schema and sample values, each made
// from the request field table's rows alone.
#include "support/field_docs.h"

#include <fmt/format.h>

#include <limits>
#include <optional>

namespace memfit::testing {
namespace {

constexpr std::string_view kGenerated =
    "(generated from the request field table: scripts/gen-field-docs.py)";

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return parts;
}

// A table cell: "|" escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code_list(const std::vector<std::string_view>& items) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ", ";
    out += fmt::format("`{}`", item);
  }
  return out;
}

// What a value is, as the docs say it.
std::string value_text(const RequestField& f) {
  std::string text;
  const bool bounded = f.max != std::numeric_limits<uint64_t>::max();
  switch (f.type) {
    case FieldType::kCount:
      text = bounded ? fmt::format("integer {} to {}", f.min, f.max) : fmt::format("integer ≥ {}", f.min);
      break;
    case FieldType::kSize:
      text = "size (`48GiB`) or integer bytes";
      break;
    case FieldType::kRatio:
      text = "number";
      break;
    case FieldType::kFlag:
      text = "switch (`true`, `false`)";
      break;
    case FieldType::kChoice:
      text = code_list(split(f.choices, '|'));
      break;
    case FieldType::kText:
      text = f.json == JsonForm::kInteger ? "integer" : "string";
      break;
    case FieldType::kList:
      text = "string or array of strings (repeatable flag)";
      break;
  }
  if (!f.unit.empty() && f.type != FieldType::kSize) text += fmt::format(", {}", f.unit);
  if (f.required) text += ", required";
  return text;
}

std::string open_marker(std::string_view engine) {
  return fmt::format("<!-- fields:{} {} -->\n", engine, kGenerated);
}

std::string close_marker(std::string_view engine) { return fmt::format("<!-- /fields:{} -->\n", engine); }

// The property of one field: its JSON kinds (null is absent), its range.
nlohmann::ordered_json property(const RequestField& f) {
  nlohmann::ordered_json p;
  const std::string help = f.engine.empty() ? std::string(f.help) : fmt::format("{}: {}", f.engine, f.help);
  p["description"] = help;
  if (!f.engine.empty()) p["x-memfit-engine"] = f.engine;
  if (f.json == JsonForm::kScalar) {
    p["type"] = {"string", "integer", "boolean", "null"};
  } else if (f.json == JsonForm::kInteger) {
    p["type"] = {"integer", "null"};
  } else if (f.type == FieldType::kCount) {
    p["type"] = {"integer", "null"};
    p["minimum"] = f.min;
    if (f.max != std::numeric_limits<uint64_t>::max()) p["maximum"] = f.max;
  } else if (f.type == FieldType::kSize) {
    p["type"] = {"integer", "string", "null"};
  } else if (f.type == FieldType::kRatio) {
    p["type"] = {"number", "null"};
  } else if (f.type == FieldType::kFlag) {
    p["type"] = {"boolean", "null"};
  } else if (f.type == FieldType::kList) {
    p["type"] = {"string", "array", "null"};
    p["items"] = {{"type", "string"}};
  } else {
    p["type"] = {"string", "null"};
  }
  if (f.type == FieldType::kChoice) {
    nlohmann::ordered_json choices = nlohmann::ordered_json::array();
    for (std::string_view choice : split(f.choices, '|')) choices.push_back(choice);
    p["examples"] = std::move(choices);
  } else if (!f.example.empty()) {
    p["examples"] = {f.example};
  }
  if (!f.default_text.empty()) p["default"] = f.default_text;
  return p;
}

// The text between the line `open` and the line `close` after it.
std::optional<std::string> text_between(std::string_view document, std::string_view open,
                                        std::string_view close) {
  const size_t begin = document.find(open);
  if (begin == std::string_view::npos) return std::nullopt;
  const size_t end = document.find(close, begin + open.size());
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(document.substr(begin + open.size(), end - begin - open.size()));
}

std::optional<std::string> with_text_between(std::string_view document, std::string_view open,
                                             std::string_view close, std::string_view text) {
  const size_t begin = document.find(open);
  if (begin == std::string_view::npos) return std::nullopt;
  const size_t end = document.find(close, begin + open.size());
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(document.substr(0, begin + open.size())) + std::string(text) +
         std::string(document.substr(end));
}

// `text` cut into lines of at most 79 columns at spaces, the first indented
// by `first`, the others by `rest`.
std::string wrapped(const std::string& text, size_t first, size_t rest) {
  constexpr size_t kWidth = 79;
  std::string out;
  std::string line(first, ' ');
  size_t indent = first;
  for (std::string_view word : split(text, ' ')) {
    if (line.size() > indent && line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      indent = rest;
      line = std::string(rest, ' ');
    }
    if (line.size() > indent) line += ' ';
    line += word;
  }
  return out + line + "\n";
}

// What Python passes for the field (estimate()'s keyword), its range, unit
// and default: "int >= 1, tokens, default 8192".
std::string python_value_text(const RequestField& f) {
  std::string text;
  if (f.json == JsonForm::kScalar) {
    text = "str, int or bool";
  } else if (f.json == JsonForm::kInteger) {
    text = "int";
  } else {
    switch (f.type) {
      case FieldType::kCount:
        text = f.max != std::numeric_limits<uint64_t>::max() ? fmt::format("int {} to {}", f.min, f.max)
                                                             : fmt::format("int >= {}", f.min);
        break;
      case FieldType::kSize:
        text = "int bytes or str such as '48GiB'";
        break;
      case FieldType::kRatio:
        text = "float";
        break;
      case FieldType::kFlag:
        text = "bool";
        break;
      case FieldType::kChoice: {
        const std::vector<std::string_view> choices = split(f.choices, '|');
        text = "str: ";
        for (size_t i = 0; i < choices.size(); ++i) {
          if (i > 0) text += i + 1 == choices.size() ? " or " : ", ";
          text += choices[i];
        }
        break;
      }
      case FieldType::kText:
        text = "str";
        break;
      case FieldType::kList:
        text = "str or list of str";
        break;
    }
  }
  if (!f.unit.empty() && f.type != FieldType::kSize) text += fmt::format(", {}", f.unit);
  if (f.required) text += ", required";
  if (!f.default_text.empty()) text += fmt::format(", default {}", f.default_text);
  return text;
}

}  // namespace

std::vector<FieldDocsBlock> field_docs_blocks() {
  return {{"docs/service.md", "common"},
          {"docs/engine-llamacpp.md", "llamacpp"},
          {"docs/engine-mlxlm.md", "mlx-lm"},
          {"docs/engine-vllm.md", "vllm"},
          {"docs/engine-sglang.md", "sglang"},
          {"docs/engine-ollama.md", "ollama"}};
}

std::string render_field_table(const std::vector<const RequestField*>& rows) {
  std::string out = "| flag | field | value | default | meaning |\n|---|---|---|---|---|\n";
  for (const RequestField* f : rows) {
    std::vector<std::string_view> spellings = split(f->flags, ',');
    out += fmt::format("| {} | `{}` | {} | {} | {} |\n", cell(code_list(spellings)), f->name,
                       cell(value_text(*f)), f->default_text.empty() ? "" : fmt::format("`{}`", f->default_text),
                       cell(f->doc.empty() ? f->help : f->doc));
  }
  return out;
}

std::optional<std::string> docs_block_text(std::string_view document, std::string_view engine) {
  return text_between(document, open_marker(engine), close_marker(engine));
}

std::optional<std::string> with_docs_block(std::string_view document, std::string_view engine,
                                           std::string_view table) {
  return with_text_between(document, open_marker(engine), close_marker(engine), table);
}

std::string render_python_field_list(const std::vector<const RequestField*>& rows) {
  std::string out = "\n";
  std::optional<std::string_view> engine;
  for (const RequestField* f : rows) {
    if (engine != f->engine) {
      engine = f->engine;
      out += f->engine.empty() ? std::string("Read by every engine:\n")
                               : fmt::format("{}'s own, refused under another engine:\n", f->engine);
    }
    std::vector<std::string_view> flags = split(f->flags, ',');
    std::string flag_list;
    for (std::string_view flag : flags) flag_list += (flag_list.empty() ? "" : ", ") + std::string(flag);
    out += wrapped(fmt::format("{} ({}; {})", f->name, python_value_text(*f), flag_list), 2, 4);
    out += wrapped(std::string(f->help), 6, 6);
  }
  return out;
}

std::optional<std::string> python_list_text(std::string_view document) {
  return text_between(document, kPythonListOpen, kPythonListClose);
}

std::optional<std::string> with_python_list(std::string_view document, std::string_view list) {
  return with_text_between(document, kPythonListOpen, kPythonListClose, list);
}

nlohmann::ordered_json render_request_schema() {
  nlohmann::ordered_json properties = nlohmann::ordered_json::object();
  nlohmann::ordered_json required = nlohmann::ordered_json::array();
  for (const RequestField* f : request_fields()) {
    properties[std::string(f->name)] = property(*f);
    if (f->required) required.push_back(f->name);
  }
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"$id", "https://memfit.invalid/schema/estimate-request.schema.json"},
          {"title", "memfit estimate request"},
          {"description",
           "The JSON request of POST /v1/estimate, memfit_estimate_request_json (C API) and the "
           "Python module's estimate() (include/memfit/request_json.h). Generated from the request "
           "field table (include/memfit/request_field.h) by scripts/gen-field-docs.py; "
           "tests/request/field_table_test.cc fails when they disagree. null means absent; an "
           "unknown field is refused; a field an engine owns (x-memfit-engine) is refused under "
           "another engine."},
          {"type", "object"},
          {"required", std::move(required)},
          {"additionalProperties", false},
          {"properties", std::move(properties)}};
}

nlohmann::json sample_value(const RequestField& f) {
  if (f.json == JsonForm::kInteger && !f.example.empty()) return std::stoll(std::string(f.example));
  switch (f.type) {
    case FieldType::kCount:
      return f.example.empty() ? f.min + 3 : std::stoull(std::string(f.example));
    case FieldType::kSize:
      return f.example.empty() ? "1GiB" : std::string(f.example);
    case FieldType::kRatio:
      return 0.5;
    case FieldType::kFlag:
      return true;
    case FieldType::kChoice:
      for (std::string_view choice : split(f.choices, '|')) {
        if (choice != f.default_text) return std::string(choice);
      }
      return std::string(f.choices);
    case FieldType::kText:
      return std::string(f.example);
    case FieldType::kList:
      return nlohmann::json::array({std::string(f.example)});
  }
  return nullptr;
}

}  // namespace memfit::testing
