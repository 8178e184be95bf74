// Runs a program as a whole process, for tests of the memfit command.
#ifndef MEMFIT_TESTS_SUPPORT_RUN_COMMAND_H_
#define MEMFIT_TESTS_SUPPORT_RUN_COMMAND_H_

#include <map>
#include <string>
#include <vector>

namespace memfit::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `argv` (argv[0] a path) with the environment of this process plus
// `env` set, capturing both streams. No shell is involved.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {});

// run_command with the memfit binary built beside the tests as argv[0].
CommandResult run_memfit(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env = {});

// Checks schema/inspect-report.schema.json as a Draft 2020-12 schema, then
// the JSON file at `report_path` against it, with python3's jsonschema:
// exit code 0 when both hold, the validator's message on stderr otherwise.
CommandResult check_report_schema(const std::string& report_path);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_RUN_COMMAND_H_
