// A llama.cpp (or Ollama runner) log priced by the llamacpp profile: the
// context the log printed (n_ctx, n_seq_max, n_batch, n_ubatch, the cache
// types, flash attention as resolved), the GPUs it used with their free
// memory (llama.cpp's default split), the layers it offloaded; then per
// device, llama.cpp's buffers beside memfit's placement
// (llamacpp_placement.h): model, KV (the device's context less the host's
// output buffer), recurrent state, output and compute.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <array>
#include <cctype>
#include <optional>
#include <set>
#include <utility>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/releases.h"
#include "engines/llamacpp/quantize_plan.h"
#include "engines/ollama/releases.h"
#include "logs/dump_rebuild.h"
#include "logs/log_model.h"
#include "logs/log_pricer.h"
#include "logs/log_targets.h"
#include "logs/log_text.h"
#include "logs/pre_mla_config.h"
#include "memfit/checked_math.h"
#include "memfit/ggml_types.h"
#include "memfit/llamacpp.h"
#include "memfit/untrusted_text.h"

namespace memfit::logs {
namespace {

// The memory llama.cpp split the layers by for GPU `d` (llama_model_load:
// each device's free memory from ggml_backend_dev_memory, when no
// --tensor-split is given): the free memory the log prints ("using device
// CUDA0 (...) - 23008 MiB free"); else, for a SYCL device, the total its
// device table prints: ggml-sycl's get_memory_info (dpct helper) returns
// the total as the free memory when the driver lacks
// ext_intel_free_memory, as it does unless ZES_ENABLE_SYSMAN=1 is set
// ("get_memory_info: [warning] ext_intel_free_memory is not supported
// (export/set ZES_ENABLE_SYSMAN=1 to support), use total memory as free
// memory"). ggml-org/llama.cpp#9241 (b3616, Arc A770 16704M and A750
// 8319M, 41 slots) splits 28 layers and 12 by it, #8294 and #7968 (8 and
// 4 SYCL devices) likewise to the layer. nullopt where neither is printed.
std::optional<uint64_t> split_memory(const LogDevice& d) {
  if (d.free_bytes) return d.free_bytes;
  if (d.id.starts_with("SYCL")) return d.total_bytes;
  return std::nullopt;
}

// Whether the run's model used GPU `id`. llama.cpp prints "using device
// X" once for each device of the model's list (llama.cpp
// llama_model_load_from_file_impl: for (auto * dev : model->devices)), the
// GPUs it loads onto, which a runner can narrow from the ones ggml lists
// (Ollama's runner passes the scheduler's GPU ids, llama-server its
// --device). A GPU with a printed figure was used whatever the lines say
// (an excerpt may start below them). A log with no such line used every
// GPU it lists, unless it prints the GPUs' model buffers: the loader
// prints one for each buffer type that holds tensors (llm_load_tensors,
// later load_tensors: "ROCm0 buffer size = ..."), so a listed GPU without
// one got no layer (ollama#3940: two ROCm devices listed, the model on
// ROCm0 alone). "model_devices" is the reader's comma-joined list.
bool model_used(const RuntimeLog& log, std::string_view id) {
  const auto printed_on = [&](std::string_view device) {
    return std::any_of(log.figures.begin(), log.figures.end(),
                       [&](const PrintedFigure& f) { return f.device == device; });
  };
  if (printed_on(id)) return true;
  if (const LogSetting* used = log.setting("model_devices")) return comma_list_has(used->value, id);
  return std::none_of(log.figures.begin(), log.figures.end(), [](const PrintedFigure& f) {
    return f.figure == LogFigure::kModel && f.device != "CPU" && f.device != "total" && f.device != "CUDA_Split";
  });
}

// The log's GPUs, in its order: every device the model used but the host,
// the whole-run "total" and the row-split buffer.
std::vector<const LogDevice*> log_gpus(const RuntimeLog& log) {
  std::vector<const LogDevice*> gpus;
  for (const LogDevice& d : log.devices) {
    if (d.id != "CPU" && d.id != "total" && d.id != "CUDA_Split" && model_used(log, d.id)) gpus.push_back(&d);
  }
  return gpus;
}

// The first build known to resolve an unset --flash-attn as auto (on
// where the backend can): llama.cpp #15434 made "auto" the default
// (2025-08); mybigday/llama.node #102 syncs b6327 with it (2025-08-31).
// Builds before it defaulted to off (#5021 added the flag, off). A build
// between the merge and b6327 is priced off, low there.
constexpr uint64_t kFlashAttnAutoBuild = 6327;

std::optional<FlashAttn> flash_attn_of(const RuntimeLog& log) {
  const LogSetting* s = log.setting("flash_attn_resolved");
  if (s == nullptr) s = log.setting("flash_attn");
  if (s == nullptr) return std::nullopt;
  if (s->value == "1" || s->value == "enabled" || s->value == "true" || s->value == "on") return FlashAttn::kOn;
  if (s->value == "0" || s->value == "disabled" || s->value == "false" || s->value == "off") return FlashAttn::kOff;
  return FlashAttn::kAuto;
}

// The context of an excerpt with no n_ctx line: the KV cache's cells as
// its summary printed them, else the context per sequence times the
// sequences; nullopt when neither is printed.
std::optional<uint64_t> context_without_n_ctx(const RuntimeLog& log, uint64_t n_seq,
                                              std::vector<std::string>& notes) {
  if (std::optional<uint64_t> cells = count_setting(log, "kv_cells")) {
    notes.push_back(fmt::format("n_ctx is not in the log: the KV cache's {} cells are the context", *cells));
    return cells;
  }
  // "llama_kv_cache_init: kv_size = N" (llama_kv_cache_unified's, to
  // #14363): the one cache every sequence shared, of n_ctx cells.
  if (std::optional<uint64_t> cells = count_setting(log, "kv_size")) {
    notes.push_back(fmt::format("n_ctx is not in the log: the KV cache's kv_size {} is the context", *cells));
    return cells;
  }
  std::optional<uint64_t> per_seq = count_setting(log, "n_ctx_seq");
  if (!per_seq) return std::nullopt;
  const std::optional<uint64_t> total = (CheckedBytes(*per_seq) * n_seq).value();
  if (total) {
    notes.push_back(fmt::format("n_ctx is not in the log: n_ctx_seq {} x {} sequences is the context",
                                *per_seq, n_seq));
  }
  return total;
}

// A source build's number is `git rev-list --count HEAD` of its tree
// (llama.cpp's cmake/build-info.cmake; 0 without git): a shallow clone
// (`git clone --depth 1`) counts 1 whatever its commit ("build: 1
// (ebbf544)"), a tree without git prints 0. Neither is a release's number
// (b1 is llama.cpp's first commit): the build is not known, and each row
// says so.
constexpr std::string_view kUncountedBuildNote =
    "a source build without its history (a shallow clone counts 1 commit), not a release's number";

bool uncounted_build(const RuntimeLog& log, const LogCheckOptions& options) {
  if (log.runtime != "llamacpp") return false;
  if (!options.version.empty() && options.version == log.version) return false;  // given, taken
  return log.version == "b0" || log.version == "b1";  // read_build's "b" and the printed count
}

// A line whose form llama.cpp printed only from build `first` to build
// `last` (docs/engine-llamacpp.md, "Dating a log by its lines"): the
// reader keeps it as the setting `setting`. Each bound is taken from the
// corpus's logs that print their build: the newest build seen without the
// form and the oldest seen with it (or the reverse for its last build), so
// the bound is the build after (before) the one seen; the commit that
// added or dropped the form was not read (the repository's history is
// larger than memfit's research copy takes), so the true build can lie
// between the two logs.
struct DatedLineForm {
  std::string_view setting;
  std::string_view shown;  // the form, as the note names it
  uint64_t first;
  uint64_t last;
};

// sched_reserve's "resolving fused Gated Delta Net support:": b8198's
// sched_reserve lines have none (llamacpp-neverllama5-gptoss20b-q4km-
// m5-metal-np4), b8319's print it for a dense Llama
// (llamacpp-armage-llama32-1b-q4km-mali-g715-vulkan), as every later
// build's sched_reserve does (b9090, llamacpp-urika-*); later trees print
// it from resolve_fused_ops, so its last build is not bounded here.
// llama-server's "system info: n_threads = N, n_threads_batch = N,
// total_threads = N": b8586 prints it (llamacpp-neverllama4-qwen35-27b-
// q4ks-4070-ngl26), b8680's server prints "build_info: b8680-15f786e65"
// and system_info's line alone (llamacpp-acdtrx-gemma4-e4b-q8_0-m4-metal),
// as b8836, b8854, b8931 and b9090 do; every corpus log with the form is
// llama-server's. "llama_kv_cache_unified:": b6115 prints it
// (llamacpp-neverllama5-gptoss20b-mxfp4-8x-ascend910b-cann), b6699 names
// the cache llama_kv_cache (llamacpp-neverllama5-ik822-gptoss20b-3070-
// ncpumoe), as every later build does. llama_context's "n_ctx_per_seq":
// b6699 prints it (the same log), b7217 n_ctx_seq
// (llamacpp-neverllama4-gptoss20b-mxfp4-m5-metal), as every later build
// does. The first builds of the last two are not needed: the compute
// lines bound them. llama-server's 2024 "build info" line (LOG_INFO's
// text or JSON form, "INFO [ main] build info | ... build=3735
// commit=\"df4b7945\""): b3735 prints it (llamacpp-neverllama7-9451-
// 4070laptop-phi35-q4km-lora), b3802's server prints "build: 3802
// (a5b57b08)" instead (llamacpp-neverllama7-9587-3060-gemma2-27b-q8_0-
// ngl0); its first build is not needed either. The KV cache summary's
// sequences without streams ("( 4096 cells, 28 layers, 1 seqs)"): b5897
// prints it (llamacpp-14689-q4_0-sycl-uhd), b6115 "1/1 seqs"
// (llamacpp-neverllama5-gptoss20b-mxfp4-8x-ascend910b-cann), as every
// later build does: the streams of #14363 (b5913, releases.cc), whose
// count the summary prints after the slash, so its last build is b5912.
// The loader's buffer lines without "model" ("llm_load_tensors:
// CUDA0 buffer size = ..."): b3972 prints them (llamacpp-neverllama7-10050-
// 2080-llama32-3b-q3km-ngl0-128k), b4020 "load_tensors: CUDA0 model buffer
// size" (llamacpp-10152-qwen25-32b-3x-p40), as every later build does.
// sched_reserve's one-line graph summary ("graph: nodes = N, splits = N,
// input objects = N, input tensors = N", #26625; llamacpp_reader.cc,
// read_reserve_summary): v0.5.0's llama-context.cpp prints it, v0.4.0's the
// "graph nodes" and "graph splits" lines; its first build is taken as
// v0.5.0's (kLlamaCppTag050Build), unconfirmed like that build.
constexpr std::array<DatedLineForm, 8> kDatedLineForms = {{
    {"form_sched_reserve_gdn", "sched_reserve's fused Gated Delta Net probe", 8199, UINT64_MAX},
    {"form_graph_summary_v050", "sched_reserve's one-line graph summary", kLlamaCppTag050Build, UINT64_MAX},
    {"form_server_system_info", "llama-server's 'system info: n_threads' line", 0, 8679},
    {"form_kv_cache_unified", "llama_kv_cache_unified's lines", 0, 6698},
    {"form_n_ctx_per_seq", "llama_context's n_ctx_per_seq", 0, 7216},
    {"form_server_build_info", "llama-server's 'build info' line", 0, 3801},
    {"form_kv_seqs_without_streams", "the KV cache summary's sequences without streams", 0, 5912},
    {"form_loader_buffer_without_model", "the loader's buffer lines without 'model'", 0, 4019},
}};

// The builds a log's dated line forms allow, first to last, and the forms
// that bound them; nullopt when it prints none.
struct LineFormRange {
  uint64_t first = 0;
  uint64_t last = UINT64_MAX;
  std::vector<std::string_view> forms;
};

std::optional<LineFormRange> line_form_range(const RuntimeLog& log) {
  LineFormRange range;
  for (const DatedLineForm& form : kDatedLineForms) {
    if (log.setting(form.setting) == nullptr) continue;
    range.first = std::max(range.first, form.first);
    range.last = std::min(range.last, form.last);
    range.forms.push_back(form.shown);
  }
  if (range.forms.empty()) return std::nullopt;
  return range;
}

// The newest build an unbuilt log's lines allow: the older of the compute
// lines' bound (build_bound) and the dated forms' last build; nullopt
// when neither bounds it.
std::optional<uint64_t> unknown_build_bound(const RuntimeLog& log) {
  std::optional<uint64_t> bound = build_bound(log);
  const std::optional<LineFormRange> range = line_form_range(log);
  if (range && range->last != UINT64_MAX && (!bound || range->last < *bound)) bound = range->last;
  return bound;
}

// The first build of an unbuilt log's dated forms when a form was first
// printed after the pinned release (v0.5.0's) and nothing bounds the log
// above: it is newer than every pinned rule, and the newest rules memfit
// reads, those of that first build, price it (a later release's own rules
// are not read: docs/engine-llamacpp.md, "Releases"); nullopt otherwise.
std::optional<uint64_t> newer_form_build(const RuntimeLog& log) {
  const std::optional<LineFormRange> range = line_form_range(log);
  if (!range || range->last != UINT64_MAX || range->first < kLlamaCppTag050Build || build_bound(log)) {
    return std::nullopt;
  }
  return range->first;
}

// What a log whose build is not known is priced as: the newest build its
// compute buffer lines' function and its dated line forms
// (unknown_build_bound) allow, the first build of a form newer than the
// pinned release (newer_form_build), else the pinned release.
std::string priced_as(const RuntimeLog& log) {
  std::optional<uint64_t> bound = unknown_build_bound(log);
  if (!bound) bound = newer_form_build(log);
  return bound ? fmt::format("b{}", *bound) : "the pinned release";
}

// A log that prints no build but offloads its blocks by the rule before
// #18148: "offloading N repeating layers" for "offloaded N/M layers" with
// N < M (fewer than every block and the output layer). From #18148 on
// llama.cpp offloads the output layer first and prints "offloading N-1
// repeating layers" for the same N (llama-model.cpp load_tensors), so such
// a log is of a build before b7591, and is priced as the last of them, with
// every rule that build has (docs/engine-llamacpp.md, "Releases"). nullopt
// when the lines are missing or do not tell the rules apart.
std::optional<uint64_t> build_by_offload(const RuntimeLog& log) {
  const std::optional<uint64_t> ngl = count_setting(log, "n_gpu_layers");
  const std::optional<uint64_t> offloadable = count_setting(log, "n_layers_offloadable");
  const std::optional<uint64_t> repeating = count_setting(log, "repeating_layers_offloaded");
  if (!ngl || !offloadable || !repeating || *ngl == 0 || *ngl >= *offloadable || *repeating != *ngl) {
    return std::nullopt;
  }
  return kLlamaCppOutputFirstBuild - 1;
}

// The oldest llama.cpp build that prints its compute buffers from the
// function the log's lines name, as the corpus's dated logs bound it:
// ggml-org/ci's b4730 still prints llama_init_from_model's lines
// (llamacpp-ci4730-*), so llama_context's come after b4730; b6050 still
// prints llama_context's (llamacpp-yeti), so sched_reserve's come after
// b6050. A printed build below it is not llama.cpp's count (a distro's
// package printed "build: 941 (eb39499)" with llama_context's lines and
// llama_kv_cache_unified's, ggml-org/llama.cpp#14740). nullopt for any
// other function or none.
std::optional<uint64_t> build_floor(const RuntimeLog& log) {
  const LogSetting* function = log.setting("compute_function");
  if (function == nullptr) return std::nullopt;
  if (function->value == "llama_context") return 4731;
  if (function->value == "sched_reserve") return 6051;
  return std::nullopt;
}

// The build an unbuilt log is priced as where its dated line forms
// (line_form_range) bound it below `bound`, the compute lines' bound: the
// last build they allow. Every rule memfit prices by build changes once
// (docs/engine-llamacpp.md, "Releases"), to the pinned release's rule,
// so the last
// build of the range prices each rule as every build of the range does
// where they agree, and by the pinned rule where the range straddles its
// first build. The range goes in the note. nullopt when the forms do not
// bound the log below `bound`, or contradict one another or the compute
// lines' oldest build (build_floor), which is said.
std::optional<uint64_t> build_by_line_forms(const RuntimeLog& log, std::optional<uint64_t> bound,
                                            std::string_view unknown, std::vector<std::string>& notes) {
  const std::optional<LineFormRange> range = line_form_range(log);
  if (const std::optional<uint64_t> newer = newer_form_build(log); newer && !bound) {
    std::string forms;
    for (std::string_view form : range->forms) forms += (forms.empty() ? "" : ", ") + std::string(form);
    notes.push_back(fmt::format("{}; its lines date it to b{} or later ({}): priced as b{}, by the newest "
                                "rules memfit reads",
                                unknown, *newer, forms, *newer));
    return newer;
  }
  if (!range || range->last == UINT64_MAX || (bound && *bound <= range->last)) return std::nullopt;
  const uint64_t first = std::max(range->first, build_floor(log).value_or(0));
  std::string forms;
  for (std::string_view form : range->forms) forms += (forms.empty() ? "" : ", ") + std::string(form);
  if (first > range->last) {
    notes.push_back(fmt::format("{}; its lines' forms ({}) allow no build (from b{} to b{}): not dated by "
                                "them", unknown, forms, first, range->last));
    return std::nullopt;
  }
  const std::string from = first == 0 ? "up to " : fmt::format("b{} to ", first);
  notes.push_back(fmt::format("{}; its lines date it to {}b{} ({}): priced as b{}, by the rules every build "
                              "of that range shares, the pinned release's where they differ",
                              unknown, from, range->last, forms, range->last));
  return range->last;
}

// An Ollama log priced as llama.cpp's (log_pricer: the server started
// llama-server, v0.30.0 on): the build of the release's llama-server
// (ollama::llama_server_build, its LLAMA_CPP_VERSION), else the pinned
// rules with a note. Ollama's own version is not a llama.cpp build.
std::optional<uint64_t> llama_server_build_of(const RuntimeLog& log, std::vector<std::string>& notes) {
  const std::optional<uint64_t> build = ollama::llama_server_build(log.version);
  if (build) {
    notes.push_back(fmt::format("Ollama {} starts llama.cpp's llama-server (llm/llama_server.go), build b{} "
                                "(its LLAMA_CPP_VERSION): priced by the llamacpp profile as b{}",
                                escape_untrusted(log.version), *build, *build));
  } else {
    notes.push_back(fmt::format("Ollama {} starts llama.cpp's llama-server; its build is not one memfit "
                                "reads (v0.30.0 to v0.32.15): the pinned llama.cpp release prices it",
                                escape_untrusted(log.version)));
  }
  return build;
}

// The build a llama.cpp log printed ("b5361"), its cache rules priced
// (docs/engine-llamacpp.md, "Releases"); none for Ollama, whose version is
// its own and not the build of the llama.cpp it carries. A log that prints
// kv_unified (llama_context's line since #14363, b5913) is of b5913 or
// later: a smaller number is a fork's own count (AMD's ROCm builds print
// "build: 1239 (b8372ee)" from a b7146 tree), not llama.cpp's build; so
// is one below the oldest build that prints the log's compute lines
// (build_floor). A
// log with no build, a source build's uncounted one or a fork's is priced
// as the newest build its compute lines can come from (build_bound), else
// by the pinned rules, with a note. A version given beside the log
// (--runtime-version) is taken as given.
std::optional<uint64_t> build_of(const RuntimeLog& log, const LogCheckOptions& options,
                                 std::vector<std::string>& notes) {
  if (log.runtime == "ollama") {
    // Ollama's own runners are priced by the ollama profile (its release's
    // vendored build); only its llama-server runs come here priced whole.
    const LogSetting* runner = log.setting("ollama_runner");
    if (runner == nullptr || runner->value != "llama-server") return std::nullopt;
    return llama_server_build_of(log, notes);
  }
  if (log.runtime != "llamacpp") return std::nullopt;
  std::string unknown = "the log prints no build";
  if (uncounted_build(log, options)) {
    unknown = fmt::format("the log prints build {}: {}", escape_untrusted(log.version), kUncountedBuildNote);
  } else if (!log.version.empty()) {
    Result<uint64_t> build = parse_llamacpp_build(log.version);
    if (!build) return std::nullopt;
    const bool printed = options.version.empty() || options.version != log.version;
    const std::optional<uint64_t> floor = build_floor(log);
    if (printed && *build < kLlamaCppStreamsBuild && log.setting("kv_unified") != nullptr) {
      unknown = fmt::format("the log prints build {} but kv_unified, which llama.cpp prints from b{} on "
                            "(#14363): not llama.cpp's build number (a fork's own)",
                            *build, kLlamaCppStreamsBuild);
    } else if (printed && floor && *build < *floor) {
      unknown = fmt::format("the log prints build {} but its compute buffers are printed by {}, as "
                            "llama.cpp's builds print them from b{} on: not llama.cpp's build number "
                            "(a fork's or a packager's own)",
                            *build, escape_untrusted(log.setting("compute_function")->value), *floor);
    } else {
      return *build;
    }
  }
  const std::optional<uint64_t> bound = build_bound(log);
  if (log.version.empty()) {
    // The offload lines can bound the build tighter than the compute lines.
    const std::optional<uint64_t> by_offload = build_by_offload(log);
    const std::optional<uint64_t> lines_bound = unknown_build_bound(log);
    if (by_offload && (!lines_bound || *by_offload < *lines_bound)) {
      // Both counts are there: build_by_offload dated the log from them.
      notes.push_back(fmt::format("the log prints no build, but {} repeating layers offloaded for {} "
                                  "GPU layers (the output layer on the host): the rule before #18148 "
                                  "(b{}), so build {} prices it, the last build with that rule",
                                  *count_setting(log, "repeating_layers_offloaded"),
                                  *count_setting(log, "n_gpu_layers"), kLlamaCppOutputFirstBuild,
                                  *by_offload));
      return by_offload;
    }
  }
  if (std::optional<uint64_t> dated = build_by_line_forms(log, bound, unknown, notes)) return dated;
  if (!bound && log.version.empty()) return std::nullopt;  // the pinned rules, as ever
  const LogSetting* function = log.setting("compute_function");
  const LogSetting* input = log.setting("input_buffer");
  if (bound && input != nullptr && input->value == "separate") {
    notes.push_back(fmt::format("{}; it prints an input buffer of its own, as builds up to b{} (before "
                                "#6017) do: priced as b{}",
                                unknown, *bound, *bound));
    return bound;
  }
  notes.push_back(bound ? fmt::format("{}; its compute buffers are printed by {}, as builds up to b{} "
                                      "print them: priced as b{}",
                                      unknown, escape_untrusted(function->value), *bound, *bound)
                        : unknown + ", so the pinned release's rules price it");
  return bound;
}

// The sequences of a release that prints no n_seq_max: n_ctx over the
// context per sequence it prints (n_ctx_per_seq), when that divides it
// into more than one; nullopt otherwise.
std::optional<uint64_t> sequences_from_context(const RuntimeLog& log, std::optional<uint64_t> n_ctx,
                                               std::vector<std::string>& notes) {
  const std::optional<uint64_t> per_seq = count_setting(log, "n_ctx_seq");
  if (!n_ctx || !per_seq || *per_seq == 0 || *n_ctx % *per_seq != 0 || *n_ctx / *per_seq < 2) {
    return std::nullopt;
  }
  notes.push_back(fmt::format("n_seq_max is not in the log: n_ctx {} over n_ctx_per_seq {} is {} "
                              "sequences", *n_ctx, *per_seq, *n_ctx / *per_seq));
  return *n_ctx / *per_seq;
}

// llama-server's --embedding and --pooling, read from the log's command
// line: they size the output buffer and add the pooling phase
// (docs/embedding-models.md). A pooling name memfit does not know is
// left to the model's own, with a note.
void apply_embedding(const RuntimeLog& log, LlamaCppRequest& q, std::vector<std::string>& notes) {
  if (log.setting("embedding") == nullptr) return;
  q.embedding = true;
  const LogSetting* pooling = log.setting("pooling");
  if (pooling == nullptr) return;
  for (std::string_view known : {"none", "mean", "cls", "last", "rank"}) {
    if (pooling->value == known) {
      q.pooling = std::string(known);
      return;
    }
  }
  notes.push_back(fmt::format("the command line's pooling {} is not one memfit knows: the model's own "
                              "is priced", quote_untrusted(pooling->value)));
}

// llama-server makes its context with one sequence more than its slots:
// #5328 (2024-03, Mamba's support) added "params.n_parallel += 1" to
// load_model ("dedicate one sequence to the system prompt"), which #9857
// (2024-10-12, the system prompt's removal) kept as "reserve one extra
// sequence (seq_id == 0) for extra features". Its context's n_seq_max, and
// so the output buffer's rows (one a sequence from #6122), is --parallel
// + 1: b4020 still prints "n_seq_max = 2" with "initializing slots,
// n_slots = 1" (llamacpp-10152-qwen25-32b-3x-p40), b4277's default server
// "n_seq_max = 1" (llamacpp-10701-llama31-8b-q4km-rocm-apu); the builds
// between are not dated here, so the rule stops at the last build known to
// keep it. Before #6122 (b2537) the output buffer held n_batch rows
// whatever the sequences, so the rule starts there (a recurrent model's
// state of b2355..b2536, one cell a sequence, is not priced with it). The
// slots are --parallel's (the command line's -np), else the server's
// default of one.
constexpr uint64_t kServerExtraSequenceFirstBuild = 2537;
constexpr uint64_t kServerExtraSequenceLastBuild = 4020;

bool server_extra_sequence(const RuntimeLog& log, std::optional<uint64_t> build) {
  // Ollama's runner makes its context itself (its pricer's parallel).
  // A context that prints its n_seq_max counts the extra sequence itself.
  return log.runtime == "llamacpp" && log.setting("llama_server") != nullptr &&
         log.setting("n_seq_max_printed") == nullptr && build && *build >= kServerExtraSequenceFirstBuild &&
         *build <= kServerExtraSequenceLastBuild;
}

Status apply_context(const RuntimeLog& log, std::optional<uint64_t> build, LlamaCppRequest& q,
                     std::vector<std::string>& notes) {
  q.parallel = count_setting(log, "n_seq_max");
  if (!q.parallel) q.parallel = count_setting(log, "kv_seqs");
  q.ctx_size = count_setting(log, "n_ctx");
  if (!q.parallel) q.parallel = sequences_from_context(log, q.ctx_size, notes);
  if (server_extra_sequence(log, build)) {
    const uint64_t slots = q.parallel.value_or(1);
    q.parallel = slots + 1;
    notes.push_back(fmt::format("llama-server b{} makes its context with one sequence more than its {} "
                                "slot{} (#5328's system-prompt sequence, kept to b{} at least): priced with "
                                "n_seq_max {}",
                                *build, slots, slots == 1 ? "" : "s", kServerExtraSequenceLastBuild, slots + 1));
  }
  if (!q.ctx_size) q.ctx_size = context_without_n_ctx(log, q.parallel.value_or(1), notes);
  if (!q.ctx_size) notes.emplace_back(kTrainingContextAssumedNote);
  q.batch_size = count_setting(log, "n_batch");
  q.ubatch_size = count_setting(log, "n_ubatch");
  // The worst-case graph's tokens are min(n_ctx, n_ubatch): as n_ubatch
  // they price the same graph (at n_ctx tokens, any n_ubatch from n_ctx
  // up reserves it).
  if (!q.ubatch_size) {
    if (std::optional<uint64_t> worst = count_setting(log, "worst_case_tokens")) {
      q.ubatch_size = worst;
      notes.push_back(fmt::format("n_ubatch is not in the log: the worst-case graph's {} tokens are "
                                  "taken for it", *worst));
    }
  }
  // The output rows the run reserved its prompt graph for: llama_context
  // prints n_outputs_max from #23988, the day after #23861 made it a limit
  // (b9460); llama-server's is its slots ("n_outputs_max = 1"), a library
  // caller's default n_batch.
  q.n_outputs_max = count_setting(log, "n_outputs_max");
  q.flash_attn = flash_attn_of(log);
  // auto resolved off at run time ("Flash Attention was auto, set to
  // disabled": a GPU's backend did not run FLASH_ATTN_EXT): the graph runs
  // without it over the cache auto created, V untransposed
  // (LlamaCppContext::v_trans).
  const LogSetting* asked = log.setting("flash_attn");
  const LogSetting* resolved = log.setting("flash_attn_resolved");
  if (asked != nullptr && asked->value == "auto" && resolved != nullptr && resolved->value == "disabled") {
    q.flash_attn = FlashAttn::kAuto;
    q.flash_attn_auto_on = false;
  }
  if (!q.flash_attn && build && *build < kFlashAttnAutoBuild) {
    q.flash_attn = FlashAttn::kOff;
    notes.push_back(fmt::format("the log prints no flash attention setting: build {} ran without it "
                                "unless asked (its default was off before b{})",
                                *build, kFlashAttnAutoBuild));
  }
  for (auto [name, field] : {std::pair{"cache_type_k", &q.cache_type_k}, {"cache_type_v", &q.cache_type_v}}) {
    const LogSetting* s = log.setting(name);
    if (s == nullptr) continue;
    Result<GgmlType> type = parse_llamacpp_cache_type(s->value);
    if (!type) return Error::usage(name, type.error().message());
    *field = *type;
  }
  if (const LogSetting* s = log.setting("kv_unified")) q.kv_unified = s->value == "true";
  if (one_cache_for_all(log) && q.ctx_size && q.parallel) {
    q.kv_unified = true;
    notes.push_back(fmt::format("the log's release kept one cache of {} cells for its {} sequences "
                                "(llama_kv_cache_init: kv_size, or its context's lines from before "
                                "#14363): priced as one stream",
                                *q.ctx_size, *q.parallel));
  }
  if (const LogSetting* s = log.setting("swa_full")) q.swa_full = s->value == "true";
  apply_embedding(log, q, notes);
  return Status::Ok();
}

// The placement's device for GPU `i` of the log: "cuda:i" for llama.cpp's
// CUDA devices, "rocm:i" for its ROCm ones (ggml-cuda's buffers, which
// pad quantized rows), "gpu:i" for any other backend.
std::string device_of(const LogDevice& gpu, size_t i) {
  if (gpu.id.starts_with("CUDA")) return fmt::format("cuda:{}", i);
  if (gpu.id.starts_with("ROCm")) return fmt::format("rocm:{}", i);
  // The backends whose op offload memfit prices (llamacpp/placement.cc).
  if (gpu.id.starts_with("Vulkan")) return fmt::format("vulkan:{}", i);
  if (gpu.id.starts_with("SYCL")) return fmt::format("sycl:{}", i);
  // ggml-cann's devices: the weight types it multiplies (runs_weight_op).
  if (gpu.id.starts_with("CANN")) return fmt::format("cann:{}", i);
  // ggml-metal's devices ("Metal", or "MTL0" where a build indexes them):
  // the split's reorder (llamacpp/graph/metal_reorder.h).
  if (gpu.id == "Metal" || gpu.id.starts_with("MTL")) return fmt::format("metal:{}", i);
  return fmt::format("gpu:{}", i);
}

Status apply_placement(const RuntimeLog& log, LlamaCppPlacementRequest& p,
                       std::vector<std::string>& notes) {
  const std::vector<const LogDevice*> gpus = log_gpus(log);
  if (gpus.empty()) return Status::Ok();
  std::vector<LlamaCppGpu> listed;
  bool free_known = true;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::optional<uint64_t> memory = split_memory(*gpus[i]);
    free_known = free_known && memory.has_value();
    listed.push_back(LlamaCppGpu{device_of(*gpus[i], i), gpus[i]->name, memory.value_or(1)});
  }
  if (!free_known && gpus.size() > 1) {
    for (LlamaCppGpu& g : listed) g.free_bytes = 1;  // an even split
    notes.push_back("the GPUs' free memory is not in the log: layers split evenly");
  }
  p.gpu_memory = std::move(listed);
  p.gpu_margin = 0;
  if (std::optional<uint64_t> ngl = count_setting(log, "n_gpu_layers")) p.n_gpu_layers = *ngl;
  if (const LogSetting* s = log.setting("tensor_split")) {
    Result<std::vector<double>> split = parse_tensor_split(s->value);
    if (split) p.tensor_split = *split;
  }
  if (const LogSetting* mode = log.setting("split_mode")) {
    if (Result<SplitMode> split = parse_split_mode(mode->value)) p.split_mode = *split;
  }
  if (const LogSetting* s = log.setting("kv_offload"); s != nullptr && s->value == "false") p.no_kv_offload = true;
  if (log.setting("no_mmap") != nullptr) p.no_mmap = true;
  // The command's -ot rules and --n-cpu-moe (llamacpp_reader.cc,
  // read_tensor_overrides), or the overrides --fit set (llamacpp_fit.cc):
  // a rule memfit cannot read (a device it does not know) leaves the
  // weights where their layer puts them, with a note.
  for (std::string_view field : {"override_tensor", "n_cpu_moe"}) {
    const LogSetting* s = log.setting(field);
    if (s == nullptr) continue;
    if (Status set = set_placement_field(p, field, s->value); !set.ok()) {
      if (field == "override_tensor") p.override_tensor.clear();
      notes.push_back(fmt::format("the {} read (the command's, or --fit's) is not priced: {}", field,
                                  set.error().message()));
    }
  }
  // Pipeline parallelism as the run had it: llama_context prints "pipeline
  // parallelism enabled" just above the compute buffers (from #6017), so a
  // log that prints those without it ran with one copy, whatever memfit's
  // rule would say of its GPUs (docs/engine-llamacpp.md, "Pipeline
  // parallelism").
  if (const LogSetting* copies = log.setting("n_copies")) {
    p.pipeline_parallel = copies->value != "1";
  } else if (std::any_of(log.figures.begin(), log.figures.end(),
                         [](const PrintedFigure& f) { return f.figure == LogFigure::kCompute; })) {
    p.pipeline_parallel = false;
  }
  // A host model buffer of a CPU extra buffer type beside the GPUs: the
  // weights it holds are not offloaded (LlamaCppPlacementSettings::
  // host_extra_buffer).
  for (const PrintedFigure& f : log.figures) {
    if (f.figure != LogFigure::kModel || f.device != "CPU") continue;
    for (std::string_view buffer : {"AMX", "CPU_AARCH64", "CPU_REPACK"}) {
      if (std::find(f.buffers.begin(), f.buffers.end(), buffer) != f.buffers.end()) p.host_extra_buffer = true;
    }
  }
  return Status::Ok();
}

// The GGUF file type of a run priced from a config given beside the log,
// by llama-quantize's name: the log's `file type` line, else the one given
// (LogCheckOptions::file_type); "" when neither is known or memfit does not
// price that type as llama-quantize writes it (`why` says which).
std::string config_file_type(const RuntimeLog& log, const LogCheckOptions& options, std::string& why) {
  const LogSetting* printed = log.setting("file_type");
  const std::string type = printed != nullptr ? gguf_file_type_of_printed(printed->value) : options.file_type;
  if (type.empty()) {
    why = "the GGUF file type is neither in the log nor given (--file-type)";
    return "";
  }
  if (llamacpp::find_gguf_file_type(type) == nullptr) {
    why = fmt::format("the file type {} is not one memfit prices as llama-quantize writes it",
                      quote_untrusted(type));
    return "";
  }
  return type;
}

bool priced_from_config(const LogCheckOptions& options) {
  return options.model.empty() && !options.config_json.empty();
}

// Whether the host's model row lists a buffer of the CPU's repacking
// extra buffer type: CPU_AARCH64 (its earlier name) or CPU_REPACK.
bool host_repack_buffer(const RuntimeLog& log) {
  return std::any_of(log.figures.begin(), log.figures.end(), [](const PrintedFigure& f) {
    return f.figure == LogFigure::kModel && f.device == "CPU" &&
           std::any_of(f.buffers.begin(), f.buffers.end(),
                       [](const std::string& b) { return b == "CPU_AARCH64" || b == "CPU_REPACK"; });
  });
}

// The repack kernels of a CPU run: those system_info's features pick, else
// AVX2's when the log shows a CPU_REPACK buffer; none on a GPU run, unless
// its host prints a repack buffer beside the GPUs (a build before #12498:
// llamacpp_host_extra_buffer_bytes prices it with these kernels).
RepackCpu repack_of(const RuntimeLog& log, std::vector<std::string>& notes) {
  if (!log_gpus(log).empty()) {
    if (!host_repack_buffer(log)) return RepackCpu::kNone;
    const LogSetting* cpu = log.setting("repack_cpu");
    Result<RepackCpu> repack = cpu != nullptr ? parse_repack_cpu(cpu->value) : Result<RepackCpu>(RepackCpu::kNone);
    if (repack && *repack != RepackCpu::kNone) return *repack;
    notes.push_back("the CPU's features are not in the log: its repack buffer beside the GPUs is priced "
                    "with AVX2's kernels");
    return RepackCpu::kX86Avx2;
  }
  // The host's model buffers printed without a CPU_REPACK one: nothing was
  // repacked (Ollama's runner, a build without the kernels, --no-repack).
  bool host_model = false;
  bool repacked = false;
  for (const PrintedFigure& f : log.figures) {
    if (f.figure != LogFigure::kModel || f.device != "CPU") continue;
    host_model = true;
    repacked = repacked || std::find(f.buffers.begin(), f.buffers.end(), "CPU_REPACK") != f.buffers.end();
  }
  if (host_model && !repacked) return RepackCpu::kNone;
  if (const LogSetting* cpu = log.setting("repack_cpu")) {
    if (Result<RepackCpu> repack = parse_repack_cpu(cpu->value)) return *repack;
  }
  for (const PrintedFigure& f : log.figures) {
    if (std::find(f.buffers.begin(), f.buffers.end(), "CPU_REPACK") != f.buffers.end()) {
      notes.push_back("the CPU's features are not in the log: its CPU_REPACK buffer is priced "
                      "with AVX2's kernels");
      return RepackCpu::kX86Avx2;
    }
  }
  return RepackCpu::kNone;
}

// Hybrid models: the KV and recurrent state are also compared as totals
// over the devices, summed from the log's per-device figures (values and
// bands), which hold whatever the split of the layers over the devices.
void add_context_totals(const LlamaCppEstimate& e, std::vector<FigureCheck>& figures) {
  for (auto [figure, bytes] : {std::pair{LogFigure::kKvCache, e.kv_bytes},
                               {LogFigure::kRecurrent, e.recurrent_bytes}}) {
    FigureCheck total;
    total.printed.device = "total";
    total.printed.figure = figure;
    bool any = false;
    for (const FigureCheck& c : figures) {
      if (c.printed.figure != figure || c.printed.device == "total") continue;
      if (any) total.printed.text += " + ";
      total.printed.text += c.printed.text;
      total.printed.value = (CheckedBytes(total.printed.value) + c.printed.value).saturated();
      total.printed.band = (CheckedBytes(total.printed.band) + c.printed.band).saturated();
      total.printed.unit_scale = c.printed.unit_scale;
      total.printed.decimals = c.printed.decimals;
      total.printed.line = any ? total.printed.line : c.printed.line;
      any = true;
    }
    if (!any) continue;
    total.memfit = bytes;
    total.basis = FigureBasis::kExact;
    total.note = "the sum of the devices' buffers";
    figures.push_back(std::move(total));
  }
}

class LlamaCppPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "llamacpp"; }
  bool rebuilds_model() const override { return true; }

  Result<std::string> run_config(const RuntimeLog& log, const LogCheckOptions& options,
                                 std::vector<std::string>& notes) const override {
    return pre_mla_config(log, options.config_json, notes);
  }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
                                  std::vector<std::string>& notes) const override {
    EstimateRequest r;
    r.engine = "llamacpp";
    if (priced_from_config(options)) {
      // The weights as the GGUF llama-quantize writes from the config.
      std::string why;
      r.quant = config_file_type(log, options, why);
      if (r.quant.empty()) notes.push_back(why + ": the model buffers are not priced");
    }
    const std::optional<uint64_t> build = build_of(log, options, notes);
    if (Status s = apply_context(log, build, r.llamacpp, notes); !s) return s.error();
    if (Status s = apply_placement(log, r.llamacpp.placement, notes); !s) return s.error();
    r.llamacpp.repack = repack_of(log, notes);
    r.llamacpp.llamacpp_version = build;
    return r;
  }

  void compare(const RuntimeLog& log, const LogCheckOptions&, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override;
};

