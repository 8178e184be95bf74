// The spellings of the log figures and their units (runtime_log.h): the
// JSON's "figure" and "unit" values, docs/check-log.md's tables.
#include "memfit/runtime_log.h"

namespace memfit {

std::string_view to_string(LogFigure figure) {
  switch (figure) {
    case LogFigure::kModel: return "model";
    case LogFigure::kKvCache: return "kv_cache";
    case LogFigure::kRecurrent: return "recurrent";
    case LogFigure::kContext: return "context";
    case LogFigure::kOutput: return "output";
    case LogFigure::kCompute: return "compute";
    case LogFigure::kWeights: return "weights";
    case LogFigure::kKvCacheAvailable: return "kv_cache_available";
    case LogFigure::kKvTokens: return "kv_tokens";
    case LogFigure::kKvBlocks: return "kv_blocks";
    case LogFigure::kConcurrency: return "concurrency";
    case LogFigure::kCudaGraph: return "cuda_graph";
    case LogFigure::kPeak: return "peak";
    case LogFigure::kTokenPool: return "token_pool";
  }
  return "model";
}

std::string_view to_string(LogUnit unit) {
  switch (unit) {
    case LogUnit::kBytes: return "bytes";
    case LogUnit::kTokens: return "tokens";
    case LogUnit::kBlocks: return "blocks";
    case LogUnit::kRatio: return "ratio";
  }
  return "bytes";
}

LogUnit unit_of(LogFigure figure) {
  switch (figure) {
    case LogFigure::kKvTokens:
    case LogFigure::kTokenPool:
      return LogUnit::kTokens;
    case LogFigure::kKvBlocks:
      return LogUnit::kBlocks;
    case LogFigure::kConcurrency:
      return LogUnit::kRatio;
    default:
      return LogUnit::kBytes;
  }
}

}  // namespace memfit
