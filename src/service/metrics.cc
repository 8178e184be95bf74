#include "service/metrics.h"

#include <fmt/format.h>

namespace memfit::service {
namespace {

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void sample(std::string& out, std::string_view name, uint64_t value) {
  out += fmt::format("{} {}\n", name, value);
}

void gauge(std::string& out, std::string_view name, std::string_view help, uint64_t value) {
  family(out, name, "gauge", help);
  sample(out, name, value);
}

void optional_gauge(std::string& out, std::string_view name, std::string_view help,
                    const std::optional<uint64_t>& value) {
  if (value) gauge(out, name, help, *value);
}

// The host's memory, the budget and each GPU's free memory.
void render_host(std::string& out, const HostMemoryStatus& host) {
  gauge(out, "memfit_host_ram_total_bytes", "Physical RAM of the machine.", host.ram_total_bytes);
  gauge(out, "memfit_host_available_now_bytes",
        "Memory the OS can give now, machine-wide (MemAvailable on Linux).",
        host.available_now_bytes);
  gauge(out, "memfit_host_ram_available_bytes",
        "Memory this process can take now: available now clamped by its cgroup.",
        host.ram_available_bytes);
  gauge(out, "memfit_host_reserve_bytes", "Memory left to the OS by the guardrails.",
        host.reserve_bytes);
  family(out, "memfit_budget_bytes", "gauge",
         "The budget estimates are compared with; source names where it came from.");
  out += fmt::format("memfit_budget_bytes{{source=\"{}\",device=\"{}\"}} {}\n",
                     escape_label_value(to_string(host.budget_source)), escape_label_value(host.device),
                     host.budget_bytes);
  if (!host.gpus.empty()) {
    family(out, "memfit_gpu_free_bytes", "gauge", "Free memory of each GPU.");
    for (const GpuMemory& gpu : host.gpus) {
      out += fmt::format("memfit_gpu_free_bytes{{vendor=\"{}\",index=\"{}\"}} {}\n",
                         gpu_vendor_name(gpu.vendor), gpu.index, gpu.free_bytes);
    }
  }
}

// This process's memory and the service's model cache.
void render_process(std::string& out, const MetricsSnapshot& s) {
  optional_gauge(out, "memfit_process_footprint_bytes",
                 "This process's memory footprint (VmRSS, phys_footprint, WorkingSetSize).",
                 s.process.footprint_bytes);
  optional_gauge(out, "memfit_process_swapped_bytes",
                 "This process's memory swapped out or compressed.", s.process.swapped_bytes);
  optional_gauge(out, "memfit_process_wired_bytes", "This process's locked (wired) memory.",
                 s.process.wired_bytes);
  gauge(out, "memfit_cached_models", "Models held open in the service's cache.", s.cached_models);
  family(out, "memfit_model_opens_total", "counter",
         "Models opened (config and weight headers parsed), including failures.");
  sample(out, "memfit_model_opens_total", s.model_opens);
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void ServiceMetrics::count_request(std::string_view endpoint, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{std::string(endpoint), status}];
}

void ServiceMetrics::record_estimate(const std::string& model_label, const MlxcelEstimate& e) {
  std::lock_guard<std::mutex> lock(mu_);
  ModelFigures& m = models_[model_label];
  ++m.estimates;
  m.weights_bytes = e.weights_bytes;
  m.kv_bytes = e.kv.total_bytes;
  m.headroom_bytes = e.headroom_bytes;
  m.total_bytes = e.total_bytes;
  m.fits = e.fits;
}

void ServiceMetrics::count_admission(bool admitted) {
  std::lock_guard<std::mutex> lock(mu_);
  ++(admitted ? admitted_ : refused_);
}

std::string ServiceMetrics::render(const MetricsSnapshot& s) const {
  std::string out;
  render_host(out, s.host);
  render_process(out, s);
  std::lock_guard<std::mutex> lock(mu_);
  render_counts(out);
  render_models(out);
  return out;
}

void ServiceMetrics::render_counts(std::string& out) const {
  family(out, "memfit_requests_total", "counter",
         "HTTP requests answered, by endpoint and status.");
  for (const auto& [key, count] : requests_) {
    out += fmt::format("memfit_requests_total{{endpoint=\"{}\",code=\"{}\"}} {}\n",
                       escape_label_value(key.first), key.second, count);
  }
  family(out, "memfit_admissions_total", "counter", "Prefill admission decisions, by result.");
  out += fmt::format("memfit_admissions_total{{result=\"admitted\"}} {}\n", admitted_);
  out += fmt::format("memfit_admissions_total{{result=\"refused\"}} {}\n", refused_);
}

void ServiceMetrics::render_models(std::string& out) const {
  struct PerModel {
    const char* name;
    const char* type;
    const char* help;
    uint64_t ModelFigures::*field;
  };
  static constexpr PerModel kPerModel[] = {
      {"memfit_model_estimates_total", "counter", "Estimates served for the model.",
       &ModelFigures::estimates},
      {"memfit_model_weights_bytes", "gauge", "Weights of the model's latest estimate.",
       &ModelFigures::weights_bytes},
      {"memfit_model_kv_bytes", "gauge", "KV cache of the model's latest estimate.",
       &ModelFigures::kv_bytes},
      {"memfit_model_headroom_bytes", "gauge", "Runtime headroom of the model's latest estimate.",
       &ModelFigures::headroom_bytes},
      {"memfit_model_total_bytes", "gauge", "Total of the model's latest estimate.",
       &ModelFigures::total_bytes},
  };
  for (const PerModel& m : kPerModel) {
    family(out, m.name, m.type, m.help);
    for (const auto& [label, figures] : models_) {
      out += fmt::format("{}{{model=\"{}\"}} {}\n", m.name, escape_label_value(label),
                         figures.*(m.field));
    }
  }
  family(out, "memfit_model_fits", "gauge", "1 when the model's latest estimate fits the budget.");
  for (const auto& [label, figures] : models_) {
    out += fmt::format("memfit_model_fits{{model=\"{}\"}} {}\n", escape_label_value(label),
                       figures.fits ? 1 : 0);
  }
}

}  // namespace memfit::service
