// The published runs' loader (memfit/published_runs.h): data/speed/*.tsv
// as the build embedded them, parsed once. The format is
// base/tsv_table.h's; docs/speed.md lists the columns.
#include "memfit/published_runs.h"

#include <charconv>

#include "base/tsv_table.h"
#include "memfit/untrusted_text.h"
#include "speed/embedded_speed_tables.h"

namespace memfit {
namespace {

constexpr std::string_view kModelsFile = "data/speed/models.tsv";
constexpr std::string_view kRunsFile = "data/speed/published-runs.tsv";
constexpr std::string_view kExpertsFile = "data/speed/moe-experts.tsv";

Result<PublishedModel> read_model(const TsvTable& tsv, size_t row) {
  TsvRowReader r(tsv, row);
  PublishedModel m;
  m.id = std::string(r.text("model"));
  m.params = r.whole("params");
  m.active_params = r.whole("active_params");
  m.n_layers = r.whole("n_layers");
  m.attention_width = r.whole("attention_width");
  m.kv_width = r.whole("kv_width");
  m.source = std::string(r.text("source"));
  if (!r.error() && (m.active_params == 0 || m.active_params > m.params)) {
    r.bad("active_params", r.text("active_params"), "between 1 and params");
  }
  if (r.error()) return *r.error();
  return m;
}

// "YYYY-MM": four digits, a dash, a month 01 to 12.
bool is_year_month(std::string_view text) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.size() != 7 || text[4] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6}) {
    if (!digit(text[i])) return false;
  }
  const int month = (text[5] - '0') * 10 + (text[6] - '0');
  return month >= 1 && month <= 12;
}

// A figure column: empty is none.
std::optional<double> optional_number(TsvRowReader& r, std::string_view column) {
  if (r.text(column).empty()) return std::nullopt;
  return r.number(column);
}

Result<PublishedRun> read_run(const TsvTable& tsv, size_t row, const PublishedRuns& so_far) {
  TsvRowReader r(tsv, row);
  PublishedRun run;
  run.line = tsv.lines[row];
  run.source = std::string(r.text("source"));
  run.engine = std::string(r.text("engine"));
  run.backend = std::string(r.text("backend"));
  run.device = std::string(r.text("device"));
  run.model = std::string(r.text("model"));
  run.quant = std::string(r.text("quant"));
  run.size_bytes = r.whole("size_bytes");
  run.size_basis = std::string(r.text("size_basis"));
  run.prefill_test = std::string(r.text("prefill_test"));
  run.prefill_tokens_per_second = optional_number(r, "prefill_tokens_per_second");
  run.decode_test = std::string(r.text("decode_test"));
  run.decode_tokens_per_second = optional_number(r, "decode_tokens_per_second");
  run.notes = std::string(r.text("notes"));
  run.build_date = std::string(r.text("build_date"));
  run.batch = r.whole("batch");
  if (tsv.columns.contains("matrix_cores")) run.matrix_cores = std::string(r.text("matrix_cores"));
  const std::string_view timing =
      tsv.columns.contains("prompt_timing") ? r.text("prompt_timing") : std::string_view();
  run.first_call = timing == "first call";
  if (r.error()) return *r.error();
  if (!timing.empty() && !run.first_call) {
    r.bad("prompt_timing", timing, "first call or empty");
  } else if (run.first_call && !first_call_seconds(run.engine)) {
    r.bad("prompt_timing", timing, "empty (an engine without a first-call cost)");
  } else if (run.first_call && !run.prefill_tokens_per_second) {
    r.bad("prompt_timing", timing, "empty (a run without a prompt figure)");
  }
  if (!run.build_date.empty() && !is_year_month(run.build_date)) {
    r.bad("build_date", run.build_date, "YYYY-MM");
  }
  const auto check_test = [&r](std::string_view column, const std::string& test) {
    if (!test.empty() && !test_mean_context_tokens(test)) r.bad(column, test, "pp<N> or tg<N>");
  };
  check_test("prefill_test", run.prefill_test);
  check_test("decode_test", run.decode_test);
  if (run.prefill_tokens_per_second && !run.prefill_test.starts_with("pp")) {
    r.bad("prefill_test", run.prefill_test, "a pp<N> test for its figure");
  }
  if (run.decode_tokens_per_second && !run.decode_test.starts_with("tg")) {
    r.bad("decode_test", run.decode_test, "a tg<N> test for its figure");
  }
  if (!(run.matrix_cores.empty() || run.matrix_cores == "none" ||
        run.matrix_cores == "KHR_coopmat" || run.matrix_cores == "NV_coopmat2")) {
    r.bad("matrix_cores", run.matrix_cores, "none, KHR_coopmat, NV_coopmat2 or empty");
  } else if (!run.matrix_cores.empty() && run.backend != "vulkan") {
    r.bad("matrix_cores", run.matrix_cores, "empty (a Vulkan run's device line only)");
  }
  if (!so_far.find_model(run.model)) r.bad("model", run.model, "a model of models.tsv");
  if (run.size_bytes == 0) r.bad("size_bytes", r.text("size_bytes"), "a size");
  if (r.error()) return *r.error();
  return run;
}

