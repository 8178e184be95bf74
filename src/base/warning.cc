#include "memfit/warning.h"

namespace memfit {

std::string_view to_string(WarningKind kind) {
  switch (kind) {
    case WarningKind::kSettings:
      return "settings";
    case WarningKind::kModel:
      return "model";
    case WarningKind::kRequest:
      return "request";
    case WarningKind::kHost:
      return "host";
    case WarningKind::kAvailableNow:
      return "available_now";
  }
  return "model";
}

}  // namespace memfit
