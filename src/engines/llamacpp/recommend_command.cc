// The llamacpp profile's recommend-quant hook (engine.h): a safetensors or
// config-only model priced as the GGUF llama-quantize would write for each
// file type (engines/llamacpp/quantize_plan.h), largest first, each with
// the placement that fits the request's GPUs (the most layers, or for a
// MoE model the fewest blocks' experts on the host) and its llama-server
// command, and its decode speed (docs/speed.md, "Plans chosen for speed").
// The recommendation is the best quality that fits (below); the fastest
// row that fits is named beside it, and the rows that fit are listed
// fastest first with each step's cost in decode. A GGUF model is refused: its file type is its own (a folder of
// them is ranked file by file, cli/recommend_gguf_repo.h). The MLX options (group_size, bits) are
// not read.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>

#include "engines/llamacpp/commands.h"
#include "engines/llamacpp/quantize_plan.h"
#include "engines/llamacpp/speed_plan.h"
#include "engines/shared/report_head.h"
#include "engines/shared/speed_rank.h"
#include "memfit/llama_server.h"
#include "memfit/llamacpp_fit.h"
#include "memfit/llamacpp_solver.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::engines {
namespace {

using Json = nlohmann::ordered_json;

// The file types ranked: the 16-bit file, then the K-quant mixes and
// IQ4_XS users choose between (the legacy Q4_0 .. Q5_1, F32 and the
// 3-bit IQ mixes are priced by --quant, not ranked).
constexpr std::array<std::string_view, 12> kRanked = {
    "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q5_K_S", "Q4_K_M", "Q4_K_S", "IQ4_XS",
    "Q3_K_L", "Q3_K_M", "Q3_K_S", "Q2_K"};

struct Row {
  std::string_view file_type;
  std::string file;  // the GGUF's name in the command
  uint64_t weights_bytes = 0;
  LlamaCppSolveFor solved = LlamaCppSolveFor::kGpuLayers;
  LlamaCppSolution solution;  // value and estimate; no value: nothing fits
  bool on_gpus = false;       // placed on GPUs (false: a CPU run, solution.estimate as asked)
  DecodeRank rank;            // at solution.estimate; unset without one
};

// The placement that fits: -ngl for a dense model, --n-cpu-moe (then -ngl
// when even every block's experts on the host is too much) for MoE.
Result<LlamaCppSolution> place(const Model& model, const PreparedRequest& p, LlamaCppSolveFor& what) {
  what = model.spec.moe.experts != 0 ? LlamaCppSolveFor::kNCpuMoe : LlamaCppSolveFor::kGpuLayers;
  Result<LlamaCppSolution> s = solve_llamacpp(what, model, p.llamacpp_settings, p.budget);
  if (!s || s->value || what == LlamaCppSolveFor::kGpuLayers) return s;
  what = LlamaCppSolveFor::kGpuLayers;
  return solve_llamacpp(what, model, p.llamacpp_settings, p.budget);
}

Result<Row> price(const PreparedRequest& p, const llamacpp::GgufFileType& type) {
  Result<Model> model = llamacpp::quantized_gguf_model(*p.model, type);
  if (!model) return model.error();
  Row row;
  row.file_type = type.name;
  row.file = llamacpp::quantized_gguf_file_name(p.model->path, type.name);
  row.weights_bytes = model->weights.bytes;
  row.on_gpus = !p.llamacpp_settings.placement.gpus.empty();
  if (row.on_gpus) {
    Result<LlamaCppSolution> s = place(*model, p, row.solved);
    if (!s) return s.error();
    row.solution = std::move(*s);
  } else {
    Result<LlamaCppEstimate> e = estimate_llamacpp(*model, p.llamacpp_settings, p.budget);
    if (!e) return e.error();
    if (e->fits) row.solution.value = 0;
    row.solution.estimate = std::move(*e);
  }
  if (row.solution.estimate) row.rank = rank_decode(llamacpp_speed_plan(p, *model, *row.solution.estimate));
  return row;
}

bool fits(const Row& r) { return r.solution.value.has_value() && r.solution.estimate.has_value(); }

// The most precise row that fits with nothing left on the host (every
// layer, no expert), else the most precise that fits at all; null: none.
const Row* recommended_of(const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    if (fits(r) && (!r.on_gpus || r.solution.capped)) return &r;
  }
  for (const Row& r : rows) {
    if (fits(r)) return &r;
  }
  return nullptr;
}

// The row that fits and decodes fastest (speed_rank.h); on a tie the
// better quality (the earlier row). Null when none fits or no row's
// speed is known at all.
const Row* fastest_of(const std::vector<Row>& rows) {
  const Row* fastest = nullptr;
  for (const Row& r : rows) {
    if (!fits(r) || !r.rank.decode_tokens_per_second()) continue;
    if (fastest == nullptr || decodes_faster(r.rank, fastest->rank)) fastest = &r;
  }
  return fastest;
}

