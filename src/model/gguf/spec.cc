// model_spec_from_gguf: the GGUF metadata spelled as config fields
// (model/gguf/config.h), then the config path's own planner.
#include <fmt/format.h>

#include "base/exception_boundary.h"
#include "memfit/gguf.h"
#include "memfit/model_spec.h"
#include "memfit/untrusted_text.h"
#include "model/config/config_document.h"
#include "model/config/config_spec.h"
#include "model/gguf/config.h"

namespace memfit {

Result<ModelSpec> model_spec_from_gguf(const GgufHeader& header) {
  return without_exceptions("model_spec_from_gguf", [&]() -> Result<ModelSpec> {
    Result<GgufConfig> translated = gguf_config(header);
    if (!translated.ok()) return translated.error();
    const std::string model_type = translated->config.value("model_type", std::string());
    Result<ConfigDocument> doc = ConfigDocument::from_json(std::move(translated->config));
    if (!doc.ok()) return doc.error();
    Result<ModelSpec> spec = model_spec_from_document(*doc);
    if (!spec.ok()) {
      // The planner words its errors with config fields; say which ones.
      return spec.error().within(fmt::format("gguf metadata of {}, read as a {} config",
                                             quote_untrusted(translated->architecture),
                                             quote_untrusted(model_type)));
    }
    spec->model_type = std::move(translated->architecture);
    spec->nextn_layers = translated->nextn_layers;
    spec->assumptions.insert(spec->assumptions.begin(), translated->assumptions.begin(),
                             translated->assumptions.end());
    return spec;
  });
}

}  // namespace memfit