// memfit's device for a log device: GPU i of the log is placement device
// i, the host the last; null when memfit has none.
const LlamaCppDeviceUsage* device_for(const RuntimeLog& log, const LlamaCppEstimate& e,
                                      std::string_view id) {
  const std::vector<LlamaCppDeviceUsage>& devices = e.placement.devices;
  if (devices.empty()) return nullptr;
  if (id == "CPU") return &devices.back();
  const std::vector<const LogDevice*> gpus = log_gpus(log);
  for (size_t i = 0; i < gpus.size() && i + 1 < devices.size(); ++i) {
    if (gpus[i]->id == id) return &devices[i];
  }
  return nullptr;
}

// The output buffer as the log prints it: llama_context's constructor
// reserves n_seq_max rows (output_reserve(n_seq_max)); with --embedding
// every token of a batch is an output, so the first full batch grows it
// to memfit's max(n_batch, n_seq) rows (docs/embedding-models.md).
// `output` is 4 x rows x width, so the start-up figure is output / rows x
// n_seq exactly.
uint64_t startup_output(const LlamaCppEstimate& e, uint64_t output, FigureCheck& c) {
  const uint64_t rows = std::max(e.context.n_batch, e.context.n_seq);
  if (!e.settings.embedding || rows <= e.context.n_seq || output == 0) return output;
  c.note = fmt::format("the start-up buffer, {} rows (one a sequence); with --embedding the first full "
                       "batch grows it to {} rows, {} B, memfit's estimate",
                       e.context.n_seq, rows, output);
  return output / rows * e.context.n_seq;
}

