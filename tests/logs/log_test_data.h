// The logs under tests/data/logs/ (their sidecars beside them) for the
// tests of src/logs: a log's text by engine folder and slug.
#ifndef MEMFIT_TESTS_LOGS_LOG_TEST_DATA_H_
#define MEMFIT_TESTS_LOGS_LOG_TEST_DATA_H_

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "memfit/log_check.h"
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

// check_log on tests/data/logs/<engine>/<file> with `options`; an empty
// check (and a failure) when it fails.
inline LogCheck check_test_log(const std::string& engine, const std::string& file,
                               const LogCheckOptions& options = {}) {
  Result<LogCheck> c = check_log(read_test_log(engine, file), options, nullptr);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
  return c.ok() ? std::move(*c) : LogCheck{};
}

// check_log on `text` (a corpus log, or one edited from it) with the
// config.json beside tests/data/logs/<engine>/<slug>.log; an empty check
// (and a failure) when it fails.
inline LogCheck check_with_its_config(const std::string& engine, const std::string& slug,
                                      const std::string& text) {
  LogCheckOptions options;
  options.config_json = read_test_log(engine, slug + ".config.json");
  Result<LogCheck> c = check_log(text, options, nullptr);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
  return c.ok() ? std::move(*c) : LogCheck{};
}

// The check's row of `device` and `figure`; nullptr (and a failure) when
// absent.
inline const FigureCheck* find_check_figure(const LogCheck& c, std::string_view device, LogFigure f) {
  for (const FigureCheck& x : c.figures) {
    if (x.printed.device == device && x.printed.figure == f) return &x;
  }
  ADD_FAILURE() << "no " << to_string(f) << " on " << device;
  return nullptr;
}

// memfit's peak in an mlx-lm check; 0 (and a failure) when none is priced.
inline uint64_t priced_peak(const LogCheck& c) {
  for (const FigureCheck& f : c.figures) {
    if (f.printed.figure == LogFigure::kPeak) return f.memfit.value_or(0);
  }
  ADD_FAILURE() << "no peak priced: " << c.not_priced;
  return 0;
}

// Whether one of the log's notes holds `text`.
inline bool has_log_note(const LogCheck& c, std::string_view text) {
  for (const std::string& n : c.log.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
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
