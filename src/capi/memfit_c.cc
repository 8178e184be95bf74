// The C API over the C++ library. Every entry point catches everything,
// std::exception or not, and its handlers allocate nothing that may throw:
// no exception crosses into C, and nothing calls std::terminate.
#include "memfit/memfit.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/availability_gate.h"
#include "memfit/environment.h"
#include "memfit/mlxcel.h"
#include "memfit/host_memory.h"
#include "memfit/log_check.h"
#include "memfit/model.h"
#include "memfit/prefill_guard.h"
#include "memfit/request.h"
#include "memfit/multi_model.h"
#include "memfit/request_json.h"
#include "memfit/mlxcel_report.h"
#include "memfit/run_report.h"
#include "request/field_table.h"
#include "request/json_fields.h"

struct memfit_model {
  std::shared_ptr<const memfit::Model> model;
};

struct memfit_gate {
  std::unique_ptr<memfit::AvailabilityGate> gate;
};

namespace {

// A malloc'd copy of `size` bytes and a NUL (what memfit_string_free
// frees), or NULL when memory is short. Throws nothing.
char* copy_chars(const char* data, size_t size) noexcept {
  char* out = static_cast<char*>(std::malloc(size + 1));
  if (out != nullptr) {
    std::memcpy(out, data, size);
    out[size] = '\0';
  }
  return out;
}

char* copy_string(const std::string& s) noexcept { return copy_chars(s.data(), s.size()); }

memfit_status fail(char** error_message, memfit_status status, std::string_view message) noexcept {
  if (error_message != nullptr) *error_message = copy_chars(message.data(), message.size());
  return status;
}

constexpr char kInternalErrorText[] = "internal error: ";
constexpr char kNotStdException[] = "an exception that is not a std::exception";

// MEMFIT_ERROR with "internal error: <what>", built with malloc alone: it
// runs in a catch handler, perhaps after an allocation failed.
memfit_status fail_internal(char** error_message, const char* what) noexcept {
  if (error_message == nullptr) return MEMFIT_ERROR;
  const size_t prefix = sizeof kInternalErrorText - 1;
  const size_t length = std::strlen(what);
  char* out = static_cast<char*>(std::malloc(prefix + length + 1));
  if (out != nullptr) {
    std::memcpy(out, kInternalErrorText, prefix);
    std::memcpy(out + prefix, what, length + 1);
  }
  *error_message = out;
  return MEMFIT_ERROR;
}

// Runs the body of an entry point; whatever it throws is MEMFIT_ERROR.
template <typename Body>
memfit_status guarded(char** error_message, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail_internal(error_message, e.what());
  } catch (...) {
    return fail_internal(error_message, kNotStdException);
  }
}

void clear_error(char** error_message) {
  if (error_message != nullptr) *error_message = nullptr;
}

