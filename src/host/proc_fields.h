// Field lookup in the kernel's text files.
//
//   /proc/meminfo, /proc/self/status   "Name:" spaces "<decimal> kB" per line
//                                      (kB is KiB); a few status lines carry
//                                      no unit and are not byte counts.
//   memory.stat (cgroup v1 and v2)     "name <decimal>" per line, in bytes.
//   memory.max, memory.current, ...    one "<decimal>" (or "max") and '\n'.
#ifndef MEMFIT_SRC_HOST_PROC_FIELDS_H_
#define MEMFIT_SRC_HOST_PROC_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "memfit/result.h"

namespace memfit::host {

// A whole-token unsigned decimal; nullopt for anything else (sign, space,
// trailing garbage, overflow).
std::optional<uint64_t> parse_decimal(std::string_view token);

// Strips spaces, tabs and line ends at both ends.
std::string_view trim_space(std::string_view text);

// The named "Name: N kB" field in bytes (N x 1024). nullopt when no line
// has that name; an Error naming the line when the value is not "N kB" or
// the bytes overflow.
Result<std::optional<uint64_t>> find_kib_field(std::string_view text, std::string_view name);

// The named "name N" field of a memory.stat file. nullopt when absent; an
// Error when the value is not a decimal.
Result<std::optional<uint64_t>> find_stat_field(std::string_view text, std::string_view name);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_PROC_FIELDS_H_
