// The mlx-lm profile's recommend-quant hook (engine.h): every MLX weight
// mode ranked (engines/mlxlm/recommend.h), each with the peak at the
// request's settings, its verdict and the commands that make and run it;
// the recommendation is the best-quality mode that fits, the fastest one
// that fits named beside it, and the modes that fit listed fastest first
// with each step's cost in decode (docs/speed.md, "Plans chosen for speed").
#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "engines/mlxlm/commands.h"
#include "engines/mlxlm/recommend.h"
#include "engines/shared/report_head.h"
#include "engines/shared/shell_word.h"
#include "memfit/memory_size.h"
#include "memfit/untrusted_text.h"

namespace memfit::engines {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kOrder =
    "best quality first: more bits first (a mixed recipe by the mean bits of its quantized "
    "weights), then smaller groups first, then the faster decode";

// The folder mlx_lm.convert writes: the model folder's name, then the mode.
std::string output_folder(const std::string& model_path, const MlxLmMode& m) {
  std::string_view path = model_path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (m.recipe) return fmt::format("{}-{}-g{}", name, m.recipe->name, m.group_size);
  return fmt::format("{}-{}bit-g{}", name, m.bits, m.group_size);
}

Json row_json(const MlxLmQuantRow& r, const std::string& model_path, const MlxLmSettings& s) {
  const MlxLmMode& m = r.mode;
  Json row = {{"mode", mode_name(m)},
          {"bits", m.as_is || m.recipe ? Json(nullptr) : Json(m.bits)},
          {"group_size", m.as_is ? Json(nullptr) : Json(m.group_size)},
          {"recipe", m.recipe ? Json(m.recipe->name) : Json(nullptr)},
          {"mean_bits", std::round(r.mean_bits * 1000) / 1000},  // 3 decimals
          {"weights_bytes", r.weights_bytes},
          {"total_bytes", r.estimate.total_bytes},
          {"fits", r.estimate.fits},
          {"smaller_than_source", r.shrinks},
          {"convert_command", m.as_is ? Json(nullptr) : Json(convert_command(model_path, m))},
          {"generate_command", generate_command(model_path, m, s)}};
  row.update(decode_rank_json(r.rank));  // decode_tokens_per_second, not_counted
  row["speed"] = speed_json(r.rank.speed);
  return row;
}

bool any_speed(const std::vector<MlxLmQuantRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const MlxLmQuantRow& r) {
    return r.rank.decode_tokens_per_second().has_value();
  });
}

// ", decode 31 tok/s" (at the end of the context) for a row that fits,
// when any row's speed is known; "" otherwise.
std::string decode_text(const MlxLmQuantRow& r, bool known) {
  return known && r.shrinks && r.estimate.fits ? ", decode " + decode_rank_text(r.rank) : "";
}

std::string row_text(const MlxLmQuantRow& r, const std::string& model_path,
                     const MlxLmSettings& s, bool known) {
  const std::string verdict = !r.shrinks ? "not smaller"
                              : r.estimate.fits ? "FITS"
                                                : "DOES NOT FIT";
  std::string out = fmt::format("  {:<11}{:>6.2f}{:>12}{:>12}  {}{}\n", mode_name(r.mode),
                                r.mean_bits, format_bytes(r.weights_bytes),
                                format_bytes(r.estimate.total_bytes), verdict, decode_text(r, known));
  if (!r.mode.as_is) out += "      " + convert_command(model_path, r.mode) + "\n";
  out += "      " + generate_command(model_path, r.mode, s) + "\n";
  return out;
}

// The first mode's own line, "2-bit g128 (2.15 GiB): decode 61 tok/s";
// then each step from the mode before: "2-bit g128 -> 2-bit g64 (2.15 GiB
// -> 2.38 GiB): decode 61 -> 56 tok/s".
std::string step_text(const MlxLmQuantRow* from, const MlxLmQuantRow& to) {
  if (from == nullptr) {
    return fmt::format("{} ({}): decode {}", mode_name(to.mode), format_bytes(to.weights_bytes),
                       decode_rank_text(to.rank));
  }
  return fmt::format("{} -> {} ({} -> {}): {}", mode_name(from->mode), mode_name(to.mode),
                     format_bytes(from->weights_bytes), format_bytes(to.weights_bytes),
                     decode_step_text(from->rank, to.rank));
}

// plans_by_speed: mode, decode_tokens_per_second, not_counted, step (null
// for the first), as the GGUF folder's rows name a file and its quant.
Json plans_json(const std::vector<const MlxLmQuantRow*>& ranked) {
  Json list = Json::array();
  for (size_t i = 0; i < ranked.size(); ++i) {
    list.push_back({{"mode", mode_name(ranked[i]->mode)}});
    list.back().update(decode_rank_json(ranked[i]->rank));
    list.back()["step"] = i > 0 ? Json(step_text(ranked[i - 1], *ranked[i])) : Json(nullptr);
  }
  return list;
}