void price_device_figure(const LlamaCppEstimate& e, const LlamaCppDeviceUsage& d, bool host,
                         bool exact_weights, uint64_t input_buffer, bool prints_state, FigureCheck& c) {
  // The host's context holds the output buffer and, in a build before
  // #6017, the graph's input buffer, neither of them a cache.
  const uint64_t output = host ? e.output_bytes : 0;
  const uint64_t buffers = host ? (CheckedBytes(output) + input_buffer).saturated() : 0;
  const uint64_t context = d.context_bytes >= buffers ? d.context_bytes - buffers : 0;
  switch (c.printed.figure) {
    case LogFigure::kModel:
      c.memfit = d.model_bytes;
      c.basis = exact_weights ? FigureBasis::kExact : FigureBasis::kModelled;
      if (d.row_split_buffer_bytes > 0 || d.row_split_share_bytes > 0) {
        // The print names each split buffer after the GPU whose blocks it
        // holds, its size their whole matrices (14075: CUDA0_Split 21
        // blocks, CUDA3_Split 19 and the output); the GPU's own rows of
        // every split buffer are what it holds.
        c.memfit = (CheckedBytes(d.model_bytes) - d.row_split_share_bytes + d.row_split_buffer_bytes).saturated();
        c.note = fmt::format("--split-mode row: the split buffer named after this GPU, the whole matrices of "
                             "its blocks, which llama.cpp spreads by rows over every GPU; this GPU holds {} B "
                             "of weights",
                             d.model_bytes);
      }
      break;
    case LogFigure::kKvCache:
    case LogFigure::kRecurrent:
      if (e.kv_bytes > 0 && e.recurrent_bytes > 0) {
        // A hybrid's device holds the K and V of its attention layers and
        // the state of its recurrent ones (each on its layer's device,
        // llama_kv_cache and llama_memory_recurrent alike): the placement's
        // recurrent part of the device's context, the KV the rest. A log
        // printing no state line of its own (Ollama's device.go "kv cache",
        // the whole cache; an excerpt without the RS lines) is compared
        // where one device holds the whole context, else as the totals.
        if (!prints_state && (CheckedBytes(e.kv_bytes) + e.recurrent_bytes).value() != context) {
          c.note = "KV and recurrent state share a device's context in the log: see the total";
          return;
        }
        const uint64_t state = prints_state ? std::min(d.recurrent_bytes, context) : e.recurrent_bytes;
        c.memfit = c.printed.figure == LogFigure::kKvCache ? context - state : state;
        c.basis = FigureBasis::kExact;
        break;
      }
      c.memfit = context;
      c.basis = FigureBasis::kExact;
      break;
    case LogFigure::kContext:  // the breakdown's: KV and state, no output buffer
      c.memfit = context;
      c.basis = FigureBasis::kExact;
      break;
    case LogFigure::kOutput:
      c.memfit = startup_output(e, output, c);
      c.basis = FigureBasis::kExact;
      break;
    case LogFigure::kCompute:
      c.memfit = d.compute_bytes;
      c.basis = e.compute_replayed ? FigureBasis::kExact : FigureBasis::kModelled;
      break;
    default:
      break;
  }
}

