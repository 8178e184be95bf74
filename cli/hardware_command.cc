// memfit hardware: the hardware table that --gpu and --mac read
// (docs/hardware.md), with each row's sources.
//
//   memfit hardware [--json]
//
// Exit 0 with the table on stdout; 1 when the embedded table does not
// parse (a build that shipped a broken data/hardware/ file).
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/hardware.h"

namespace memfit::cli {
namespace {

int run_hardware(bool json) {
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return report_error(table.error(), "hardware");
  const std::string out =
      json ? hardware_to_json(**table).dump(2) + "\n" : render_hardware_text(**table);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_hardware_command(CLI::App& app, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "hardware",
      "the GPUs and Macs --gpu and --mac name: memory as the driver reports it, sources");
  command->add_flag("--json", *json, "print one JSON object on stdout");
  command->callback([json, &exit_code] { exit_code = run_hardware(*json); });
}

}  // namespace memfit::cli
