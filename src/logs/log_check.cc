// check_log (log_check.h): read the log, find its model, build the
// request its pricer makes of it, run it through run() as every front end
// does, and set memfit's figures beside the printed ones.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "logs/log_context.h"
#include "logs/log_model.h"
#include "logs/log_pricer.h"
#include "logs/log_targets.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// The name a request gives a model that comes with the log (rebuilt, or a
// config): LogRequestContext opens it for any name.
constexpr std::string_view kLogModelName = "<the log's model>";

// The model that comes with the log, or null when it is named
// (options.model) or there is none; `check` says which and why.
// `unlisted`: why the model rebuilt from the dump has no tensor list
// ("" when it has one, or comes from elsewhere); `shaped`: it has the
// converter's list, its bytes scaled to the printed size
// (logs::model_with_shaped_weights) instead.
Result<std::shared_ptr<const Model>> log_model(const LogCheckOptions& options,
                                               const logs::LogPricer& pricer, LogCheck& check,
                                               std::string& unlisted, bool& shaped) {
  if (!options.model.empty()) {
    check.model_source = ModelSource::kModel;
    return std::shared_ptr<const Model>();
  }
  if (!options.config_json.empty()) {
    Result<std::string> config = pricer.run_config(check.log, options, check.log.notes);
    if (!config) {
      check.not_priced = "no model: the config given beside the log: " + config.error().message();
      return std::shared_ptr<const Model>();
    }
    Result<Model> model = logs::model_from_config(*config);
    if (!model) return model.error();
    check.model_source = ModelSource::kConfig;
    return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*model)));
  }
  if (!pricer.rebuilds_model()) {
    check.not_priced = fmt::format("no model: a {} log does not describe the model's geometry; "
                                   "give -m MODEL or --config config.json",
                                   runtime_title(check.log.runtime));
    return std::shared_ptr<const Model>();
  }
  Result<Model> model = model_from_log(check.log.model);
  if (!model) {
    // What would price it: the file, or the config of the model the log
    // names (a public config.json of the same geometry, with the file type).
    const std::string& name = check.log.model.name;
    const std::string which =
        name.empty() ? "the log names no model: give -m MODEL (the GGUF file), or --config with "
                       "that model's config.json and --file-type"
                     : fmt::format("give -m MODEL (the GGUF file), or --config with the config.json "
                                   "of the model the log loads ({}) and --file-type",
                                   quote_untrusted(name));
    check.not_priced = fmt::format("no model: {}; {}", model.error().message(), which);
    return std::shared_ptr<const Model>();
  }
  check.model_source = ModelSource::kLog;
  const LogSetting* file_type = check.log.setting("file_type");
  Result<Model> listed = logs::model_with_dump_tensors(
      *model, check.log.model, file_type == nullptr ? "" : logs::gguf_file_type_of_printed(file_type->value),
      file_type != nullptr && file_type->value.find("(guessed)") != std::string::npos);
  if (!listed) {
    unlisted = listed.error().message();
    Result<Model> shaped_model = logs::model_with_shaped_weights(
        *model, check.log.model, file_type == nullptr ? "" : logs::gguf_file_type_of_printed(file_type->value));
    if (shaped_model) {
      shaped = true;
      check.log.notes.push_back("the weights per device are modelled (the converter's tensors, each its "
                                "share of the printed size), not rebuilt type by type: " +
                                listed.error().message());
      return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*shaped_model)));
    }
    check.log.notes.push_back("the weights per device are modelled (spread by blocks), not rebuilt "
                              "tensor by tensor: " + listed.error().message());
    return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*model)));
  }
  return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(*listed)));
}

std::string model_detail(const LogCheck& check, const Model& model) {
  const std::string weights = fmt::format("weights {} ({})", format_bytes(model.weights.bytes),
                                          to_string(model.weights.source));
  const std::string what = fmt::format("{}, {} layers", escape_untrusted(model.spec.model_type),
                                       model.spec.layers.size());
  switch (check.model_source) {
    case ModelSource::kLog:
      return fmt::format("rebuilt from the log's metadata dump ({} entries): {}; {} as printed",
                         check.log.model.metadata.size(), what, weights);
    case ModelSource::kConfig:
      return fmt::format("from the config.json given beside the log: {}; {}", what, weights);
    case ModelSource::kModel:
      return fmt::format("{}: {}; {}", quote_untrusted(model.path), what, weights);
    case ModelSource::kNone:
      break;
  }
  return "";
}

