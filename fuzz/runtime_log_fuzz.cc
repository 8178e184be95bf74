// libFuzzer target for the runtime log readers: the input is a log's text,
// straight into read_runtime_log (runtime_log.h), then the model rebuilt
// from a llama.cpp dump (model_from_log) and the whole check (check_log,
// no model by name), whose table is rendered. Errors must be clean
// (fuzz_checks.h), and so must every line of the table: untrusted text
// reaches it escaped.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_checks.h"
#include "memfit/log_check.h"
#include "memfit/runtime_log.h"

namespace {

void check_table(std::string_view table) {
  size_t start = 0;
  while (start < table.size()) {
    size_t end = table.find('\n', start);
    if (end == std::string_view::npos) end = table.size();
    if (memfit_fuzz::has_control_byte(table.substr(start, end - start))) __builtin_trap();
    start = end + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  memfit::Result<memfit::RuntimeLog> log = memfit::read_runtime_log(text);
  if (!log.ok()) {
    memfit_fuzz::check_message(log.error().message());
    return 0;
  }
  for (const std::string& note : log->notes) memfit_fuzz::check_message(note);
  memfit::Result<memfit::Model> model = memfit::model_from_log(log->model);
  if (!model.ok()) memfit_fuzz::check_message(model.error().message());

  memfit::Result<memfit::LogCheck> check = memfit::check_log(text, {}, nullptr);
  if (!check.ok()) {
    memfit_fuzz::check_message(check.error().message());
    return 0;
  }
  memfit_fuzz::check_message(check->not_priced);
  check_table(memfit::render_log_check_text(*check));
  (void)memfit::log_check_to_json(*check).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