std::string placement_text(const Row& r, const ModelSpec& spec) {
  if (!fits(r)) return "nothing fits";
  if (!r.on_gpus) return "CPU";
  const uint64_t v = *r.solution.value;
  if (r.solved == LlamaCppSolveFor::kNCpuMoe) {
    return v == 0 ? "all experts on GPU" : fmt::format("--n-cpu-moe {}", v);
  }
  return fmt::format("-ngl {}{}", v, v == spec.layers.size() + 1 ? " (all)" : "");
}

std::string command_of(const Row& r, const ModelSpec& spec) {
  return fits(r) ? llama_server_command(r.file, spec, r.solution.estimate->settings) : "";
}

// The rows that fit, fastest first (speed_rank.h); on a tie the better
// quality (the earlier row).
std::vector<const Row*> by_speed(const std::vector<Row>& rows) {
  std::vector<const Row*> fitting;
  for (const Row& r : rows) {
    if (fits(r)) fitting.push_back(&r);
  }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const Row* a, const Row* b) { return decodes_faster(a->rank, b->rank); });
  return fitting;
}

// "-ngl 37 (all)", or "-ngl 37 (all) -> -ngl 35" when the placement changes.
std::string placement_step(const Row& from, const Row& to, const ModelSpec& spec) {
  const std::string a = placement_text(from, spec), b = placement_text(to, spec);
  return a == b ? a : a + " -> " + b;
}

// The first row's own line, "Q2_K (3.05 GiB; -ngl 37 (all)): decode 48
// tok/s"; then each step from the row before: "Q4_K_M -> Q6_K (4.68 ->
// 6.26 GiB; -ngl 37 (all) -> -ngl 35): decode 38 -> at most 32 tok/s (...)".
std::string step_text(const Row* from, const Row& to, const ModelSpec& spec) {
  if (from == nullptr) {
    return fmt::format("{} ({}; {}): decode {}", to.file_type, format_bytes(to.weights_bytes),
                       placement_text(to, spec), decode_rank_text(to.rank));
  }
  return fmt::format("{} -> {} ({} -> {}; {}): {}", from->file_type, to.file_type,
                     format_bytes(from->weights_bytes), format_bytes(to.weights_bytes),
                     placement_step(*from, to, spec), decode_step_text(from->rank, to.rank));
}

// plans_by_speed: the GGUF folder's shape (cli/recommend_gguf_repo.cc):
// file, quant, decode_tokens_per_second, not_counted, step (null first).
Json plans_json(const std::vector<const Row*>& ranked, const ModelSpec& spec) {
  Json list = Json::array();
  for (size_t i = 0; i < ranked.size(); ++i) {
    list.push_back({{"file", ranked[i]->file}, {"quant", std::string(ranked[i]->file_type)}});
    list.back().update(decode_rank_json(ranked[i]->rank));
    list.back()["step"] = i > 0 ? Json(step_text(ranked[i - 1], *ranked[i], spec)) : Json(nullptr);
  }
  return list;
}

// "\nBy decode speed at N tokens (docs/speed.md):\n" and a line a row that
// fits; "" when no row's speed is known (`known`) or none fits.
std::string plans_text(const std::vector<const Row*>& ranked, const ModelSpec& spec, bool known) {
  if (!known || ranked.empty()) return "";
  std::string out = fmt::format("\nBy decode speed at {} tokens (docs/speed.md):\n",
                                ranked.front()->solution.estimate->context.n_ctx_seq);
  for (size_t i = 0; i < ranked.size(); ++i) {
    out += fmt::format("  {}\n", step_text(i > 0 ? ranked[i - 1] : nullptr, *ranked[i], spec));
  }
  return out;
}

Json rows_json(const std::vector<Row>& rows, const ModelSpec& spec) {
  Json list = Json::array();
  for (const Row& r : rows) {
    const bool ok = fits(r);
    list.push_back(
        {{"file_type", std::string(r.file_type)},
         {"weights_bytes", r.weights_bytes},
         {"total_bytes", r.solution.estimate ? Json(r.solution.estimate->total_bytes) : Json(nullptr)},
         {"fits", ok},
         {"solve", r.on_gpus ? Json(std::string(to_string(r.solved))) : Json(nullptr)},
         {"value", r.on_gpus && ok ? Json(*r.solution.value) : Json(nullptr)},
         {"all_on_gpu", r.on_gpus && ok && r.solution.capped},
         {"command", ok ? Json(command_of(r, spec)) : Json(nullptr)}});
    if (r.solution.estimate) {
      list.back().update(decode_rank_json(r.rank));
      list.back()["speed"] = speed_json(r.rank.speed);
    } else {
      list.back().update({{"decode_tokens_per_second", nullptr}, {"not_counted", nullptr}, {"speed", nullptr}});
    }
  }
  return list;
}

