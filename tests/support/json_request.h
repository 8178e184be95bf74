// The library's JSON entry point as the suite calls it: memfit_run_request_json
// with every value a text (MEMFIT_REQUEST_FLAG_TEXTS, as the CLI's and the
// Python module's requests are), its answer parsed and the string freed.

#ifndef MEMFIT_TESTS_SUPPORT_JSON_REQUEST_H_
#define MEMFIT_TESTS_SUPPORT_JSON_REQUEST_H_

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"

namespace memfit::testing {

struct JsonAnswer {
  memfit_status status = MEMFIT_OK;
  nlohmann::json body;  // the report, or the error object
  bool ok() const { return status == MEMFIT_OK; }
};

JsonAnswer run_request_texts(const nlohmann::json& request);

// run_request_texts for a request that must succeed: a failure is a test
// failure (its error object printed), and the body is returned either way.
nlohmann::json run_request_texts_ok(const nlohmann::json& request);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_JSON_REQUEST_H_
