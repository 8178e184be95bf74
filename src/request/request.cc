// prepare() and run(): the one path from a request to an answer.
//
// Order matters for the user: the request's own fields are checked before
// anything is opened, so a typo fails in microseconds; the model is opened
// before the host is read, so a missing model is reported as such even on
// a machine whose GPU library is broken.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "memfit/checked_math.h"
#include "memfit/header_cache.h"
#include "memfit/memory_size.h"
#include "memfit/model_stores.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"
#include "request/machine.h"
#include "request/request_fields.h"

namespace memfit {
namespace {

void add_warnings(std::vector<Warning>& out, WarningKind kind,
                  const std::vector<std::string>& texts) {
  for (const std::string& text : texts) out.push_back(Warning{kind, text});
}

Status check_request_fields(const EstimateRequest& r) {
  if (r.model.empty()) return Error::usage("model", "required");
  if (r.max_tokens == 0) return Error::usage("max_tokens", "must be at least 1");
  if (r.batch == 0) return Error::usage("batch", "must be at least 1");
  return Status::Ok();
}

// The engine a request resolves to, and the other engines' fields refused:
// each one given names its engine. max_tokens and batch are plain values,
// so they count as given when they differ from their defaults.
// `named`: the request as given named the engine (r may carry the one its
// store's default gave: with_store_defaults).
Status resolve_engine(const EstimateRequest& r, bool named, const Model& model, PreparedRequest& p) {
  const EngineRegistry& registry = EngineRegistry::instance();
  p.engine_named = named;
  if (r.engine.empty()) {
    p.engine = &registry.default_for(model);
  } else if (Result<const EngineProfile*> named = registry.parse(r.engine); named) {
    p.engine = *named;
  } else {
    return Error::usage("engine", named.error().message());
  }
  const std::vector<const EngineProfile*> engines = registry.all();
  for (auto other = engines.rbegin(); other != engines.rend(); ++other) {
    if (*other == p.engine) continue;
    if (std::string_view field = (*other)->first_field_given(r); !field.empty()) {
      return EngineRegistry::field_of_other_engine(field, **other);
    }
  }
  return p.engine->resolve(r, p);
}

// What the model's store says of how it runs the model, when the request
// names a store's model and that store gave the model opened (its path is
// the store's weights: a folder under a service's root that happens to be
// called "ollama:x" is not); the store is this process's
// (process_model_store_options), as LocalRequestContext::open_model reads
// it. nullopt otherwise.
std::optional<StoreDefaults> store_defaults_of(const EstimateRequest& r, const Model& model) {
  if (!is_store_model_name(r.model)) return std::nullopt;
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<StoreDefaults> defaults = read_store_defaults(*fs, r.model, process_model_store_options());
  if (!defaults || defaults->model_path != model.path) return std::nullopt;
  return std::move(*defaults);
}

// The request with what the model's store sets where the request gives
// nothing (docs/stores.md):
// - Ollama's num_ctx as the context, with a warning that says so;
// - the ollama engine for a model of Ollama's store, as `memfit ls`
//   prices it (stores/local_models.cc, usual_engine), unless the request
//   names an engine or gives another engine's setting (a llama.cpp flag
//   asks for llama.cpp's server).
EstimateRequest with_store_defaults(const EstimateRequest& r, const Model& model,
                                    std::vector<Warning>& warnings) {
  EstimateRequest out = r;
  const std::optional<StoreDefaults> defaults = store_defaults_of(r, model);
  if (!defaults) return out;
  if (r.engine.empty() && defaults->store == "ollama") {
    const EngineRegistry& registry = EngineRegistry::instance();
    const EngineProfile* ollama = registry.find("ollama");
    const std::vector<const EngineProfile*> engines = registry.all();
    const bool other_engines_field = std::any_of(engines.begin(), engines.end(), [&](const EngineProfile* e) {
      return e != ollama && !e->first_field_given(r).empty();
    });
    if (ollama != nullptr && !other_engines_field) out.engine = "ollama";
  }
  if (r.max_tokens || r.llamacpp.ctx_size || r.vllm.max_model_len) return out;
  if (const std::optional<uint64_t>& context = defaults->context_tokens) {
    out.max_tokens = *context;
    warnings.push_back(Warning{WarningKind::kModel,
                               fmt::format("the context is {} tokens, the num_ctx of the model's "
                                           "Ollama Modelfile (--max-tokens gives another)",
                                           *context)});
  }
  return out;
}

}  // namespace

namespace request {

Result<KvElement> resolve_kv_element(const EstimateRequest& r, std::vector<Warning>& warnings) {
  if (r.cache_type_k.has_value() != r.cache_type_v.has_value()) {
    // Named by the one given, so that the CLI names its flag.
    return r.cache_type_k ? Error::usage("cache_type_k", "and cache_type_v go together: give both or neither")
                          : Error::usage("cache_type_v", "and cache_type_k go together: give both or neither");
  }
  if (!r.cache_type_k) return r.kv_cache_mode.value_or(KvElement::kFp16);
  KvElement both = *r.cache_type_k;
  if (*r.cache_type_k != *r.cache_type_v) {
    both = KvElement::kFp16;
    warnings.push_back(Warning{WarningKind::kRequest,
                               "the K and V cache types differ: the KV cache is sized at the "
                               "wider type, fp16"});
  }
  if (r.kv_cache_mode && *r.kv_cache_mode != both) {
    return Error::usage("the KV cache mode disagrees with the K and V cache types");
  }
  return both;
}

}  // namespace request

Error estimate_error(const EstimateRequest& r, const Error& error) {
  if (error.kind() == ErrorKind::kUsage) return error;
  return error.within(quote_untrusted(r.model));
}

void warn_if_not_available_now(EstimateRun& run, uint64_t load_bytes) {
  if (std::optional<std::string> line = available_now_warning(run.host, load_bytes)) {
    run.warnings.push_back(Warning{WarningKind::kAvailableNow, std::move(*line)});
  }
}

bool wants_parallel_plan(const ParallelConfig& c) {
  // tensor x pipeline may overflow: either one alone past the cap is a
  // request for a plan (which check_parallel_config then refuses).
  return c.tensor_parallel > kMaxParallelRanks || c.pipeline_parallel > kMaxParallelRanks ||
         c.tensor_parallel * c.pipeline_parallel > 1;
}

Result<PreparedRequest> prepare(const EstimateRequest& r, RequestContext& context,
                                const PrepareOptions& options) {
  PreparedRequest p;
  add_warnings(p.warnings, WarningKind::kSettings, context.settings_warnings());
  if (Status fields = check_request_fields(r); !fields) return fields.error();
  Result<request::DescribedMachine> machine = request::describe_machine(r.machine);
  if (!machine) return machine.error();
  Result<std::optional<double>> host_bandwidth = request::host_bandwidth_gb_s(r);
  if (!host_bandwidth) return host_bandwidth.error();
  if (machine->mac != nullptr && *host_bandwidth) {
    return Error::usage(request::kHostBandwidthField,
                        "a Mac's CPU reads its unified memory, whose bandwidth is the hardware "
                        "table's (give one of mac and host_bandwidth_gb_s)");
  }

  p.settings = context.settings();
  p.inputs.max_tokens = r.max_tokens.value_or(p.inputs.max_tokens);
  p.inputs.batch = r.batch;
  p.inputs.quant = r.quant;
  p.platform = context.platform();
  request::apply_machine_platform(*machine, p.platform);
  if (r.backend) p.platform.backend = *r.backend;

  OpenModelOptions open;
  const EngineProfile* named = EngineRegistry::instance().find(r.engine);
  open.keep_tensors = options.keep_tensors || wants_parallel_plan(r.parallel) ||
                      (named != nullptr && named->needs_tensors(r));
  Result<std::shared_ptr<const Model>> model = context.open_model(r.model, open);
  if (!model) return model.error();
  p.model = std::move(*model);
  add_warnings(p.warnings, WarningKind::kModel, p.model->warnings);
  const EstimateRequest stored = with_store_defaults(r, *p.model, p.warnings);
  if (stored.max_tokens) p.inputs.max_tokens = *stored.max_tokens;
  if (Status engine = resolve_engine(stored, !r.engine.empty(), *p.model, p); !engine) return engine.error();

  Result<HostMemoryStatus> host = request::host_for_request(stored, *machine, context, p.warnings);
  if (!host) return host.error();
  p.host = std::move(*host);
  if (p.host.device_error) return Error(*p.host.device_error, ErrorKind::kHost);
  add_warnings(p.warnings, WarningKind::kHost, p.host.warnings);
  p.budget = to_memory_budget(p.host);
  p.speed_machine = request::speed_machine(*machine, p.host, *host_bandwidth);

  if (Status host = p.engine->resolve_host(stored, context, p); !host) return host.error();
  return p;
}

Result<EstimateRun> run(const EstimateRequest& r, RequestContext& context) {
  Result<PreparedRequest> prepared = prepare(r, context);
  if (!prepared) return prepared.error();
  return run_prepared(r, std::move(*prepared));
}

Result<EstimateRun> run_prepared(const EstimateRequest& r, PreparedRequest prepared) {
  EstimateRun run;
  static_cast<PreparedRequest&>(run) = std::move(prepared);

  if (Status estimated = run.engine->estimate(r, run); !estimated) return estimated.error();
  return run;
}

LocalRequestContext::LocalRequestContext(const Environment& env)
    : settings_(mlxcel_settings_from_environment(env, settings_warnings_)),
      host_options_(host_query_options_from_environment(env)) {
  host_options_.explicit_limit_bytes = settings_.memory_limit_bytes;
  model_names_.hf_cache = hf_cache_options_from_environment(env);
  model_names_.hub = hub_options_from_environment(env);
  header_cache_ = make_header_cache_from_environment(env);
  model_names_.header_store = header_cache_.get();
}

Result<std::shared_ptr<const Model>> LocalRequestContext::open_model(
    const std::string& name, const OpenModelOptions& options) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  // A store's name (model_stores.h) when no local path has it. The stores
  // are read from the process's environment when asked for: LocalRequestContext
  // keeps no store folders of its own yet.
  if (is_store_model_name(name)) {
    Result<FileStat> local = fs->stat(name);
    if (!local) return local.error();
    if (local->kind == FileKind::kMissing) {
      Result<Model> stored = open_store_model(*fs, name, process_model_store_options(), options);
      if (!stored) return stored.error();
      return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*stored)));
    }
  }
  Result<Model> model = open_model_by_name(*fs, name, model_names_, options);
  if (!model) return model.error();
  return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*model)));
}

