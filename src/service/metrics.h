// ServiceMetrics: what the service counts, and the Prometheus text
// exposition format (version 0.0.4) of /metrics.
//
// Every family has "# HELP" and "# TYPE" lines; label values are escaped
// (backslash, double quote, newline). Gauges of the host and the process are
// taken when /metrics is asked; a gauge the OS does not report is left out,
// never shown as 0. Per-model families carry the model's label (its path
// relative to its root) and describe the most recent estimate served for it.
#ifndef MEMFIT_SERVICE_METRICS_H_
#define MEMFIT_SERVICE_METRICS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "memfit/mlxcel.h"
#include "memfit/host_memory.h"
#include "memfit/process_gauges.h"

namespace memfit::service {

// What /metrics shows besides the counters.
struct MetricsSnapshot {
  HostMemoryStatus host;
  ProcessGauges process;
  uint64_t cached_models = 0;
  uint64_t model_opens = 0;
};

class ServiceMetrics {
 public:
  // `endpoint` is one of the service's paths, or "other" for the rest, so
  // an unknown path cannot grow the set of series. Thread-safe.
  void count_request(std::string_view endpoint, int status);
  void record_estimate(const std::string& model_label, const MlxcelEstimate& estimate);
  void count_admission(bool admitted);

  // The exposition text. Thread-safe.
  std::string render(const MetricsSnapshot& snapshot) const;

 private:
  struct ModelFigures {
    uint64_t estimates = 0;
    uint64_t weights_bytes = 0;
    uint64_t kv_bytes = 0;
    uint64_t headroom_bytes = 0;
    uint64_t total_bytes = 0;
    bool fits = false;
  };

  // The request and admission counters, and the per-model families;
  // the caller holds mu_.
  void render_counts(std::string& out) const;
  void render_models(std::string& out) const;

  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;  // (endpoint, status); guarded
  std::map<std::string, ModelFigures> models_;                // by label; guarded
  uint64_t admitted_ = 0;                                     // guarded
  uint64_t refused_ = 0;                                      // guarded
};

// A Prometheus label value: \ -> \\, " -> \", newline -> \n.
std::string escape_label_value(std::string_view value);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_METRICS_H_
