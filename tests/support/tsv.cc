#include "support/tsv.h"

#include <gtest/gtest.h>

#include <sstream>

#include "support/corpus.h"

namespace memfit::testing {

std::vector<std::vector<std::string>> read_tsv(const std::string& relative, std::size_t columns) {
  std::istringstream in(read_test_data(relative));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::istringstream f(line);
    for (std::string field; std::getline(f, field, '\t');) fields.push_back(field);
    if (line.back() == '\t') fields.emplace_back();  // getline drops a last empty field
    if (fields.size() != columns) {
      ADD_FAILURE() << "tests/data/" << relative << ":" << number << ": " << fields.size()
                    << " fields, not " << columns;
      continue;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

}  // namespace memfit::testing