// The model buffers of a run priced from a config: as the GGUF
// llama-quantize writes for the run's file type; none without one.
void price_config_model(const RuntimeLog& log, const LogCheckOptions& options, const Model& model,
                        FigureCheck& c) {
  std::string why;
  const std::string type = config_file_type(log, options, why);
  if (!type.empty() && model.weights.source != WeightsSource::kGgufHeader) {
    why = fmt::format("memfit builds no {} GGUF for this model (see the notes)", type);
  }
  if (!why.empty()) {
    c.memfit.reset();
    c.basis.reset();
    c.note = why;
    return;
  }
  c.basis = FigureBasis::kModelled;
  c.input_gap = "tensor types";  // the file's own, which a config does not give
  c.note = fmt::format("the {} GGUF llama-quantize writes from the config (no importance matrix): "
                       "a file quantized otherwise (an imatrix, a community mix) differs", type);
}

// Under a row split each GPU prints its share of the split matrices
// ("CUDA3_Split") and its own buffer ("CUDA3"). A GPU's model figure made
// of the share alone, while another GPU prints both, is cut (an excerpt
// dropped the other line): not the device's model buffers.
bool split_share_only(const PrintedFigure& p, const std::vector<FigureCheck>& figures) {
  const auto is_share = [](const std::string& b) { return b.ends_with("_Split"); };
  if (p.figure != LogFigure::kModel || p.buffers.empty() ||
      !std::all_of(p.buffers.begin(), p.buffers.end(), is_share)) {
    return false;
  }
  return std::any_of(figures.begin(), figures.end(), [&](const FigureCheck& c) {
    const auto& b = c.printed.buffers;
    return c.printed.figure == LogFigure::kModel && c.printed.device != "CPU" &&
           std::any_of(b.begin(), b.end(), is_share) && !std::all_of(b.begin(), b.end(), is_share);
  });
}

// The cache's cells as the log printed them, when memfit's context holds
// more: memfit pads the context to kLlamaCppCellPad cells (the pinned
// release's rule, docs/llamacpp-rules.md); a release that padded less
// printed fewer. "" when they agree or the log prints no cells.
std::string cells_note(const RuntimeLog& log) {
  const std::optional<uint64_t> cells = count_setting(log, "kv_cells");
  if (!cells || *cells % kLlamaCppCellPad == 0) return "";
  return fmt::format("the log's cache holds {} cells, memfit's {} (the context padded to {} cells, "
                     "as the pinned release pads it): the release that printed it padded less",
                     *cells, round_up(*cells, kLlamaCppCellPad).saturated(), kLlamaCppCellPad);
}

// A partial offload whose release placed the blocks by another rule than
// the one memfit priced: the log's "offloading N repeating layers" against
// the blocks the estimate put on the GPUs for the same -ngl. llama.cpp
// since #18148 starts the GPUs at block n_layer + 1 - ngl and gives the
// output layer one of the ngl slots; builds before it, and every Ollama
// release's vendored llama.cpp, start at n_layer - ngl, ngl blocks and the
// output layer on the host (llama-model.cpp load_tensors, i_gpu_start;
// docs/engine-llamacpp.md, "Releases"). memfit prices the rule of the
// log's build (--llamacpp-version; Ollama's always the older one); "" when
// the counts agree or every block is offloaded.
std::string offload_note(const RuntimeLog& log, uint64_t blocks, const LlamaCppPlacement& placement) {
  const std::optional<uint64_t> ngl = count_setting(log, "n_gpu_layers");
  const std::optional<uint64_t> printed = count_setting(log, "repeating_layers_offloaded");
  // A full offload places every block and the output layer under either
  // rule (the newer rule then prints one block fewer than it offloads:
  // n_repeating = min(ngl, n_layer) - 1).
  if (!ngl || !printed || *ngl == 0 || blocks == 0 || *ngl > blocks) return "";
  uint64_t priced = 0;
  bool output_on_gpu = false;
  for (const LlamaCppDeviceUsage& d : placement.devices) {
    if (d.device == "cpu") continue;
    priced += d.blocks;
    output_on_gpu = output_on_gpu || d.output_layer;
  }
  if (*printed == priced) return "";
  const std::string memfit_rule =
      output_on_gpu ? fmt::format("memfit offloads {} and the output layer (n_layer + 1 - n_gpu_layers)", priced)
                    : fmt::format("memfit offloads {} (n_layer - n_gpu_layers)", priced);
  if (log.runtime == "ollama") {
    return fmt::format("Ollama's runner put {} blocks on the GPUs for {} layers (its own layer list); {}",
                       *printed, *ngl, memfit_rule);
  }
  return fmt::format("the log's release offloaded {} blocks for {} GPU layers; {}", *printed, *ngl,
                     memfit_rule);
}

// A Metal_Mapped model buffer: with mmap, llama.cpp hands Metal the file's
// range from the device's first tensor to its last (llama_model_loader's
// get_mapping_range, ggml_backend_dev_buffer_from_host_ptr), so it also
// spans the host's tensors that lie between them in the file (a quantized
// file's order is the tensor list's: outside the blocks by name, which puts
// token_embd after output, then block by block). The range's tensor bytes,
// and how many of them are the host's (0: the device's own tensors alone);
// nullopt without a list.
struct MappedRange {
  uint64_t bytes = 0;
  uint64_t others = 0;  // of tensors placed on another device
};

// The first and last index, in the tensor list, of a tensor `device` loads
// (get_mapping_range's ends, in file order); nullopt when it loads none.
std::optional<std::pair<size_t, size_t>> loaded_span(const std::vector<LlamaCppTensorPlace>& places,
                                                     uint32_t device) {
  size_t first = places.size();
  size_t last = 0;
  for (size_t i = 0; i < places.size(); ++i) {
    if (!places[i].loaded || places[i].device != device) continue;
    first = std::min(first, i);
    last = i;
  }
  if (first == places.size()) return std::nullopt;
  return std::pair{first, last};
}

std::optional<MappedRange> mapped_range(const Model& model, const LlamaCppPlacement& placement,
                                        uint32_t device) {
  const std::vector<LlamaCppTensorPlace>& places = placement.tensors;
  if (places.size() != model.tensors.size() || places.empty()) return std::nullopt;
  const std::optional<std::pair<size_t, size_t>> span = loaded_span(places, device);
  if (!span) return std::nullopt;
  const auto [first, last] = *span;
  CheckedBytes bytes = 0;
  CheckedBytes others = 0;
  for (size_t i = first; i <= last; ++i) {
    bytes += model.tensors[i].data_bytes;
    if (places[i].device != device) others += model.tensors[i].data_bytes;
  }
  if (!bytes.value() || !others.value()) return std::nullopt;
  return MappedRange{*bytes.value(), *others.value()};
}

// A file written before GGUF V3 (llama.cpp #3552, 2023-10; the loader
// prints "(version GGUF V2)"): by the converter, in the checkpoint's order,
// or by a llama-quantize that kept its input's order, as every release did
// until #9935 (2024-11: its weights map, sorted by weight_name_comparer,
// became the order llama-quantize writes).
bool written_before_gguf_v3(const RuntimeLog& log) {
  const std::optional<uint64_t> version = count_setting(log, "gguf_version");
  return version && *version < 3;
}

// Whether the model's tensor list is in its file's order: a GGUF's own
// header, or a list rebuilt from a llama.cpp log's dump of a file only
// llama-quantize writes (a type the converter does not write: it writes
// F32, F16, BF16 and Q8_0, in the checkpoint's order) from #9935 on, which
// a GGUF V1/V2 file is not. Ollama's library files are written by Ollama's
// own tools, in their own order.
bool in_file_order(const RuntimeLog& log, const Model& model) {
  if (model.gguf != nullptr) return true;
  if (log.runtime == "ollama" || written_before_gguf_v3(log)) return false;
  return std::any_of(model.tensors.begin(), model.tensors.end(), [](const SafetensorsTensor& t) {
    return t.dtype != "f32" && t.dtype != "f16" && t.dtype != "bf16" && t.dtype != "q8_0";
  });
}

// The first build whose Metal buffers made from the mapped file are named
// "Metal_Mapped": #10189 (b4037, 2024-11-06, "metal : fix from ptr buffer
// name") finished what #10026 began for the CPU's. Before it the buffer
// ggml_backend_metal_buffer_from_ptr makes (llm_load_tensors' Metal buffer
// under mmap: the same range and page offset as below) was named "Metal",
// as the Metal buffers llama.cpp allocates are.
constexpr uint64_t kMetalMappedNameBuild = 4037;

// A Metal model buffer named as made from the mapped file: "Metal_Mapped",
// or "MTL0_Mapped" in the builds that index Metal's devices (ggml-metal's
// buffer type names the device). The builds before kMetalMappedNameBuild
// name it "Metal" (unsuffixed_metal_mapped).
bool is_named_metal_mapped(const std::string& buffer) {
  return buffer == "Metal_Mapped" || (buffer.starts_with("MTL") && buffer.ends_with("_Mapped"));
}

// Whether this run's "Metal" model buffer is the mapped file range: a
// build the log dates before kMetalMappedNameBuild, loaded with mmap (the
// default; --no-mmap or "(mmap = false)" turn it off).
bool unsuffixed_metal_mapped(const RuntimeLog& log, const LlamaCppEstimate& e) {
  return e.settings.build && *e.settings.build < kMetalMappedNameBuild && log.setting("no_mmap") == nullptr;
}

// A Metal model row whose file's tensor order is not read (Ollama's own
// files): the mapped range and its page rounding are not priced, memfit's
// figure is the device's own tensors; said where it is off the print.
void note_unordered_metal_range(const RuntimeLog& log, const Model& model, FigureCheck& c) {
  const std::string& device = c.printed.device;
  const bool metal = device == "Metal" || device.starts_with("MTL");
  if (c.printed.figure != LogFigure::kModel || !metal || !c.memfit || !c.note.empty() ||
      model.tensors.empty() || in_file_order(log, model) || within_print_band(*c.memfit, c.printed)) {
    return;
  }
  c.input_gap = "data offset";  // where the GGUF's tensor data begins: its header's length
  c.note = "Metal maps its tensors' file range widened to whole pages from where the file's data "
           "begins (not in the log), and this file's tensor order is not read: memfit's is the "
           "device's own tensors";
}

// The page ggml-metal maps a file range from: the buffer starts at the
// page below the range's first byte and its size is the range plus that
// offset (ggml-metal.m, ggml_backend_metal_device_buffer_from_ptr: "page-
// align the data ptr", size += data % size_page; the printed size is that
// `size`, not the page-rounded length it maps), the page sysconf's 16 KiB
// on Apple silicon. GGUF places tensor data at 32-B multiples of the file,
// so the offset is one of 0, 32, ..., 16,352 B per mapped buffer (one per
// file of a split model): where in that page the range starts depends on
// the header's length, the tokenizer's strings among it, which a log's
// metadata dump elides ("[...]").
constexpr uint64_t kMetalPageBytes = 16384;