// The C status of an error's kind: usage errors are the caller's
// arguments; every other kind (input, overflow, host, internal) is
// MEMFIT_ERROR, told apart by the JSON calls' "kind".
memfit_status status_of(const memfit::Error& error) {
  return error.kind() == memfit::ErrorKind::kUsage ? MEMFIT_INVALID_ARGUMENT : MEMFIT_ERROR;
}

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The real machine, answering with the model a handle holds (opened
// without its tensor list: the struct request asks for no per-rank plan).
class HandleContext final : public memfit::LocalRequestContext {
 public:
  HandleContext(const memfit::Environment& env, std::shared_ptr<const memfit::Model> model)
      : LocalRequestContext(env), model_(std::move(model)) {}

  memfit::Result<std::shared_ptr<const memfit::Model>> open_model(
      const std::string&, const memfit::OpenModelOptions&) override {
    return model_;
  }

 private:
  std::shared_ptr<const memfit::Model> model_;
};

// The library's request for the struct one; the model is the handle's.
memfit::EstimateRequest request_of(const memfit_model* model, const memfit_estimate_request* r) {
  memfit::EstimateRequest request;
  request.model = model->model->path;
  // The struct request and result are the mlxcel profile's, whatever the
  // model; other engines answer through memfit_estimate_request_json.
  request.engine = "mlxcel";
  request.max_tokens = r->max_tokens;
  request.batch = r->batch;
  request.kv_cache_mode = r->kv_int8 ? memfit::KvElement::kInt8 : memfit::KvElement::kFp16;
  if (r->memory_limit_bytes > 0) request.memory_limit_bytes = r->memory_limit_bytes;
  return request;
}

memfit::Result<memfit::EstimateRun> run_struct_request(const memfit_model* model,
                                                       const memfit_estimate_request* r) {
  HandleContext context(*memfit::make_process_environment(), model->model);
  return memfit::run(request_of(model, r), context);
}

constexpr unsigned int kKnownRequestOptions = MEMFIT_REQUEST_FLAG_TEXTS | MEMFIT_REQUEST_WITH_TEXT;

// A request whose values are the CLI's flag texts (MEMFIT_REQUEST_FLAG_TEXTS):
// each field's texts applied by its row in table order (the engine before
// the cache types read for it), as the CLI's to_request applies its flags;
// a required field absent and a field no row names are refused as in the
// typed JSON request.
memfit::Result<memfit::EstimateRequest> parse_flag_texts(std::string_view body) {
  memfit::Result<memfit::request::Json> json = memfit::request::parse_object(body);
  if (!json) return json.error();
  memfit::request::Fields fields(*json);
  memfit::EstimateRequest request;
  for (const memfit::RequestField* f : memfit::request_fields()) {
    const memfit::request::Json* value = fields.find(f->name);
    if (value == nullptr) {
      if (f->required) return memfit::Error::usage(f->name, "required");
      continue;
    }
    const bool list = f->type == memfit::FieldType::kList;
    std::vector<std::string> texts;
    if (value->is_string()) {
      texts.push_back(value->get<std::string>());
    } else if (list && value->is_array() &&
               std::all_of(value->begin(), value->end(), [](const auto& v) { return v.is_string(); })) {
      for (const auto& v : *value) texts.push_back(v.get<std::string>());
    } else {
      return memfit::request::expected(f->name, list ? "a flag's text or an array of them" : "a flag's text",
                                       *value);
    }
    for (const std::string& text : texts) {
      if (memfit::Status applied = memfit::apply_request_field(*f, request, text); !applied) {
        return applied.error();
      }
    }
  }
  if (memfit::Status rest = fields.no_others(); !rest) return rest.error();
  return request;
}

}  // namespace

