// llama.cpp logs printed under a decimal-comma locale ("13486,77 MiB").
// llama.cpp formats its figures with printf ("%8.2f MiB" in the buffer
// lines, llama-model.cpp / llama-context.cpp / llama-kv-cache.cpp), and
// printf's %f writes the LC_NUMERIC decimal-point character (C11 7.21.6.1,
// 7.11.1.1); none of its formats asks for grouping (the ' flag), so in a
// llama.cpp line a comma between two digits can only be that decimal point.
// Private to src/logs.
#ifndef MEMFIT_LOGS_DECIMAL_COMMA_H_
#define MEMFIT_LOGS_DECIMAL_COMMA_H_

#include <span>
#include <string>
#include <string_view>

#include <optional>

#include "logs/log_text.h"

namespace memfit::logs {

// True when a buffer line of `lines` ("... buffer size = N MiB") prints its
// figure with a comma and no point: "13486,77 MiB".
bool prints_decimal_comma(std::span<const LogLine> lines);

// `text` with every comma between two digits made a point when the digits
// before it start a word (a number: "112,00 MiB" -> "112.00 MiB"); every
// other character kept ("arr[i32,152064]", "K (f16):  112,00 MiB, V").
std::string with_decimal_points(std::string_view text);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_DECIMAL_COMMA_H_
