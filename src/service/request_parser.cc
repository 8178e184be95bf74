// Request bodies are parsed with nlohmann::json after a depth pre-scan (the
// body is already bounded by the service's size limit), then read field by
// field through Fields, which remembers what was read so that anything
// left over can be refused by name.
#include "service/request_parser.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/json_nesting.h"
#include "base/untrusted_text.h"
#include "memfit/settings.h"
#include "memfit/solver.h"

namespace memfit::service {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxRequestIdBytes = 128;
constexpr size_t kMaxShownValueBytes = 40;

Error expected(std::string_view key, std::string_view what, const Json& value) {
  return Error(fmt::format("{}: expected {}, got {}", key, what,
                           show_untrusted_json(value, kMaxShownValueBytes)));
}

Result<Json> parse_object(std::string_view body) {
  if (json_nesting_depth(body, kMaxNesting) > kMaxNesting) {
    return Error(fmt::format("request body nests deeper than {} levels", kMaxNesting));
  }
  Json json;
  try {
    json = Json::parse(body);
  } catch (const Json::exception& e) {
    // what() is "[json.exception.parse_error.101] parse error at ...", or
    // out_of_range.406 for a number past a double ("1e999").
    std::string what = e.what();
    if (size_t end = what.find("] "); end != std::string::npos) what = what.substr(end + 2);
    // The part after "last read:" quotes the body: escaped like any
    // untrusted text (nlohmann leaves 0x7f and invalid UTF-8 as they are).
    return Error("request body is not valid JSON: " + escape_untrusted(what));
  }
  if (!json.is_object()) return Error("request body must be a JSON object");
  return json;
}

// Reads the fields of one request object; null reads as absent.
class Fields {
 public:
  explicit Fields(const Json& object) : object_(object) {}