extern "C" {

const char* memfit_version(void) { return MEMFIT_VERSION; }

void memfit_string_free(char* s) { std::free(s); }

memfit_status memfit_model_open(const char* path, memfit_model** out, char** error_message) {
  clear_error(error_message);
  if (out == nullptr) return fail(error_message, MEMFIT_INVALID_ARGUMENT, "out is NULL");
  *out = nullptr;
  if (path == nullptr) return fail(error_message, MEMFIT_INVALID_ARGUMENT, "path is NULL");
  return guarded(error_message, [&] {
    // The CLI's resolution: a local path, else the Hugging Face cache.
    memfit::LocalRequestContext context(*memfit::make_process_environment());
    memfit::Result<std::shared_ptr<const memfit::Model>> model =
        context.open_model(path, memfit::OpenModelOptions{});
    if (!model) return fail(error_message, status_of(model.error()), model.error().message());
    *out = new memfit_model{std::move(*model)};
    return MEMFIT_OK;
  });
}

void memfit_model_free(memfit_model* model) { delete model; }

memfit_status memfit_estimate(const memfit_model* model, const memfit_estimate_request* request,
                              memfit_estimate_result* out, char** error_message) {
  clear_error(error_message);
  if (model == nullptr || request == nullptr || out == nullptr) {
    return fail(error_message, MEMFIT_INVALID_ARGUMENT, "model, request and out must be non-NULL");
  }
  return guarded(error_message, [&] {
    memfit::Result<memfit::EstimateRun> run = run_struct_request(model, request);
    if (!run) return fail(error_message, status_of(run.error()), run.error().message());
    const memfit::MlxcelEstimate& e = run->estimate;
    *out = memfit_estimate_result{};
    out->weights_bytes = e.weights_bytes;
    out->kv_bytes = e.kv.total_bytes;
    out->kv_bytes_per_token = request->kv_int8 ? e.kv.unbounded_int8_bytes_per_token : e.kv.unbounded_fp16_bytes_per_token;
    out->allocator_overhead_bytes = e.allocator_overhead_bytes;
    out->activation_bytes = e.activation_bytes;
    out->backend_inflight_bytes = e.backend_inflight_bytes;
    out->headroom_bytes = e.headroom_bytes;
    out->total_bytes = e.total_bytes;
    out->budget_bytes = e.budget_bytes;
    out->fits = e.fits ? 1 : 0;
    return MEMFIT_OK;
  });
}

memfit_status memfit_estimate_json(const memfit_model* model,
                                   const memfit_estimate_request* request, char** json_out,
                                   char** error_message) {
  clear_error(error_message);
  if (model == nullptr || request == nullptr || json_out == nullptr) {
    return fail(error_message, MEMFIT_INVALID_ARGUMENT, "model, request and json_out must be non-NULL");
  }
  *json_out = nullptr;
  return guarded(error_message, [&] {
    memfit::Result<memfit::EstimateRun> run = run_struct_request(model, request);
    if (!run) return fail(error_message, status_of(run.error()), run.error().message());
    *json_out = copy_string(dump(memfit::run_to_json(*run)));
    return *json_out != nullptr ? MEMFIT_OK : fail(error_message, MEMFIT_ERROR, "out of memory");
  });
}

memfit_status memfit_estimate_request_json(const char* request_json, char** response_json) {
  return memfit_run_request_json(request_json, 0, response_json);
}

memfit_status memfit_run_request_json(const char* request_json, unsigned int options,
                                      char** response_json) {
  if (response_json == nullptr) return MEMFIT_INVALID_ARGUMENT;
  *response_json = nullptr;
  const auto answer = [&](memfit_status status, const nlohmann::ordered_json& j) {
    *response_json = copy_string(dump(j));
    return *response_json != nullptr ? status : MEMFIT_ERROR;
  };
  const auto failure = [&](const memfit::Error& error) {
    return answer(status_of(error), nlohmann::ordered_json{{"error", memfit::error_to_json(error)}});
  };
  // "internal error: <what>" as the error's JSON; a fixed JSON when even
  // that cannot be built (memory is short). Throws nothing.
  const auto internal = [&](const char* what) noexcept {
    try {
      return failure(memfit::Error(std::string(kInternalErrorText) + what,
                                   memfit::ErrorKind::kInternal));
    } catch (...) {
      static constexpr char kFixed[] =
          R"({"error":{"kind":"internal","message":"internal error: out of memory"}})";
      std::free(*response_json);
      *response_json = copy_chars(kFixed, sizeof kFixed - 1);
      return MEMFIT_ERROR;
    }
  };
  try {
    if ((options & ~kKnownRequestOptions) != 0) {
      return failure(memfit::Error::usage(
          "options", "unknown bits " + std::to_string(options & ~kKnownRequestOptions)));
    }
    if (request_json == nullptr) return failure(memfit::Error::usage("request_json is NULL"));
    const auto parse = [options](std::string_view body) {
      return (options & MEMFIT_REQUEST_FLAG_TEXTS) != 0 ? parse_flag_texts(body)
                                                        : memfit::parse_estimate_request_json(body);
    };
    memfit::Result<std::optional<std::vector<memfit::ModelBody>>> models =
        memfit::split_model_bodies(request_json);
    if (!models) return failure(models.error());
    memfit::LocalRequestContext context(*memfit::make_process_environment());
    if (*models) {
      std::vector<memfit::EstimateRequest> requests;
      for (size_t i = 0; i < (*models)->size(); ++i) {
        const memfit::ModelBody& model = (**models)[i];
        memfit::Result<memfit::EstimateRequest> request = parse(model.body);
        if (!request) return failure(memfit::error_of_model(i, model.model, request.error()));
        requests.push_back(std::move(*request));
      }
      memfit::Result<memfit::MultiModelRun> together = memfit::run_models(requests, context);
      if (!together) return failure(together.error());
      nlohmann::ordered_json report = memfit::multi_run_to_json(*together);
      if ((options & MEMFIT_REQUEST_WITH_TEXT) != 0) {
        report["text"] = memfit::render_multi_run_text(*together);
      }
      return answer(MEMFIT_OK, report);
    }
    memfit::Result<memfit::EstimateRequest> request = parse(request_json);
    if (!request) return failure(request.error());
    memfit::Result<memfit::EstimateRun> run = memfit::run(*request, context);
    if (!run) return failure(run.error());
    nlohmann::ordered_json report = memfit::run_to_json(*run);
    if ((options & MEMFIT_REQUEST_WITH_TEXT) != 0) report["text"] = memfit::render_run_text(*run);
    return answer(MEMFIT_OK, report);
  } catch (const std::exception& e) {
    return internal(e.what());
  } catch (...) {
    return internal(kNotStdException);
  }
}

memfit_status memfit_engines_json(char** json_out) {
  if (json_out == nullptr) return MEMFIT_INVALID_ARGUMENT;
  *json_out = nullptr;
  try {
    *json_out = copy_string(dump(memfit::request::engines_to_json()));
  } catch (...) {
    return MEMFIT_ERROR;  // only memory can run out here
  }
  return *json_out != nullptr ? MEMFIT_OK : MEMFIT_ERROR;
}

memfit_status memfit_check_prefill(const memfit_model* model,
                                   const memfit_prefill_request* request, memfit_admission* out) {
  if (model == nullptr || request == nullptr || out == nullptr) return MEMFIT_INVALID_ARGUMENT;
  return guarded(nullptr, [&] {
    memfit::PrefillRequest r;
    if (request->request_id != nullptr) r.request_id = request->request_id;
    r.prompt_tokens = request->prompt_tokens;
    r.cached_tokens = request->cached_tokens;
    r.current_usage_bytes = request->current_usage_bytes;
    if (request->hard_limit_bytes > 0) r.hard_limit_bytes = request->hard_limit_bytes;
    r.prefill_chunk = request->prefill_chunk;
    memfit::AttentionGeometry g = memfit::attention_geometry(
        model->model->spec, request->kv_int8 ? memfit::KvElement::kInt8 : memfit::KvElement::kFp16);
    memfit::AdmissionDecision d = memfit::check_prefill(g, memfit::SdpaKernels{}, r);
    *out = memfit_admission{};
    out->admitted = d.admitted ? 1 : 0;
    out->peak_bytes = d.peak_bytes;
    out->estimated_bytes = d.estimated_bytes;
    out->limit_bytes = d.limit_bytes;
    std::strncpy(out->request_id, d.request_id.c_str(), sizeof(out->request_id) - 1);
    out->message = d.admitted ? nullptr : copy_string(d.message);
    return MEMFIT_OK;
  });
}

void memfit_admission_clear(memfit_admission* admission) {
  if (admission == nullptr) return;
  std::free(admission->message);
  admission->message = nullptr;
}

memfit_status memfit_gate_new(memfit_gate** out) {
  if (out == nullptr) return MEMFIT_INVALID_ARGUMENT;
  *out = nullptr;
  return guarded(nullptr, [&] {
    std::unique_ptr<memfit::Environment> env = memfit::make_process_environment();
    memfit::HostQueryOptions options = memfit::host_query_options_from_environment(*env);
    *out = new memfit_gate{std::make_unique<memfit::AvailabilityGate>(options)};
    return MEMFIT_OK;
  });
}

int memfit_gate_may_grow(memfit_gate* gate, uint64_t bytes) {
  if (gate == nullptr) return 0;
  try {
    return gate->gate->may_grow(bytes) ? 1 : 0;
  } catch (...) {
    return 0;  // a failure refuses the growth
  }
}

void memfit_gate_free(memfit_gate* gate) { delete gate; }

memfit_status memfit_check_log_json(const char* request_json, char** response_json) {
  if (response_json == nullptr) return MEMFIT_INVALID_ARGUMENT;
  *response_json = nullptr;
  // As memfit_estimate_request_json: every failure is a JSON object, one
  // built with malloc alone when memory is short; nothing throws.
  const auto answer = [&](memfit_status status, const nlohmann::ordered_json& j) noexcept {
    try {
      *response_json = copy_string(dump(j));
    } catch (...) {
      static constexpr char kFixed[] =
          R"({"error":{"kind":"internal","message":"internal error: out of memory"}})";
      *response_json = copy_chars(kFixed, sizeof kFixed - 1);
      return MEMFIT_ERROR;
    }
    return *response_json != nullptr ? status : MEMFIT_ERROR;
  };
  const auto failure = [&](const memfit::Error& error) noexcept {
    try {
      return answer(status_of(error), nlohmann::ordered_json{{"error", memfit::error_to_json(error)}});
    } catch (...) {
      return answer(MEMFIT_ERROR, nullptr);
    }
  };
  try {
    if (request_json == nullptr) return failure(memfit::Error::usage("request_json is NULL"));
    memfit::Result<memfit::LogCheckRequest> request =
        memfit::parse_log_check_request_json(request_json);
    if (!request) return failure(request.error());
    memfit::LocalRequestContext context(*memfit::make_process_environment());
    memfit::Result<memfit::LogCheck> check = memfit::check_log(request->log, request->options, &context);
    if (!check) return failure(check.error());
    return answer(MEMFIT_OK, memfit::log_check_to_json(*check));
  } catch (const std::exception& e) {
    return failure(memfit::Error(std::string(kInternalErrorText) + e.what(), memfit::ErrorKind::kInternal));
  } catch (...) {
    return failure(memfit::Error(std::string(kInternalErrorText) + kNotStdException,
                                 memfit::ErrorKind::kInternal));
  }
}

}  // extern "C"