// The Metal_Mapped row priced as that range (modelled: the range is
// widened to Metal's pages from where the file's data begins, which the
// log does not print).
void price_metal_mapped(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                        const LlamaCppDeviceUsage& d, FigureCheck& c) {
  // One scan: the buffers named as mapped ("Metal_Mapped", "MTL0_Mapped")
  // and those named "Metal", mapped in a build before kMetalMappedNameBuild
  // under mmap.
  uint64_t suffixed = 0;
  uint64_t unsuffixed = 0;
  for (const std::string& b : c.printed.buffers) {
    if (is_named_metal_mapped(b)) ++suffixed;
    if (b == "Metal") ++unsuffixed;
  }
  if (!unsuffixed_metal_mapped(log, e)) unsuffixed = 0;
  const uint64_t mapped = suffixed + unsuffixed;
  if (c.printed.figure != LogFigure::kModel || !in_file_order(log, model) || mapped == 0) return;
  const auto device = static_cast<uint32_t>(&d - e.placement.devices.data());
  const std::optional<MappedRange> range = mapped_range(model, e.placement, device);
  if (!range) return;
  const uint64_t page_slack = mapped * (kMetalPageBytes - kGgufDefaultAlignmentBytes);
  const uint64_t printed = c.printed.value;
  const uint64_t band = c.printed.band;
  const bool page_offset = printed + band >= range->bytes && printed <= range->bytes + page_slack + band;
  if (range->others == 0) {
    // The range is this device's own tensors (memfit's figure, where no
    // copy of its own lies outside the file): the page's offset is the
    // same, said where the print lies past memfit's within it.
    if (!page_offset || c.memfit != range->bytes || within_print_band(range->bytes, c.printed)) return;
    c.basis = FigureBasis::kModelled;
    c.note = fmt::format("Metal maps the file's range from this device's first tensor to its last, its "
                         "own tensors alone; the print adds the offset of the range's start in its page "
                         "(ggml-metal maps from the page below: 0 to {} B over {} buffer(s)), which the "
                         "header's length decides and the dump does not give",
                         page_slack, mapped);
    return;
  }
  if (suffixed == 0) {
    // A build before kMetalMappedNameBuild (2024-11-06) ran a file
    // quantized before llama-quantize's order (#9935, late 2024) or about
    // then: its order is not dated, so the figure stays the device's own
    // tensors and the note gives the range in llama-quantize's order.
    c.basis = FigureBasis::kModelled;
    c.note = fmt::format("Metal maps the file's range from this device's first tensor to its last (a "
                         "build before b{} names the mapped buffer Metal): its own tensors alone in the "
                         "converter's order (token_embd first), {} bytes more of the host's tensors between "
                         "them in llama-quantize's (since #9935); a file of that time may be in either and "
                         "the dump does not say which; the print adds the offset of the range's start in "
                         "its page (0 to {} B over {} buffer(s)), which the header's length decides",
                         kMetalMappedNameBuild, range->others, page_slack, mapped);
    return;
  }
  c.memfit = range->bytes;
  c.basis = FigureBasis::kModelled;
  c.note = fmt::format("Metal maps the file's range from this device's first tensor to its last, "
                       "which holds {} bytes of the host's tensors between them",
                       range->others);
  if (page_offset) {
    c.note += fmt::format("; the print adds the offset of the range's start in its page (ggml-metal maps "
                          "from the page below: 0 to {} B over {} buffer(s)), which the header's length "
                          "decides and the dump does not give",
                          page_slack, mapped);
    return;
  }
  c.note += "; the page rounding is not priced";
  // The host's tensors lie inside the range in llama-quantize's order
  // since #9935 (token_embd after output, before block 0). A file quantized
  // before it keeps the converter's order, token_embd first and output
  // last, and this device's range is then its own tensors alone; the dump
  // does not date the file. Said where the list's types are the file's
  // (not shaped to its size).
  if (model.weights.verified) {
    c.note += fmt::format("; a file quantized before #9935 (2024-10) keeps the converter's order, token_embd "
                          "first and output last, where the range is this device's tensors alone, {} B; "
                          "the dump does not say which",
                          range->bytes - range->others);
  }
}

// Why a GPU's compute buffer differs from memfit's where the log's release
// or placement is one memfit's compute phases (the pinned release's, fully
// offloaded) do not price; "" when none applies. docs/llamacpp-rules.md,
// "Compute buffers on a GPU".
// Whether the placement leaves weights on the host that an offloaded
// product reads: a host block, the output layer on the host, or tensors
// moved there (-ot, --n-cpu-moe; the command's, where the estimate could
// not take them without a tensor list).
// Whether -ot or --n-cpu-moe moved weights to the host (the placement's
// rules, or the log's command where the estimate could not take them).
bool weights_moved_to_host(const RuntimeLog& log, const LlamaCppEstimate& e) {
  const LlamaCppPlacementSettings& s = e.settings.placement;
  if (!s.overrides.empty() || s.n_cpu_moe > 0) return true;
  if (const LogSetting* rules = log.setting("override_tensor")) {
    std::string upper = rules->value;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
    if (upper.find("=CPU") != std::string::npos) return true;
  }
  const LogSetting* moe = log.setting("n_cpu_moe");
  return moe != nullptr && moe->value != "0";
}

bool host_holds_weights(const RuntimeLog& log, const LlamaCppEstimate& e) {
  if (weights_moved_to_host(log, e)) return true;
  return std::any_of(e.placement.devices.begin(), e.placement.devices.end(), [](const LlamaCppDeviceUsage& u) {
    return u.device == "cpu" && (u.blocks > 0 || u.output_layer);
  });
}

// compute_note's first words for a GPU whose op-offload copies rest on host
// weights the log does not name (no model buffers printed).
constexpr std::string_view kNoModelBuffers = "the log prints no model buffers";

std::string compute_note(const RuntimeLog& log, const LlamaCppEstimate& e, const FigureCheck& c,
                         const ModelSpec& spec, bool op_offload, bool tensors_known) {
  const uint64_t blocks = spec.layers.size();
  if (c.printed.figure != LogFigure::kCompute || !c.memfit) return "";
  const bool host = c.printed.device == "CPU";
  // BERT (llm_build_bert): the encoder's phases (compute.cc: the host's
  // token and position rows; at the scores the residual, Q, K and V's
  // copy) price ggml-org/ci's bge-small runs to the print; Jina's BERT v2
  // (ALiBi, 2,048 tokens) prints one row more on Vulkan and two on CUDA.
  if (spec.model_type == "bert" && !within_print_band(*c.memfit, c.printed)) {
    return host ? "BERT's host buffer is priced as its token and position rows and the graph's inputs, "
                  "measured on bge-small"
                : "an encoder's attention phase (the residual, Q, K and V's copy beside the scores) is "
                  "measured on bge-small: Jina's BERT v2 prints one to two rows more, not traced";
  }
  // llama.cpp's context enables the scheduler's pipeline parallelism
  // (n_copies = GGML_SCHED_MAX_COPIES, 4) when the model's device list has
  // more than one entry, every layer is offloaded with the layer split and
  // KQV offloaded (src/llama-context.cpp, pipeline_parallel), and memfit
  // prices its copies (llamacpp/placement.cc, add_pipeline_copies). A run
  // can count more devices than its GPUs: Ollama 0.6.0 on one V100 loads
  // its CUDA library twice and lists the GPU twice ("using device CUDA0"
  // two times), so it piped where memfit's one GPU would not; check-log
  // gives the placement the log's word (apply_placement).
  if (const LogSetting* copies = log.setting("n_copies"); copies != nullptr && copies->value != "1") {
    if (e.placement.n_copies <= 1) {
      return fmt::format("pipeline parallelism (n_copies={}): the run counted more devices than the "
                         "GPUs it used (a GPU listed twice) and piped its inputs, which memfit's "
                         "placement of {} GPU does not: the copies are not priced",
                         copies->value, log_gpus(log).size());
    }
    if (!within_print_band(*c.memfit, c.printed)) {
      return fmt::format("pipeline parallelism (n_copies={}): memfit prices {} more copies of each "
                         "{}; the rest of the difference is not explained",
                         copies->value, e.placement.n_copies - 1,
                         host ? "graph input on the host" : "input this GPU's split reads");
    }
  }
  // The first offloaded block's GPU of a multi-GPU run in a build that
  // casts an F32 mask under flash attention: its split's copies of the
  // input rows and the F32 mask are allocated first and freed after block
  // 0; where the allocator puts the later blocks' FFN around the hole they
  // leave is not traced (ggml-org/llama.cpp#14075's CUDA0 prints 20 MiB
  // over its CUDA1 with the same blocks, #10152's 20 MiB).
  // At most those two copies' bytes: 4 x n_tok x (hidden + n_kv).
  const uint64_t n_tok = std::min(e.context.n_ctx, e.context.n_ubatch);
  const uint64_t hole =
      (CheckedBytes(4) * n_tok * (CheckedBytes(spec.geometry.hidden) + e.context.n_ctx_seq)).saturated();
  if (!host && log_gpus(log).size() > 1 && e.context.flash_attn && llamacpp::f32_mask_cast(e.settings) &&
      c.printed.value > *c.memfit && c.printed.value - *c.memfit <= hole &&
      !within_print_band(*c.memfit, c.printed)) {
    const auto first = std::find_if(e.placement.devices.begin(), e.placement.devices.end(),
                                    [](const LlamaCppDeviceUsage& u) { return u.blocks > 0; });
    const LlamaCppDeviceUsage* mine = device_for(log, e, c.printed.device);
    const bool host_blocks = std::any_of(e.placement.devices.begin(), e.placement.devices.end(),
                                         [](const LlamaCppDeviceUsage& u) { return u.device == "cpu" && u.blocks > 0; });
    if (first != e.placement.devices.end() && first->device != "cpu" && mine == &*first && !host_blocks) {
      return "the first block's GPU: its split's copies of the input rows and the F32 mask (a build "
             "before #23764 casts it here) sit at the bottom of its buffer until block 0 has read them; "
             "where the allocator lays the later blocks' FFN around the hole they leave is not traced";
    }
  }
  if (llamacpp::early_graph_phases(e.settings) && spec.moe.experts > 0 &&
      !within_print_band(*c.memfit, c.printed)) {
    return "a build before #6122: memfit prices its graph's attention and output phases, but its MoE "
           "layer (one selected expert at a time) with the pinned release's FFN phase (high)";
  }
  // Said where memfit is below the print by more than the row's compute
  // target (log_targets.h: 5 % on one GPU, 10 % under a split): a mean
  // pooling matrix's copy, read after the logits, is priced (compute.cc,
  // pooled_output_phase).
  const bool below_target = compute_below_target(log, *c.memfit, c.printed.value);
  if (!host && e.settings.embedding && below_target) {
    return "with --embedding every token is an output: memfit's GPU output phase is their logits "
           "and result_norm, above the copies of the graph inputs only where a mean pooling matrix "
           "read after them keeps them below; what else the printed buffer holds through it is not "
           "traced (docs/embedding-models.md)";
  }
  // No model buffer in the excerpt of a one-GPU run (where no split of the
  // layers explains it): which weights stayed on the host (-ot,
  // --n-cpu-moe) is not known, nor so what op offload copies of them into
  // this buffer for a batch of 32 rows or more.
  const bool model_printed = std::any_of(log.figures.begin(), log.figures.end(), [](const PrintedFigure& f) {
    return f.figure == LogFigure::kModel;
  });
  if (!host && op_offload && !model_printed && log_gpus(log).size() == 1 && c.printed.value > *c.memfit &&
      !within_print_band(*c.memfit, c.printed)) {
    return fmt::format("{}: the host weights (-ot, --n-cpu-moe) whose copies op offload puts in this "
                       "buffer are not known, and memfit prices none",
                       kNoModelBuffers);
  }
  // Metal without flash attention, where memfit's largest phase is the
  // attention's (the scores, n_kv x n_tok x heads f32, with the layer's
  // activations): on the two Metal logs that show it (Ollama 0.1.32's
  // Llama 2 7B, 0.12.6's Llama 3.1 8B) the print is 24 MiB (three f32
  // n_embd rows a token) below it; which activations Metal's graph frees
  // before the scores is not traced. Where every layer is on the GPU the
  // figure is the split's replay (device_split), which copies the host's
  // inputs as the CUDA logs show; whether Metal reads them in place is not
  // read from the log either.
  if (!host && !e.context.flash_attn && log.backend == "Metal" && *c.memfit > c.printed.value &&
      !within_print_band(*c.memfit, c.printed)) {
    return "without flash attention memfit's Metal figure (the attention phase, or every layer's split "
           "replayed with copies of the host's inputs) is not measured on Metal: which inputs it copies "
           "and which activations it frees before the scores is not traced";
  }
  // gpt-oss on Metal without flash attention: no builder replays its graph
  // (attention sinks, routed experts), so the phases price it. ggml-metal
  // before its 2025-09 rework sized every tensor as ggml_nbytes
  // (get_alloc_size NULL, "defaults to ggml_nbytes", in mybigday/llama.rn's
  // 2025-08-15 sync of ggml-metal.m): the buffer is the graph's tensors
  // alone, and where the print lies above the phases the rest is in that
  // graph's layout, which memfit does not build.
  if (!host && !e.context.flash_attn && log.backend == "Metal" && below_target &&
      (spec.model_type == "gpt_oss" || spec.model_type == "gpt-oss")) {
    return "gpt-oss's graph is not replayed: memfit's phases price its attention (the scores of every head "
           "over the cells, the masks, the activations) and its logits; ggml-metal of the builds before its "
           "2025-09 rework reserves the graph's tensors alone (no get_alloc_size), so the rest is in that "
           "graph's layout, which memfit does not build";
  }
  // Metal with flash attention: ggml-metal sizes flash attention's output
  // with its scratch (K/V padding, the mask's block map, each workgroup's
  // partial results, from #27390 F16 copies of K and V: ggml-metal.cpp's
  // ggml_backend_metal_buffer_type_get_alloc_size), which memfit prices by
  // the build's rule (llamacpp::MetalFaScratch): in the replayed split, or
  // with the attention phase (ComputePhases::metal_flash_attn). Where the
  // phases price the row and memfit is below the print by more than the
  // compute target (below_target), the figure is a larger phase's (the
  // logits and result_norm; a build before #23764's cast of the F32 mask in
  // block 0), placed by ggml-alloc above the layers' tensors, the scratch's
  // block among them: neverllama5's gpt-oss 20b prints 420.08 MiB where the
  // logits and result_norm take 398.38 (the 21.70 MiB between, not
  // traced). (A decoder whose split is replayed on the GPU has every node
  // placed: no row of the corpus is below target so.)
  if (!host && e.context.flash_attn && log.backend == "Metal" && below_target) {
    return "memfit prices ggml-metal's flash attention "
           "scratch (K/V padding, the mask's block map, each workgroup's partial results) with its "
           "attention phase, but its figure is a larger phase (the logits and result_norm, or block 0's "
           "mask cast), which the print exceeds by where the allocator places it among the layers' "
           "tensors, the scratch's among them: a layout the phases do not build (this model's graph "
           "is not replayed on the GPU)";
  }
  // Op offload copies each host weight an offloaded product reads into
  // this buffer (llamacpp/placement.cc, note_host_product and the output
  // matrix's copy): without the model's tensor list memfit knows none of
  // them, so the row's cause is outside its inputs.
  if (!host && op_offload && !tensors_known && host_holds_weights(log, e) && c.printed.value > *c.memfit &&
      !within_print_band(*c.memfit, c.printed)) {
    return "op offload copies the host's weights (its blocks', the output matrix, tensors -ot moved) into "
           "this buffer for the products it runs here, and this model's tensor list is not rebuilt: "
           "memfit prices none of those copies";
  }
  const std::optional<uint64_t> offloaded = count_setting(log, "repeating_layers_offloaded");
  const std::optional<uint64_t> ngl = count_setting(log, "n_gpu_layers");
  // No layer offloaded (-ngl 0): every block's matrix products run on the
  // GPU that takes op offload, with copies of their weights.
  if (!host && op_offload && ngl && *ngl == 0 && c.printed.value > *c.memfit &&
      !within_print_band(*c.memfit, c.printed)) {
    return "no layer is offloaded: llama.cpp's scheduler runs the host layers' matrix products of 32 "
           "rows or more on this GPU (op offload), copying their weights and K/V views into this "
           "buffer: memfit prices the largest copy with what is live beside it, not where the "
           "allocator places the copies and the logits around them";
  }
  // Every block and weight on one GPU (no -ot), flash attention, a build
  // that casts the F32 mask in the graph (before #18898): the cast and the
  // mask's copy are made in block 0 on this GPU (ComputePhases::mask_cast);
  // memfit's phase is the logits and result_norm, and where the allocator
  // leaves the logits after block 0's layout is not traced. Said where
  // memfit is below the print by more than the compute target.
  if (!host && offloaded && *offloaded >= blocks && log_gpus(log).size() == 1 && !host_holds_weights(log, e) &&
      e.context.flash_attn && llamacpp::f32_mask_cast(e.settings) && below_target) {
    return "every layer is offloaded: memfit's GPU phase, the logits and result_norm, is below the print "
           "by where the allocator left them after block 0 cast the F32 mask here (a build before "
           "#18898), not traced";
  }
  // A log that prints no build is priced by the pinned rules, whose mask
  // input is F16 under flash attention (#23764); a build before it casts
  // an F32 mask on the GPU (ComputePhases::mask_cast), which memfit prices
  // only where it knows the build. Said where memfit is below target.
  if (!host && log.version.empty() && e.context.flash_attn && !llamacpp::f32_mask_cast(e.settings) &&
      below_target) {
    return "the log prints no build, so the pinned rules price it (an F16 mask input): a build before "
           "#23764 casts an F32 mask on this GPU (its copy and the F16 cast live at once), which memfit "
           "prices only for a build it is given";
  }
  // Every block offloaded but weights moved to the host by -ot or
  // --n-cpu-moe (ik_llama.cpp#394's experts of blocks 27..60): op offload
  // copies each such weight into the first GPU's buffer for its product;
  // memfit prices the largest copy (note_host_product) from the tensor
  // list it has, whose types are its rebuild's, with what is live beside
  // it, not the layout the allocator gives the copies.
  const bool host_blocks = std::any_of(e.placement.devices.begin(), e.placement.devices.end(),
                                       [](const LlamaCppDeviceUsage& u) { return u.device == "cpu" && u.blocks > 0; });
  if (!host && op_offload && tensors_known && !host_blocks && weights_moved_to_host(log, e) &&
      c.printed.value > *c.memfit && !within_print_band(*c.memfit, c.printed) && below_target &&
      device_for(log, e, c.printed.device) == &e.placement.devices[0]) {
    return "op offload copies the weights -ot or --n-cpu-moe moved to the host into this buffer for the "
           "products it runs here: memfit prices the largest copy, at its rebuilt tensor list's types, "
           "with what is live beside it, not this file's types nor the allocator's layout around the "
           "copies";
  }
  if (!op_offload || !offloaded || *offloaded == 0 || *offloaded >= blocks) return "";
  // Every layer offloaded ("offloaded N/N"): builds from #18148 then print
  // one repeating layer fewer than they offload (rusteze's b7780: "27
  // repeating layers", "29/29", the KV buffer of all 28 on the GPU), which
  // is no host block and no op offload.
  const std::optional<uint64_t> offloadable = count_setting(log, "n_layers_offloadable");
  if (ngl && offloadable && *ngl >= *offloadable) {
    if (host || c.printed.value <= *c.memfit || within_print_band(*c.memfit, c.printed)) return "";
    if (e.context.flash_attn && llamacpp::f32_mask_cast(e.settings)) {
      return "every layer is offloaded (this build prints one repeating layer fewer): memfit's GPU phase, "
             "the logits and result_norm or the F32 masks' casts (a build before #23764), is below the "
             "print by where the allocator left them, not traced";
    }
    return "every layer is offloaded (this build prints one repeating layer fewer): memfit's GPU phase, "
           "the logits and result_norm, is below the print by where the allocator left them, not traced";
  }
  // Op offload itself is priced (llamacpp/placement.cc, place_compute): the
  // host keeps its inputs, the GPU its phases, the output matrix's copy and
  // a lower bound of the host blocks' weight and K/V copies; the layout
  // ggml-alloc gives the copies is not (docs/llamacpp-rules.md, "Compute
  // buffers", Modifiers).
  if (!host && c.printed.value > *c.memfit && !within_print_band(*c.memfit, c.printed)) {
    return "llama.cpp's scheduler runs the host layers' matrix products of 32 rows or more on this GPU "
           "(op offload), copying their weights and K/V views into this buffer: memfit prices the "
           "largest copy with what is live beside it, not where the allocator places the copies and "
           "the logits around them";
  }
  return "";
}

