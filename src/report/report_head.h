// The fields every engine's JSON report starts with, in this order:
// memfit_version, model, model_type, family, layout, engine.
#ifndef MEMFIT_REPORT_REPORT_HEAD_H_
#define MEMFIT_REPORT_REPORT_HEAD_H_

#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/model.h"

namespace memfit {

nlohmann::ordered_json report_head(const Model& model, std::string_view engine);

}  // namespace memfit

#endif  // MEMFIT_REPORT_REPORT_HEAD_H_
