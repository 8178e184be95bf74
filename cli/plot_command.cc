// memfit plot -m MODEL --out F.svg: memory against context for each KV
// width (and each weight mode with --quants), stacked by component, with
// the budget line and the largest context that fits marked. Writes the
// SVG; prints one summary line (or, with --json, one JSON object).
//
// A llamacpp request (a GGUF model by default) draws --ctx-size on the x
// axis, one panel per cache type, with llama.cpp's flags as given; the
// range end is --max-tokens, a flag of the plot here, not of the request
// (for which max_tokens is an mlxcel setting).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "commands.h"
#include "estimate_options.h"
#include "memfit/environment.h"
#include "memfit/memory_size.h"
#include "memfit/plot.h"
#include "memfit/quant_schemes.h"
#include "memfit/report.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

struct PlotOptions {
  EstimateOptions estimate;
  std::string out_path;
  bool quants = false;
  bool max_tokens_given = false;
  bool kv_width_given = false;
  bool ctx_size_given = false;
};

// The figure's name for the model: the last component of its path.
std::string model_title(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Result<std::vector<PlotWeightMode>> weight_modes(const PlotOptions& o, const PreparedRequest& c,
                                                 std::vector<Warning>& warnings) {
  const Model& model = *c.model;
  if (!o.quants) return std::vector<PlotWeightMode>{{"as-is", model.weights.bytes}};
  if (model.tensors.empty()) warnings.push_back(no_headers_warning());
  std::vector<PlotWeightMode> modes;
  std::vector<std::string> skipped;
  for (const QuantScheme& scheme : mlx_quant_schemes()) {
    // As recommend-quant: a mode with no fewer bits than the checkpoint's
    // own is not a way to save memory, so it is not drawn.
    if (!scheme.as_is && !shrinks_checkpoint(scheme, model.spec)) {
      skipped.push_back(scheme.name);
      continue;
    }
    Result<uint64_t> bytes = candidate_weights_bytes(scheme, model, model.tensors);
    if (!bytes) return bytes.error().within(quote_untrusted(o.estimate.model));
    modes.push_back({scheme.name, *bytes});
  }
  if (!skipped.empty()) {
    warnings.push_back(Warning{WarningKind::kRequest,
                               fmt::format("--quants: {} not drawn: the checkpoint is already "
                                           "quantized to as few bits or fewer",
                                           fmt::join(skipped, ", "))});
  }
  return modes;
}

Status write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Error(fmt::format("writing {}: {}", quote_untrusted(path), std::strerror(errno)));
  size_t written = std::fwrite(text.data(), 1, text.size(), f);
  int write_errno = errno;
  bool closed = std::fclose(f) == 0;
  if (written != text.size() || !closed) {
    return Error(fmt::format("writing {}: {}", quote_untrusted(path),
                             std::strerror(closed ? write_errno : errno)));
  }
  return Status::Ok();
}

std::string summary_line(const PlotOptions& o, const EngineProfile& engine, const PlotData& data) {
  std::string fits;
  for (const PlotPanel& p : data.panels) {
    if (!fits.empty()) fits += ", ";
    std::string name =
        o.quants ? fmt::format("{}/{}", p.weights_mode, p.kv_cache_mode) : p.kv_cache_mode;
    fits += fmt::format("{} {}", name,
                        p.max_tokens_that_fit ? fmt::format("{}", *p.max_tokens_that_fit) : "none");
  }
  if (engine.name() == "llamacpp") {
    return fmt::format(
        "wrote {}: --ctx-size {} to {}, llama.cpp, budget {}; largest --ctx-size that fits: {}\n",
        o.out_path, data.min_tokens, data.max_tokens, format_bytes(data.budget_bytes), fits);
  }
  return fmt::format("wrote {}: {} to {} tokens, batch {}, budget {}; largest context that fits: {}\n",
                     o.out_path, data.min_tokens, data.max_tokens, data.batch,
                     format_bytes(data.budget_bytes), fits);
}