// Whether the host holds more than the input layer: blocks, the output
// layer, or a block's tensors an override (-ot, --n-cpu-moe) put there.
bool host_holds_blocks(const Model& model, const LlamaCppEstimate& e, const LlamaCppDeviceUsage& d) {
  if (d.blocks > 0 || d.output_layer) return true;
  const auto host = static_cast<uint32_t>(&d - e.placement.devices.data());
  const std::vector<LlamaCppTensorPlace>& places = e.placement.tensors;
  for (size_t i = 0; i < places.size() && i < model.tensors.size(); ++i) {
    if (places[i].device == host && model.tensors[i].name.starts_with("blk.")) return true;
  }
  return false;
}

// Whether the file's tensors begin and end with tensors the host holds
// when it holds block 0 and the output layer (a partial offload without
// the output layer on a GPU): the orders of every writer but llama-quantize
// from #9935 (whose order, outside the blocks by name and then block by
// block, keeps the host's tensors together at the file's start). The
// converter writes the checkpoint's shards in turn, each shard's tensors
// by name (convert_hf_to_gguf.py, get_tensors over safe_open's keys(),
// which huggingface/safetensors' Python binding sorts: bindings/python/
// src/lib.rs, keys.sort()); a checkpoint is saved in module order, so the embedding opens the
// first shard and the final norm closes the last: token_embd or output
// first, output_norm last); a GGUF V1/V2 file kept that order (above);
// Ollama's converter sorts by block with the tensors outside the blocks
// after blocks 1 on (ollama fs/ggml/gguf.go, WriteGGUF's SortStableFunc),
// so block 0 or a tensor outside the blocks opens the file and one
// outside the blocks closes it, and its library's earlier files are
// llama.cpp's converter's through a llama-quantize before #9935.
// Only llama.cpp's loader maps the file (its "loaded meta data" line
// prints the GGUF version): Ollama's own engine (ml/backend/ggml) loads
// the weights into buffers it allocates, the host's tensors alone. Under
// Ollama, a file that names an importance matrix (quantize.imatrix.*
// keys) or its quantizer (general.quantized_by) is not Ollama's: a
// community file pulled from elsewhere, which llama-quantize may have
// written in the loader's order.
bool host_ends_order(const RuntimeLog& log, const Model& model) {
  const bool loader_mapped = count_setting(log, "gguf_version").has_value();
  if (!loader_mapped || in_file_order(log, model)) return false;
  if (written_before_gguf_v3(log)) return true;
  const std::vector<GgufKeyValue>& keys = log.model.metadata;
  const bool community = std::any_of(keys.begin(), keys.end(), [](const GgufKeyValue& kv) {
    return kv.key.starts_with("quantize.imatrix.") || kv.key == "general.quantized_by";
  });
  return log.runtime == "ollama" && !community;
}

// Whether the host's model buffer is the mapped range llama-model.cpp
// load_tensors makes under mmap: "CPU_Mapped" since llama.cpp #10026 (the
// _Mapped suffix of ggml_backend_cpu_buffer_from_ptr's type, 2024-11;
// Ollama vendors it from v0.5.2, #7875), "CPU" before it.
bool host_mapped_buffer(const PrintedFigure& printed) {
  return std::any_of(printed.buffers.begin(), printed.buffers.end(),
                     [](const std::string& b) { return b == "CPU_Mapped" || b == "CPU"; });
}

// Whether one GPU or more holds blocks of the run.
bool gpus_hold_blocks(const LlamaCppEstimate& e) {
  return std::any_of(e.placement.devices.begin(), e.placement.devices.end(),
                     [](const LlamaCppDeviceUsage& g) { return g.device != "cpu" && g.blocks > 0; });
}

// The row is one mapped host buffer (host_mapped_buffer's names): not a
// split file's several ranges, nor a repack or AMX buffer beside it.
bool one_host_mapped_buffer(const PrintedFigure& printed) {
  return printed.buffers.size() == 1 && host_mapped_buffer(printed);
}

// The file's range from its first tensor to its last: every tensor of
// the list, each padded to GGUF's 32-byte alignment (general.alignment's
// default; the range leaves out the last tensor's padding, under 32
// bytes). nullopt without a list or on overflow.
std::optional<uint64_t> whole_file_range(const Model& model) {
  if (model.tensors.empty()) return std::nullopt;
  CheckedBytes range = 0;
  for (const SafetensorsTensor& t : model.tensors) range += round_up(t.data_bytes, kGgufDefaultAlignmentBytes);
  return range.value();
}

// The host's CPU_Mapped row where the file's first and last tensors are
// the host's (host_ends_order, the host holding block 0 and the output
// layer while the GPUs hold blocks): under mmap the buffer is the file's
// range from the host's first tensor to its last (get_mapping_range,
// ggml_backend_dev_buffer_from_host_ptr), i.e. every tensor of the file
// (whole_file_range; the printed file size without a list). Exact where
// the list is; true when priced.
bool price_whole_file_host_range(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                                 const LlamaCppDeviceUsage& d, FigureCheck& c) {
  if (c.printed.figure != LogFigure::kModel || d.device != "cpu" || !e.settings.placement.mmap ||
      !d.output_layer || d.blocks == 0 || !host_mapped_buffer(c.printed) || !host_ends_order(log, model)) {
    return false;
  }
  if (!gpus_hold_blocks(e)) return false;
  const std::optional<uint64_t> range = model.tensors.empty() ? model.weights.bytes : whole_file_range(model);
  if (!range) return false;
  c.memfit = *range;
  if (model.tensors.empty()) c.basis = FigureBasis::kModelled;
  const std::string why = log.runtime == "ollama" ? "an Ollama file: Ollama's writer or the converter's"
                                                  : "a GGUF V1/V2 file: the converter's, kept by llama-quantize";
  const std::string note = fmt::format(
      "the host maps the file's range from its first tensor to its last, across the GPUs' blocks: "
      "in this file's order ({} before #9935) the host's tensors open and close it, so the range is "
      "the whole file",
      why);
  prepend_note(c, note);
  return true;
}

// The host's CPU_Mapped row where its tensors are not contiguous in the
// file (memfit's list in llama-quantize's order since #9935: outside the
// blocks by name, then block by block, each block's by name): under mmap
// the buffer is the file's range from the host's first tensor to its
// last (llama-model.cpp load_tensors: get_mapping_range,
// ggml_backend_dev_buffer_from_host_ptr), so it spans the tensors of the
// GPUs' that lie between them. Where -ot or --n-cpu-moe (or a backend
// that does not run a type: CANN and gpt-oss's MXFP4 experts) keep every
// block's experts on the host while the GPUs hold the rest of the blocks,
// the range runs from token_embd to the last block's last expert tensor
// and holds every block's attention between. Each tensor before the last
// is padded to GGUF's 32-byte alignment (general.alignment's default).
// true when priced.
bool price_spread_host_range(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                             const LlamaCppDeviceUsage& d, FigureCheck& c) {
  const bool mapped_name = one_host_mapped_buffer(c.printed);
  if (c.printed.figure != LogFigure::kModel || d.device != "cpu" || !e.settings.placement.mmap ||
      !mapped_name || !in_file_order(log, model) || e.placement.tensors.size() != model.tensors.size()) {
    return false;
  }
  const auto host = static_cast<uint32_t>(&d - e.placement.devices.data());
  const std::vector<LlamaCppTensorPlace>& places = e.placement.tensors;
  const std::optional<std::pair<size_t, size_t>> span = loaded_span(places, host);
  if (!span) return false;
  const auto [first, last] = *span;
  CheckedBytes range = model.tensors[last].data_bytes;
  CheckedBytes others = 0;
  for (size_t i = first; i < last; ++i) {
    range += round_up(model.tensors[i].data_bytes, kGgufDefaultAlignmentBytes);
    if (places[i].device != host) others += model.tensors[i].data_bytes;
  }
  if (!range.value() || !others.value() || *others.value() == 0) return false;
  c.memfit = *range.value();
  const std::string note =
      fmt::format("the host maps the file's range from its first tensor to its last (get_mapping_range), "
                  "which in llama-quantize's order holds {} B of the GPUs' tensors between the host's",
                  *others.value());
  prepend_note(c, note);
  return true;
}

// A partial offload's CPU_Mapped row from a file whose tensor order is not
// read (Ollama's own files): under mmap the host's buffer is the file's
// range from its first tensor to its last (llama-model.cpp load_tensors,
// get_mapping_range), which spans the GPUs' blocks between them where the
// host holds blocks or the output layer too; memfit's figure is the host's
// tensors alone.
void note_unordered_host_range(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                               const LlamaCppDeviceUsage& d, FigureCheck& c) {
  const bool mapped_name = host_mapped_buffer(c.printed);
  if (c.printed.figure != LogFigure::kModel || d.device != "cpu" || in_file_order(log, model) ||
      !e.settings.placement.mmap || !host_holds_blocks(model, e, d) || !mapped_name) {
    return;
  }
  if (!gpus_hold_blocks(e)) return;
  c.basis = FigureBasis::kModelled;
  // The range lies between the host's tensors alone (llama-quantize's
  // order since #9935) and the whole file (an order the host's tensors
  // open and close): the note says both where the list gives them.
  std::string bounds;
  if (const std::optional<uint64_t> whole = whole_file_range(model); whole && c.memfit) {
    bounds = fmt::format(" ({} B); the whole file, {} B, is the most it spans", *c.memfit, *whole);
  }
  const std::string note = "the host maps the file's range from its first tensor to its last, across "
                           "the GPUs' blocks, and this file's tensor order is not read (a type the "
                           "converter writes, or llama-quantize's order before #9935): memfit's is "
                           "the host's tensors alone" + bounds;
  prepend_note(c, note);
}

