// memfit hardware: the hardware table that --gpu and --mac read
// (docs/hardware.md), with each row's sources.
//
//   memfit hardware [--json]
//   memfit hardware --measure [--json]
//
// Exit 0 with the table on stdout; 1 when the embedded table does not
// parse (a build that shipped a broken data/hardware/ file). --measure
// prints this host's measured memory read bandwidth instead
// (memfit/memory_bandwidth.h); 1 when it cannot be measured.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/hardware.h"
#include "memfit/memory_bandwidth.h"

namespace memfit::cli {
namespace {

// {"host": {"read_bandwidth_gb_s", "buffer_bytes", "passes", "threads",
// "seconds"}} or one line of text.
int run_measure(bool json) {
  Result<BandwidthMeasurement> m = measure_host_bandwidth();
  if (!m) return report_error(m.error(), "hardware --measure");
  std::string out;
  if (json) {
    const nlohmann::ordered_json host = {{"read_bandwidth_gb_s", m->gb_per_s},
                                         {"buffer_bytes", m->buffer_bytes},
                                         {"passes", m->passes},
                                         {"threads", m->threads},
                                         {"seconds", m->seconds}};
    out = nlohmann::ordered_json{{"host", host}}.dump(2) + "\n";
  } else {
    out = fmt::format(
        "host memory read bandwidth: {:.1f} GB/s ({} MiB read {} times by {} threads in {:.3f} "
        "s)\nprice this host's CPU layers with it: --host-bandwidth {:.1f}\n",
        m->gb_per_s, m->buffer_bytes >> 20, m->passes, m->threads, m->seconds, m->gb_per_s);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

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
  auto measure = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "hardware",
      "the GPUs and Macs --gpu and --mac name: memory as the driver reports it, sources");
  command->add_flag("--json", *json, "print one JSON object on stdout");
  command->add_flag("--measure", *measure,
                    "measure this host's memory read bandwidth (512 MiB read 4 times)");
  command->callback([json, measure, &exit_code] {
    exit_code = *measure ? run_measure(*json) : run_hardware(*json);
  });
}

}  // namespace memfit::cli
