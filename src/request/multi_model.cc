// run_models() (multi_model.h): run() once per model, then each run's
// device claims summed per device. The sum names no engine: what an
// engine holds where, and whether it reserves a fraction of the device,
// is its own device_claims() (docs/multi-model.md).
#include "memfit/multi_model.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "memfit/engine.h"
#include "memfit/memory_size.h"
#include "memfit/run_report.h"
#include "memfit/untrusted_text.h"
#include "request/json_fields.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

// Fractions are read from decimal text (0.6 + 0.4): a sum within this of 1
// is 1.
constexpr double kFractionSlack = 1e-9;

Status check_request(const EstimateRequest& request) {
  if (request.parallel.tensor_parallel > 1) {
    return Error::usage("tensor_parallel",
                        "a model on several devices is priced alone; with other models each "
                        "takes one device");
  }
  if (request.parallel.pipeline_parallel > 1) {
    return Error::usage("pipeline_parallel",
                        "a model on several devices is priced alone; with other models each "
                        "takes one device");
  }
  return Status::Ok();
}

SharedDevice& device_named(std::vector<SharedDevice>& devices, const std::string& name,
                           uint64_t budget_bytes) {
  for (SharedDevice& d : devices) {
    if (d.device != name) continue;
    d.budget_bytes = std::min(d.budget_bytes, budget_bytes);
    return d;
  }
  SharedDevice added;
  added.device = name;
  added.budget_bytes = budget_bytes;
  devices.push_back(std::move(added));
  return devices.back();
}

Status add_claims(MultiModelRun& out, size_t index) {
  const EstimateRun& run = out.runs[index];
  for (const DeviceClaim& claim : run.engine->device_claims(run)) {
    SharedDevice& d = device_named(out.devices, claim.device, claim.budget_bytes);
    const std::optional<uint64_t> used = (CheckedBytes(d.used_bytes) + claim.bytes).value();
    if (!used) {
      return Error::overflow(fmt::format("{}: the models' bytes exceed 64 bits", claim.device));
    }
    d.used_bytes = *used;
    d.reserved_fraction += claim.reserved_fraction.value_or(0);
    d.models.push_back(ModelOnDevice{index, claim.bytes, claim.reserved_fraction, claim.fraction_field});
  }
  return Status::Ok();
}

// "cuda:0: the fractions the models reserve add to 1.30 (model 1:
// gpu_memory_utilization 0.9, model 2: gpu_memory_utilization 0.4); give
// each its own, adding to at most 1"
std::string fraction_warning(const SharedDevice& d) {
  std::string parts;
  for (const ModelOnDevice& m : d.models) {
    if (!m.reserved_fraction) continue;
    parts += fmt::format("{}model {}: {} {:g}", parts.empty() ? "" : ", ", m.model + 1,
                         m.fraction_field, *m.reserved_fraction);
  }
  return fmt::format("{}: the fractions the models reserve add to {:.2f} ({}); give each its own, "
                     "adding to at most 1",
                     d.device, d.reserved_fraction, parts);
}

// A model's name in the table: its last path component (a folder's, a
// file's, a Hub name's), escaped and cut to fit the column.
std::string short_name(const std::string& name) {
  std::string last = std::filesystem::path(name).filename().string();
  if (last.empty()) last = std::filesystem::path(name).parent_path().filename().string();
  return escape_untrusted(last.empty() ? name : last, 24);
}

void judge_devices(MultiModelRun& out) {
  out.fits = std::all_of(out.runs.begin(), out.runs.end(), [](const EstimateRun& r) { return r.fits(); });
  for (SharedDevice& d : out.devices) {
    const bool fractions_fit = d.reserved_fraction <= 1 + kFractionSlack;
    d.fits = d.used_bytes <= d.budget_bytes && fractions_fit;
    if (!fractions_fit) out.warnings.push_back(Warning{WarningKind::kRequest, fraction_warning(d)});
    out.fits = out.fits && d.fits;
  }
}

}  // namespace

Error error_of_model(size_t index, std::string_view name, const Error& error) {
  const std::string label = fmt::format("model {} ({})", index + 1, quote_untrusted(name));
  if (error.kind() == ErrorKind::kUsage && !error.field().empty()) {
    return Error::usage(error.field(), fmt::format("{}: {}", label, error.detail()));
  }
  return error.within(label);
}

Result<MultiModelRun> run_models(std::span<const EstimateRequest> requests,
                                 std::span<RequestContext* const> contexts) {
  if (requests.size() < 2 || requests.size() > kMaxModelsTogether) {
    return Error::usage("models", fmt::format("names {} models; together takes 2 to {}",
                                              requests.size(), kMaxModelsTogether));
  }
  if (contexts.size() != requests.size()) {
    return Error("run_models: one context per request", ErrorKind::kInternal);
  }
  MultiModelRun out;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (Status ok = check_request(requests[i]); !ok) {
      return error_of_model(i, requests[i].model, ok.error());
    }
    Result<EstimateRun> priced = run(requests[i], *contexts[i]);
    if (!priced) return error_of_model(i, requests[i].model, priced.error());
    out.runs.push_back(std::move(*priced));
    out.names.push_back(requests[i].model);
    if (Status added = add_claims(out, i); !added) return added.error();
  }
  judge_devices(out);
  return out;
}

