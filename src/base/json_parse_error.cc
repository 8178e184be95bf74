// JSON parse failures as one message (json_parse_error.h).
#include "base/json_parse_error.h"

#include <string_view>

#include "memfit/untrusted_text.h"

namespace memfit {

std::string json_parse_error_text(const nlohmann::json::exception& e) {
  std::string_view what = e.what();
  if (size_t end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
  return escape_untrusted(what);
}

}  // namespace memfit
