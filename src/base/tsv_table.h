// Reading the project's tab-separated data tables (data/hardware/*.tsv,
// data/speed/*.tsv): the header names the columns, rows are read by column
// name, numbers are plain decimals.
//
// Format: UTF-8 text, one row a line ('\n', a '\r' before it ignored), the
// fields separated by tabs, no quoting (a field holds no tab). The first
// line names the columns; a reader finds its columns by name, so a column
// may move or be added without a code change, and every line has as many
// fields as the header. An empty line ends nothing and is skipped.
// Numbers are decimal, digits with at most one '.', no sign, no exponent.
#ifndef MEMFIT_BASE_TSV_TABLE_H_
#define MEMFIT_BASE_TSV_TABLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"

namespace memfit {

// One table: its columns by name and its rows' fields. The views point into
// the text read_tsv was given, which must outlive the table.
struct TsvTable {
  std::string file;  // the name errors give: "gpus.tsv"
  std::map<std::string, size_t, std::less<>> columns;
  std::vector<std::vector<std::string_view>> rows;
  std::vector<size_t> lines;  // each row's line number (1-based)
};

// kInput naming the file and the line when a row's field count differs
// from the header's, or the text has no header line.
Result<TsvTable> read_tsv(std::string file, std::string_view text);

// Reads one row's fields by column name; the first failure is kept and the
// readers go on returning empty text or 0, so a row reads in one pass and
// is checked once (error()).
class TsvRowReader {
 public:
  TsvRowReader(const TsvTable& table, size_t row) : table_(table), row_(row) {}

  std::string_view text(std::string_view column);
  // A decimal with up to six decimals, in millionths; empty is 0. Whole
  // parts of 10^12 or more are refused (no overflow).
  uint64_t millionths(std::string_view column);
  uint64_t whole(std::string_view column);
  double number(std::string_view column) { return static_cast<double>(millionths(column)) / 1e6; }

  // Records "<file>: line N: <column>: '<value>' is not <expected>".
  void bad(std::string_view column, std::string_view value, std::string_view expected);
  const std::optional<Error>& error() const { return error_; }

 private:
  void fail(std::string message);
  const TsvTable& table_;
  size_t row_;
  std::optional<Error> error_;
};

}  // namespace memfit

#endif  // MEMFIT_BASE_TSV_TABLE_H_
