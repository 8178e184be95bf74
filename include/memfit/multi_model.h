// Several models on one machine (docs/multi-model.md): an embedder beside a
// chat model, a draft beside its target under engines that run them apart.
// Each model is one EstimateRequest priced by run() with its own engine and
// settings, alone; then each run's device claims (EngineProfile::
// device_claims) are summed per device and held against that device's
// budget. Nothing here prices a model: it is a sum over run()'s answers,
// so `memfit inspect -m A -m B`, POST /v1/estimate with "models" and the
// C API's JSON call cannot disagree with one model's answer.
#ifndef MEMFIT_MULTI_MODEL_H_
#define MEMFIT_MULTI_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// The most models one request prices together: each is a model to open.
inline constexpr size_t kMaxModelsTogether = 16;

// One model's share of one device.
struct ModelOnDevice {
  size_t model = 0;  // its index in MultiModelRun::runs
  uint64_t bytes = 0;
  std::optional<double> reserved_fraction;  // DeviceClaim's
  std::string_view fraction_field;
};

// One device with every model that holds memory on it.
struct SharedDevice {
  std::string device;         // "cpu", "cuda:N", "rocm:N"
  uint64_t used_bytes = 0;    // the models' bytes, summed
  uint64_t budget_bytes = 0;  // the smallest budget any of its models' runs took for it
  double reserved_fraction = 0;  // the reserved fractions, summed (0: none reserves one)
  bool fits = false;          // used <= budget and the fractions add to at most 1
  std::vector<ModelOnDevice> models;
};

struct MultiModelRun {
  std::vector<EstimateRun> runs;       // one per request, in order
  std::vector<std::string> names;      // each request's model, as given
  std::vector<SharedDevice> devices;   // in the order the runs first claim them
  std::vector<Warning> warnings;       // about the models together (each run keeps its own)
  // Every model fits alone (its engine's verdict: vLLM's also asks that it
  // starts) and every device holds its models.
  bool fits = false;
};

// Prices each request with run() and sums the runs per device. The
// requests must number 2 to kMaxModelsTogether and ask for no per-rank
// plan (kUsage naming tensor_parallel or pipeline_parallel: a model on
// several devices is priced alone). A model's error is returned with
// "model N (<name>): " before its detail (a usage error keeps its field).
// `contexts[i]` prices requests[i] (the service resolves each model under
// its roots); the other overload prices every request with `context`.
Result<MultiModelRun> run_models(std::span<const EstimateRequest> requests,
                                 std::span<RequestContext* const> contexts);
Result<MultiModelRun> run_models(std::span<const EstimateRequest> requests,
                                 RequestContext& context);

// `error`, about the model at `index` (0-based) of a several-model request
// named `name`: "model N ('<name>'): " before its detail, a usage error
// keeping its field. What run_models() returns for a model's error, and
// what the front ends return for one they meet reading a model's fields.
Error error_of_model(size_t index, std::string_view name, const Error& error);

// One model of a several-model JSON request: its request body and its
// model as the body names it ("" when it names none as a string).
struct ModelBody {
  std::string model;
  std::string body;
};

// The models a JSON request body names together: {"models": [{...}, ...],
// <shared fields>}. Each element is one model's fields; the shared fields
// apply to every model, and an element's field replaces the shared one of
// the same name. Returns each model's request body (the shared fields,
// then its own), for the one-model parser the caller uses (a failure there
// is the caller's to pass through error_of_model); nullopt when the body
// has no "models" (a one-model request). kUsage naming "models" when it is
// not an array of 2 to kMaxModelsTogether objects, or when the body is not
// a JSON object.
Result<std::optional<std::vector<ModelBody>>> split_model_bodies(std::string_view body);

// {"models": [each run's run_to_json, "model" in front], "devices":
// [{"device", "used_bytes", "budget_bytes", "reserved_fraction", "fits",
// "models": [{"index", "model", "engine", "bytes", "reserved_fraction"}]}],
// "fits", "warnings"} (schema/multi-model-report.schema.json); each
// model named as its request gives it.
nlohmann::ordered_json multi_run_to_json(const MultiModelRun& run);

// Each model's text report under a "Model N of M" heading, then the table
// of devices and the verdict:
//   Together, per device:
//     device   model                     engine        bytes     budget
//     cuda:0   1 Qwen3-8B                vllm      21.60 GiB
//              2 bge-m3                  llamacpp   1.20 GiB
//              sum                                 22.80 GiB  24.00 GiB  FITS
//   FITS together: every device holds its models
// (else one "DOES NOT FIT together: ..." line per model that does not fit
// alone and per device that cannot hold its models).
std::string render_multi_run_text(const MultiModelRun& run);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MULTI_MODEL_H_
