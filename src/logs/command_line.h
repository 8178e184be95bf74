// A runtime's command line as a log (or the caller, LogCheckOptions::
// command) shows it: "vllm serve M --tensor-parallel-size 2", "llama-server
// -m M -c 32768 -ngl 99 -fa". Private to src/logs.
#ifndef MEMFIT_LOGS_COMMAND_LINE_H_
#define MEMFIT_LOGS_COMMAND_LINE_H_

#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "logs/log_builder.h"

namespace memfit::logs {

// The value of the first of `names` given in `command`, as "--name value"
// or "--name=value" (quotes around the value dropped); nullopt when none
// is given or it has no value.
std::optional<std::string_view> flag_value(std::string_view command,
                                           std::initializer_list<std::string_view> names);
// Every value of `names` in `command`, in the order given: a flag that may
// repeat (llama.cpp's -ot). Empty when none is given with a value.
std::vector<std::string_view> flag_values(std::string_view command,
                                          std::initializer_list<std::string_view> names);
// Whether any of `names` is given as a word of `command`.
bool flag_given(std::string_view command, std::initializer_list<std::string_view> names);
// Whether a switch is on: given, and not given a value that turns it off
// (llama-bench takes "--embeddings 0", "-nkvo 0": 0, false, off, no).
bool switch_on(std::string_view command, std::initializer_list<std::string_view> names);

// One setting per flag the table names: {flags..., setting}. A setting the
// log printed is kept (LogBuilder::setting: the first value wins), so a
// command is read after the log's lines.
struct FlagSetting {
  std::initializer_list<std::string_view> flags;
  std::string_view setting;
};
void read_flags(std::string_view command, std::initializer_list<FlagSetting> table, LogBuilder& out);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_COMMAND_LINE_H_
