// The request fields that describe the machine priced (request.h:
// MachineRequest; docs/hardware.md): --gpu and --mac, read by every engine.
// Each row keeps the names as given; prepare() looks them up in the
// hardware table (request/machine.cc), so a name the table does not know
// fails there, naming the field, before the model is opened.
#include "memfit/request.h"
#include "request/field_table.h"

namespace memfit::request {
namespace {

using R = EstimateRequest;
using Text = std::string_view;

constexpr RequestField kMachineFields[] = {
    {.name = "gpu",
     .flags = "--gpu",
     .help = "a GPU of the machine priced, one per device, from memfit hardware: an id, an alias "
             "(rtx4090, h100-80gb, mi300x) or the name as nvidia-smi / rocm-smi prints it",
     .type = FieldType::kList,
     .apply = [](R& r, Text t) {
       r.machine.gpu.emplace_back(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return !r.machine.gpu.empty(); },
     .example = "h100-80gb",
     .doc = "the machine's GPUs, one name per device (repeat the flag; JSON: a string or an array): "
            "each device's total memory as its driver reports it, its name and its vendor, from "
            "the hardware table (docs/hardware.md), for every engine; this host's GPUs are not "
            "read. Names match ignoring case, spaces and dashes; an unknown one is refused with "
            "the nearest"},
    {.name = "mac",
     .flags = "--mac",
     .help = "the Mac priced, from memfit hardware: its id (m4-max-128gb) or chip and memory "
             "(\"M3 Pro 18GB\")",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) {
       r.machine.mac = std::string(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return r.machine.mac.has_value(); },
     .example = "M3 Pro 18GB",
     .doc = "an Apple silicon Mac from the hardware table (docs/hardware.md): its unified memory, "
            "macOS's reserve and Metal's default GPU wired limit (the budget), its GPU cores; "
            "nothing of this host is read. With `memory_limit` (a raised wired limit) the budget "
            "is held to RAM minus the reserve"},
};

}  // namespace

std::span<const RequestField> machine_fields() { return kMachineFields; }

}  // namespace memfit::request
