// An SGLang log priced by the sglang profile (docs/engine-sglang.md,
// "Validation"): the settings the server_args line or the launch command
// gives (TP, DP, context length, --mem-fraction-static, the KV dtype,
// chunked prefill, running requests, page size, the largest CUDA-graph
// batch) become the request's fields. SGLang's profile reads the rank's
// free memory before the weights load; a log that prints "Load weight end
// ... avail mem=A, mem usage=W" gives it (A + W), and the GPU's total is
// then taken as that plus memfit's startup term, so the profile starts
// from the log's own figure. Else the caller's total, else the GPU the
// caller names (the hardware table's total), else none: the weights and
// the bytes per token are priced, the pool is not. The figures are read
// from the profile's JSON report, so nothing here knows the engine's
// internals.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engines/sglang/plan.h"
#include "logs/log_pricer.h"
#include "logs/log_text.h"
#include "memfit/checked_math.h"
#include "memfit/hardware.h"
#include "memfit/memory_size.h"
#include "memfit/request.h"
#include "memfit/untrusted_text.h"

namespace memfit::logs {
namespace {

// memfit's startup term (src/engines/sglang/plan.h, kStartupBytes): what a
// rank holds before its weights, added back to the printed free memory.
constexpr uint64_t kStartupBytes = 1200ull << 20;
// The total that stands in when no figure gives it: the weights and the
// bytes per token do not depend on it; the pool is then not compared.
constexpr uint64_t kStandInGpuBytes = 80ull << 30;

// The figure `device` printed; null when it printed none.
const PrintedFigure* figure_of(const RuntimeLog& log, LogFigure figure, std::string_view device) {
  for (const PrintedFigure& f : log.figures) {
    if (f.figure == figure && f.device == device) return &f;
  }
  return nullptr;
}

const PrintedFigure* rank0_figure(const RuntimeLog& log, LogFigure figure) {
  return figure_of(log, figure, "rank0");
}

uint64_t rank_count(const RuntimeLog& log) {
  uint64_t ranks = 0;
  for (const LogDevice& d : log.devices) ranks += d.id.starts_with("rank") ? 1 : 0;
  return ranks;
}

// The rank's free memory before its weights: the load line's "avail mem"
// + "mem usage", else what "Load weight begin. avail mem" printed (the
// setting free_before_load; 0.4.x's load line has no "mem usage").
std::optional<uint64_t> free_before_load(const RuntimeLog& log) {
  const PrintedFigure* weights = rank0_figure(log, LogFigure::kWeights);
  for (const LogDevice& d : log.devices) {
    if (d.id == "rank0" && d.free_bytes && weights != nullptr) return *d.free_bytes + weights->value;
  }
  if (const LogSetting* before = log.setting("free_before_load")) return parse_count(before->value);
  return std::nullopt;
}

// Each printed setting into the sglang field of that meaning; one the
// field refuses is left out with a note.
void apply_settings(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  if (auto tp = count_setting(log, "tensor_parallel")) {
    r.parallel.tensor_parallel = *tp;
  } else if (uint64_t ranks = std::max(rank_count(log), count_setting(log, "tp_ranks_seen").value_or(0));
             ranks > 1) {
    // The ranks with figures, or the highest TP rank a line's tag names + 1
    // (sglang_reader.cc, tp_ranks_seen), whichever is more.
    r.parallel.tensor_parallel = ranks;
    notes.push_back(fmt::format("tensor parallel {}: the ranks the log shows (give --command with "
                                "--tp when it shows part of them)", ranks));
  }
  constexpr std::pair<std::string_view, std::string_view> kFields[] = {
      {"max_model_len", "context_length"},
      {"mem_fraction_static", "mem_fraction_static"},
      {"kv_cache_dtype", "sglang_kv_cache_dtype"},
      {"chunked_prefill_size", "chunked_prefill_size"},
      {"max_running_requests", "max_running_requests"},
      {"max_total_tokens", "max_total_tokens"},
      {"page_size", "page_size"},
      {"dp_size", "dp_size"},
      {"enable_dp_attention", "enable_dp_attention"},
      {"enable_dp_lm_head", "enable_dp_lm_head"},
      {"cuda_graph_max_bs", "cuda_graph_max_bs"},
      {"attention_backend", "attention_backend"},
      {"ep_size", "ep_size"},
      {"moe_a2a_backend", "moe_a2a_backend"},
      {"disaggregation_mode", "disaggregation_mode"},
      {"enable_hierarchical_cache", "enable_hierarchical_cache"},
  };
  for (const auto& [setting, field_name] : kFields) {
    const LogSetting* s = log.setting(setting);
    const RequestField* field = find_request_field(field_name);
    if (s == nullptr || field == nullptr || s->value == "None") continue;
    // server_args prints Python's True and False; the request takes true and false.
    const std::string_view value = s->value == "True" ? "true" : s->value == "False" ? "false" : std::string_view(s->value);
    if (Status applied = apply_request_field(*field, r, value); !applied) {
      notes.push_back(fmt::format("{} {}: not priced ({})", setting, escape_untrusted(s->value),
                                  applied.error().message()));
    }
  }
  // Before --moe-a2a-backend, --enable-deepep-moe chose DeepEP (EP = TP).
  if (const LogSetting* deepep = log.setting("enable_deepep_moe");
      deepep != nullptr && deepep->value == "True" && log.setting("moe_a2a_backend") == nullptr) {
    if (const RequestField* field = find_request_field("moe_a2a_backend")) {
      if (Status applied = apply_request_field(*field, r, "deepep"); !applied) {
        notes.push_back("enable_deepep_moe: not priced (" + applied.error().message() + ")");
      }
    }
  }
}

// SGLang's default --mem-fraction-static before the computed rule the
// sglang profile models (sgl-project/sglang#10975, merged 2025-09-27, in
// 0.5.3), for a log that prints no server_args, dated by its lines
// (log_date). A run can be no newer than its log, so a log dated before a
// rule's merge ran an older rule:
//  - before #7054 (merged 2025-06-10), server_args.py's table by TP: 0.88
//    at TP 1, 0.87 at TP >= 2, 0.85 at >= 4, 0.81 at >= 8, 0.79 at >= 16
//    (from #5604, merged 2025-04-21, a GPU over 96 GiB had its own
//    branches, so such a GPU is left alone from that date);
//  - before #10975, #7054's reserve by the GPU's MiB (tp x pp = TP here):
//    under 35 GiB (2.8 + TP / 10) GiB, under 90 GiB (9.5 + TP / 2) GiB,
//    under 160 GiB (12 + TP / 2) GiB, else 32 GiB; the fraction
//    round((gpu - reserved) / gpu, 3).
// A DP run (dp attention had its own reserve) is left alone. `gpu_bytes`:
// the GPU's total when known. A log dated on or after the merge may still
// run the older rule: the newest rule its date allows is taken.
constexpr std::string_view kReserveRuleMerged = "2025-06-10";   // sgl-project/sglang#7054
constexpr std::string_view kLargeGpuBranches = "2025-04-21";    // sgl-project/sglang#5604
constexpr std::string_view kComputedRuleMerged = "2025-09-27";  // sgl-project/sglang#10975

std::optional<double> dated_mem_fraction(std::string_view date, uint64_t tp, std::optional<uint64_t> gpu_bytes) {
  if (date.size() != 10 || date >= kComputedRuleMerged) return std::nullopt;
  const uint64_t gpu_mib = gpu_bytes.value_or(0) >> 20;  // 0: not known
  if (date < kReserveRuleMerged) {
    if (date >= kLargeGpuBranches && (gpu_mib == 0 || gpu_mib > 96 * 1024)) return std::nullopt;
    return tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
  }
  if (gpu_mib == 0) return std::nullopt;
  const double t = static_cast<double>(tp);
  const double reserved = (gpu_mib < 35 * 1024   ? 2.8 + t / 10
                           : gpu_mib < 90 * 1024  ? 9.5 + t / 2
                           : gpu_mib < 160 * 1024 ? 12 + t / 2
                                                  : 32.0) * 1024;
  const double gpu = static_cast<double>(gpu_mib);
  const double fraction = std::nearbyint((gpu - reserved) / gpu * 1000) / 1000;  // Python's round(x, 3)
  if (!(fraction > 0 && fraction < 1)) return std::nullopt;  // a GPU smaller than the reserve
  return fraction;
}

// The driver's total of a GPU the hardware table names, bytes; nullopt
// when it is not in the table or has no figure.
std::optional<uint64_t> named_gpu_total(std::string_view name) {
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return std::nullopt;
  Result<const GpuSpec*> gpu = find_gpu(**table, name);
  if (!gpu || (*gpu)->memory_mib == 0) return std::nullopt;
  return (*gpu)->memory_bytes();
}

// The vendor of the GPU the caller names (the hardware table's); nullopt
// when the table does not name it.
std::optional<HardwareVendor> named_gpu_vendor(std::string_view name) {
  Result<const HardwareTable*> table = hardware_table();
  if (!table) return std::nullopt;
  Result<const GpuSpec*> gpu = find_gpu(**table, name);
  if (!gpu) return std::nullopt;
  return (*gpu)->vendor;
}

bool named_amd_gpu(std::string_view name) { return named_gpu_vendor(name) == HardwareVendor::kAmd; }

// SGLang's attention backend on an AMD GPU the caller names or the log's
// lines show (a ROCm build's), for a log
// whose GPU's total comes from its own free memory (the request then names
// no GPU, so the profile cannot tell the platform): aiter, the ROCm
// default (sgl-project/sglang#20392; SGLang's ROCm images set
// SGLANG_USE_AITER=1 before it), under which server_args.py multiplies
// --mem-fraction-static by 0.85 past 8,192 tokens of context
// (docs/engine-sglang.md, "ROCm"). A backend the log names wins.
void apply_rocm_attention_backend(const RuntimeLog& log, const LogCheckOptions& options, EstimateRequest& r,
                                  std::vector<std::string>& notes) {
  // The GPU is AMD's when the caller names one, or, naming none, when the
  // log's lines are a ROCm build's (the reader's backend).
  const bool amd = options.gpu_name.empty() ? log.backend == "ROCm" : named_amd_gpu(options.gpu_name);
  if (!amd || !r.machine.gpu.empty()) return;
  if (const LogSetting* given = log.setting("attention_backend"); given != nullptr && given->value != "None") {
    return;
  }
  const RequestField* field = find_request_field("attention_backend");
  if (field == nullptr || !apply_request_field(*field, r, "aiter")) return;
  notes.push_back("an AMD GPU and no --attention-backend in the log: SGLang's ROCm default, aiter "
                  "(docs/engine-sglang.md, 'ROCm')");
}

void apply_dated_mem_fraction(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  const LogSetting* date = log.setting("log_date");
  if (date == nullptr || log.setting("mem_fraction_static") != nullptr) return;
  if (std::optional<uint64_t> dp = count_setting(log, "dp_size"); dp && *dp > 1) return;
  const uint64_t tp = r.parallel.tensor_parallel;
  // The GPU's total: the request's limit, unless it is the stand-in (no
  // GPU known), else the named GPU's in the hardware table.
  std::optional<uint64_t> total = r.memory_limit_bytes;
  if (total == kStandInGpuBytes) total.reset();
  if (!total && !r.machine.gpu.empty()) total = named_gpu_total(r.machine.gpu.front());
  const std::optional<double> fraction = dated_mem_fraction(date->value, tp, total);
  if (!fraction) return;
  const RequestField* field = find_request_field("mem_fraction_static");
  if (field == nullptr || !apply_request_field(*field, r, fmt::format("{:.3f}", *fraction))) return;
  notes.push_back(fmt::format(
      "the log prints no --mem-fraction-static and is dated {}: SGLang's default then, {:.3f} ({}), not "
      "the 0.5.3 computed rule (docs/engine-sglang.md, 'Validation')",
      escape_untrusted(date->value), *fraction,
      date->value < kReserveRuleMerged ? "the TP table before sgl-project/sglang#7054"
                                       : "sgl-project/sglang#7054's reserve by the GPU's memory"));
}

// The CUDA-graph batch a log's cuda_graph figure is priced at, when its
// server_args print no cuda_graph_max_bs: the largest batch of its
// "Capture cuda graph bs [...]" list (sglang_reader.cc). nullopt otherwise.
std::optional<uint64_t> captured_graph_batch(const RuntimeLog& log) {
  if (const LogSetting* given = log.setting("cuda_graph_max_bs"); given != nullptr && given->value != "None") {
    return std::nullopt;
  }
  const LogSetting* captured = log.setting("cuda_graph_bs_captured");
  if (captured == nullptr) return std::nullopt;
  std::optional<uint64_t> bs = parse_count(captured->value);
  if (!bs || *bs == 0) return std::nullopt;
  return bs;
}

uint64_t json_count(const nlohmann::ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// The cuda_graph figure: the captures the log's figure sums (the reader's
// setting cuda_graph_parts: "decode", "piecewise" or both), each at
// memfit's reserve for it, SGLang's own coefficients: 2 MiB a decode batch
// up to --cuda-graph-max-bs (or the largest batch the log says was
// captured, where server_args print no --cuda-graph-max-bs), and the
// piecewise graphs' reserve of the computed fraction (plan.h,
// piecewise_reserve: 8 MiB a captured token size, 1.5 GiB under MLA). Not
// what a capture holds: no rule in SGLang's source gives that.
void price_cuda_graph(const RuntimeLog& log, const nlohmann::ordered_json& j, FigureCheck& c) {
  const LogSetting* parts = log.setting("cuda_graph_parts");
  const std::string_view printed = parts != nullptr ? std::string_view(parts->value) : "decode";
  const bool decode = printed.find("decode") != std::string_view::npos;
  const bool piecewise = printed.find("piecewise") != std::string_view::npos;
  uint64_t decode_bytes = json_count(j, "cuda_graph_bytes");
  std::string decode_text = fmt::format("2 MiB a batch up to --cuda-graph-max-bs {} (the 0.5 line's coefficient)",
                                        json_count(j, "cuda_graph_max_bs"));
  if (std::optional<uint64_t> captured = captured_graph_batch(log)) {
    decode_bytes = (CheckedBytes(*captured) * sglang::kCudaGraphBytesPerBatch).saturated();
    decode_text = fmt::format("2 MiB a batch up to the largest batch captured, {} (the log's 'Capture cuda "
                              "graph bs' list)",
                              *captured);
  }
  const uint64_t piecewise_bytes = json_count(j, "piecewise_cuda_graph_bytes");
  if (piecewise && piecewise_bytes == 0) {
    c.note = "the log's figure holds the piecewise graphs' capture, which memfit does not price for this run "
             "(they are off by its rules): not compared";
    return;
  }
  c.memfit = (CheckedBytes(decode ? decode_bytes : 0) + (piecewise ? piecewise_bytes : 0)).saturated();
  c.basis = FigureBasis::kModelled;
  std::string what;
  if (decode) what = decode_text;
  if (piecewise) {
    if (!what.empty()) what += ", plus ";
    what += fmt::format("the piecewise graphs' reserve, {} MiB (the printed decode and piecewise captures summed)",
                        piecewise_bytes / sglang::kMiB);
  }
  c.note = "memfit's reserve, " + what +
           ", not what the capture holds: no rule in SGLang's source gives that (docs/engine-sglang.md, "
           "'CUDA graphs')";
}

// Why the weights and the pool of a run that keeps weights off the GPU
// are not priced; "" for a run that holds its checkpoint on the GPUs. The
// sglang profile prices the whole checkpoint on the GPUs; under
// ktransformers (kt-kernel) the routed experts run on the CPU and the
// GPUs hold the rest (docs/engine-sglang.md, "Validation"). Such a run
// names its kt flags, or shows it: a rank that loaded under half its
// share of the checkpoint holds the rest elsewhere. Its KV per token is
// SGLang's own and is still compared.
std::string weights_offloaded(const RuntimeLog& log, uint64_t share_bytes) {
  if (const LogSetting* kt = log.setting("kt_method")) {
    return fmt::format("the run keeps its routed experts on the CPU under ktransformers "
                       "(--kt-method {}): the sglang profile prices a checkpoint held on the "
                       "GPUs, so this figure is not priced", escape_untrusted(kt->value));
  }
  const PrintedFigure* loaded = rank0_figure(log, LogFigure::kWeights);
  if (loaded == nullptr || loaded->value * 2 >= share_bytes) return "";
  return fmt::format("the rank loaded {}, under half of its share of the checkpoint (weights held "
                     "elsewhere, such as ktransformers' CPU experts): the sglang profile prices a "
                     "checkpoint held on the GPUs, so this figure is not priced",
                     escape_untrusted(loaded->text));
}

// Why the weights and the pool of a model whose config declares a
// quantization memfit does not price from a config alone (AMD Quark's
// "quark", sglang-11309's config) are not compared; "" otherwise. memfit
// then sizes the checkpoint at 16 bits, which is not the run's: the
// weights are another checkpoint's and the pool, the rest they leave, is
// too (a 1.22 TiB DeepSeek-V3.2 rank leaves none, where the run held
// 975,424 tokens). The KV bytes a token do not depend on the weights and
// are still compared.
std::string unpriced_quantization(const EstimateRun& run, const nlohmann::ordered_json& j) {
  const ModelSpec& spec = run.model->spec;
  if (spec.quantization.method.empty() || spec.analytical_params == 0 ||
      spec.analytical_weights.quantization_applied || j.value("weights_exact", false)) {
    return "";
  }
  return fmt::format("the config declares quantization {}, which memfit does not price from a config alone: "
                     "its weights at 16 bits are another checkpoint's, and so is the pool they leave, so this "
                     "figure is not priced", quote_untrusted(spec.quantization.method));
}

// The --mem-fraction-static a rank's printed pool implies, for a log that
// prints none: SGLang's pool is the rest the fraction leaves,
// free_after - free_before x (1 - f) (profile_max_num_token), its K + V
// (and a hybrid model's state pool, printed before it) that rest to a
// page, so f = 1 - (free_after - pools) / free_before. A diagnostic for
// the row's note, never an input: "" when the rank printed no free memory
// after its weights or no pool bytes, or when the result is not a fraction.
// The inputs of SGLang's computed default that could have lowered it
// unseen: a larger chunked prefill unless the log's pool line prints the
// one memfit took ("max_total_num_tokens=..., chunked_prefill_size=N", the
// setting chunked_prefill_printed: what _handle_data_parallelism left, the
// chunk / DP under DP attention), a larger graph batch unless the log's
// capture list ends at memfit's (cuda_graph_bs_captured), and a
// speculative draft's reserve, which memfit does not take
// (docs/engine-sglang.md, "Speculative decoding").
std::string unshown_default_inputs(const RuntimeLog& log, const nlohmann::ordered_json& plan) {
  std::vector<std::string> inputs;
  const uint64_t dp = plan.value("enable_dp_attention", false) ? plan.value("dp_size", uint64_t{1}) : 1;
  const std::optional<uint64_t> chunk = count_setting(log, "chunked_prefill_printed");
  if (!chunk || *chunk * dp != plan.value("chunked_prefill_size", uint64_t{0})) {
    inputs.emplace_back("a larger --chunked-prefill-size");
  }
  const std::optional<uint64_t> graphs = count_setting(log, "cuda_graph_bs_captured");
  if (!graphs || *graphs != plan.value("cuda_graph_max_bs", uint64_t{0})) {
    inputs.emplace_back("a larger --cuda-graph-max-bs");
  }
  inputs.emplace_back("a speculative draft's reserve");
  std::string text;
  for (size_t i = 0; i < inputs.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == inputs.size() ? " or " : ", ") + inputs[i];
  }
  return text;
}

std::string implied_fraction(const RuntimeLog& log, std::string_view device, const nlohmann::ordered_json& plan) {
  const double taken = plan.value("mem_fraction_static", 0.0);
  const std::optional<uint64_t> before = free_before_load(log);
  const PrintedFigure* kv = figure_of(log, LogFigure::kKvCache, device);
  const PrintedFigure* state = figure_of(log, LogFigure::kRecurrent, device);
  std::optional<uint64_t> after;
  for (const LogDevice& d : log.devices) {
    if (d.id == device) after = d.free_bytes;
  }
  if (!before || *before == 0 || !after || kv == nullptr) return "";
  const long double pools = static_cast<long double>(kv->value) + (state != nullptr ? state->value : 0);
  const long double fraction = 1 - (static_cast<long double>(*after) - pools) / static_cast<long double>(*before);
  if (!(fraction > 0 && fraction < 1)) return "";
  std::string note = fmt::format("the printed pool implies --mem-fraction-static {:.3f} (1 - (free after the "
                                 "weights - the pools' bytes) / free before them), where memfit took {:.3f}",
                                 static_cast<double>(fraction), taken);
  // What is left after the pools ("Memory pool end", rank 0's) is at least
  // free_before x (1 - f) less the request table, a second line's bound:
  // f <= 1 - left / free_before. Said when memfit's default lies past it.
  const std::optional<uint64_t> left = count_setting(log, "free_after_pools");
  if (!left || *left > *before) return note;
  const double largest = 1 - static_cast<double>(*left) / static_cast<double>(*before);
  if (!(largest + 0.0005 < taken)) return note;
  return note + fmt::format(
                    "; the free memory left after the pools (Memory pool end: {}) bounds it too, at most "
                    "{:.3f} (1 - {} / the free memory before the weights): SGLang's computed default for the "
                    "settings the log shows is memfit's {:.3f}, so the run set its own --mem-fraction-static, "
                    "or a setting the log does not show ({}) lowered the default",
                    format_bytes(*left), largest, format_bytes(*left), taken, unshown_default_inputs(log, plan));
}

// What rank 0's free memory after its pools ("Memory pool end. avail
// mem": the setting free_after_pools) tells of a run that prints no free
// memory before its weights; "" when it tells nothing against memfit's
// figures. SGLang's pools are the rest free_after_weights - free_before x
// (1 - f), to a page (profile_max_num_token), and the request table is
// allocated beside them, so what is left after them is at least free_before
// x (1 - f) less one page: f <= 1 - left / free_before <= 1 - left / the
// GPU's total. And the GPU holds the weights, the pools and what is left
// after them (with the startup and the request table), so the total less
// the printed pools and what is left bounds the weights. `total`: the GPU's
// total memfit priced; `weights`: memfit's weights a rank; `taken`: the
// fraction memfit took. Each bound is said only when memfit's figure lies
// past it: its weights above what the GPU had room for, or its fraction
// above the largest the print allows.
std::string pool_end_bounds(const RuntimeLog& log, std::string_view device, uint64_t total, uint64_t weights,
                            double taken) {
  const std::optional<uint64_t> left = count_setting(log, "free_after_pools");
  const PrintedFigure* kv = figure_of(log, LogFigure::kKvCache, device);
  if (device != "rank0" || !left || kv == nullptr || total == 0) return "";
  const PrintedFigure* state = figure_of(log, LogFigure::kRecurrent, device);
  const CheckedBytes held = CheckedBytes(kv->value) + (state != nullptr ? state->value : 0) + *left;
  if (!held.value() || *held.value() > total) return "";
  const uint64_t room = total - *held.value();
  if (room < weights) {
    // At memfit's fraction f the pools are free_before x f - the weights,
    // free_before at most the total: the weights are at most total x f - the
    // pools, the sharper bound where the fraction is SGLang's own.
    const long double pools = static_cast<long double>(*held.value() - *left);
    const long double at_fraction = static_cast<long double>(total) * taken - pools;
    std::string sharper;
    if (at_fraction > 0 && at_fraction < static_cast<long double>(room)) {
      sharper = fmt::format(" (at memfit's --mem-fraction-static {:.3f}, at most {}: the GPU's total x the "
                            "fraction - the pools)",
                            taken, format_bytes(static_cast<uint64_t>(at_fraction)));
    }
    return fmt::format("the pools printed and the free memory left after them (Memory pool end: {}) "
                       "leave {} of the GPU's {} for the weights, the request table and the startup{}, "
                       "less than memfit's {} of weights: the run held fewer weight bytes than memfit "
                       "prices (another checkpoint than the one named), or its GPU more memory",
                       format_bytes(*left), format_bytes(room), format_bytes(total), sharper,
                       format_bytes(weights));
  }
  const double largest = 1 - static_cast<double>(*left) / static_cast<double>(total);
  if (!(largest < taken)) return "";
  return fmt::format("the free memory left after the pools (Memory pool end: {}) is at least what "
                     "--mem-fraction-static leaves of the free memory before the weights, so the run's "
                     "fraction is at most {:.3f} (1 - {} / the GPU's {}), where memfit took {:.3f}: the "
                     "run set its own",
                     format_bytes(*left), largest, format_bytes(*left), format_bytes(total), taken);
}

// Whether memfit's pool is a hybrid SWA model's two pools.
bool swa_hybrid(const nlohmann::ordered_json& j) {
  return json_count(j, "kv_bytes_per_token_swa") != 0 && json_count(j, "kv_bytes_per_token_full") != 0;
}

// A hybrid SWA model's KV row, each of whose lines the reader kept as its
// "#tokens N" (sglang_reader.cc): a line of the split's swa_layer_tokens is
// the SWA pool's, of full_layer_tokens the full pool's, each priced as
// those tokens x memfit's bytes a token of that pool's layers (SWAKVPool
// allocates each pool's K and V as tokens x its heads x its head dims).
// Pools of the same tokens tell no line apart: only a rank that printed
// both lines is priced, the two summed. nullopt when a line's pool is not
// known.
std::optional<uint64_t> swa_pools_bytes(const RuntimeLog& log, const PrintedFigure& kv,
                                        const nlohmann::ordered_json& j) {
  if (!swa_hybrid(j) || kv.buffers.empty()) return std::nullopt;
  const std::optional<uint64_t> swa = count_setting(log, "swa_layer_tokens");
  const std::optional<uint64_t> full = count_setting(log, "full_layer_tokens");
  if (!swa || !full) return std::nullopt;
  const CheckedBytes swa_pool = CheckedBytes(*swa) * json_count(j, "kv_bytes_per_token_swa");
  const CheckedBytes full_pool = CheckedBytes(*full) * json_count(j, "kv_bytes_per_token_full");
  const std::string swa_line = fmt::format("#tokens {}", *swa), full_line = fmt::format("#tokens {}", *full);
  CheckedBytes bytes(0);
  if (*swa == *full) {
    if (kv.buffers.size() != 2 || kv.buffers[0] != swa_line || kv.buffers[1] != swa_line) return std::nullopt;
    bytes = swa_pool + full_pool;
  } else {
    for (const std::string& line : kv.buffers) {
      if (line != swa_line && line != full_line) return std::nullopt;
      bytes = bytes + (line == swa_line ? swa_pool : full_pool);
    }
  }
  if (!bytes.value()) return std::nullopt;
  return *bytes.value();
}

// The release the run had: the one its log prints, where the profile
// takes it (0.5.3 and later 0.5; a ".postN" build is its release's
// rules), else the log's date stands for it (plan.h, Settings::log_date:
// a run is no newer than its log); neither: the profile's pinned release.
void apply_release(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  if (!log.version.empty()) {
    const std::string_view version = log.version;
    const std::string_view release = version.substr(0, version.find(".post"));
    if (const RequestField* field = find_request_field("sglang_version");
        field != nullptr && apply_request_field(*field, r, release)) {
      notes.push_back(fmt::format("SGLang {}: priced by that release's rules (docs/engine-sglang.md)",
                                  escape_untrusted(log.version)));
      return;
    }
    notes.push_back(fmt::format("SGLang {}: priced by the rules of the 0.5 line memfit reads "
                                "(docs/engine-sglang.md)", escape_untrusted(log.version)));
  }
  if (const LogSetting* date = log.setting("log_date")) {
    r.engine_fields.insert_or_assign(std::string(sglang::kSglangLogDate), date->value);
  }
}

// The log's piecewise CUDA graphs when its lines say they were on.
const LogSetting* piecewise_shown(const RuntimeLog& log) {
  const LogSetting* s = log.setting("piecewise_cuda_graph");
  return s != nullptr && s->value == "True" ? s : nullptr;
}

class SglangPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "sglang"; }