// A CPU-only run's host row (CPU_Mapped + CPU_REPACK) from a dump no
// rebuilt list types: the repacked copies every typing of the converter's
// roles that holds the printed counts and size gives alike
// (repack_of_every_assignment), on top of the mapped file; modelled (no
// tensor is typed from the log). The typings must also keep as many loaded
// tensors off CPU_REPACK as the loader's "(and N others) cannot be used
// with preferred buffer type CPU_REPACK" says, the tensor it names at its
// printed type. true when priced, or when the typings that hold give
// different sizes (the note then says which range).
bool price_repack_from_counts(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                              FigureCheck& c) {
  if (!e.settings.placement.gpus.empty() || !c.memfit || e.repack == RepackCpu::kNone) return false;
  std::optional<RepackFallback> fallback;
  const LogSetting* count = log.setting("repack_fallback_count");
  const LogSetting* tensor = log.setting("repack_fallback_tensor");
  const LogSetting* type = log.setting("repack_fallback_type");
  if (count != nullptr && tensor != nullptr && type != nullptr) {
    if (std::optional<uint64_t> n = leading_count(count->value)) fallback = RepackFallback{*n, tensor->value, type->value};
  }
  std::set<uint64_t> candidates;
  const std::optional<uint64_t> repack =
      repack_of_every_assignment(model, log.model, llamacpp::repack_kernels(e.repack, e.settings),
                                 fallback ? &*fallback : nullptr, &candidates);
  if (!repack && candidates.size() > 1) {
    // What the log leaves open, said on the row (say_why_unlisted keeps
    // what follows the first "; ").
    c.note = fmt::format("{} (give -m): memfit's is the mapped weights; the typings of the converter's roles "
                         "that hold the dump's type counts and file size{} repack {} different sizes, {} to {} "
                         "bytes: the log does not say which",
                         kRepackNeedsTensors,
                         fallback ? fmt::format(" and the loader's {} tensors off CPU_REPACK ({}, {})", fallback->count,
                                                escape_untrusted(fallback->tensor), escape_untrusted(fallback->type))
                                  : "",
                         candidates.size(), *candidates.begin(), *candidates.rbegin());
    return true;
  }
  if (!repack) return false;
  const CheckedBytes sum = CheckedBytes(*c.memfit) + *repack;
  if (!sum.value()) return false;
  c.memfit = *sum.value();
  c.basis = FigureBasis::kModelled;
  c.note = fmt::format("{} from the dump's type counts: every typing of the converter's roles that holds "
                       "them and the file size repacks {} bytes ({}), on top of the mapped file",
                       kRepackFromCounts, *repack, to_string(e.repack));
  return true;
}

// A partial offload's CPU_Mapped row below the print from a list rebuilt
// from the dump: memfit orders it as llama-quantize writes since #9935
// (2024-10-31: llama_model_loader's weights_map sorts the tensors outside
// the blocks by name, then block by block), where the host's tensors
// (token_embd, output_norm, output, its blocks) are contiguous and its
// mapped range (llama-model.cpp load_tensors, get_mapping_range) is theirs
// alone. A file quantized before #9935 keeps the converter's order,
// token_embd first and output last, and the host's range then spans every
// tensor between them, the GPUs' blocks too; the dump does not say when
// the file was quantized. Said with that range's bytes (every loaded
// tensor's), not priced.
void note_presorted_host_range(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                               const LlamaCppDeviceUsage& d, FigureCheck& c) {
  const bool mapped_name = one_host_mapped_buffer(c.printed);
  if (c.printed.figure != LogFigure::kModel || d.device != "cpu" || model.gguf != nullptr || !c.memfit ||
      !c.note.empty() || !in_file_order(log, model) || !e.settings.placement.mmap || !mapped_name ||
      d.blocks == 0 || !d.output_layer || *c.memfit >= c.printed.value || within_print_band(*c.memfit, c.printed)) {
    return;
  }
  if (!gpus_hold_blocks(e) || e.placement.tensors.size() != model.tensors.size()) return;
  CheckedBytes range = 0;
  for (size_t i = 0; i < model.tensors.size(); ++i) {
    if (e.placement.tensors[i].loaded) range += model.tensors[i].data_bytes;
  }
  c.basis = FigureBasis::kModelled;
  c.note = fmt::format("the host maps the file's range from its first tensor to its last (get_mapping_range): "
                       "memfit's is the host's tensors alone, as in llama-quantize's order since #9935 "
                       "(2024-10); a file quantized before it keeps the converter's order, token_embd first "
                       "and output last, whose host range spans the GPUs' blocks, {} B in all; the dump "
                       "does not say which",
                       range.saturated());
}

// A model whose weights are shaped (model_with_shaped_weights: the
// converter's tensors, each scaled to its share of the printed file size)
// prices the output matrix's copy that op offload puts in the first GPU's
// compute buffer for the host's logits (placement.cc, output_matrix_bytes)
// at that share, not at its type's bytes: a file whose blocks hold heavier
// types than the rebuilt list's (Unsloth's dynamic quants) inflates it.
// Said on a GPU's compute row above its target where that logits phase is
// memfit's figure: 4 x reserved_output_rows x (vocab + hidden) B of logits
// and result_norm (compute.cc, offloaded_output_phase, a decoder without
// MLA) plus the copy, equal to it.
void note_shaped_output_copy(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                             FigureCheck& c) {
  if (c.printed.figure != LogFigure::kCompute || c.printed.device == "CPU" || !c.memfit || !c.note.empty() ||
      model.tensors.empty() || model.weights.verified || model.gguf != nullptr || c.printed.value == 0) {
    return;
  }
  const bool shaped = std::any_of(model.warnings.begin(), model.warnings.end(),
                                  [](const std::string& w) { return w.starts_with(kSpreadWarning); });
  const std::optional<FigureTarget> target = figure_target("llamacpp", LogFigure::kCompute, target_gpus(log));
  const bool above = static_cast<double>(*c.memfit) > static_cast<double>(c.printed.value) * target->high;
  const bool host_output = std::any_of(e.placement.devices.begin(), e.placement.devices.end(),
                                       [](const LlamaCppDeviceUsage& d) { return d.device == "cpu" && d.output_layer; });
  if (!shaped || !above || !host_output) return;
  const SafetensorsTensor* output = nullptr;
  for (const SafetensorsTensor& t : model.tensors) {
    if (t.name == "output.weight") output = &t;
  }
  if (output == nullptr || output->shape.size() != 2) return;
  const GgmlTypeTraits* type = nullptr;
  for (const GgmlTypeTraits& t : ggml_type_table()) {
    if (t.name == output->dtype) type = &t;
  }
  if (type == nullptr) return;
  const uint64_t elements = (CheckedBytes(output->shape[0]) * output->shape[1]).saturated();
  const uint64_t typed = (CheckedBytes(elements / type->block_elements) * type->block_bytes).saturated();
  const uint64_t rows = llamacpp::reserved_output_rows(e.context);
  const CheckedBytes logits =
      CheckedBytes(4) * rows * (CheckedBytes(model.spec.geometry.vocab) + model.spec.geometry.hidden);
  if ((logits + output->data_bytes).saturated() != *c.memfit || output->data_bytes <= typed) return;
  c.note = fmt::format("memfit's figure is the host's logits, {} B, with op offload's copy of the output matrix, "
                       "priced at its share of the printed size ({} B: the weights are shaped, the file's "
                       "types not rebuilt), where its {} bytes are {} B, and another of memfit's phases "
                       "would set the figure",
                       logits.saturated(), output->data_bytes, escape_untrusted(output->dtype), typed);
}

// This GPU's blocks under the split of the layers: the host's come first,
// then each GPU's in turn; [first, first + d.blocks).
uint64_t first_block_of(const LlamaCppEstimate& e, const LlamaCppDeviceUsage& d) {
  uint64_t first = 0;
  for (const LlamaCppDeviceUsage& u : e.placement.devices) {
    if (u.device == "cpu") first += u.blocks;
  }
  for (const LlamaCppDeviceUsage* g = e.placement.devices.data(); g != &d; ++g) first += g->blocks;
  return first;
}

// ik_llama.cpp (the reader's "fork" setting) stores each layer's K as a
// 2-D tensor, n_embd_head_k wide and n_head_kv x cells rows (its
// src/llama.cpp, llama_kv_cache_init, at ik_llama.cpp 0e001215, the
// build of ik_llama.cpp#377's log), where llama.cpp's is one row of
// n_embd_k_gqa x cells. On a CUDA or ROCm GPU ggml-cuda pads a quantized
// tensor whose rows are no multiple of 512 elements by one row's padding
// to it (placement.cc, cuda_row_padding_bytes): a 128-wide q8_0 K gets
// ggml_row_size(q8_0, 384) = 408 B, and a layer with no KV heads (a Deci
// no-attention layer) still has its empty K tensor, padded the same. The
// KV row is priced with that padding on every block of the GPU, each K
// at the buffer's 128-B alignment (modelled: the fork's own rule).
void price_ik_llama_k_padding(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                              const LlamaCppDeviceUsage& d, FigureCheck& c) {
  const LogSetting* fork = log.setting("fork");
  if (fork == nullptr || fork->value != "ik_llama.cpp" || c.printed.figure != LogFigure::kKvCache ||
      !c.memfit || !(d.device.starts_with("cuda") || d.device.starts_with("rocm"))) {
    return;
  }
  constexpr uint64_t kMatrixRowPadding = 512;
  constexpr uint64_t kGpuAlignment = 128;
  const GgmlTypeTraits& type = ggml_type_traits(e.settings.cache_type_k);
  const uint64_t head = model.spec.geometry.head_dim;
  if (type.block_elements <= 1 || head == 0 || head % type.block_elements != 0 || head % kMatrixRowPadding == 0) {
    return;
  }
  const uint64_t pad = (kMatrixRowPadding - head % kMatrixRowPadding) / type.block_elements * type.block_bytes;
  const uint64_t row = head / type.block_elements * type.block_bytes;
  // This GPU's layers, by the split of the layers (a layer with no tensor,
  // Deci's skipped ones, has its cache on its layer's device all the same:
  // buft_layer[i]).
  const uint64_t first = first_block_of(e, d);
  CheckedBytes extra = 0;
  uint64_t blocks = 0;
  for (uint64_t i = first; i < first + d.blocks && i < model.spec.layers.size(); ++i) {
    const LayerCache& layer = model.spec.layers[i];
    const uint64_t k_elems = layer.k_elems_per_token > 0 ? layer.k_elems_per_token : layer.elems_per_token / 2;
    const CheckedBytes k = CheckedBytes(row) * (k_elems / head) * e.context.n_ctx;
    const CheckedBytes plain = round_up(k, kGpuAlignment);
    extra += round_up(k + pad, kGpuAlignment) - plain;
    ++blocks;
  }
  if (blocks == 0 || !extra.value() || *extra.value() == 0) return;
  c.memfit = (CheckedBytes(*c.memfit) + extra).saturated();
  c.basis = FigureBasis::kModelled;
  c.note = fmt::format("ik_llama.cpp stores each layer's K as rows of n_embd_head_k ({}) elements, and "
                       "ggml-cuda pads such a quantized {} row to 512: {} B on each of this GPU's {} blocks' "
                       "K, an empty one too, priced",
                       head, escape_untrusted(type.name), pad, blocks);
}

// The widest FFN this GPU runs: the rows of the ffn_up matrices of its
// blocks that the placement left on it (Deci's widths differ by layer, as
// placement.cc's place_compute reads them; a matrix -ot moved elsewhere
// runs there); 0 where none is listed.
uint64_t widest_block_ffn(const Model& model, const LlamaCppEstimate& e, const LlamaCppDeviceUsage& d) {
  const std::vector<LlamaCppTensorPlace>& places = e.placement.tensors;
  const auto here = static_cast<uint32_t>(&d - e.placement.devices.data());
  const uint64_t first = first_block_of(e, d);
  uint64_t width = 0;
  for (size_t i = 0; i < model.tensors.size(); ++i) {
    const SafetensorsTensor& t = model.tensors[i];
    if (!t.name.starts_with("blk.") || !t.name.ends_with(".ffn_up.weight") || t.shape.size() != 2) continue;
    if (places.size() == model.tensors.size() && places[i].device != here) continue;
    uint64_t block = 0;
    const auto [end, ec] = std::from_chars(t.name.data() + 4, t.name.data() + t.name.size(), block);
    if (ec != std::errc() || block < first || block >= first + d.blocks) continue;
    width = std::max<uint64_t>(width, t.shape[0]);
  }
  return width;
}

// ik_llama.cpp's FFN on a GPU, a dense model: the fork's llm_build_ffn
// (src/llama.cpp, ik_llama.cpp #70 "Fused unary(x)*y", commit 439009621,
// its build 3449, 2024-10-02; still so at 0e001215, the build of
// ik_llama.cpp#377's log) multiplies the gate's SiLU by the up product
// with ggml_fused_mul_unary, whose result is a new tensor (ggml.c
// ggml_fused_mul_unary_impl: ggml_dup_tensor, and ggml-alloc's
// ggml_op_can_inplace has no GGML_OP_FUSED_MUL_UNARY), so gate, up and
// their product are live at once: the liveness of llama.cpp's fused
// ggml_swiglu_split (#14158), not of the in-place SiLU and product of the
// llama.cpp builds before it. A log the reader tells as ik_llama.cpp
// (its own context parameters, printed from its build 3551 on, after #70)
// has no llama.cpp build: a build it prints is the fork's own count, and
// one dated by its lines (#377's) predates #14158. Where the build priced
// runs SiLU and the product in place, this GPU's FFN phase is the fused
// build's (compute_phases under the pinned rules, whose FFN is fused; the
// other phases as priced) at the widest FFN it runs, where that phase is
// above memfit's figure (modelled: the fork's graph is not replayed).
// docs/llamacpp-rules.md, "Compute buffers on a GPU".
void price_ik_llama_ffn(const RuntimeLog& log, const Model& model, const LlamaCppEstimate& e,
                        const LlamaCppDeviceUsage& d, FigureCheck& c) {
  const LogSetting* fork = log.setting("fork");
  if (fork == nullptr || fork->value != "ik_llama.cpp" || c.printed.figure != LogFigure::kCompute ||
      d.device == "cpu" || d.blocks == 0 || !c.memfit || !c.note.empty() || model.spec.moe.experts > 0 ||
      !llamacpp::split_glu_in_place(e.settings)) {
    return;
  }
  const uint64_t width = widest_block_ffn(model, e, d);
  if (width == 0) return;
  LlamaCppSettings fused = e.settings;
  fused.build.reset();  // the pinned rules: the fused FFN, no early graph
  Result<llamacpp::ComputePhases> phases = llamacpp::compute_phases(model.spec, e.context, fused);
  if (!phases || phases->ffn_per_width == 0) return;
  const uint64_t ffn = (CheckedBytes(phases->ffn_fixed) + CheckedBytes(phases->ffn_per_width) * width).saturated();
  if (ffn <= *c.memfit) return;
  c.note = fmt::format("ik_llama.cpp's FFN keeps gate, up and their product (ggml_fused_mul_unary, not in place) "
                       "live, as llama.cpp's fused SwiGLU (#14158) does: priced with that FFN phase at this "
                       "GPU's widest FFN ({}), {} B, where the in-place SiLU and product of the build priced "
                       "give {} B",
                       width, ffn, *c.memfit);
  c.memfit = ffn;
  c.basis = FigureBasis::kModelled;
}

