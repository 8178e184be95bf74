// Ollama's own request fields (request_field.h): its server's environment
// variables and its Modelfile/API parameters, kept as text in
// EstimateRequest::engine_fields and read back by read_ollama_request().
#ifndef MEMFIT_ENGINES_OLLAMA_FIELDS_H_
#define MEMFIT_ENGINES_OLLAMA_FIELDS_H_

#include <span>

#include "engines/ollama/settings.h"
#include "memfit/request.h"
#include "memfit/request_field.h"

namespace memfit::ollama {

// num_ctx, num_gpu, num_batch, then the server's OLLAMA_* variables, in
// the order `memfit inspect --help` lists them (docs/engine-ollama.md).
std::span<const RequestField> fields();

// The fields `request` gives, parsed (each was checked when applied; a
// text that no longer parses is kUsage naming its field).
Result<OllamaRequest> read_ollama_request(const EstimateRequest& request);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_FIELDS_H_
