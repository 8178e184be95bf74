#include "support/paths.h"
#include "support/run_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace memfit::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env) {
  char out_path[] = "/tmp/memfit-test-out-XXXXXX";
  char err_path[] = "/tmp/memfit-test-err-XXXXXX";
  int out_fd = mkstemp(out_path);
  int err_fd = mkstemp(err_path);

  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [k, v] : env) vars[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  CommandResult result;
  if (posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data()) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  close(out_fd);
  close(err_fd);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  return result;
}

CommandResult run_memfit(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {MEMFIT_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, env);
}

CommandResult check_report_schema(const std::string& report_path) {
  return run_command({"/usr/bin/env", "python3", "-c",
                      "import json, sys, jsonschema\n"
                      "schema = json.load(open(sys.argv[1]))\n"
                      "jsonschema.Draft202012Validator.check_schema(schema)\n"
                      "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
                      " cls=jsonschema.Draft202012Validator)\n",
                      std::string(MEMFIT_SOURCE_DIR) + "/schema/inspect-report.schema.json",
                      report_path});
}

}  // namespace memfit::testing