// What the log leaves out that the rows it misses depend on, said on
// those rows: how the layers were split over several GPUs (neither their
// free memory nor a tensor split printed: memfit splits evenly), how many
// layers were offloaded, how many sequences the output buffer holds, and
// an MLA model whose cache keeps full K rows (a GGUF converted before
// #12801 has no attn_k_b/attn_v_b, n_embd_head_k_mla is 0, and llama.cpp
// caches K and V of every head).
void add_unknown_run_notes(const RuntimeLog& log, const LlamaCppEstimate& e, const ModelSpec& spec,
                           std::vector<FigureCheck>& figures) {
  // Ollama's runner places its layers by Ollama's own plan (its pricer's).
  if (log.runtime != "llamacpp") return;
  const std::vector<const LogDevice*> gpus = log_gpus(log);
  const bool free_known = std::all_of(gpus.begin(), gpus.end(),
                                      [](const LogDevice* d) { return split_memory(*d).has_value(); });
  const bool split_unknown = gpus.size() > 1 && !free_known && log.setting("tensor_split") == nullptr;
  // Over several GPUs each one's share hangs on the layers offloaded.
  const bool layers_unknown = gpus.size() > 1 && !count_setting(log, "n_gpu_layers");
  const bool seqs_unknown = !count_setting(log, "n_seq_max") && !count_setting(log, "kv_seqs");
  // A run given a device list or a tensor split the log does not print:
  // fewer of its GPUs print a model buffer than it lists.
  std::set<std::string> holding;
  for (const FigureCheck& c : figures) {
    if (c.printed.figure == LogFigure::kModel && c.printed.device != "CPU" && c.printed.device != "total") {
      holding.insert(c.printed.device);
    }
  }
  const bool devices_unprinted = gpus.size() > 1 && !holding.empty() && holding.size() < gpus.size();
  uint64_t latent = 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kMlaLatent && !is_decompressed_mla(l)) latent = std::max(latent, l.elems_per_token);
  }
  std::optional<uint64_t> printed_k_row;
  const std::optional<uint64_t> k_bytes = count_setting(log, "kv_k_bytes");
  const std::optional<uint64_t> cells = count_setting(log, "kv_cells");
  const std::optional<uint64_t> layers = count_setting(log, "kv_layers");
  // The printed K is every stream's; kv_cells is one stream's.
  const uint64_t streams = count_setting(log, "kv_streams").value_or(1);
  if (latent > 0 && k_bytes && cells && layers) {
    const std::optional<uint64_t> rows = (CheckedBytes(*cells) * *layers * streams).value();
    if (rows && *rows > 0) printed_k_row = *k_bytes / *rows;
  }
  // An MLA cache that printed V bytes (K (f16): ..., V (f16): 976.00 MiB),
  // priced as a build whose latent cache has none (#19067 on: the log's
  // build unknown or a fork's); a build before it is priced with the V
  // (llamacpp::mla_caches_v).
  const bool latent_v_printed = latent > 0 && count_setting(log, "kv_v_bytes").value_or(0) > 0 &&
                                !llamacpp::mla_caches_v(e.settings);
  std::optional<uint64_t> latent_row;
  if (latent > 0) {
    const std::array<uint64_t, 1> row = {latent};
    if (Result<uint64_t> bytes = ggml_tensor_bytes(e.settings.cache_type_k, row)) latent_row = *bytes;
  }
  for (FigureCheck& c : figures) {
    if (!c.memfit || within_print_band(*c.memfit, c.printed) || c.printed.device == "total") continue;
    const LogFigure f = c.printed.figure;
    const bool gpu = c.printed.device != "CPU";
    const bool placed = f == LogFigure::kModel || f == LogFigure::kKvCache || f == LogFigure::kCompute;
    if (f == LogFigure::kKvCache && printed_k_row && latent_row && *printed_k_row > *latent_row) {
      append_note(c, fmt::format("the log's K cache keeps {} B a cell and layer, memfit's MLA latent {} B: "
                              "the GGUF has no attn_k_b/attn_v_b (converted before #12801), so "
                              "llama.cpp caches every head's K and V",
                              *printed_k_row, *latent_row));
      c.basis = FigureBasis::kModelled;  // the given config's latent, not the file's cache
    }
    // A K row wider than the latent is the legacy file's K and V (the note
    // above), not a latent's V.
    const bool legacy_kv = printed_k_row && latent_row && *printed_k_row > *latent_row;
    if (f == LogFigure::kKvCache && latent_v_printed && !legacy_kv && *c.memfit < c.printed.value) {
      append_note(c, "the log's MLA cache prints a V tensor beside the latent K (kv_lora_rank wide), as "
                     "the builds before llama.cpp #19067 (V-less cache) kept; memfit prices this log as a "
                     "later build, K alone");
      c.basis = FigureBasis::kModelled;  // the pinned build's rule, not this build's
    }
    if (placed && gpu && split_unknown) {
      c.input_gap = "tensor split";
      append_note(c, "the log names neither the GPUs' free memory nor a tensor split: memfit splits the "
                  "layers evenly, the run by its own split");
    }
    if (placed && gpu && devices_unprinted) {
      c.input_gap = "device list";
      append_note(c, fmt::format("the log lists {} GPUs and {} of them hold its model buffers: the run "
                                 "was given a device list or tensor split it does not print; memfit "
                                 "spreads the layers over all {}",
                                 gpus.size(), holding.size(), gpus.size()));
    }
    if (placed && layers_unknown) {
      c.input_gap = "n_gpu_layers";
      append_note(c, "n_gpu_layers is not in the log: memfit offloads every layer");
    }
    if (f == LogFigure::kOutput && seqs_unknown && *c.memfit > 0) {
      c.input_gap = "n_seq_max";
      const double printed_rows =
          static_cast<double>(c.printed.value) / static_cast<double>(*c.memfit) * static_cast<double>(e.context.n_seq);
      append_note(c, e.context.n_seq == 1
                         ? fmt::format("n_seq_max is not in the log: memfit's buffer is one sequence's row, the "
                                       "printed one {:.2f} rows",
                                       printed_rows)
                         : fmt::format("n_seq_max is not in the log: memfit's buffer is {} sequences' rows, the "
                                       "printed one {:.2f} rows",
                                       e.context.n_seq, printed_rows));
    }
  }
}

void LlamaCppPricer::compare(const RuntimeLog& log, const LogCheckOptions& options,
                             const EstimateRun& run, std::vector<FigureCheck>& figures) const {
  const LlamaCppEstimate& e = *run.llamacpp;
  // Weights per device are exact from a verified tensor list (a GGUF's
  // header, or a dump's list checked against its counts and size) on the
  // host and on ggml-cuda's devices, whose padding memfit prices (CUDA,
  // ROCm); other GPU backends' buffer alignments are not read.
  const auto cuda_like = [](const LlamaCppGpu& g) {
    return g.device.starts_with("cuda") || g.device.starts_with("rocm");
  };
  const std::vector<LlamaCppGpu>& gpus = e.settings.placement.gpus;
  const bool exact_weights = !run.model->tensors.empty() && run.model->weights.verified &&
                             std::all_of(gpus.begin(), gpus.end(), cuda_like);
  const uint64_t input_buffer = llamacpp::input_buffer_bytes(run.model->spec, e.context, e.settings);
  const bool prints_state = std::any_of(figures.begin(), figures.end(), [](const FigureCheck& f) {
    return f.printed.figure == LogFigure::kRecurrent && f.printed.device != "total";
  });
  for (FigureCheck& c : figures) {
    if (c.printed.device == "total") {
      if (c.printed.figure == LogFigure::kKvCache) c.memfit = e.kv_bytes;
      if (c.printed.figure == LogFigure::kRecurrent) c.memfit = e.recurrent_bytes;
      if (c.memfit) c.basis = FigureBasis::kExact;
      continue;
    }
    const LlamaCppDeviceUsage* d = device_for(log, e, c.printed.device);
    if (d == nullptr) {
      c.note = fmt::format("memfit's placement has no device {}", escape_untrusted(c.printed.device));
      continue;
    }
    if (split_share_only(c.printed, figures)) {
      c.note = "only this GPU's share of the row-split matrices is in the log (its own model "
               "buffer's line is not): not compared";
      continue;
    }
    price_device_figure(e, *d, c.printed.device == "CPU", exact_weights, input_buffer, prints_state, c);
    if (c.printed.device != "CPU") price_metal_mapped(log, *run.model, e, *d, c);
    note_unordered_metal_range(log, *run.model, c);
    if (!price_whole_file_host_range(log, *run.model, e, *d, c) &&
        !price_spread_host_range(log, *run.model, e, *d, c)) {
      note_unordered_host_range(log, *run.model, e, *d, c);
    }
    note_presorted_host_range(log, *run.model, e, *d, c);
    note_shaped_output_copy(log, *run.model, e, c);
    price_ik_llama_k_padding(log, *run.model, e, *d, c);
    price_ik_llama_ffn(log, *run.model, e, *d, c);
    if (c.printed.figure == LogFigure::kKvCache && c.memfit && c.note.empty()) c.note = cells_note(log);
    if (c.printed.figure == LogFigure::kModel && priced_from_config(options)) {
      price_config_model(log, options, *run.model, c);
    }
    const auto& buffers = c.printed.buffers;
    if (c.printed.figure == LogFigure::kModel && run.model->tensors.empty() &&
        std::find(buffers.begin(), buffers.end(), "CPU_REPACK") != buffers.end() &&
        !price_repack_from_counts(log, *run.model, e, c)) {
      c.note = std::string(kRepackNeedsTensors) + " (give -m): memfit's is the mapped weights";
    }
  }
  // A release before #6017 (b2413) kept the graph's inputs in a buffer of
  // their own; memfit prices it so for such a build, and says so where the
  // build priced is a later one.
  if (log.setting("input_buffer") != nullptr && input_buffer == 0) {
    for (FigureCheck& c : figures) {
      if (c.printed.figure != LogFigure::kCompute || c.printed.device != "CPU" || !c.memfit) continue;
      c.note = "this release kept the graph's inputs in a buffer of their own (input buffer size), as "
               "builds before b2413 (#6017) did, but the build priced is a later one, which counts "
               "them in the host's compute buffer: give --llamacpp-version";
    }
  }
  // Op offload as placement prices it (llamacpp/placement.cc's
  // place_compute): the build has it and a GPU takes the host's ops.
  const bool op_offload = llamacpp::op_offload(e.settings) &&
                          std::any_of(gpus.begin(), gpus.end(), llamacpp::takes_op_offload);
  for (FigureCheck& c : figures) {
    if (!c.note.empty()) continue;
    c.note = compute_note(log, e, c, run.model->spec, op_offload, !run.model->tensors.empty());
    if (c.note.starts_with(kNoModelBuffers)) c.input_gap = "host tensors";
  }
  add_unknown_run_notes(log, e, run.model->spec, figures);
  if (uncounted_build(log, options)) {
    for (FigureCheck& c : figures) {
      if (c.memfit && c.printed.device != "total") {
        append_note(c, fmt::format("build {} is {}: priced as {}", escape_untrusted(log.version),
                                   kUncountedBuildNote, priced_as(log)));
      }
    }
  }
  if (e.kv_bytes > 0 && e.recurrent_bytes > 0) add_context_totals(e, figures);
  const std::string offload = offload_note(log, run.model->spec.layers.size(), e.placement);
  for (FigureCheck& c : figures) {
    const LogFigure f = c.printed.figure;
    if (offload.empty() || !c.memfit || (f != LogFigure::kModel && f != LogFigure::kKvCache)) continue;
    c.note = c.note.empty() ? offload : offload + "; " + c.note;
    c.basis = FigureBasis::kModelled;  // memfit's blocks are not the log's on this device
  }
}

}  // namespace

std::optional<uint64_t> build_bound(const RuntimeLog& log) {
  const LogSetting* function = log.setting("compute_function");
  if (function == nullptr) return std::nullopt;  // Ollama's runner prints llama.cpp's lines too
  // "input buffer size": the graph inputs' own buffer (#5100), which #6017
  // (b2413) folded into the compute buffers; b2412 is the last build with it
  // (releases.cc, kGraphInputsBuild). ggml-org/llama.cpp#5619's server
  // (February 2024) prints it and a build number of its own, 1037.
  if (const LogSetting* input = log.setting("input_buffer"); input != nullptr && input->value == "separate") {
    return 2412;
  }
  // ggml-org/ci's b4730 prints llama_init_from_model's lines, b4897
  // llama_context's (the corpus's llamacpp-ci4730-*, llamacpp-ci4897-*).
  if (function->value == "llama_new_context_with_model" || function->value == "llama_init_from_model") {
    return 4896;
  }
  // b6050 prints llama_context's (llamacpp-yeti), b7772 sched_reserve's
  // (llamacpp-ghghang2).
  if (function->value == "llama_context") return 7771;
  return std::nullopt;
}

// Releases that printed "llama_kv_cache_init: kv_size = N" kept one cache
// of n_ctx cells shared by every sequence (a stream per sequence came with
// #14363, long after llama_kv_cache_init was gone): the line for n_ctx
// cells and more than one sequence is a run with one stream, whatever the
// log's build (Ollama's runner prints none).
bool one_cache_for_all(const RuntimeLog& log) {
  const std::optional<uint64_t> cells = count_setting(log, "kv_size");
  const std::optional<uint64_t> n_ctx = count_setting(log, "n_ctx");
  std::optional<uint64_t> sequences = count_setting(log, "n_seq_max");
  if (!sequences) sequences = count_setting(log, "kv_seqs");
  std::vector<std::string> unused;
  if (!sequences) sequences = sequences_from_context(log, n_ctx, unused);
  // The compute buffers printed by llama_new_context_with_model or
  // llama_init_from_model: a build before llama_context's constructor
  // (build_bound), long before #14363 (b5913) gave each sequence a stream.
  const std::optional<uint64_t> bound = build_bound(log);
  const bool old_context = bound && *bound < kLlamaCppStreamsBuild;
  return n_ctx && ((cells && *cells == *n_ctx) || old_context) && sequences && *sequences > 1 &&
         log.setting("kv_unified") == nullptr;
}

const LogPricer& llamacpp_log_pricer() {
  static const LlamaCppPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