// "\nBy decode speed at N tokens (docs/speed.md):\n" and a line a mode;
// "" when no row's speed is known or none fits.
std::string plans_text(const std::vector<const MlxLmQuantRow*>& ranked, const MlxLmSettings& s, bool known) {
  if (!known || ranked.empty()) return "";
  std::string out = fmt::format("\nBy decode speed at {} tokens (docs/speed.md):\n", s.prompt_tokens + s.max_tokens);
  for (size_t i = 0; i < ranked.size(); ++i) {
    out += fmt::format("  {}\n", step_text(i > 0 ? ranked[i - 1] : nullptr, *ranked[i]));
  }
  return out;
}

std::string recommend_text(const std::string& model, const PreparedRequest& p,
                           const std::vector<MlxLmQuantRow>& rows, const MlxLmQuantRow* best,
                           const MlxLmQuantRow* fastest) {
  const bool known = any_speed(rows);
  const MlxLmSettings& s = p.mlxlm_settings;
  std::string out = fmt::format(
      "{} under mlx-lm: --prompt-tokens {}, --max-tokens {}, batch {}; budget {} ({})\n"
      "Rows {}.\nRecommended: the best-quality mode that fits{}.\n\n",
      quote_untrusted(model), s.prompt_tokens, s.max_tokens, s.batch,
      format_bytes(p.budget.budget_bytes), to_string(p.budget.source), kOrder,
      known ? fmt::format("; decode at the end of the context ({} tokens)", s.prompt_tokens + s.max_tokens)
            : "");
  out += fmt::format("  {:<11}{:>6}{:>12}{:>12}  {}\n", "mode", "bits", "weights", "peak", "verdict");
  for (const MlxLmQuantRow& r : rows) out += row_text(r, model, s, known);
  out += plans_text(modes_by_speed(rows), s, known);
  out += best ? fmt::format("\nRecommended: {}{}\n", mode_name(best->mode), decode_text(*best, known))
              : "\nRecommended: none of these fits\n";
  if (fastest) out += fmt::format("Fastest: {}{}\n", mode_name(fastest->mode), decode_text(*fastest, known));
  return out;
}

}  // namespace

std::string convert_command(const std::string& model_path, const MlxLmMode& m) {
  if (m.as_is) return "";
  std::string out = fmt::format("mlx_lm.convert --hf-path {} --mlx-path {} -q ",
                                shell_word(model_path), shell_word(output_folder(model_path, m)));
  if (m.recipe) return out + fmt::format("--quant-predicate {} --q-group-size {}", m.recipe->name, m.group_size);
  return out + fmt::format("--q-bits {} --q-group-size {}", m.bits, m.group_size);
}

std::string generate_command(const std::string& model_path, const MlxLmMode& m,
                             const MlxLmSettings& s) {
  const std::string model = shell_word(m.as_is ? model_path : output_folder(model_path, m));
  // mlx_lm.generate runs one sequence; mlx_lm.benchmark takes a batch.
  std::string out = s.batch > 1
                        ? fmt::format("mlx_lm.benchmark --model {} -p {} -g {} -b {}", model,
                                      s.prompt_tokens, s.max_tokens, s.batch)
                        : fmt::format("mlx_lm.generate --model {} --max-tokens {} --prompt -",
                                      model, s.max_tokens);
  if (s.kv_bits > 0) out += fmt::format(" --kv-bits {} --kv-group-size {}", s.kv_bits, s.kv_group_size);
  if (s.max_kv_size > 0) out += fmt::format(" --max-kv-size {}", s.max_kv_size);
  return out;
}

Result<CommandAnswer> MlxLmCommands::recommend_quant(const CommandQuery& query,
                                                     PreparedRequest p) const {
  const std::string& model = query.request.model;
  Result<std::vector<MlxLmQuantRow>> rows = rank_mlxlm_modes(query.options, p, p.warnings);
  if (!rows) {
    if (rows.error().kind() == ErrorKind::kUsage) return rows.error();
    return rows.error().within(quote_untrusted(model));
  }
  const MlxLmQuantRow* best = recommended_mode(*rows);
  const MlxLmQuantRow* fastest = fastest_mode(*rows);
  const MlxLmSettings& s = p.mlxlm_settings;
  Json list = Json::array();
  for (const MlxLmQuantRow& r : *rows) list.push_back(row_json(r, model, s));
  CommandAnswer answer;
  answer.json = {{"engine", "mlx-lm"},
                 {"order", kOrder},
                 {"recommended", best ? Json(mode_name(best->mode)) : Json(nullptr)},
                 {"fastest", fastest ? Json(mode_name(fastest->mode)) : Json(nullptr)},
                 {"candidates", std::move(list)},
                 {"plans_by_speed", plans_json(modes_by_speed(*rows))},
                 {"prompt_tokens", s.prompt_tokens},
                 {"max_tokens", s.max_tokens},
                 {"batch", s.batch},
                 {"budget_bytes", p.budget.budget_bytes},
                 {"budget_source", to_string(p.budget.source)},
                 {"warnings", warning_texts(p.warnings)}};
  answer.text = recommend_text(model, p, *rows, best, fastest);
  answer.warnings = std::move(p.warnings);
  return answer;
}

}  // namespace memfit::engines