std::string summary_json(const PlotOptions& o, const PreparedRequest& c, const PlotData& data) {
  nlohmann::ordered_json panels = nlohmann::ordered_json::array();
  for (const PlotPanel& p : data.panels) {
    panels.push_back({{"weights_mode", p.weights_mode},
                      {"kv_cache_mode", p.kv_cache_mode},
                      {"weights_bytes", p.weights_bytes},
                      {"max_tokens_that_fit", p.max_tokens_that_fit
                                                  ? nlohmann::ordered_json(*p.max_tokens_that_fit)
                                                  : nlohmann::ordered_json(nullptr)},
                      {"capped", p.capped}});
  }
  nlohmann::ordered_json j = {{"out", o.out_path}, {"engine", c.engine->name()},
                              {"min_tokens", data.min_tokens}, {"max_tokens", data.max_tokens}};
  if (c.engine->name() == "llamacpp") {
    // The settings every panel shares; the cache types are the panels'.
    const LlamaCppSettings& s = c.llamacpp_settings;
    j["llamacpp"] = {{"parallel", s.parallel},       {"batch_size", s.batch_size},
                     {"ubatch_size", s.ubatch_size}, {"flash_attn", to_string(s.flash_attn)},
                     {"swa_full", s.swa_full},       {"kv_unified", s.kv_unified}};
  } else {
    j["batch"] = data.batch;
  }
  j["budget_bytes"] = data.budget_bytes;
  j["panels"] = std::move(panels);
  j["warnings"] = warnings_json(c.warnings);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// The request the flags ask for, with max_tokens left at its default: for
// the plot, --max-tokens is where the x axis ends, not a request field.
Result<PreparedRequest> prepare_plot(const PlotOptions& o) {
  Result<EstimateRequest> request = to_request(o.estimate);
  if (!request) return request.error();
  request->max_tokens = EstimateRequest{}.max_tokens;
  LocalRequestContext context = request_context(o.estimate);
  return prepare(*request, context,
                 PrepareOptions{.keep_tensors = o.quants});
}

// Errors come back as the user should read them: usage errors (settings
// llama.cpp refuses) name their flag, others the model.
Result<PlotData> plot_llamacpp(const PlotOptions& o, const PreparedRequest& c, uint64_t max_tokens) {
  if (o.quants) {
    return Error::usage("quants", "MLX weight modes are not llama.cpp's: it draws the model as "
                                  "it is, without --quants");
  }
  print_warnings(c.warnings);
  LlamaCppPlotRequest request;
  request.title = model_title(o.estimate.model);
  request.settings = c.llamacpp_settings;
  request.each_cache_type = !o.kv_width_given;
  request.max_tokens = max_tokens;
  Result<PlotData> data = compute_llamacpp_plot(*c.model, c.budget, request);
  if (!data && data.error().kind() != ErrorKind::kUsage) {
    return data.error().within(quote_untrusted(o.estimate.model));
  }
  return data;
}

// As plot_llamacpp; --quants' warnings join the request's.
Result<PlotData> plot_mlxcel(const PlotOptions& o, PreparedRequest& c, uint64_t max_tokens) {
  PlotRequest request;
  request.title = model_title(o.estimate.model);
  request.max_tokens = max_tokens;
  if (o.kv_width_given) request.kv_elements = {c.inputs.kv_element};
  Result<std::vector<PlotWeightMode>> modes = weight_modes(o, c, c.warnings);
  if (!modes) return modes.error();
  request.weight_modes = std::move(*modes);
  print_warnings(c.warnings);
  Result<PlotData> data = compute_plot(*c.model, c.inputs, c.settings, c.platform, c.budget, request);
  if (!data) return data.error().within(quote_untrusted(o.estimate.model));
  return data;
}

void run_plot(const PlotOptions& o, int& exit_code) {
  if (o.ctx_size_given) {
    exit_code = report_error(Error::usage("ctx_size", "is the plot's x axis: give --max-tokens "
                                                      "for where it ends"),
                             "plot");
    return;
  }
  Result<PreparedRequest> c = prepare_plot(o);
  if (!c) {
    exit_code = report_error(c.error(), "plot");
    return;
  }
  if (!c->engine->supports(EngineCommand::kPlot)) {
    exit_code = report_error(EngineRegistry::instance().unsupported(*c->engine, EngineCommand::kPlot));
    return;
  }
  // Without --max-tokens, the context the model declares, else 128K.
  const uint64_t declared = c->model->spec.max_position_tokens;
  const uint64_t max_tokens = o.max_tokens_given ? o.estimate.max_tokens
                              : declared > 0     ? declared
                                                 : kPlotDefaultMaxTokens;
  if (max_tokens < 2) {
    exit_code =
        report_error(Error::usage("max_tokens", "a plot needs at least 2 tokens"), "plot");
    return;
  }
  Result<PlotData> data = c->engine->name() == "llamacpp" ? plot_llamacpp(o, *c, max_tokens)
                                                         : plot_mlxcel(o, *c, max_tokens);
  if (!data) {
    exit_code = report_error(data.error(), "plot");
    return;
  }
  Status written = write_file(o.out_path, render_plot_svg(*data));
  if (!written) {
    exit_code = report_error(written.error(), "plot");
    return;
  }
  std::string out = o.estimate.json ? summary_json(o, *c, *data) : summary_line(o, *c->engine, *data);
  std::fwrite(out.data(), 1, out.size(), stdout);
  exit_code = kExitOk;
}

}  // namespace

void add_plot_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "draw memory against context per KV width (and weight mode) as an SVG file; "
              "for llamacpp, against --ctx-size per cache type");
  add_model_options(*cmd, options->estimate);
  add_request_options(*cmd, options->estimate);
  add_llamacpp_options(*cmd, options->estimate);
  cmd->add_option("-o,--out", options->out_path, "the SVG file to write")->required();
  cmd->add_flag("--quants", options->quants, "one row per weight mode: as-is, int8, int4 (MLX affine)");
  cmd->callback([options, cmd, &exit_code] {
    // The range ends at the model's own context unless --max-tokens says;
    // one KV width is drawn when the user names one.
    options->max_tokens_given = cmd->count("--max-tokens") > 0;
    options->kv_width_given = cmd->count("--kv-cache-mode") > 0 || cmd->count("--cache-type-k") > 0 ||
                              cmd->count("--cache-type-v") > 0;
    options->ctx_size_given = cmd->count("--ctx-size") > 0;
    run_plot(*options, exit_code);
  });
}

}  // namespace memfit::cli