HostMemoryStatus RequestContext::host_ram(std::optional<uint64_t> explicit_limit_bytes) {
  return host_memory(DeviceSelector{.kind = DeviceSelector::Kind::kCpu}, explicit_limit_bytes);
}

Result<GgufHeader> RequestContext::read_gguf_header(std::string_view field, const std::string&) {
  return Error::usage(field, "this front end reads no files besides the model");
}

Result<GgufHeader> LocalRequestContext::read_gguf_header(std::string_view, const std::string& path) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  return memfit::read_gguf_header(*fs, path);
}

HostMemoryStatus LocalRequestContext::host_memory(const DeviceSelector& device,
                                                  std::optional<uint64_t> explicit_limit_bytes) {
  HostQueryOptions options = host_options_;
  options.device = device;
  if (explicit_limit_bytes) options.explicit_limit_bytes = explicit_limit_bytes;
  const bool names_a_gpu = device.kind == DeviceSelector::Kind::kCuda ||
                           device.kind == DeviceSelector::Kind::kRocm;
  if (options.explicit_limit_bytes && !names_a_gpu) options.probe_gpus = false;
  return query_host_memory(options);
}

HostMemoryStatus LocalRequestContext::host_ram(std::optional<uint64_t> explicit_limit_bytes) {
  HostQueryOptions options = host_options_;
  options.device = DeviceSelector{.kind = DeviceSelector::Kind::kCpu};
  if (explicit_limit_bytes) options.explicit_limit_bytes = explicit_limit_bytes;
  options.probe_gpus = false;
  return query_host_memory(options);
}

}  // namespace memfit
