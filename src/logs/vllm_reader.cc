// The vLLM reader (docs/check-log.md, "vLLM"). Lines are Python logging
// records, "INFO 08-05 10:13:06 [gpu_model_runner.py:1892] ...", a
// worker's prefixed with "(VllmWorker rank=1 pid=7)" or "(Worker_TP1
// pid=7)". Sizes are bytes / 2^30 whether the unit reads "GiB" or, before
// about v0.7, "GB": "Loading model weights took %.4f GB" divided by
// float(2**30) (vllm/worker/model_runner.py). The figures:
//   Model loading took 15.2683 GiB and 5.04 seconds        weights, per rank
//   Actual usage is 16.92 GiB for weight, ...               weights (v0.11 on)
//   Loading model weights took 14.9888 GB                   weights (V0)
//   Available KV cache memory: 53.05 GiB                    kv_cache_available
//   ... larger than the available KV cache memory (3.18 GiB).  kv_cache_available
//     (the ValueError a run too short of KV memory stops with)
//   the rest of the memory reserved for KV Cache is 54.73GiB   (V0)
//   GPU KV cache size: 386,320 tokens                       kv_tokens
//   # GPU blocks: 27423, # CPU blocks: 2048                 kv_blocks (V0)
//   Maximum concurrency for 8,192 tokens per request: 47.16x   concurrency
//   Graph capturing finished in 15 secs, took 0.61 GiB      cuda_graph
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "logs/command_line.h"
#include "logs/log_reader.h"
#include "logs/python_literals.h"
#include "logs/vllm_tokens_form.h"

