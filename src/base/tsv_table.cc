// The data tables' reader (base/tsv_table.h).
#include "base/tsv_table.h"

#include <fmt/format.h>

#include "base/split_fields.h"
#include "memfit/untrusted_text.h"

namespace memfit {

Result<TsvTable> read_tsv(std::string file, std::string_view text) {
  TsvTable tsv;
  tsv.file = std::move(file);
  size_t line_number = 0;
  size_t width = 0;
  for (std::string_view line : split_fields(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<std::string_view> fields = split_fields(line, '\t');
    if (width == 0) {
      width = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) tsv.columns.emplace(std::string(fields[i]), i);
      continue;
    }
    if (fields.size() != width) {
      return Error(fmt::format("{}: line {}: {} fields, the header has {}", tsv.file, line_number,
                               fields.size(), width));
    }
    tsv.rows.push_back(std::move(fields));
    tsv.lines.push_back(line_number);
  }
  if (width == 0) return Error(tsv.file + ": no header line");
  return tsv;
}

std::string_view TsvRowReader::text(std::string_view column) {
  auto it = table_.columns.find(column);
  if (it == table_.columns.end()) {
    fail(fmt::format("{}: no column {}", table_.file, column));
    return {};
  }
  return table_.rows[row_][it->second];
}

uint64_t TsvRowReader::millionths(std::string_view column) {
  const std::string_view t = text(column);
  uint64_t whole = 0, fraction = 0, digits = 0;
  bool point = false, ok = true;
  for (char c : t) {
    if (c == '.' && !point) {
      point = true;
    } else if (c >= '0' && c <= '9' && !point &&
               whole < 1'000'000'000'000ull) {  // < 10^12: no overflow
      whole = whole * 10 + static_cast<uint64_t>(c - '0');
    } else if (c >= '0' && c <= '9' && point && digits < 6) {
      fraction = fraction * 10 + static_cast<uint64_t>(c - '0');
      ++digits;
    } else {
      ok = false;
    }
  }
  if (!ok || (point && digits == 0)) bad(column, t, "a decimal number");
  for (; digits < 6; ++digits) fraction *= 10;
  return whole * 1'000'000 + fraction;
}

uint64_t TsvRowReader::whole(std::string_view column) {
  const uint64_t m = millionths(column);
  if (m % 1'000'000 != 0) bad(column, text(column), "a whole number");
  return m / 1'000'000;
}

void TsvRowReader::bad(std::string_view column, std::string_view value,
                       std::string_view expected) {
  fail(fmt::format("{}: line {}: {}: {} is not {}", table_.file, table_.lines[row_], column,
                   quote_untrusted(value), expected));
}

void TsvRowReader::fail(std::string message) {
  if (!error_) error_ = Error(std::move(message));
}

}  // namespace memfit