// The ratio and the rounding check of each priced figure; a note on each
// figure left unpriced without one.
void settle(std::vector<FigureCheck>& figures) {
  for (FigureCheck& c : figures) {
    const PrintedFigure& p = c.printed;
    if (c.memfit_ratio && p.ratio > 0) {
      c.ratio = *c.memfit_ratio / p.ratio;
      c.within_print = std::fabs(*c.memfit_ratio - p.ratio) <= 0.5 * std::pow(10.0, -double(p.decimals));
    } else if (c.memfit && p.value > 0) {
      c.ratio = static_cast<double>(*c.memfit) / static_cast<double>(p.value);
      c.within_print = logs::within_print_band(*c.memfit, p);
    }
    if (!c.memfit && !c.memfit_ratio && c.note.empty()) c.note = "memfit has no figure for it";
  }
}

// The model rows of a model rebuilt from the dump without its tensor
// list say why, as its rows are spread by blocks (and CPU_REPACK's copies
// unpriced) for that reason.
void say_why_unlisted(const std::string& unlisted, bool shaped, std::vector<FigureCheck>& figures) {
  if (unlisted.empty()) return;
  for (FigureCheck& c : figures) {
    if (c.printed.figure != LogFigure::kModel || !c.memfit) continue;
    // A GGUF header lists every tensor with its type; the dump, counts.
    c.input_gap = shaped ? "tensor types" : "tensor list";
    if (c.note.starts_with(logs::kRepackFromCounts)) {
      logs::append_note(c, fmt::format("the tensor list is not rebuilt from the dump ({})", unlisted));
    } else if (shaped) {
      logs::append_note(c, fmt::format("the blocks' weights are shaped by the converter's tensors, their "
                                       "types not rebuilt from the dump ({})",
                                       unlisted));
    } else if (c.note.starts_with(logs::kRepackNeedsTensors)) {
      const size_t more = c.note.find("; ");
      c.note = fmt::format("CPU_REPACK's copies need the tensor list, not rebuilt from the dump "
                           "({}): memfit's is the mapped weights; give -m{}",
                           unlisted, more == std::string::npos ? "" : c.note.substr(more));
    } else {
      const std::string why = fmt::format(
          "the weights are spread by blocks: the tensor list is not rebuilt from the dump ({})",
          unlisted);
      logs::append_note(c, why);
    }
  }
}

bool meets(const FigureTarget& t, const FigureCheck& c) {
  if (!c.ratio) return false;
  if (t.exact) return c.within_print;
  return *c.ratio >= t.low && *c.ratio <= t.high;
}

// Gives each priced figure its target, and one that misses it with no
// reason from its pricer says so in one line: the issue asks every such row
// to say why, and where memfit has not traced the cause that is what it says.
// The figures a llama.cpp-family run sizes by its context: the KV cache and
// the compute buffers (the attention's scores, the mask).
bool sized_by_context(LogFigure figure) {
  return figure == LogFigure::kKvCache || figure == LogFigure::kContext ||
         figure == LogFigure::kCompute;
}

// The pricer's note when the log printed no n_ctx and memfit chose one (the
// training context, Ollama's default num_ctx); nullopt when the log gave it.
std::optional<std::string> assumed_context(const LogCheck& check) {
  for (const std::string& note : check.log.notes) {
    if (note == logs::kTrainingContextAssumedNote || note == logs::kOllamaDefaultContextNote) {
      return note;
    }
  }
  return std::nullopt;
}

void judge_targets(LogCheck& check) {
  // The figures check-log's pricer added (totals) name no new GPU.
  const size_t gpus = logs::target_gpus(check.log);
  const std::optional<std::string> assumed = assumed_context(check);
  for (FigureCheck& c : check.figures) {
    c.target = logs::figure_target(check.profile, c.printed.figure, gpus);
    if (!c.target) continue;
    c.target->met = meets(*c.target, c);
    if (c.target->met || !c.ratio || (!c.note.empty() && !c.note_is_provenance)) continue;
    if (assumed && sized_by_context(c.printed.figure)) {
      // Not a rule's miss: the run's context is an input the log withheld.
      const std::string why = fmt::format(
          "off its target ({}): the log prints no n_ctx and this figure grows with it; memfit's "
          "context is one it chose ({}), not the run's",
          c.target->text, assumed->substr(assumed->find(": ") + 2));
      c.note = c.note.empty() ? why : c.note + "; " + why;
      continue;
    }
    const std::string untraced =
        fmt::format("off its target ({}) by a cause memfit has not traced: no rule it holds "
                    "accounts for the difference, and the log shows none it reads",
                    c.target->text);
    c.note = c.note.empty() ? untraced : c.note + "; " + untraced;
  }
}