namespace memfit::logs {
namespace {

std::span<const UnitMeaning> vllm_units() {
  static constexpr UnitMeaning kUnits[] = {{"GiB", kGiB}, {"GB", kGiB}, {"MiB", kMiB}};
  return kUnits;
}

// A worker process's identity: its pid, and under Ray the node's address
// with it ("(RayWorkerWrapper pid=345, ip=10.42.9.225)": one cluster can run
// the same pid on two nodes), "345@10.42.9.225"; nullopt for a line no
// worker prefixes.
std::optional<std::string> worker_key(std::string_view line) {
  const size_t worker = line.find("Worker");
  if (worker == std::string_view::npos) return std::nullopt;
  const std::string_view prefix = line.substr(worker, line.find(')', worker) - worker);
  std::optional<std::string_view> pid = after(prefix, "pid=");
  std::optional<uint64_t> id = pid ? leading_count(*pid) : std::nullopt;
  if (!id) return std::nullopt;
  std::string key = std::to_string(*id);
  if (std::optional<std::string_view> ip = after(prefix, "ip=")) key += "@" + std::string(trim(*ip));
  return key;
}

// The global rank a worker announces: "[parallel_state.py:1134] rank 1 in
// world size 2 is assigned as DP rank 0, PP rank 0, TP rank 1"
// (initialize_model_parallel, since about v0.9). A line cut after "in
// world" still names it.
std::optional<uint64_t> announced_rank(std::string_view line) {
  std::optional<std::string_view> r = after(line, "] rank ");
  if (!r) return std::nullopt;
  const size_t digits = r->find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string_view::npos || !r->substr(digits).starts_with(" in world")) {
    return std::nullopt;
  }
  return leading_count(*r);
}

// The parallel layout the workers announce (parallel_state.py,
// initialize_model_parallel): "rank 5 in world size 16 is assigned as DP
// rank 0, PP rank 1, TP rank 1" (later releases add "PCP rank", "EP
// rank"). When every rank of the world announced itself, the highest TP
// and PP ranks + 1 are the sizes the run was given: the settings
// tensor_parallel and pipeline_parallel (a printed config line, read
// first, wins). An excerpt holding some of the ranks gives none: a TP
// rank says only that the size is larger.
void read_announced_layout(std::span<const LogLine> lines, LogBuilder& out) {
  std::vector<uint64_t> ranks;
  std::optional<uint64_t> world;
  uint64_t max_tp = 0;
  uint64_t max_pp = 0;
  for (const LogLine& line : lines) {
    const std::optional<uint64_t> rank = announced_rank(line.text);
    std::optional<std::string_view> size = after(line.text, " in world size ");
    std::optional<std::string_view> tp = after(line.text, " TP rank ");
    std::optional<std::string_view> pp = after(line.text, " PP rank ");
    if (!rank || !size || !tp || !pp) continue;
    const std::optional<uint64_t> w = leading_count(*size);
    const std::optional<uint64_t> t = leading_count(*tp);
    const std::optional<uint64_t> p = leading_count(*pp);
    if (!w || !t || !p || (world && *world != *w)) return;  // two worlds: no layout
    world = *w;
    if (std::find(ranks.begin(), ranks.end(), *rank) == ranks.end() && ranks.size() < kMaxLogDevices) {
      ranks.push_back(*rank);
    }
    max_tp = std::max(max_tp, *t);
    max_pp = std::max(max_pp, *p);
  }
  if (!world || *world < 2 || ranks.size() != *world) return;
  out.setting("tensor_parallel", std::to_string(max_tp + 1));
  out.setting("pipeline_parallel", std::to_string(max_pp + 1));
}

// Ray's placement check (vllm/executor/ray_utils.py, _verify_bundles)
// prints the configured size when a node holds fewer GPUs than it:
// "tensor_parallel_size=4 is bigger than a reserved number of GPUs (1 GPUs)
// in a node ...".
void read_ray_placement(std::string_view text, LogBuilder& out) {
  if (!contains(text, "is bigger than a reserved number of")) return;
  if (std::optional<std::string_view> tp = after(text, "tensor_parallel_size=")) {
    if (std::optional<uint64_t> n = leading_count(*tp)) out.setting("tensor_parallel", std::to_string(*n));
  }
}

// The rank a record belongs to: "(VllmWorker rank=1 pid=7)" or
// "(Worker_TP1 pid=7)" names it; a worker that gives only its pid
// ("(VllmWorkerProcess pid=6494)", V0; "(RayWorkerWrapper pid=1384)") is
// the rank its parallel_state line announced, else the next rank no
// worker announced, in order of appearance; the engine's own records (no
// worker prefix, or "(EngineCore_0 pid=...)") are rank 0. Every line's
// rank is counted, whatever it prints: an excerpt may keep the weights
// lines of two ranks and the "Using model weights format" lines of four
// (genlm-backend#10), and the processes are the ranks that ran.
class RankMap {
 public:
  // Reads every worker's announced rank first: a worker logs its load
  // before some of its lines, and after others.
  explicit RankMap(std::span<const LogLine> lines) {
    for (const LogLine& line : lines) {
      std::optional<std::string> key = worker_key(line.text);
      std::optional<uint64_t> rank = key ? announced_rank(line.text) : std::nullopt;
      if (rank && *rank < kMaxLogDevices && !find(announced_, *key)) announced_.emplace_back(*key, *rank);
    }
  }
  std::string rank_of(std::string_view line) {
    const uint64_t rank = rank_number(line);
    if (rank < kMaxLogDevices && std::find(seen_.begin(), seen_.end(), rank) == seen_.end()) {
      seen_.push_back(rank);
    }
    return fmt::format("rank{}", rank);
  }
  // The distinct ranks whose records the log holds (the engine's rank 0
  // among them when it printed a line).
  uint64_t ranks_seen() const { return seen_.size(); }

 private:
  using Ranks = std::vector<std::pair<std::string, uint64_t>>;

  static std::optional<uint64_t> find(const Ranks& ranks, const std::string& key) {
    for (const auto& [k, rank] : ranks) {
      if (k == key) return rank;
    }
    return std::nullopt;
  }
  bool taken(uint64_t rank) const {
    const auto has = [rank](const auto& entry) { return entry.second == rank; };
    return std::any_of(announced_.begin(), announced_.end(), has) ||
           std::any_of(assigned_.begin(), assigned_.end(), has);
  }

  uint64_t rank_number(std::string_view line) {
    if (std::optional<std::string_view> r = after(line, " rank=")) {
      if (std::optional<uint64_t> rank = leading_count(*r)) return *rank;
    }
    for (std::string_view tp : {"_TP", "Worker TP"}) {
      std::optional<std::string_view> r = after(line, tp);
      if (!r) continue;
      if (std::optional<uint64_t> rank = leading_count(*r)) return *rank;
    }
    std::optional<std::string> key = worker_key(line);
    if (!key) return 0;
    if (std::optional<uint64_t> rank = find(announced_, *key)) return *rank;
    if (std::optional<uint64_t> rank = find(assigned_, *key)) return *rank;
    uint64_t next = 1;
    while (next < kMaxLogDevices && taken(next)) ++next;
    if (next < kMaxLogDevices) assigned_.emplace_back(*key, next);
    return next;
  }