Result<MultiModelRun> run_models(std::span<const EstimateRequest> requests,
                                 RequestContext& context) {
  std::vector<RequestContext*> contexts(requests.size(), &context);
  return run_models(requests, contexts);
}

Result<std::optional<std::vector<ModelBody>>> split_model_bodies(std::string_view body) {
  Result<request::Json> json = request::parse_object(body);
  if (!json) return json.error();
  if (!json->contains("models") || (*json)["models"].is_null()) {
    return std::optional<std::vector<ModelBody>>();
  }
  const request::Json models = (*json)["models"];
  if (!models.is_array() || models.size() < 2 || models.size() > kMaxModelsTogether ||
      !std::all_of(models.begin(), models.end(), [](const auto& m) { return m.is_object(); })) {
    return request::expected("models",
                             fmt::format("an array of 2 to {} request objects", kMaxModelsTogether),
                             models);
  }
  json->erase("models");
  std::vector<ModelBody> bodies;
  for (const request::Json& own : models) {
    request::Json merged = *json;
    for (const auto& [key, value] : own.items()) merged[key] = value;
    const request::Json* model = merged.contains("model") ? &merged["model"] : nullptr;
    bodies.push_back(ModelBody{model != nullptr && model->is_string() ? model->get<std::string>() : "",
                               merged.dump()});
  }
  return std::optional<std::vector<ModelBody>>(std::move(bodies));
}

Json multi_run_to_json(const MultiModelRun& run) {
  Json models = Json::array();
  for (size_t i = 0; i < run.runs.size(); ++i) {
    Json report = run_to_json(run.runs[i]);
    report.erase("model");
    Json named = {{"model", run.names[i]}};
    named.update(report);
    models.push_back(std::move(named));
  }
  Json devices = Json::array();
  for (const SharedDevice& d : run.devices) {
    Json held = Json::array();
    for (const ModelOnDevice& m : d.models) {
      held.push_back({{"index", m.model},
                      {"model", run.names[m.model]},
                      {"engine", std::string(run.runs[m.model].engine->name())},
                      {"bytes", m.bytes},
                      {"reserved_fraction", m.reserved_fraction ? Json(*m.reserved_fraction) : Json(nullptr)}});
    }
    devices.push_back({{"device", d.device},
                       {"used_bytes", d.used_bytes},
                       {"budget_bytes", d.budget_bytes},
                       {"reserved_fraction", d.reserved_fraction},
                       {"fits", d.fits},
                       {"models", std::move(held)}});
  }
  Json warnings = Json::array();
  for (const Warning& w : run.warnings) warnings.push_back(w.text);
  return {{"models", std::move(models)},
          {"devices", std::move(devices)},
          {"fits", run.fits},
          {"warnings", std::move(warnings)}};
}

std::string render_multi_run_text(const MultiModelRun& run) {
  std::string out;
  for (size_t i = 0; i < run.runs.size(); ++i) {
    out += fmt::format("── Model {} of {} ──\n{}\n", i + 1, run.runs.size(), render_run_text(run.runs[i]));
  }
  out += "Together, per device:\n";
  out += fmt::format("  {:<8} {:<28} {:<9} {:>11} {:>11}\n", "device", "model", "engine", "bytes",
                     "budget");
  for (const SharedDevice& d : run.devices) {
    for (size_t k = 0; k < d.models.size(); ++k) {
      const ModelOnDevice& m = d.models[k];
      const std::string name = fmt::format("{} {}", m.model + 1, short_name(run.names[m.model]));
      out += fmt::format("  {:<8} {:<28} {:<9} {:>11}\n", k == 0 ? d.device : "", name,
                         run.runs[m.model].engine->name(), format_bytes(m.bytes));
    }
    out += fmt::format("  {:<8} {:<28} {:<9} {:>11} {:>11}  {}\n", "", "sum", "",
                       format_bytes(d.used_bytes), format_bytes(d.budget_bytes),
                       d.fits ? "FITS" : "DOES NOT FIT");
  }
  out += "\n";
  if (run.fits) return out + "FITS together: every device holds its models\n";
  for (size_t i = 0; i < run.runs.size(); ++i) {
    if (!run.runs[i].fits()) {
      out += fmt::format("DOES NOT FIT together: model {} ({}) does not fit alone\n", i + 1,
                         short_name(run.names[i]));
    }
  }
  for (const SharedDevice& d : run.devices) {
    if (!d.fits) out += fmt::format("DOES NOT FIT together: {} cannot hold its models\n", d.device);
  }
  return out;
}

}  // namespace memfit