// One row of moe-experts.tsv onto its model: the routed experts' share of
// the parameters, within what params and active_params leave them.
std::optional<Error> read_experts(const TsvTable& tsv, size_t row, PublishedRuns& out) {
  TsvRowReader r(tsv, row);
  const std::string_view id = r.text("model");
  const uint64_t experts = r.whole("expert_params");
  if (r.error()) return r.error();
  PublishedModel* model = nullptr;
  for (PublishedModel& m : out.models) {
    if (m.id == id) model = &m;
  }
  if (model == nullptr) {
    r.bad("model", id, "a model of models.tsv");
  } else if (model->expert_params != 0) {
    r.bad("model", id, "the model's only row");
  } else if (experts == 0 || experts > model->params ||
             model->params - experts > model->active_params) {
    r.bad("expert_params", r.text("expert_params"),
          "between params - active_params and params");
  } else {
    model->expert_params = experts;
  }
  return r.error();
}

}  // namespace

const PublishedModel* PublishedRuns::find_model(std::string_view id) const {
  for (const PublishedModel& m : models) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

std::optional<uint64_t> test_tokens(std::string_view test) {
  if (test.size() < 3 || !(test.starts_with("pp") || test.starts_with("tg"))) return std::nullopt;
  uint64_t tokens = 0;
  const char* first = test.data() + 2;
  const char* last = test.data() + test.size();
  const auto [end, error] = std::from_chars(first, last, tokens);
  if (error != std::errc() || end != last || tokens == 0) return std::nullopt;
  return tokens;
}

std::optional<uint64_t> test_mean_context_tokens(std::string_view test) {
  std::optional<uint64_t> tokens = test_tokens(test);
  if (!tokens) return std::nullopt;
  return *tokens / 2;
}

Result<PublishedRuns> parse_published_runs(std::string_view models_tsv,
                                           std::string_view runs_tsv,
                                           std::string_view experts_tsv) {
  Result<TsvTable> models = read_tsv(std::string(kModelsFile), models_tsv);
  if (!models) return models.error();
  Result<TsvTable> runs = read_tsv(std::string(kRunsFile), runs_tsv);
  if (!runs) return runs.error();
  PublishedRuns out;
  for (size_t i = 0; i < models->rows.size(); ++i) {
    Result<PublishedModel> model = read_model(*models, i);
    if (!model) return model.error();
    out.models.push_back(std::move(*model));
  }
  if (!experts_tsv.empty()) {
    Result<TsvTable> experts = read_tsv(std::string(kExpertsFile), experts_tsv);
    if (!experts) return experts.error();
    for (size_t i = 0; i < experts->rows.size(); ++i) {
      if (std::optional<Error> bad = read_experts(*experts, i, out)) return *bad;
    }
  }
  for (size_t i = 0; i < runs->rows.size(); ++i) {
    Result<PublishedRun> run = read_run(*runs, i, out);
    if (!run) return run.error();
    out.runs.push_back(std::move(*run));
  }
  return out;
}

Result<const PublishedRuns*> published_runs() {
  static const Result<PublishedRuns> runs =
      parse_published_runs(speed::embedded_models_tsv(), speed::embedded_runs_tsv(),
                           speed::embedded_experts_tsv());
  if (!runs) {
    return Error("the embedded published runs: " + runs.error().message(), ErrorKind::kInternal);
  }
  return &*runs;
}

}  // namespace memfit
