// A vLLM log priced by the vllm profile (docs/engine-vllm.md): the
// engine's config (tensor parallel, max_model_len, the KV dtype, enforce
// eager), the non-default args (gpu_memory_utilization, max_num_seqs, ...)
// and the release it printed, whose accounting prices it. The GPU's total
// is the profiling line's (V0) or the caller's; without it the KV cache
// capacity is priced from the printed available KV memory, which then is
// an input and not compared.
#include <fmt/format.h>

#include "logs/log_pricer.h"
#include "logs/log_text.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm.h"

namespace memfit::logs {
namespace {

const PrintedFigure* rank0_figure(const RuntimeLog& log, LogFigure figure) {
  for (const PrintedFigure& f : log.figures) {
    if (f.figure == figure && f.device == "rank0") return &f;
  }
  return nullptr;
}

// The ranks whose figures the log prints.
uint64_t rank_count(const RuntimeLog& log) {
  uint64_t ranks = 0;
  for (const LogDevice& d : log.devices) ranks += d.id.starts_with("rank") ? 1 : 0;
  return ranks;
}

// The release as X.Y.Z ("0.10.1.1" -> 0.10.1), when memfit models its
// accounting; nullopt (the current line) with a note otherwise.
std::optional<VllmRelease> release_of(const RuntimeLog& log, std::vector<std::string>& notes) {
  if (log.version.empty()) {
    notes.push_back("vLLM's version is not in the log: the current line's accounting prices it");
    return std::nullopt;
  }
  // "0.10.1.1" and "0.6.3.post1" are read as their first three numbers.
  std::string_view text = log.version;
  size_t end = 0, parts = 0;
  while (end < text.size() && parts < 3) {
    size_t digits = end;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == end) break;
    ++parts;
    end = digits;
    if (parts < 3 && end + 1 < text.size() && text[end] == '.') ++end;
  }
  if (end > 0 && text[end - 1] == '.') --end;
  Result<VllmRelease> release = parse_vllm_version(text.substr(0, end));
  if (release && vllm_accounting(*release)) return *release;
  notes.push_back(fmt::format("vLLM {}: memfit does not model that release's accounting; the "
                              "current line's prices it", escape_untrusted(log.version)));
  return std::nullopt;
}

Status apply_settings(const RuntimeLog& log, EstimateRequest& r, std::vector<std::string>& notes) {
  VllmRequest& q = r.vllm;
  if (auto tp = count_setting(log, "tensor_parallel")) {
    r.parallel.tensor_parallel = *tp;
  } else if (uint64_t ranks = rank_count(log); ranks > 1) {
    r.parallel.tensor_parallel = ranks;  // the config line is cut: one rank per worker
    notes.push_back(fmt::format("tensor parallel {}: the ranks the log shows (give --command with "
                                "--tensor-parallel-size when it shows part of them)", ranks));
  }
  if (auto pp = count_setting(log, "pipeline_parallel")) r.parallel.pipeline_parallel = *pp;
  q.max_model_len = count_setting(log, "max_model_len");
  q.max_num_seqs = count_setting(log, "max_num_seqs");
  q.max_num_batched_tokens = count_setting(log, "max_num_batched_tokens");
  q.block_size = count_setting(log, "block_size");
  if (const LogSetting* u = log.setting("gpu_memory_utilization")) {
    Result<PrintedDecimal> number = parse_printed_decimal(u->value);
    if (!number) return Error::usage("gpu_memory_utilization", number.error().message());
    q.gpu_memory_utilization = to_double(*number);
  }
  if (const LogSetting* dtype = log.setting("kv_cache_dtype")) {
    Result<bool> fp8 = parse_vllm_kv_cache_dtype(dtype->value);
    if (!fp8) return Error::usage("kv_cache_dtype", fp8.error().message());
    q.kv_cache_fp8 = *fp8;
  }
  if (const LogSetting* eager = log.setting("enforce_eager")) q.enforce_eager = eager->value == "True";
  return Status::Ok();
}

// The GPU's total: the caller's, else the profiling line's (V0).
std::optional<uint64_t> gpu_total(const RuntimeLog& log, const LogCheckOptions& options) {
  if (options.gpu_memory_total) return options.gpu_memory_total;
  for (const LogDevice& d : log.devices) {
    if (d.id == "rank0" && d.total_bytes) return d.total_bytes;
  }
  return std::nullopt;
}

// A GPU total that stands in when neither the total nor the KV memory is
// known: the weights do not depend on it; the KV figures are then left
// unpriced (compare).
constexpr uint64_t kStandInGpuBytes = 80ull << 30;

class VllmPricer final : public LogPricer {
 public:
  std::string_view profile() const override { return "vllm"; }

  Result<EstimateRequest> request(const RuntimeLog& log, const LogCheckOptions& options,
                                  std::vector<std::string>& notes) const override {
    EstimateRequest r;
    r.engine = "vllm";
    if (Status s = apply_settings(log, r, notes); !s) return s.error();
    r.vllm.vllm_version = release_of(log, notes);
    r.vllm.gpu_memory_total = gpu_total(log, options);
    if (!options.gpu_name.empty()) r.vllm.gpu_name = options.gpu_name;
    if (r.vllm.gpu_memory_total) return r;
    if (const PrintedFigure* kv = rank0_figure(log, LogFigure::kKvCacheAvailable)) {
      r.vllm.kv_cache_memory = kv->value;
      notes.push_back("the GPU's total memory is not in the log: the KV capacity is priced from "
                      "the printed available KV memory (give --gpu-memory-total to price that too)");
    } else {
      r.vllm.gpu_memory_total = kStandInGpuBytes;
      notes.push_back("neither the GPU's total memory nor the KV memory is in the log: the weights "
                      "are priced, the KV capacity is not (give --gpu-memory-total)");
    }
    return r;
  }

  void compare(const RuntimeLog& log, const LogCheckOptions& options, const EstimateRun& run,
               std::vector<FigureCheck>& figures) const override {
    const VllmEstimate& e = *run.vllm;
    const bool capacity_known = e.kv_given || gpu_total(log, options).has_value();
    const FigureBasis capacity = e.kv_given ? FigureBasis::kExact : FigureBasis::kModelled;
    for (FigureCheck& c : figures) {
      if (!capacity_known && c.printed.figure != LogFigure::kWeights) {
        c.note = "the GPU's total memory is not known: give --gpu-memory-total";
        continue;
      }
      switch (c.printed.figure) {
        case LogFigure::kWeights:
          c.memfit = e.weights.bytes;
          c.basis = e.weights.exact ? FigureBasis::kExact : FigureBasis::kModelled;
          break;
        case LogFigure::kKvCacheAvailable:
          if (e.kv_given) c.note = "the input the KV capacity is priced from";
          else c.memfit = e.kv_cache_bytes, c.basis = FigureBasis::kModelled;
          break;
        case LogFigure::kKvTokens:
          c.memfit = e.kv_tokens, c.basis = capacity;
          break;
        case LogFigure::kKvBlocks:
          c.memfit = e.num_blocks, c.basis = capacity;
          break;
        case LogFigure::kConcurrency:
          c.memfit_ratio = e.max_concurrency, c.basis = capacity;
          break;
        case LogFigure::kCudaGraph:
          c.memfit = e.cuda_graph_bytes, c.basis = FigureBasis::kModelled;
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace

const LogPricer& vllm_log_pricer() {
  static const VllmPricer pricer;
  return pricer;
}

}  // namespace memfit::logs