  // The platform of the GPU the caller names, over the reader's (a ROCm
  // build's lines, else CUDA): the run is priced on the GPU given.
  std::string priced_backend(const RuntimeLog&, const LogCheckOptions& options) const override {
    if (options.gpu_name.empty()) return "";
    const std::optional<HardwareVendor> vendor = named_gpu_vendor(options.gpu_name);
    if (vendor == HardwareVendor::kAmd) return "ROCm";
    if (vendor == HardwareVendor::kNvidia) return "CUDA";
    return "";
  }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
                                  std::vector<std::string>& notes) const override {
    EstimateRequest r;
    r.engine = "sglang";
    apply_settings(log, r, notes);
    apply_release(log, r, notes);
    if (options.gpu_memory_total) {
      r.memory_limit_bytes = options.gpu_memory_total;
    } else if (std::optional<uint64_t> before = free_before_load(log)) {
      r.memory_limit_bytes = *before + kStartupBytes;
      notes.push_back("the GPU's total is the printed free memory before the weights (Load weight "
                      "begin's avail mem, or the load line's avail mem + mem usage) plus memfit's "
                      "1,200 MiB startup");
      // SGLang's GPU-size defaults and computed fraction take the GPU's
      // total as nvidia-smi prints it (get_device_memory_capacity), not the
      // free memory: the named GPU's, where the table has it (plan.h).
      if (!options.gpu_name.empty()) {
        if (const std::optional<uint64_t> named = named_gpu_total(options.gpu_name)) {
          r.engine_fields.insert_or_assign(std::string(sglang::kSglangLogGpuMemMib),
                                           std::to_string(*named >> 20));
          notes.push_back(fmt::format("SGLang's defaults and computed --mem-fraction-static take the "
                                      "named GPU's total, {} MiB", *named >> 20));
        }
      }
    } else if (!options.gpu_name.empty()) {
      r.machine.gpu = {options.gpu_name};
    } else {
      r.memory_limit_bytes = kStandInGpuBytes;
      notes.push_back("neither the GPU nor its free memory is in the log: the weights and the bytes "
                      "per token are priced, the pool is not (give --gpu-memory-total)");
    }
    apply_rocm_attention_backend(log, options, r, notes);
    // A MUSA build's log, priced on its own lines' platform unless a GPU
    // is named: its rotary cache is 2-byte (plan.h, Settings::musa).
    if (log.backend == "MUSA" && options.gpu_name.empty()) {
      r.engine_fields.insert_or_assign(std::string(sglang::kSglangLogMusa), "true");
      notes.push_back("a MUSA build's lines: SGLang casts the rotary cache to the model's dtype there "
                      "(is_cuda() is false; docs/engine-sglang.md, 'Rules', rotary cache)");
    }
    apply_dated_mem_fraction(log, r, notes);
    // The piecewise CUDA graphs' reserve in the computed fraction, dated by
    // the log (plan.h, piecewise_reserve), when its lines show them on.
    const LogSetting* piecewise = log.setting("piecewise_cuda_graph");
    if (piecewise != nullptr && piecewise->value == "False") {
      // The log shows them off (--disable-piecewise-cuda-graph): no reserve.
      if (const RequestField* field = find_request_field("disable_piecewise_cuda_graph")) {
        if (Status applied = apply_request_field(*field, r, "true"); !applied) {
          notes.push_back("disable_piecewise_cuda_graph: not priced (" + applied.error().message() + ")");
        }
      }
    }
    if (const LogSetting* date = log.setting("log_date");
        date != nullptr && piecewise != nullptr && piecewise->value == "True" &&
        log.setting("mem_fraction_static") == nullptr) {
      r.engine_fields.insert_or_assign(std::string(sglang::kSglangLogPiecewiseDate), date->value);
      notes.push_back(fmt::format("the log shows the piecewise CUDA graphs on: the computed "
                                  "--mem-fraction-static reserves for them as SGLang's tree of {} did "
                                  "(docs/engine-sglang.md, 'Validation')",
                                  escape_untrusted(date->value)));
    }
    // gpt-oss's MXFP4 experts as the kernel the log names lays them out, or
    // as its GPU's default kernel does (engines/sglang/plan.h).
    if (const LogSetting* kernel = log.setting("mxfp4_backend")) {
      r.engine_fields.insert_or_assign(std::string(sglang::kSglangLogMxfp4Kernel), kernel->value);
    } else if (!options.gpu_name.empty()) {
      r.engine_fields.insert_or_assign(std::string(sglang::kSglangLogMxfp4Kernel),
                                       std::string(to_string(sglang::sglang_mxfp4_kernel(options.gpu_name))));
    }
    return r;
  }

  void compare(const RuntimeLog& log, const LogCheckOptions& options, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override {
    const nlohmann::ordered_json j = run.engine->report_json(run);
    const bool capacity_known =
        options.gpu_memory_total || free_before_load(log) || !options.gpu_name.empty();
    std::string not_priced = weights_offloaded(log, json_count(j, "weights_bytes"));
    if (not_priced.empty()) not_priced = unpriced_quantization(run, j);
    const uint64_t per_token = json_count(j, "kv_bytes_per_token");
    const uint64_t state_per_slot = json_count(j, "mamba_state_bytes_per_request");
    for (FigureCheck& c : figures) {
      switch (c.printed.figure) {
        case LogFigure::kWeights:
          if (!not_priced.empty()) {
            c.note = not_priced;
            break;
          }
          c.memfit = json_count(j, "weights_bytes");
          c.basis = j.value("weights_exact", false) ? FigureBasis::kExact : FigureBasis::kModelled;
          if (run.model->spec.quantization.method == "mxfp4" && log.setting("mxfp4_backend") == nullptr &&
              options.gpu_name.empty()) {
            c.input_gap = "GPU name";
            c.note = "the log names neither the GPU nor the MXFP4 MoE kernel: the experts are laid out "
                     "as triton_kernels holds them; on datacenter Blackwell SGLang runs FlashInfer's, "
                     "padded to 256 (give --gpu-name)";
          }
          break;
        case LogFigure::kTokenPool:
          if (!capacity_known) {
            c.note = "the GPU's memory is not known: give --gpu-memory-total";
            break;
          }
          if (!not_priced.empty()) {
            c.note = not_priced;
            break;
          }
          c.memfit = json_count(j, "max_total_num_tokens"), c.basis = FigureBasis::kModelled;
          if (j.value("aiter_fraction_cut", false)) {
            c.note = "the fraction x 0.85: the aiter attention backend (an AMD GPU's default) past "
                     "8,192 tokens of context";
          }
          if (j.value("piecewise_cuda_graph", false) && j.value("mem_fraction_computed", false) &&
              piecewise_shown(log) == nullptr) {
            c.note += std::string(c.note.empty() ? "" : "; ") +
                      "the computed fraction reserves for the piecewise CUDA graphs, on by default from "
                      "0.5.10 (sgl-project/sglang#16331) for this model and these flags";
          }
          if (log.setting("mem_fraction_static") == nullptr) {
            // The pool is the rest the fraction leaves: a fraction the log
            // does not print is a default, not the run's.
            c.input_gap = "mem_fraction_static";
            c.note += std::string(c.note.empty() ? "" : "; ") +
                      "the log prints no mem_fraction_static (neither server_args nor a launch command gives it): "
                      "the default its date allows is taken (docs/engine-sglang.md, 'Validation')";
            if (const std::string implied =
                    implied_fraction(log, c.printed.device, j);
                !implied.empty()) {
              c.note += "; " + implied;
            }
          }
          if (!options.gpu_memory_total && !free_before_load(log)) {
            // SGLang sizes the pool from the free memory it measured
            // before the weights; without the load line the pool rests on
            // the hardware table's total less memfit's startup term.
            if (c.input_gap.empty()) c.input_gap = "free memory";
            c.note += std::string(c.note.empty() ? "" : "; ") +
                      "the log prints no free memory before the weights (Load weight end ... avail "
                      "mem): the pool rests on the GPU's total less memfit's 1,200 MiB startup";
            if (std::optional<uint64_t> tp = count_setting(log, "tensor_parallel"); tp && *tp > 2) {
              // The startup term is measured on TP 1 and 2 runs; a wider
              // rank's communicators hold more before its weights, by
              // NCCL's buffers for the interconnect, which SGLang's source
              // does not size ("Init torch distributed ends. mem usage":
              // 0.13 GB on PCIe L4s at TP 4, 1.77 to 2.01 GB on H200s at
              // TP 8 in the corpus).
              c.note += fmt::format(", measured at TP 1 and 2: what a TP {} rank's communicators "
                                    "hold beyond it is NCCL's, not sized by SGLang's source (the "
                                    "corpus's 'Init torch distributed ends' lines: 0.13 GB on PCIe "
                                    "L4s at TP 4, about 2 GB on H200s at TP 8), so the pool "
                                    "is high by the tokens --mem-fraction-static x those bytes hold "
                                    "(docs/engine-sglang.md, 'Validation')", *tp);
            }
            if (const std::string bounds =
                    pool_end_bounds(log, c.printed.device, json_count(j, "gpu_total_bytes"),
                                    json_count(j, "weights_bytes"), j.value("mem_fraction_static", 0.0));
                !bounds.empty()) {
              c.note += "; " + bounds;
            }
          }
          break;
        case LogFigure::kKvCache:
          // The pool's tokens the same rank printed at memfit's bytes per
          // token: the per-token rule checked whatever the GPU.
          if (const std::optional<uint64_t> pools = swa_pools_bytes(log, c.printed, j)) {
            c.memfit = *pools, c.basis = FigureBasis::kExact;
            c.note = "each pool's printed tokens (swa_layer_tokens, full_layer_tokens) x memfit's bytes "
                     "per token of its layers";
          } else if (const PrintedFigure* tokens = figure_of(log, LogFigure::kTokenPool, c.printed.device);
                     tokens != nullptr && !swa_hybrid(j)) {
            c.memfit = tokens->value * per_token, c.basis = FigureBasis::kExact;
            c.note = "the printed #tokens x memfit's bytes per token";
          } else if (capacity_known) {
            c.memfit = json_count(j, "kv_pool_bytes"), c.basis = FigureBasis::kModelled;
          }
          break;
        case LogFigure::kRecurrent:
          // A hybrid model's state pool: SGLang's MambaPool allocates its
          // conv and ssm tensors (layers, max_mamba_cache_size + 1, ...),
          // slot 0 the padded requests' (mem_cache/memory_pool.py). The
          // printed slots + 1 at memfit's state a slot checks the per-slot
          // rule whatever the GPU; else the pool memfit sizes.
          if (std::optional<uint64_t> slots = count_setting(log, "mamba_cache_slots");
              slots && state_per_slot != 0) {
            c.memfit = (*slots + 1) * state_per_slot, c.basis = FigureBasis::kExact;
            c.note = "the printed max_mamba_cache_size + 1 slots x memfit's state a slot";
          } else if (capacity_known) {
            c.memfit = json_count(j, "mamba_pool_bytes"), c.basis = FigureBasis::kModelled;
          }
          break;
        case LogFigure::kCudaGraph:
          // SGLang's printed "mem usage" spans the whole runner: its
          // buffers, the attention backend's graph state, each captured
          // size's retained output and NCCL's and CUDA's own graph memory;
          // no source file fixes the last (docs/engine-sglang.md, "CUDA
          // graphs").
          price_cuda_graph(log, j, c);
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace

const LogPricer& sglang_log_pricer() {
  static const SglangPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
