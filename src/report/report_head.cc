#include "report/report_head.h"

#include <string>

#include "memfit/report.h"

namespace memfit {

nlohmann::ordered_json report_head(const Model& model, std::string_view engine) {
  nlohmann::ordered_json j;
  j["memfit_version"] = std::string(memfit_version());
  j["model"] = model.path;
  j["model_type"] = model.spec.model_type;
  j["family"] = model.spec.family;
  j["layout"] = model.spec.layout;
  j["engine"] = std::string(engine);
  return j;
}

}  // namespace memfit
