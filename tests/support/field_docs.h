// What the request field table (include/memfit/request_field.h) says in
// the docs and the schema: the flags tables between markers in docs/*.md,
// schema/estimate-request.schema.json, and a sample value per field.
// tests/request/field_table_test.cc checks the files against these, and
// rewrites them with MEMFIT_UPDATE_FIELD_DOCS=1 (scripts/gen-field-docs.py).
#ifndef MEMFIT_TESTS_SUPPORT_FIELD_DOCS_H_
#define MEMFIT_TESTS_SUPPORT_FIELD_DOCS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/request_field.h"

namespace memfit::testing {

// A docs block: the table of `engine`'s own fields ("common": the common
// ones) in `file` (relative to the source tree), between the lines
//   <!-- fields:ENGINE (generated from the request field table: scripts/gen-field-docs.py) -->
//   <!-- /fields:ENGINE -->
struct FieldDocsBlock {
  std::string file;
  std::string engine;
};
// The four: docs/service.md (common), docs/engine-llamacpp.md,
// docs/engine-mlxlm.md, docs/engine-vllm.md.
std::vector<FieldDocsBlock> field_docs_blocks();

// The markdown table of `rows`: | flag | field | value | default | meaning |.
std::string render_field_table(const std::vector<const RequestField*>& rows);
// The text between a block's two marker lines in `document` (the table
// with its newline); nullopt when the markers are not there.
std::optional<std::string> docs_block_text(std::string_view document, std::string_view engine);
// `document` with that text replaced; nullopt when the markers are not there.
std::optional<std::string> with_docs_block(std::string_view document, std::string_view engine,
                                           std::string_view table);

// The Python module's docstring (python/memfit/__init__.py): every field,
// its Python value (what estimate() takes as a keyword), range, default and
// `python3 -m memfit inspect` flags, and its help, grouped by engine,
// between the lines kPythonListOpen and kPythonListClose.
inline constexpr std::string_view kPythonModule = "python/memfit/__init__.py";
inline constexpr std::string_view kPythonListOpen =
    "Request fields (generated from the request field table: scripts/gen-field-docs.py):\n";
inline constexpr std::string_view kPythonListClose = "(end of the generated field list)\n";
std::string render_python_field_list(const std::vector<const RequestField*>& rows);
// The text between the two lines in `document`, and `document` with it
// replaced; nullopt when the lines are not there.
std::optional<std::string> python_list_text(std::string_view document);
std::optional<std::string> with_python_list(std::string_view document, std::string_view list);

// schema/estimate-request.schema.json as the table makes it.
nlohmann::ordered_json render_request_schema();

// A JSON value the field takes, other than what it reads when absent: its
// example, else a choice other than the default, else one its type makes
// (a count of min + 3, true, 0.5, "1GiB").
nlohmann::json sample_value(const RequestField& field);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_FIELD_DOCS_H_
