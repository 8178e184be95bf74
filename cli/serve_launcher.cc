// `memfit serve ARGS` becomes `memfit-serve serve ARGS`, run in place of
// this process (same PID, so signals and exit status reach the service
// directly). memfit-serve is looked up beside this executable, then on PATH.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

#include "commands.h"

namespace memfit::cli {
namespace {

constexpr const char* kServeProgram = "memfit-serve";

// The folder holding this executable, with a trailing '/'; "" when the
// platform cannot say.
std::string own_folder() {
  std::string path;
#if defined(__linux__)
  std::vector<char> buffer(4096);
  const ssize_t length = readlink("/proc/self/exe", buffer.data(), buffer.size());
  if (length > 0 && static_cast<size_t>(length) < buffer.size()) path.assign(buffer.data(), length);
#elif defined(__APPLE__)
  uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::vector<char> buffer(size + 1);
  if (_NSGetExecutablePath(buffer.data(), &size) == 0) path = buffer.data();
#endif
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Returns only when the service could not be started.
int exec_serve(const std::vector<std::string>& args) {
  std::vector<std::string> argv_storage = {kServeProgram, "serve"};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::fflush(nullptr);
  const std::string beside = own_folder() + kServeProgram;
  if (beside.size() > std::strlen(kServeProgram)) execv(beside.c_str(), argv.data());
  execvp(kServeProgram, argv.data());
  std::fprintf(stderr, "memfit: serve: cannot run %s (looked beside memfit, then on PATH): %s\n",
               kServeProgram, std::strerror(errno));
  return kExitError;
}

}  // namespace

void add_serve_launcher(CLI::App& app, int& exit_code) {
  CLI::App* command = app.add_subcommand(
      "serve", "serve estimates and prefill admission over HTTP, with Prometheus /metrics "
               "and a calculator page (memfit serve --help lists its options)");
  // Every argument, --help included, belongs to memfit-serve.
  command->set_help_flag();
  command->prefix_command();
  command->callback([command, &exit_code] { exit_code = exec_serve(command->remaining()); });
}

}  // namespace memfit::cli