  const Json* find(std::string_view key) {
    read_.emplace(key);
    auto it = object_.find(std::string(key));
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  Result<std::optional<std::string>> string(std::string_view key) {
    const Json* v = find(key);
    if (v == nullptr) return std::optional<std::string>();
    if (!v->is_string()) return expected(key, "a string", *v);
    return std::optional<std::string>(v->get<std::string>());
  }

  // An integer >= `min`.
  Result<std::optional<uint64_t>> count(std::string_view key, uint64_t min) {
    const Json* v = find(key);
    if (v == nullptr) return std::optional<uint64_t>();
    const char* what = min == 0 ? "a non-negative integer" : "a positive integer";
    if (!v->is_number_unsigned()) return expected(key, what, *v);
    const uint64_t n = v->get<uint64_t>();
    if (n < min) return expected(key, what, *v);
    return std::optional<uint64_t>(n);
  }

  // Fails naming the first field that was never read.
  Status no_others() const {
    for (const auto& [key, value] : object_.items()) {
      if (read_.count(key) == 0) return Error("unknown field " + quote_untrusted(key));
    }
    return Status::Ok();
  }

 private:
  const Json& object_;
  std::set<std::string, std::less<>> read_;
};

// The element types --kv-cache-mode and llama.cpp's --cache-type-k/-v
// accept (cli/estimate_options.cc spells the same list).
std::optional<KvElement> kv_element_named(std::string_view text) {
  if (text == "fp16" || text == "f16" || text == "bf16" || text == "float16")
    return KvElement::kFp16;
  if (text == "int8" || text == "i8" || text == "q8" || text == "q8_0") return KvElement::kInt8;
  return std::nullopt;
}

Result<std::optional<KvElement>> kv_field(Fields& fields, std::string_view key) {
  Result<std::optional<std::string>> text = fields.string(key);
  if (!text.ok()) return text.error();
  if (!*text) return std::optional<KvElement>();
  std::optional<KvElement> element = kv_element_named(**text);
  if (!element) return expected(key, "fp16 or int8", Json(**text));
  return element;
}

// kv_cache_mode, or cache_type_k with cache_type_v, as the CLI combines them.
Result<KvElement> kv_element(Fields& fields, std::vector<std::string>& warnings) {
  Result<std::optional<KvElement>> mode = kv_field(fields, "kv_cache_mode");
  if (!mode.ok()) return mode.error();
  Result<std::optional<KvElement>> k = kv_field(fields, "cache_type_k");
  if (!k.ok()) return k.error();
  Result<std::optional<KvElement>> v = kv_field(fields, "cache_type_v");
  if (!v.ok()) return v.error();
  if (k->has_value() != v->has_value()) {
    return Error("cache_type_k and cache_type_v go together");
  }
  if (!k->has_value()) return mode->value_or(KvElement::kFp16);
  KvElement both = **k;
  if (**k != **v) {
    both = KvElement::kFp16;
    warnings.push_back(
        "cache_type_k and cache_type_v differ: the KV cache is sized at the wider type, fp16");
  }
  if (*mode && **mode != both) return Error("kv_cache_mode disagrees with cache_type_k/v");
  return both;
}

Result<std::optional<Backend>> backend_field(Fields& fields) {
  Result<std::optional<std::string>> text = fields.string("backend");
  if (!text.ok()) return text.error();
  if (!*text || **text == "auto") return std::optional<Backend>();
  const std::string& name = **text;
  if (name == "rocm") return std::optional<Backend>(Backend::kRocm);
  if (name == "metal") return std::optional<Backend>(Backend::kMetal);
  if (name == "cuda") return std::optional<Backend>(Backend::kCuda);
  if (name == "cpu") return std::optional<Backend>(Backend::kCpu);
  return expected("backend", "auto, rocm, metal, cuda or cpu", Json(name));
}

Result<std::optional<uint64_t>> memory_limit_field(Fields& fields) {
  const Json* v = fields.find("memory_limit");
  if (v == nullptr) return std::optional<uint64_t>();
  if (v->is_number_unsigned()) {
    const uint64_t bytes = v->get<uint64_t>();
    return bytes == 0 ? std::optional<uint64_t>() : std::optional<uint64_t>(bytes);
  }
  if (!v->is_string()) return expected("memory_limit", "a size such as \"48GB\" or bytes", *v);
  Result<std::optional<uint64_t>> size = parse_memory_size(v->get<std::string>());
  if (!size.ok()) return Error("memory_limit: " + size.error().message());
  return *size;
}

// A label only: "" when absent.
Result<std::string> quant_field(Fields& fields) {
  Result<std::optional<std::string>> quant = fields.string("quant");
  if (!quant.ok()) return quant.error();
  if (!*quant) return std::string();
  if (**quant != "fp16" && **quant != "int8" && **quant != "int4") {
    return expected("quant", "fp16, int8 or int4", Json(**quant));
  }
  return std::move(**quant);
}

Result<std::string> model_field(Fields& fields) {
  Result<std::optional<std::string>> model = fields.string("model");
  if (!model.ok()) return model.error();
  if (!*model) return Error("model: required");
  return std::move(**model);
}

bool is_request_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._:/+=-").find(c) != std::string_view::npos;
}

// The fields /v1/estimate and /v1/fit share: model, batch, quant, backend,
// memory_limit. Request is EstimateRequest or FitRequest.
template <typename Request>
Status read_shared_fields(Fields& fields, Request& request) {
  Result<std::string> model = model_field(fields);
  if (!model.ok()) return model.error();
  request.model = std::move(*model);
  Result<std::optional<uint64_t>> batch = fields.count("batch", 1);
  if (!batch.ok()) return batch.error();
  request.inputs.batch = batch->value_or(request.inputs.batch);
  Result<std::string> quant = quant_field(fields);
  if (!quant.ok()) return quant.error();
  request.inputs.quant = std::move(*quant);
  Result<std::optional<Backend>> backend = backend_field(fields);
  if (!backend.ok()) return backend.error();
  request.backend = *backend;
  Result<std::optional<uint64_t>> limit = memory_limit_field(fields);
  if (!limit.ok()) return limit.error();
  request.memory_limit_bytes = *limit;
  return Status::Ok();
}

}  // namespace