void mark_unpriced(LogCheck& check) {
  for (FigureCheck& c : check.figures) {
    if (c.note.empty()) c.note = "not priced";
  }
}

}  // namespace

std::string_view to_string(ModelSource source) {
  switch (source) {
    case ModelSource::kNone: return "none";
    case ModelSource::kLog: return "log";
    case ModelSource::kModel: return "model";
    case ModelSource::kConfig: return "config";
  }
  return "none";
}

std::string_view to_string(FigureBasis basis) {
  return basis == FigureBasis::kExact ? "exact" : "modelled";
}

Result<LogCheck> check_log(std::string_view text, const LogCheckOptions& options,
                           RequestContext* models) {
  // A command given beside the log is read as its last line.
  Result<RuntimeLog> log = options.command.empty()
                               ? read_runtime_log(text)
                               : read_runtime_log(std::string(text) + "\n" + options.command + "\n");
  if (!log) return log.error();
  LogCheck check;
  check.log = std::move(*log);
  if (check.log.version.empty() && !options.version.empty()) {
    check.log.version = options.version;
    // The reader's notes that the log names no version (and what it assumed
    // for want of one) no longer hold.
    std::erase_if(check.log.notes, [](const std::string& note) {
      return note.find("version is not in the log") != std::string::npos;
    });
    check.log.notes.push_back("the version is the one given: the log prints none");
  }
  const logs::LogPricer* pricer = logs::log_pricer(check.log);
  if (pricer != nullptr) pricer->settle_printed(check.log);
  for (const PrintedFigure& f : check.log.figures) {
    FigureCheck c;
    c.printed = f;
    check.figures.push_back(std::move(c));
  }

  if (pricer == nullptr) {
    check.not_priced = fmt::format("{} has no memfit engine profile yet: its figures are read, "
                                   "not priced", runtime_title(check.log.runtime));
    mark_unpriced(check);
    return check;
  }
  std::string unlisted;
  bool shaped = false;
  Result<std::shared_ptr<const Model>> model = log_model(options, *pricer, check, unlisted, shaped);
  if (!model) return model.error();
  if (!check.not_priced.empty()) {
    mark_unpriced(check);
    return check;
  }
  std::vector<std::string> notes;
  Result<EstimateRequest> request = pricer->request(check.log, options, notes);
  for (std::string& note : notes) check.log.notes.push_back(std::move(note));
  if (!request) {
    check.not_priced = "the log's settings: " + request.error().message();
    mark_unpriced(check);
    return check;
  }
  if (std::string backend = pricer->priced_backend(check.log, options); !backend.empty()) {
    check.log.backend = std::move(backend);
  }
  if (*model) check.model_detail = model_detail(check, **model);
  request->model = check.model_source == ModelSource::kModel ? options.model : std::string(kLogModelName);
  logs::LogRequestContext context(models, *model, check.log);
  Result<EstimateRun> run = memfit::run(*request, context);
  if (!run && !request->quant.empty() && run.error().field() == "quant") {
    // No GGUF of that file type for this model (its converter's tensors
    // are not built): the context and compute are priced without it.
    check.log.notes.push_back("the model buffers are not priced: " + run.error().message());
    request->quant.clear();
    run = memfit::run(*request, context);
  }
  if (!run && (run.error().field() == "override_tensor" || run.error().field() == "n_cpu_moe")) {
    // The command's -ot rules and --n-cpu-moe, and the overrides --fit set
    // (llamacpp_fit.cc), move tensors by their GGUF names
    // (llamacpp_reader.cc, read_tensor_overrides); a model whose
    // tensor list is not rebuilt has none to move: its weights are spread
    // by blocks as without them, and the context and compute are priced.
    check.log.notes.push_back("the tensor overrides (the command's, or those --fit set) are not priced: " + run.error().message());
    request->llamacpp.placement.override_tensor.clear();
    request->llamacpp.placement.n_cpu_moe.reset();
    run = memfit::run(*request, context);
  }
  if (!run) {
    if (run.error().kind() == ErrorKind::kInput && check.model_source == ModelSource::kModel) {
      return run.error();  // the named model: the loader's error as it is
    }
    check.not_priced = fmt::format("the {} profile refused the run: {}", pricer->profile(),
                                   run.error().message());
    mark_unpriced(check);
    return check;
  }
  check.profile = std::string(pricer->profile());
  check.model_detail = model_detail(check, *run->model);
  check.warnings = run->warnings;
  pricer->compare(check.log, options, *run, check.figures);
  say_why_unlisted(unlisted, shaped, check.figures);
  settle(check.figures);
  judge_targets(check);
  return check;
}

}  // namespace memfit
