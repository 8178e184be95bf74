// "What can I run here?": each local model (model_stores.h's
// list_local_models) priced under its usual engine for one machine, as
// `memfit ls` and GET /v1/local-models answer (docs/stores.md).
#ifndef MEMFIT_LOCAL_MODELS_H_
#define MEMFIT_LOCAL_MODELS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/model_stores.h"
#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// How a row fits, best first: the order `memfit ls` sorts by.
enum class LocalFit {
  kFits,         // fits at its default context
  kSmallerFits,  // a smaller context fits
  kNothingFits,  // not even the smallest context fits
  kError,        // the entry could not be read or priced
};
std::string_view to_string(LocalFit fit);  // "fits", "smaller-context", "does-not-fit", "error"

struct LocalModelRow {
  LocalModelEntry entry;
  std::string engine;                    // the engine that priced it ("" for an error)
  uint64_t weights_bytes = 0;
  uint64_t default_context_tokens = 0;   // the context the engine starts it with
  uint64_t total_bytes = 0;              // the estimate at that context
  uint64_t budget_bytes = 0;
  LocalFit fit = LocalFit::kError;
  std::optional<uint64_t> largest_context_tokens;  // the fit solver's max-tokens answer
  bool largest_capped = false;           // it is the model's own ceiling
  std::string settings;                  // the flags that start it at the largest context
  std::string error;                     // kError: why, one line
};

// The kind of machine a listing prices for.
enum class LocalMachine {
  kCpu,  // no GPU found or named
  kGpu,  // NVIDIA or AMD GPUs: --gpu, --device cuda/rocm, or found on this host
  kMac,  // Apple silicon: --mac, or this host's Metal working set
};

// The machine `base` prices: --mac's Mac, --gpu's GPUs, a --device of a
// GPU, else this host as context.host_memory() reads it (its GPUs, else
// its Metal working set). With an explicit limit and no device the local
// context loads no GPU library, so such a listing prices a CPU machine.
LocalMachine local_machine(const EstimateRequest& base, RequestContext& context);

// The engine a listed model is priced under, "" for the default rules
// (EngineRegistry::default_for): ollama for a model of Ollama's store,
// llamacpp for every other GGUF file; vllm for safetensors and config-only folders on a
// machine with NVIDIA or AMD GPUs (what such a machine serves them with);
// the default (mlxcel, the MLX runtime) for MLX checkpoints, and for every
// other format on a Mac and a CPU machine. docs/stores.md,
// "Which engine". The one place to name a store's own engine.
std::string usual_engine(const LocalModelEntry& entry, LocalMachine machine);

// The context a request is priced against, for one entry (the caller owns
// it); an error becomes the entry's row.
using LocalContextFor = std::function<Result<RequestContext*>(const LocalModelEntry&)>;

// Prices each entry: `base` (the machine: --gpu, --mac, --memory-limit, a
// device) with the entry's name and usual engine; run() at the engine's
// default context (a store's num_ctx when it sets one) for the verdict,
// the engine's fit hook with solve "max-tokens" for the largest context
// and its flags. An entry's error, a failed open or estimate, is that
// row's error; the rest are priced. Sorted by LocalFit, then by the
// largest context (more first), then by name.
std::vector<LocalModelRow> price_local_models(const std::vector<LocalModelEntry>& entries,
                                              const EstimateRequest& base,
                                              const LocalContextFor& context_for);

// {"models": [{"name", "store", "format", "engine", "weights_bytes",
// "default_context", "total_bytes", "budget_bytes", "fit", "largest_context",
// "largest_capped", "settings", "error"}]} (schema/local-models.schema.json).
nlohmann::ordered_json local_models_to_json(const std::vector<LocalModelRow>& rows);

// One line a model under a heading: the name, format, weights, the verdict
// at the default context, the largest context, the settings; an error row
// says why.
std::string render_local_models_text(const std::vector<LocalModelRow>& rows);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LOCAL_MODELS_H_
