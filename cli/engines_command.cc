// memfit engines: the engines a request may name, the release each one's
// rules follow, the field that names another release, what is priced
// when none is given, and each range of releases whose rules differ
// (EngineProfile::versions; docs/engines.md, "Releases").
//
//   memfit engines [--json]
//
// --json prints GET /v1/engines's object (schema/engines.schema.json).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "memfit/engine.h"
#include "memfit/memfit.h"

namespace memfit::cli {
namespace {

// "--mlx-lm-version" for "mlx_lm_version".
std::string flag_of(std::string_view field) {
  std::string flag = "--" + std::string(field);
  for (char& c : flag) {
    if (c == '_') c = '-';
  }
  return flag;
}

// One engine: its name and summary, then its release and versions, one
// line each.
std::string engine_text(const EngineProfile& e) {
  std::string out = fmt::format("{}: {}\n  rules of: {}\n", e.name(), e.summary(), e.release());
  const EngineVersions v = e.versions();
  if (v.field.empty()) return out + "  releases: only that one\n";
  out += fmt::format("  {} (JSON {}): default {}\n", flag_of(v.field), v.field, v.default_text);
  for (const ReleaseDifference& d : v.differences) {
    out += fmt::format("    {}: {}\n", d.releases, d.change);
  }
  return out;
}

int run_engines(bool json) {
  std::string out;
  if (json) {
    char* text = nullptr;
    if (memfit_engines_json(&text) != MEMFIT_OK) {
      std::fputs("memfit: engines: the engine table did not render\n", stderr);
      memfit_string_free(text);
      return kExitError;
    }
    out = nlohmann::ordered_json::parse(text).dump(2) + "\n";
    memfit_string_free(text);
  } else {
    for (const EngineProfile* e : EngineRegistry::instance().all()) out += engine_text(*e);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_engines_command(CLI::App& app, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "engines", "the engines, the release each prices, and where other releases differ");
  command->add_flag("--json", *json, "print GET /v1/engines's JSON object on stdout");
  command->callback([json, &exit_code] { exit_code = run_engines(*json); });
}

}  // namespace memfit::cli