Result<EstimateRequest> parse_estimate_request(std::string_view body) {
  Result<Json> json = parse_object(body);
  if (!json.ok()) return json.error();
  Fields fields(*json);
  EstimateRequest request;

  if (Status shared = read_shared_fields(fields, request); !shared.ok()) return shared.error();
  Result<std::optional<uint64_t>> max_tokens = fields.count("max_tokens", 1);
  if (!max_tokens.ok()) return max_tokens.error();
  request.inputs.max_tokens = max_tokens->value_or(request.inputs.max_tokens);
  Result<KvElement> element = kv_element(fields, request.warnings);
  if (!element.ok()) return element.error();
  request.inputs.kv_element = *element;

  if (Status rest = fields.no_others(); !rest.ok()) return rest.error();
  return request;
}

Result<FitRequest> parse_fit_request(std::string_view body) {
  Result<Json> json = parse_object(body);
  if (!json.ok()) return json.error();
  Fields fields(*json);
  FitRequest request;

  if (Status shared = read_shared_fields(fields, request); !shared.ok()) return shared.error();

  if (const Json* curve = fields.find("curve_tokens")) {
    const std::string what = fmt::format("an array of at most {} integers from 1 to {}",
                                         kMaxCurvePoints, kMaxSolvedTokens);
    if (!curve->is_array() || curve->size() > kMaxCurvePoints) {
      return expected("curve_tokens", what, *curve);
    }
    for (const Json& tokens : *curve) {
      if (!tokens.is_number_unsigned() || tokens.get<uint64_t>() < 1 ||
          tokens.get<uint64_t>() > kMaxSolvedTokens) {
        return expected("curve_tokens", what, tokens);
      }
      request.curve_tokens.push_back(tokens.get<uint64_t>());
    }
  }

  if (Status rest = fields.no_others(); !rest.ok()) return rest.error();
  return request;
}

Result<AdmitRequest> parse_admit_request(std::string_view body) {
  Result<Json> json = parse_object(body);
  if (!json.ok()) return json.error();
  Fields fields(*json);
  AdmitRequest request;

  Result<std::string> model = model_field(fields);
  if (!model.ok()) return model.error();
  request.model = std::move(*model);

  Result<std::optional<uint64_t>> prompt = fields.count("prompt_tokens", 0);
  if (!prompt.ok()) return prompt.error();
  if (!*prompt) return Error("prompt_tokens: required");
  request.prompt_tokens = **prompt;
  Result<std::optional<uint64_t>> cached = fields.count("cached_tokens", 0);
  if (!cached.ok()) return cached.error();
  request.cached_tokens = cached->value_or(0);
  if (request.cached_tokens > request.prompt_tokens) {
    return Error(fmt::format("cached_tokens: {} is more than prompt_tokens {}",
                             request.cached_tokens, request.prompt_tokens));
  }
  Result<std::optional<uint64_t>> usage = fields.count("current_usage_bytes", 0);
  if (!usage.ok()) return usage.error();
  request.current_usage_bytes = usage->value_or(0);
  Result<std::optional<uint64_t>> limit = fields.count("hard_limit_bytes", 1);
  if (!limit.ok()) return limit.error();
  request.hard_limit_bytes = *limit;
  Result<std::optional<uint64_t>> chunk = fields.count("prefill_chunk", 0);
  if (!chunk.ok()) return chunk.error();
  request.prefill_chunk = *chunk;

  Result<std::optional<std::string>> id = fields.string("request_id");
  if (!id.ok()) return id.error();
  if (*id) {
    const std::string& text = **id;
    if (text.empty() || text.size() > kMaxRequestIdBytes ||
        !std::all_of(text.begin(), text.end(), is_request_id_char)) {
      return expected("request_id", "1-128 characters of [A-Za-z0-9._:/+=-]", Json(text));
    }
    request.request_id = text;
  }
  std::vector<std::string> warnings;  // cache_type_k/v disagreeing: admission sizes at fp16
  Result<KvElement> element = kv_element(fields, warnings);
  if (!element.ok()) return element.error();
  request.kv_element = *element;

  if (Status rest = fields.no_others(); !rest.ok()) return rest.error();
  return request;
}

}  // namespace memfit::service