std::string head_text(const std::string& model, const PreparedRequest& p) {
  const LlamaCppSettings& s = p.llamacpp_settings;
  std::string out = fmt::format(
      "{} as the GGUF llama-quantize would write for each file type (no importance matrix), "
      "under llama.cpp at ctx-size {}:\n", model, s.ctx_size != 0 ? s.ctx_size : p.model->spec.max_position_tokens);
  if (s.placement.gpus.empty()) {
    return out + fmt::format("budget {} ({}), no GPU\n\n", format_bytes(p.budget.budget_bytes),
                             to_string(p.budget.source));
  }
  for (const LlamaCppGpu& g : s.placement.gpus) {
    out += fmt::format("  {} {} ({} free)\n", g.device, g.name, format_bytes(g.free_bytes));
  }
  return out + fmt::format("each GPU less a {} margin\n\n", format_bytes(s.placement.gpu_margin_bytes));
}

bool any_speed(const std::vector<Row>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const Row& r) { return r.rank.decode_tokens_per_second().has_value(); });
}

// ", decode 31 tok/s" (at the end of the context) for a row that fits,
// when any row's speed is known; "" otherwise.
std::string decode_text(const Row& r, bool known) {
  return known && fits(r) ? ", decode " + decode_rank_text(r.rank) : "";
}

std::string rows_text(const std::vector<Row>& rows, const ModelSpec& spec) {
  const bool known = any_speed(rows);
  std::string out = fmt::format("  {:<8}{:>12}{:>12}  {:<13}{}\n", "type", "weights", "total",
                                "verdict", known ? "placement, decode at the end of the context" : "placement");
  for (const Row& r : rows) {
    out += fmt::format("  {:<8}{:>12}{:>12}  {:<13}{}{}\n", r.file_type, format_bytes(r.weights_bytes),
                       r.solution.estimate ? format_bytes(r.solution.estimate->total_bytes) : "-",
                       fits(r) ? "FITS" : "DOES NOT FIT", placement_text(r, spec), decode_text(r, known));
    if (fits(r)) out += fmt::format("    {}\n", command_of(r, spec));
  }
  return out;
}

Status check_query(const CommandQuery& query, const PreparedRequest& p) {
  if (p.model->weights.source == WeightsSource::kGgufHeader) {
    return Error::usage("recommend-quant under llamacpp ranks the GGUF file types of a safetensors "
                        "or config-only model; a GGUF file is its own type: name the folder or "
                        "Hugging Face repo of its quants");
  }
  if (!query.request.quant.empty()) {
    return Error::usage("quant", "is what recommend-quant ranks: leave it out");
  }
  return Status::Ok();
}

}  // namespace

Result<CommandAnswer> LlamaCppCommands::recommend_quant(const CommandQuery& query,
                                                        PreparedRequest p) const {
  if (Status ok = check_query(query, p); !ok) return ok.error();
  std::vector<Row> rows;
  for (std::string_view name : kRanked) {
    Result<Row> row = price(p, *llamacpp::find_gguf_file_type(name));
    if (!row) return row.error().within(quote_untrusted(query.request.model));
    rows.push_back(std::move(*row));
  }
  // Quality is the file's size, larger first; rows of equal size decode
  // faster first (docs/speed.md, "Plans chosen for speed").
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.weights_bytes != b.weights_bytes) return a.weights_bytes > b.weights_bytes;
    return decodes_faster(a.rank, b.rank);
  });
  const Row* best = recommended_of(rows);
  const Row* fastest = fastest_of(rows);
  const std::vector<const Row*> ranked = by_speed(rows);
  const ModelSpec& spec = p.model->spec;
  CommandAnswer answer;
  answer.json = {{"engine", "llamacpp"},
                 {"recommended", best ? Json(std::string(best->file_type)) : Json(nullptr)},
                 {"fastest", fastest ? Json(std::string(fastest->file_type)) : Json(nullptr)},
                 {"candidates", rows_json(rows, spec)},
                 {"plans_by_speed", plans_json(ranked, spec)},
                 {"ctx_size", p.llamacpp_settings.ctx_size},
                 {"budget_bytes", p.budget.budget_bytes},
                 {"warnings", warning_texts(p.warnings)}};
  answer.text = head_text(query.request.model, p) + rows_text(rows, spec) +
                plans_text(ranked, spec, any_speed(rows)) +
                (best ? fmt::format("\nRecommended: {}{}\n", best->file_type,
                                    decode_text(*best, fastest != nullptr))
                      : "\nRecommended: none of these fits\n");
  if (fastest) answer.text += fmt::format("Fastest: {}{}\n", fastest->file_type, decode_text(*fastest, true));
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::engines
