// The logs under tests/data/logs/ (their sidecars beside them) for the
// tests of src/logs: a log's text by engine folder and slug.
#ifndef MEMFIT_TESTS_LOGS_LOG_TEST_DATA_H_
#define MEMFIT_TESTS_LOGS_LOG_TEST_DATA_H_

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "memfit/runtime_log.h"
#include "support/paths.h"

namespace memfit::testing {

inline std::string logs_dir() { return std::string(MEMFIT_TEST_DATA_DIR) + "/logs"; }

// tests/data/logs/<engine>/<slug>.log (or any file name given whole).
inline std::string read_test_log(const std::string& engine, const std::string& file) {
  std::ifstream in(logs_dir() + "/" + engine + "/" + file, std::ios::binary);
  EXPECT_TRUE(in.good()) << engine << "/" << file;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The figure of `device` and `figure`; nullptr (and a failure) when absent.
inline const PrintedFigure* find_figure(const RuntimeLog& log, std::string_view device,
                                        LogFigure figure) {
  for (const PrintedFigure& f : log.figures) {
    if (f.device == device && f.figure == figure) return &f;
  }
  ADD_FAILURE() << "no " << to_string(figure) << " on " << device;
  return nullptr;
}

inline std::string setting_of(const RuntimeLog& log, std::string_view name) {
  const LogSetting* s = log.setting(name);
  return s == nullptr ? "<none>" : s->value;
}

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_LOGS_LOG_TEST_DATA_H_
