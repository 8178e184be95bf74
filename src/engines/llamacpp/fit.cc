// fit_llamacpp(): the request layer's step from a prepared llamacpp
// request to the solver's answers (llamacpp_fit.h).
#include <fmt/format.h>

#include "memfit/llama_server.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/untrusted_text.h"
#include "engines/llamacpp/quantize_plan.h"

namespace memfit {

Result<LlamaCppSolveFor> parse_llamacpp_solve(std::string_view text) {
  if (text == "ctx-size" || text == "max-tokens") return LlamaCppSolveFor::kCtxSize;
  if (text == "parallel" || text == "slots") return LlamaCppSolveFor::kParallel;
  if (text == "gpu-layers") return LlamaCppSolveFor::kGpuLayers;
  if (text == "n-cpu-moe") return LlamaCppSolveFor::kNCpuMoe;
  const std::string what =
      "llamacpp solves ctx-size (or max-tokens), parallel (or slots), gpu-layers and n-cpu-moe";
  if (text == "batch") {
    return Error::usage("solve", fmt::format("batch is an mlxcel solve; {}", what));
  }
  if (text == "max-model-len" || text == "max-num-seqs") {
    return Error::usage("solve", fmt::format("{} is a vllm solve; {}", text, what));
  }
  return Error::usage("solve", fmt::format("{}: {}", quote_untrusted(text), what));
}

std::string_view to_string(LlamaCppSolveFor what) {
  switch (what) {
    case LlamaCppSolveFor::kCtxSize:
      return "ctx-size";
    case LlamaCppSolveFor::kParallel:
      return "parallel";
    case LlamaCppSolveFor::kGpuLayers:
      return "gpu-layers";
    case LlamaCppSolveFor::kNCpuMoe:
      return "n-cpu-moe";
  }
  return "ctx-size";
}

namespace {

// Why solving n-cpu-moe cannot move any expert of `model`, or Ok.
Status check_experts_movable(const Model& model) {
  // A dense model is refused by the solver itself, with its own text.
  if (model.spec.moe.experts != 0 && model.tensors.empty()) {
    return Error::usage("solve", "n-cpu-moe moves experts by their GGUF tensor names, and this "
                                 "model has no GGUF tensor list (a config or safetensors "
                                 "folder): solve it on the GGUF file, or give --quant a "
                                 "GGUF file type (Q4_K_M, ...)");
  }
  return Status::Ok();
}

}  // namespace

Result<LlamaCppFit> fit_llamacpp(LlamaCppSolveFor what, const EstimateRequest& r,
                                 const PreparedRequest& p) {
  if (p.engine->name() != "llamacpp") return Error::usage("engine", "is not llamacpp");
  // max_tokens is the context too when ctx_size is not given (request.h).
  if (what == LlamaCppSolveFor::kCtxSize && (r.llamacpp.ctx_size || r.max_tokens)) {
    return Error::usage(r.llamacpp.ctx_size ? "ctx_size" : "max_tokens",
                        "is what solving ctx-size finds: leave it out");
  }
  if (r.llamacpp.ctx_size && r.max_tokens) {
    return Error::usage("max_tokens", "and ctx_size are both the context: give one (ctx_size is "
                                      "llama.cpp's name)");
  }
  if (what == LlamaCppSolveFor::kParallel && r.llamacpp.parallel) {
    return Error::usage("parallel", "is what solving parallel finds: leave it out");
  }
  if (what == LlamaCppSolveFor::kGpuLayers && r.llamacpp.placement.n_gpu_layers) {
    return Error::usage("n_gpu_layers", "is what solving gpu-layers finds: leave it out");
  }
  if (what == LlamaCppSolveFor::kNCpuMoe && r.llamacpp.placement.n_cpu_moe) {
    return Error::usage("n_cpu_moe", "is what solving n-cpu-moe finds: leave it out");
  }
  if (what == LlamaCppSolveFor::kNCpuMoe) {
    if (Status movable = check_experts_movable(*p.model); !movable) return movable.error();
  }
  auto within_model = [&r](const Error& e) {
    return e.kind() == ErrorKind::kUsage ? e : e.within(quote_untrusted(r.model));
  };
  const LlamaCppSettings& s = p.llamacpp_settings;
  LlamaCppFit fit;
  fit.what = what;
  fit.model_file = llamacpp::launch_model_file(r, p.model->path);
  Result<std::vector<LlamaCppSolution>> all =
      solve_llamacpp_each_cache_type(what, *p.model, s, p.budget);
  if (!all) return within_model(all.error());
  fit.by_cache_type = std::move(*all);
  // The answer at the request's own types is a table row when K = V is
  // one of them; otherwise (K and V differ, or another type) its own solve.
  const LlamaCppSolution* row = nullptr;
  for (const LlamaCppSolution& solution : fit.by_cache_type) {
    if (s.cache_type_k == s.cache_type_v && solution.cache_type == s.cache_type_k) row = &solution;
  }
  if (row != nullptr) {
    fit.answer = *row;
  } else {
    Result<LlamaCppSolution> own = solve_llamacpp(what, *p.model, s, p.budget);
    if (!own) return within_model(own.error());
    fit.answer = std::move(*own);
  }
  if (fit.answer.estimate) fit.flags = llama_server_flags(p.model->spec, fit.answer.estimate->settings);
  return fit;
}

}  // namespace memfit
