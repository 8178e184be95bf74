// SGLang's request fields (request_field.h), as launch_server's flags name
// them, and the request read back from them. Their values live in
// EstimateRequest::engine_fields (the text each row's parser accepted),
// so this engine needs no member of its own in request.h.
#ifndef MEMFIT_ENGINES_SGLANG_FIELDS_H_
#define MEMFIT_ENGINES_SGLANG_FIELDS_H_

#include <span>

#include "engines/sglang/plan.h"
#include "memfit/request.h"
#include "memfit/request_field.h"
#include "memfit/result.h"

namespace memfit::sglang {

// --mem-fraction-static ... --disable-radix-cache, --sglang-version.
std::span<const RequestField> fields();

// The request's SGLang settings (the GPU's total left for resolve_host):
// each given field parsed again (a C++ caller may fill engine_fields
// without the rows), tensor_parallel as --tp, max_tokens as
// --context-length and a batch other than 1 as --max-running-requests
// when their own fields are not given. kUsage naming the field at fault.
Result<Settings> read_settings(const EstimateRequest& request);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_FIELDS_H_
