// Which of a log's model loads is read (docs/check-log.md, "llama.cpp"):
// check-log prices one run with its own settings, so the figures of two
// loads (a reload at a larger context, a draft model, Ollama's
// vocabulary-only load before the real one) are never added.
//
// A load prints its lines in a fixed order (src/llama.cpp,
// llama_model_load_from_file_impl; src/llama-model-loader.cpp;
// src/llama-model.cpp, load_tensors; src/llama-context.cpp), each line
// starting with the printing function's name:
//   1 devices   llama_model_load_from_file_impl: using device CUDA0 ...
//   2 metadata  llama_model_loader: ..., print_info: ... (llm_load_print_meta:)
//   3 tensors   load_tensors: ... model buffer size (llm_load_tensors:)
//   4 context   llama_context:, llama_kv_cache..., sched_reserve: ...
// A line of an earlier stage than a load that built its context (after its
// tensors) starts the next load, as does a devices or metadata line after
// a load's tensors (a failed load, then a retry) and a second "loaded meta
// data" header (a load whose excerpt kept no device line); device lines
// just before the line that starts a load are that load's. Lines of no
// stage (a server's, a runner's, ggml's device list) are read whichever
// load they sit beside.
#include <fmt/format.h>

#include <algorithm>

#include "logs/llamacpp_lines.h"

namespace memfit::logs {
namespace {

// The stage of a load `text` belongs to; 0 for a line of none. A buffer
// line is its figure's stage, whichever function printed it ("init:",
// "llama_kv_cache_init:", "sched_reserve:" print the context's).
int load_stage(std::string_view text) {
  if (contains(text, " buffer size") && !contains(text, "alloc_compute_meta:")) {  // not mtmd's encoder
    if (contains(text, " model buffer size") || contains(text, "llm_load_tensors:")) return 3;
    for (std::string_view kind :
         {" KV buffer size", " RS buffer size", " output buffer size", " compute buffer size"}) {
      if (contains(text, kind)) return 4;
    }
  }
  if (contains(text, "llama_model_load_from_file_impl:")) return 1;
  for (std::string_view marker : {"llama_model_loader:", "print_info:", "llm_load_print_meta:"}) {
    if (contains(text, marker)) return 2;
  }
  for (std::string_view marker : {"load_tensors:", "llm_load_tensors:"}) {
    if (contains(text, marker)) return 3;
  }
  for (std::string_view marker : {"llama_context:", "llama_new_context_with_model:", "llama_init_from_model:",
                                  "llama_kv_cache", "llama_memory_recurrent", "sched_reserve:"}) {
    if (contains(text, marker)) return 4;
  }
  return 0;
}

// Whether a line of no stage is still its load's: the memory breakdown a
// tool prints when its context is freed.
bool bound_to_its_load(std::string_view text) {
  return contains(text, "memory_breakdown") || contains(text, "memory breakdown");
}

struct Load {
  size_t begin = 0;        // index of its first line in the log
  size_t first_staged = 0;  // index of its first line of a stage
  uint64_t line = 0;        // the number of that line, for the notes
  int stage = 0;            // the furthest stage reached
  bool header = false;      // a "loaded meta data" line was read
  bool tensors = false;     // stage 3 reached
  bool context = false;     // stage 4 reached after stage 3
};

std::vector<Load> split_loads(std::span<const LogLine> lines) {
  std::vector<Load> loads(1);
  // The first of the device lines ("using device ...", stage 1) printed
  // after the load's last line of a later stage: the next load's, when
  // the next line of a stage starts one.
  // lines.size() while there is none (an index, not a std::optional:
  // GCC 12 warned of the optional's value as maybe uninitialized).
  const size_t no_devices = lines.size();
  size_t devices_after = no_devices;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int stage = load_stage(lines[i].text);
    if (stage == 0) continue;
    const bool header = contains(lines[i].text, "loaded meta data with ");
    Load* load = &loads.back();
    // A load of its own: back to an earlier stage once this load built its
    // context after its tensors, or back to its devices or metadata once it
    // loaded tensors (a failed load, then a retry); a second "loaded meta
    // data" header. (A context line before any tensor line is an excerpt's
    // tail of an earlier run, not yet a load.)
    const bool back = stage < load->stage && (load->context || (load->tensors && stage <= 2));
    if (back || (header && load->header)) {
      const size_t begin = devices_after != no_devices && stage >= 2 ? devices_after : i;
      loads.push_back(Load{.begin = begin});
      load = &loads.back();
      if (begin != i) {
        load->first_staged = begin;
        load->line = lines[begin].number;
        load->stage = 1;
      }
    }
    if (stage == 1) {
      if (devices_after == no_devices && load->stage >= 2) devices_after = i;
    } else {
      devices_after = no_devices;
    }
    if (load->stage == 0) {
      load->first_staged = i;
      load->line = lines[i].number;
    }
    load->stage = std::max(load->stage, stage);
    load->header = load->header || header;
    load->tensors = load->tensors || stage == 3;
    load->context = load->context || (stage == 4 && load->tensors);
  }
  return loads;
}

// The load read: the first that built its context after loading its
// tensors (the run that served; a later one is a reload or a draft, and
// an earlier one failed before its context); else the first that loaded
// tensors; else the last.
size_t chosen_load(const std::vector<Load>& loads) {
  for (size_t i = 0; i < loads.size(); ++i) {
    if (loads[i].context) return i;
  }
  for (size_t i = 0; i < loads.size(); ++i) {
    if (loads[i].tensors) return i;
  }
  return loads.size() - 1;
}

}  // namespace

std::vector<LogLine> lines_of_one_load(std::span<const LogLine> lines, LogBuilder& out) {
  const std::vector<Load> loads = split_loads(lines);
  const size_t chosen = chosen_load(loads);
  const size_t begin = loads[chosen].begin;
  const size_t end = chosen + 1 < loads.size() ? loads[chosen + 1].begin : lines.size();
  // The chosen load's lines, and every line of no stage (the build, the
  // devices ggml lists, a command, a server's records): those describe
  // the process, whichever load they sit beside.
  std::vector<LogLine> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool own = i >= begin && i < end;
    if (own || (load_stage(lines[i].text) == 0 && !bound_to_its_load(lines[i].text))) {
      kept.push_back(lines[i]);
    }
  }
  for (size_t i = 0; i < loads.size(); ++i) {
    if (i == chosen || loads[i].stage == 0) continue;
    // A load before the chosen one that loaded no tensors is a
    // vocabulary-only load (Ollama's, print_info's "vocab_only = 1"):
    // left out without a word, as it holds no figure.
    if (i < chosen && !loads[i].tensors) continue;
    if (i < chosen) {
      out.note(fmt::format("the model load at line {} built no context (it failed): left out; the load "
                           "at line {} is read",
                           loads[i].line, loads[chosen].line));
    } else {
      out.note(fmt::format("the log loads a model again at line {} (a reload, a draft model): only the "
                           "load at line {} is read, later loads are left out",
                           loads[i].line, loads[chosen].line));
    }
  }
  return kept;
}

}  // namespace memfit::logs