  Ranks announced_;  // worker key -> the rank its parallel_state line names
  Ranks assigned_;   // worker key -> the rank given in order of appearance
  std::vector<uint64_t> seen_;
};

// The size or number after `marker`, past " =(" and tabs: "total_gpu_memory
// (79.10GiB)", "total_gpu_memory=47.54GiB", "total_gpu_memory     79.22GiB".
std::optional<std::string_view> value_after(std::string_view line, std::string_view marker) {
  std::optional<std::string_view> rest = after(line, marker);
  if (!rest) return std::nullopt;
  while (!rest->empty() && (rest->front() == ' ' || rest->front() == '=' || rest->front() == '(' ||
                            rest->front() == '\t' || rest->front() == ':')) {
    rest->remove_prefix(1);
  }
  return rest;
}

// The engine's settings from its config line ("with config: model='...',
// dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, ...")
// and the "non-default args: {...}" dict, by vLLM's names.
void read_settings(std::span<const std::pair<std::string, std::string>> pairs, LogBuilder& out) {
  for (const auto& [key, value] : pairs) {
    const std::string name = key == "max_seq_len" ? "max_model_len"
                             : key == "tensor_parallel_size" ? "tensor_parallel"
                             : key == "pipeline_parallel_size" ? "pipeline_parallel"
                                                               : key;
    for (std::string_view known : {"model", "dtype", "max_model_len", "tensor_parallel",
                                   "pipeline_parallel", "quantization", "enforce_eager",
                                   "kv_cache_dtype", "gpu_memory_utilization", "block_size",
                                   "max_num_seqs", "max_num_batched_tokens", "speculative_config",
                                   "enable_lora", "max_loras", "max_lora_rank", "lora_dtype",
                                   "fully_sharded_loras", "mamba_cache_dtype",
                                   "mamba_ssm_cache_dtype"}) {
      if (name == known) out.setting(name, value);
    }
  }
}

// The sizes vLLM prints, each with its figure: the load, the profile's
// breakdown (V0's three forms: "Memory profiling results: ... kv_cache_size=",
// the tabular "available_kv_cache_memory  53.29GiB", the sentence "the
// rest of the memory reserved for KV Cache is"), V1's available KV memory.
struct SizeMarker {
  std::string_view marker;
  LogFigure figure;
};
constexpr SizeMarker kSizes[] = {
    {"Model loading took ", LogFigure::kWeights},
    {"Loading model weights took ", LogFigure::kWeights},
    {"model weights take ", LogFigure::kWeights},
    {"Available KV cache memory: ", LogFigure::kKvCacheAvailable},
    {"reserved for KV Cache is ", LogFigure::kKvCacheAvailable},
    {"available_kv_cache_memory", LogFigure::kKvCacheAvailable},
    {"kv_cache_size=", LogFigure::kKvCacheAvailable},
    // Since about v0.10: "Current kv cache memory in use is 12.26 GiB.",
    // "CUDA graph pool memory: 0.09 GiB (actual), 0.13 GiB (estimated)".
    {"Current kv cache memory in use is ", LogFigure::kKvCacheAvailable},
    {"CUDA graph pool memory: ", LogFigure::kCudaGraph},
    // The ValueError of a run whose KV memory holds no max_model_len
    // request (vllm/v1/core/kv_cache_utils.py, _check_enough_kv_cache_memory,
    // since about v0.9): "To serve at least one request with the models's
    // max seq len (262144), (24.0 GiB KV cache is needed, which is larger
    // than the available KV cache memory (3.18 GiB)." The available memory
    // is the one its worker measured (vllm#34076), as the INFO line prints.
    {"than the available KV cache memory (", LogFigure::kKvCacheAvailable},
};

// The V0 worker's profile terms, printed beside its KV memory
// (vllm/worker/worker.py, determine_num_available_blocks, from the
// memory_profiling result of vllm/utils.py: v0.6.5 to v0.8): the sentence
// "non_torch_memory takes 0.05GiB; PyTorch activation peak memory takes
// 0.22GiB;" and the tabular "non_torch_memory  1.79GiB", "PyTorch
// activation peak memory  1.26GiB" (vllm#10511). They are the
// non_torch_increase and torch_peak_increase that the KV memory is the
// requested memory less (with the weights): the same terms v0.11's
// "Actual usage is ..." names, kept as the same settings (in GiB, the
// number as printed; the first rank's) for the pricer's notes.
// v0.6.4's "non_torch_memory=0.35GiB" beside "peak_torch_memory=" (which
// counts the weights) gives the non-torch term only.
void read_v0_profile_terms(std::string_view text, LogBuilder& out) {
  static constexpr std::pair<std::string_view, std::string_view> kTerms[] = {
      {"non_torch_memory", "non_torch_gib"},
      {"PyTorch activation peak memory", "peak_activation_gib"}};
  for (const auto& [marker, name] : kTerms) {
    if (out.find_setting(name) != nullptr) continue;
    std::optional<std::string_view> rest = value_after(text, marker);
    if (!rest) continue;
    if (rest->starts_with("takes ")) rest->remove_prefix(6);
    std::optional<PrintedQuantity> q = leading_quantity(*rest, vllm_units());
    std::optional<std::pair<PrintedDecimal, std::string_view>> number = leading_decimal(*rest);
    if (!q || !number || q->scale != kGiB) continue;
    out.setting(name, rest->substr(0, rest->size() - number->second.size()));
  }
}

void read_sizes(const LogLine& line, const std::string& rank, LogBuilder& out) {
  for (const SizeMarker& m : kSizes) {
    std::optional<std::string_view> rest = value_after(line.text, m.marker);
    if (!rest) continue;
    if (std::optional<PrintedQuantity> q = leading_quantity(*rest, vllm_units())) {
      out.bytes(rank, m.figure, *q, line.number, Merge::kFirst);
    }
  }
  if (contains(line.text, "Graph capturing finished")) {
    if (std::optional<std::string_view> rest = after(line.text, ", took ")) {
      if (std::optional<PrintedQuantity> q = leading_quantity(*rest, vllm_units())) {
        out.bytes(rank, LogFigure::kCudaGraph, *q, line.number, Merge::kFirst);
      }
    }
  }
  // "Free memory on device (30.27/31.4 GiB) on startup. Desired GPU memory
  // utilization is (0.92, 28.88 GiB)."
  if (std::optional<std::string_view> device = after(line.text, "Free memory on device (")) {
    const size_t slash = device->find('/');
    std::optional<PrintedQuantity> q;
    if (slash != std::string_view::npos) q = leading_quantity(device->substr(slash + 1), vllm_units());
    if (LogDevice* d = out.device(rank); q && d != nullptr && !d->total_bytes) d->total_bytes = q->scaled.value;
  }
  // "Actual usage is 16.92 GiB for weight, 5.66 GiB for peak activation,
  // ...": the same model_runner.model_memory_usage that "Model loading
  // took" prints (v1/worker/gpu_worker.py, determine_available_memory's
  // --kv-cache-memory hint, v0.11 on). Not the later "15.03 GiB for
  // consumed memory (weights + non-torch)", which adds the non-torch.
  if (std::optional<std::string_view> usage = after(line.text, "Actual usage is ")) {
    std::optional<PrintedQuantity> q = leading_quantity(*usage, vllm_units());
    if (q && usage->find(" for weight,") < usage->find(',')) {
      out.bytes(rank, LogFigure::kWeights, *q, line.number, Merge::kFirst);
    }
    // The profile's other terms, which the KV memory is what is left of
    // the budget after (gpu_worker.py: requested memory less
    // non_kv_cache_memory = weights + peak activation + non-torch, less
    // the CUDA graphs' estimate since v0.21): kept as settings, in GiB as
    // printed, for the pricer's notes. The first rank's.
    static constexpr std::pair<std::string_view, std::string_view> kTerms[] = {
        {" for peak activation", "peak_activation_gib"},
        {" for non-torch memory", "non_torch_gib"},
        {" for CUDAGraph memory", "cuda_graph_gib"}};
    const std::string_view text = usage->substr(0, usage->find(". "));
    for (const auto& [label, name] : kTerms) {
      const size_t at = text.find(label);
      if (at == std::string_view::npos || out.find_setting(name) != nullptr) continue;
      // The quantity before the label starts after the previous ", " or
      // ", and " (the first term starts the text).
      size_t start = text.rfind(", ", at);
      start = start == std::string_view::npos ? 0 : start + 2;
      std::string_view term = text.substr(start, at - start);
      if (term.starts_with("and ")) term.remove_prefix(4);
      std::optional<PrintedQuantity> t = leading_quantity(term, vllm_units());
      if (t && t->scale == kGiB && t->text.size() + 1 >= term.size()) {
        out.setting(name, term.substr(0, term.find(' ')));
      }
    }
  }
  read_v0_profile_terms(line.text, out);
  // Whether the worker subtracted the CUDA graphs' estimate: the line it
  // logs beside its KV memory when it profiled the graphs (gpu_worker.py,
  // determine_available_memory: "CUDA graph memory profiling is enabled
  // (default since v0.21.0)" / "is disabled (VLLM_MEMORY_PROFILER_
  // ESTIMATE_CUDAGRAPHS=0)"; 0.19 and 0.20: "... will be enabled by
  // default ... To try it now, set ..."). The first rank's.
  if (out.find_setting("cuda_graph_estimate") == nullptr) {
    if (line.text.find("CUDA graph memory profiling is enabled") != std::string_view::npos) {
      out.setting("cuda_graph_estimate", "on");
    } else if (line.text.find("CUDA graph memory profiling is disabled") != std::string_view::npos ||
               line.text.find("CUDA graph memory profiling will be enabled by default") !=
                   std::string_view::npos) {
      out.setting("cuda_graph_estimate", "off");
    }
  }
  // The V2 model runner (gpu_worker.py logs "Using V2 Model Runner" when
  // it selects it; the default for supported setups from 0.29.0): its
  // dummy sampler run is priced by its own rule (engines/vllm/estimate.cc).
  if (out.find_setting("model_runner") == nullptr &&
      line.text.find("Using V2 Model Runner") != std::string_view::npos) {
    out.setting("model_runner", "v2");
  }
  // The V1 runner's top-k/top-p sampler (v1/sample/ops/topk_topp_sampler.py
  // logs "Using FlashInfer for top-p & top-k sampling." when it selects
  // FlashInfer's kernel): its dummy sampler run sorts no logits, whatever the
  // release's default (engines/vllm/estimate.cc, vllm_v1_sampler_sorts).
  if (out.find_setting("top_k_top_p_sampler") == nullptr &&
      line.text.find("Using FlashInfer for top-p & top-k sampling") != std::string_view::npos) {
    out.setting("top_k_top_p_sampler", "flashinfer");
  }
  if (std::optional<std::string_view> u = after(line.text, "Desired GPU memory utilization is (")) {
    out.setting("gpu_memory_utilization", u->substr(0, u->find(',')));
  }
  if (std::optional<std::string_view> total = value_after(line.text, "total_gpu_memory")) {
    if (std::optional<PrintedQuantity> q = leading_quantity(*total, vllm_units())) {
      if (LogDevice* d = out.device(rank); d != nullptr && !d->total_bytes) d->total_bytes = q->scaled.value;
    }
  }
  if (std::optional<std::string_view> u = value_after(line.text, "gpu_memory_utilization")) {
    if (auto number = leading_decimal(*u)) {
      out.setting("gpu_memory_utilization", u->substr(0, u->size() - number->second.size()));
    }
  }
}

void read_capacity(const LogLine& line, LogBuilder& out) {
  const std::string_view text = line.text;
  if (std::optional<std::string_view> tokens = after(text, "GPU KV cache size: ")) {
    if (std::optional<uint64_t> n = leading_count(*tokens)) {
      out.count("total", LogFigure::kKvTokens, *n, trim(*tokens), line.number);
    }
  }
  // "# GPU blocks: N" (2024), "# CUDA blocks: N" (early 2025: #12126) and, in 0.8's
  // executor_base.py, "# cuda blocks: N".
  for (std::string_view marker : {"GPU blocks: ", "CUDA blocks: ", "cuda blocks: ", "num_gpu_blocks is: "}) {
    std::optional<std::string_view> blocks = after(text, marker);
    if (!blocks) continue;
    if (std::optional<uint64_t> n = leading_count(*blocks)) {
      out.count("total", LogFigure::kKvBlocks, *n, blocks->substr(0, blocks->find(',')), line.number);
    }
  }
  std::optional<std::string_view> concurrency = after(text, "Maximum concurrency for ");
  if (!concurrency) return;
  if (std::optional<uint64_t> len = leading_count(*concurrency)) {
    out.setting("max_model_len", std::to_string(*len));
  }
  std::optional<std::string_view> value = after(*concurrency, "per request: ");
  if (!value) return;
  if (auto number = leading_decimal(*value)) {
    out.ratio("total", LogFigure::kConcurrency, number->first, trim(*value), line.number);
  }
}

// `vllm serve MODEL --tensor-parallel-size 2 ...`, when the log (or the
// caller: LogCheckOptions::command) shows it.
void read_command(std::string_view text, LogBuilder& out) {
  read_flags(text,
             {{{"--tensor-parallel-size", "-tp", "--tensor_parallel_size"}, "tensor_parallel"},
              {{"--pipeline-parallel-size", "-pp", "--pipeline_parallel_size"}, "pipeline_parallel"},
              {{"--max-model-len", "--max_model_len"}, "max_model_len"},
              {{"--gpu-memory-utilization", "--gpu_memory_utilization"}, "gpu_memory_utilization"},
              {{"--max-num-seqs", "--max_num_seqs"}, "max_num_seqs"},
              {{"--max-num-batched-tokens", "--max_num_batched_tokens"}, "max_num_batched_tokens"},
              {{"--kv-cache-dtype", "--kv_cache_dtype"}, "kv_cache_dtype"},
              {{"--block-size", "--block_size"}, "block_size"},
              {{"--max-loras", "--max_loras"}, "max_loras"},
              {{"--max-lora-rank", "--max_lora_rank"}, "max_lora_rank"},
              {{"--lora-dtype", "--lora_dtype"}, "lora_dtype"},
              {{"--mamba-cache-dtype", "--mamba_cache_dtype"}, "mamba_cache_dtype"},
              {{"--mamba-ssm-cache-dtype", "--mamba_ssm_cache_dtype"}, "mamba_ssm_cache_dtype"},
              {{"--quantization", "-q"}, "quantization"},
              {{"--model"}, "model"}},
             out);
  if (flag_given(text, {"--enforce-eager", "--enforce_eager"})) out.setting("enforce_eager", "True");
  if (flag_given(text, {"--enable-lora", "--enable_lora"})) out.setting("enable_lora", "True");
  if (flag_given(text, {"--fully-sharded-loras", "--fully_sharded_loras"})) {
    out.setting("fully_sharded_loras", "True");
  }
  if (std::optional<std::string_view> model = after(text, "vllm serve ")) {
    const std::string_view word = trim(*model).substr(0, trim(*model).find(' '));
    // "\\" ends a line the shell continues: the model is on the next one.
    if (!word.empty() && !word.starts_with('-') && word != "\\") out.setting("model", word);
  }
}

// A command pasted over several lines, each but the last ending in a
// backslash (the shell's line continuation, as a README or a note quotes
// `vllm serve M \\ --max-model-len 65536 \\ ...`): the lines from `first`
// joined with spaces, the backslashes dropped, at most kMaxContinuedLines
// of them; "" when the line at `first` starts no such command.
constexpr size_t kMaxContinuedLines = 64;
std::string continued_command(std::span<const LogLine> lines, size_t first) {
  auto continues = [](std::string_view text) { return trim(text).ends_with('\\'); };
  const std::string_view head = lines[first].text;
  if (!continues(head) || !(contains(head, "vllm serve") || contains(head, "vllm.entrypoints"))) {
    return "";
  }
  std::string joined;
  for (size_t i = first; i < lines.size() && i - first < kMaxContinuedLines; ++i) {
    std::string_view text = trim(lines[i].text);
    const bool more = continues(text);
    if (more) text.remove_suffix(1);
    joined.append(text).push_back(' ');
    if (!more) break;
  }
  return joined;
}

// Lines only vLLM's V0 engine prints: its engine line, its executor's
// block count (V1 prints "GPU KV cache size: N tokens"), its worker's
// profiling summary (vllm/worker/worker.py). V0's defaults differ from
// V1's (vllm_pricer.cc), so the reader records the engine as a setting.
bool v0_engine_line(std::string_view text) {
  for (std::string_view marker : {"Initializing a V0 LLM engine", ", # CPU blocks:",
                                  "Memory profiling results:", "reserved for KV Cache is",
                                  "the current vLLM instance can use total_gpu_memory"}) {
    if (contains(text, marker)) return true;
  }
  return false;
}

// The kernel vLLM runs MXFP4 experts on, which lays them out
// (quantization/mxfp4.py): its backend line ("Using Marlin backend",
// "Using Triton backend", "Using FlashInfer MXFP4 ... backend"), or the
// warning Marlin's FP4 preparation prints (marlin_utils_fp4.py).
void read_mxfp4_kernel(std::string_view text, LogBuilder& out) {
  if (contains(text, "FP4 compression will be used leveraging the Marlin kernel")) {
    out.setting("mxfp4_backend", "marlin");
  }
  if (!contains(text, "mxfp4")) return;
  if (contains(text, "Using Marlin backend")) out.setting("mxfp4_backend", "marlin");
  if (contains(text, "Using Triton backend")) out.setting("mxfp4_backend", "triton");
  if (contains(text, "Using FlashInfer MXFP4")) out.setting("mxfp4_backend", "flashinfer");
}

// The KV cache format DeepSeek's sparse-MLA models run on: the FlashMLA
// layout, fp8_ds_mla, which the model turns any fp8 --kv-cache-dtype into,
// and since about v0.25 also "auto" (models/deepseek_v4/attention.py,
// _resolve_dsv4_kv_cache_dtype: "Using DeepSeek's fp8_ds_mla KV cache
// format."). The line says what the cache holds, whatever the arguments
// said before it.
void read_kv_cache_format(std::string_view text, LogBuilder& out) {
  if (contains(text, "Using DeepSeek's fp8_ds_mla KV cache format")) {
    out.setting("kv_cache_dtype", "fp8", /*replace=*/true);
  }
}

// The whole numbers of a printed Python list of ints, "[1, 2, 4]" (from
// past its "["); nullopt when anything else is in it or it is not closed.
std::optional<std::vector<uint64_t>> printed_count_list(std::string_view rest) {
  const size_t close = rest.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<uint64_t> counts;
  std::string_view body = trim(rest.substr(0, close));
  while (!body.empty()) {
    const size_t comma = body.find(',');
    std::optional<uint64_t> n = parse_count(trim(body.substr(0, comma)));
    if (!n) return std::nullopt;
    counts.push_back(*n);
    body = comma == std::string_view::npos ? std::string_view() : trim(body.substr(comma + 1));
  }
  return counts;
}

// What the resolved compilation config of the engine's config line and
// the worker's CUDA-graph profiling line say of the batch settings a log
// may print nowhere else (vllm_pricer.cc, apply_graph_line_settings):
// - "'compile_ranges_endpoints': [2048]" (named compile_ranges_split_points
//   when it came): VllmConfig._set_compile_ranges (vllm/config/vllm.py)
//   puts max_num_batched_tokens in it and adds only endpoints below it, so
//   its largest is max_num_batched_tokens ("compile_range_end");
// - "'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>" and
//   "'cudagraph_capture_sizes': [1, 2, 4, ...]", as resolved;
// - "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35
//   (largest=256)" (gpu_model_runner.py, profile_cudagraph_memory, from
//   about v0.21): each mode's graph count and largest token count
//   ("full_graph_largest").
void read_graph_settings(std::string_view text, LogBuilder& out) {
  if (auto config = after(text, " with config: ")) {
    for (std::string_view key : {"'compile_ranges_endpoints': [", "'compile_ranges_split_points': ["}) {
      if (auto rest = after(*config, key)) {
        std::optional<std::vector<uint64_t>> ends = printed_count_list(*rest);
        if (ends && !ends->empty()) {
          out.setting("compile_range_end", fmt::format("{}", *std::max_element(ends->begin(), ends->end())));
        }
      }
    }
    if (auto rest = after(*config, "'cudagraph_capture_sizes': [")) {
      if (std::optional<std::vector<uint64_t>> sizes = printed_count_list(*rest)) {
        out.setting("cudagraph_capture_sizes", fmt::format("{}", fmt::join(*sizes, ",")));
      }
    }
    if (auto mode = after(*config, "'cudagraph_mode': <CUDAGraphMode.")) {
      out.setting("cudagraph_mode", mode->substr(0, mode->find(':')));
    }
  }
  if (auto graphs = after(text, "Profiling CUDA graph memory: ")) {
    if (auto full = after(*graphs, "FULL=")) {
      if (auto largest = after(*full, "(largest=")) {
        if (std::optional<uint64_t> n = leading_count(*largest)) {
          out.setting("full_graph_largest", fmt::format("{}", *n));
        }
      }
    }
  }
}

void read_line(const LogLine& line, RankMap& ranks, LogBuilder& out) {
  const std::string_view text = line.text;
  if (v0_engine_line(text)) out.setting("engine", "V0");
  if (auto v = after(text, "vLLM API server version ")) out.set_version(v->substr(0, v->find(' ')));
  if (auto v = after(text, " LLM engine (v")) out.set_version(v->substr(0, v->find(')')));
  // The API server's logo, its version beside it (the corpus's 0.19 to 0.31
  // logs: "█ ▀▄▀ █  version 0.31.1rc1.dev50+g554340f3d"); an excerpt may hold
  // no other line naming the release.
  if (contains(text, "\xe2\x96\x80\xe2\x96\x84\xe2\x96\x80 \xe2\x96\x88  version ")) {  // UTF-8 "▀▄▀ █"
    const std::string_view v = *after(text, "  version ");
    out.set_version(v.substr(0, v.find(' ')));
  }
  if (auto platform = after(text, "Automatically detected platform ")) {
    const std::string_view name = trim(platform->substr(0, platform->find('.')));
    out.set_backend(name == "cuda" ? "CUDA" : name == "rocm" ? "ROCm" : name);
  }
  // A line logged from vllm/platforms/rocm.py ("[rocm.py:463] Using Triton
  // Attention backend.", v0.17): vLLM's logger tags each line with its
  // source file (vllm/logger.py, "[%(filename)s:%(lineno)d]"), and
  // vllm/platforms/__init__.py imports that module only when ROCm is the
  // platform it resolved. A log cut before the detection line shows its
  // platform so.
  if (contains(text, "[rocm.py:")) out.set_backend("ROCm");
  if (auto config = after(text, " with config: ")) {
    const std::vector<std::pair<std::string, std::string>> pairs = python_keyword_pairs(*config);
    read_settings(pairs, out);
    // The dtype the engine resolved ("dtype=torch.bfloat16"): what
    // `--dtype auto` made of the config's torch_dtype (a float32 config is
    // served 16-bit: ModelConfig's dtype resolution), where "dtype" above
    // may hold the argument as given ("auto", args: Namespace).
    for (const auto& [key, value] : pairs) {
      if (key == "dtype") out.setting("served_dtype", value);
    }
  }
  if (auto args = after(text, "non-default args: ")) read_settings(python_dict_pairs(*args), out);
  // Before "non-default args" (about v0.9), api_server logged every argument:
  // "[api_server.py:982] args: Namespace(..., max_num_seqs=192, ...)".
  // Its None is argparse's unset default, left out.
  if (auto args = after(text, "args: Namespace(")) {
    std::vector<std::pair<std::string, std::string>> pairs = python_keyword_pairs(*args);
    std::erase_if(pairs, [](const auto& p) { return p.second == "None"; });
    read_settings(pairs, out);
  }
  if (auto len = after(text, "Using max model len ")) out.setting("max_model_len", trim(*len));
  read_graph_settings(text, out);
  read_mxfp4_kernel(text, out);
  read_kv_cache_format(text, out);
  read_ray_placement(text, out);
  if (contains(text, "vllm serve") || contains(text, "vllm.entrypoints") ||
      contains(text, "--tensor-parallel-size")) {
    read_command(text, out);
  }
  read_sizes(line, ranks.rank_of(text), out);
  read_capacity(line, out);
}

class VllmReader final : public LogReader {
 public:
  std::string_view runtime() const override { return "vllm"; }
  bool recognises(std::span<const LogLine> lines) const override {
    for (std::string_view marker :
         {"vLLM API server version", "LLM engine (v", "Model loading took", "Loading model weights took",
          "GPU KV cache size:", "# GPU blocks:", "# CUDA blocks:", "# cuda blocks:", "Memory profiling results",
          "Available KV cache memory:", "reserved for KV Cache is", "available_kv_cache_memory",
          "Current kv cache memory in use", "CUDA graph pool memory:",
          "than the available KV cache memory ("}) {
      if (any_line_contains(lines, marker)) return true;
    }
    return false;
  }
  void read(std::span<const LogLine> lines, LogBuilder& out) const override {
    RankMap ranks(lines);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (std::string command = continued_command(lines, i); !command.empty()) read_command(command, out);
      read_line(lines[i], ranks, out);
    }
    read_announced_layout(lines, out);
    read_kv_tokens_form(lines, out);
    // The processes the log shows, for a log whose settings do not name
    // the tensor parallelism (vllm_pricer.cc).
    if (ranks.ranks_seen() > 1) out.setting("ranks_seen", fmt::format("{}", ranks.ranks_seen()));
    if (const LogSetting* model = out.find_setting("model")) out.model().name = model->value;
    out.order_devices();
  }
};

}  // namespace

const LogReader& vllm_log_reader() {
  static const VllmReader reader;
  return reader;
}

}  // namespace memfit::logs
