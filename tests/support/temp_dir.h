// TempDir: a fresh directory for one test, removed with everything in it
// when the TempDir is destroyed.
#ifndef MEMFIT_TESTS_SUPPORT_TEMP_DIR_H_
#define MEMFIT_TESTS_SUPPORT_TEMP_DIR_H_

#include <string>
#include <string_view>

namespace memfit {

class TempDir {
 public:
  // Creates <$TMPDIR or /tmp>/memfit-test-XXXXXX. Aborts the test binary
  // when the directory cannot be made (nothing useful can run without it).
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

  // path() + "/" + name; `name` may hold sub-folders ("a/b.json").
  std::string file_path(std::string_view name) const;

  // Writes `bytes` to file_path(name), creating parent folders, replacing
  // any file there; returns the full path.
  std::string write_file(std::string_view name, std::string_view bytes) const;

  // Creates the folder file_path(name) and its parents; returns its path.
  std::string make_dir(std::string_view name) const;

 private:
  std::string path_;
};

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_TEMP_DIR_H_
