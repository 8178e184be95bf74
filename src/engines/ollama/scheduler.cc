// Ollama's scheduler at v0.24.0 (llm/server.go: llamaServer.Load,
// createLayout, buildLayout, assignLayers, findBestFit, greedyFit): how
// many layers go to each GPU. Its arithmetic is Go's, float32 capacities
// included, so that the layer counts match Ollama's; the rules and their
// sources are in docs/engine-ollama.md, "The scheduler".
#include <algorithm>
#include <numeric>

#include "engines/ollama/settings.h"
#include "memfit/checked_math.h"

namespace memfit::ollama {
namespace {

// One GPU's share of a layout: the layer indices it holds.
struct GpuShare {
  size_t gpu = 0;  // an index into the device-order GPU list
  std::vector<size_t> layers;
};
using Layout = std::vector<GpuShare>;

// A GPU as buildLayout ranks it: free memory left for layers.
struct Candidate {
  size_t gpu = 0;
  uint64_t free_bytes = 0;
};

size_t layer_count(const Layout& layout) {
  size_t n = 0;
  for (const GpuShare& s : layout) n += s.layers.size();
  return n;
}

uint64_t scaled(uint64_t free_bytes, float capacity) {
  return static_cast<uint64_t>(static_cast<float>(free_bytes) * capacity);
}

// greedyFit: from the last layer down, onto the last GPU until it is
// full, then the one before it.
Layout greedy_fit(const std::vector<uint64_t>& layers, const std::vector<Candidate>& gpus, float capacity,
                  int64_t requested) {
  int64_t device = static_cast<int64_t>(gpus.size()) - 1;
  Layout layout{{gpus[device].gpu, {}}};
  uint64_t free_bytes = scaled(gpus[device].free_bytes, capacity);
  const int64_t n = static_cast<int64_t>(layers.size());
  for (int64_t i = n - 1; i >= 0; --i) {
    if (requested >= 0 && n - 1 - i >= requested) break;
    for (;;) {
      if (layers[i] <= free_bytes) {
        layout.front().layers.insert(layout.front().layers.begin(), static_cast<size_t>(i));
        free_bytes -= layers[i];
        break;
      }
      if (--device < 0) return layout;
      layout.insert(layout.begin(), GpuShare{gpus[device].gpu, {}});
      free_bytes = scaled(gpus[device].free_bytes, capacity);
    }
  }
  return layout;
}

// findBestFit: the smallest capacity factor that still places the most
// layers (a binary search to 1e-6), so that the layers spread evenly.
Layout find_best_fit(const std::vector<uint64_t>& layers, const std::vector<Candidate>& gpus, int64_t requested,
                     bool force_request) {
  float high = 1, low = 0;
  if (requested >= 0 && force_request) high = 1000;
  Layout best = greedy_fit(layers, gpus, high, requested);
  const size_t most = layer_count(best);
  while (high - low > 1e-6f) {
    const float mid = (low + high) / 2;
    Layout layout = greedy_fit(layers, gpus, mid, requested);
    if (layer_count(layout) == most) {
      high = mid;
      best = std::move(layout);
    } else {
      low = mid;
    }
  }
  return best;
}

// assignLayers: the fewest GPUs (from the largest) that take every layer,
// else every GPU; twice, the second time without the output layer.
Layout assign_layers(std::vector<uint64_t> layers, const std::vector<Candidate>& gpus, int64_t requested,
                     size_t last_used, bool spread) {
  Layout layout;
  for (int round = 0; round < 2; ++round) {
    requested = std::min<int64_t>(static_cast<int64_t>(layers.size()), requested);
    if (!spread) {
      for (size_t i = last_used; i < gpus.size(); ++i) {
        const bool force = i == gpus.size() - 1;  // requireFull is false on an idle machine
        layout = find_best_fit(layers, std::vector<Candidate>(gpus.begin(), gpus.begin() + i + 1), requested, force);
        const int64_t placed = static_cast<int64_t>(layer_count(layout));
        if (placed == static_cast<int64_t>(layers.size()) || placed == requested) break;
      }
    } else {
      layout = find_best_fit(layers, gpus, requested, true);
    }
    if (layer_count(layout) == layers.size()) return layout;
    layers.pop_back();
  }
  return layout;
}

// buildLayout for one library's GPUs: each GPU's free memory less the
// minimum, the overhead and the graph reserved on it, largest first.
Layout build_layout(const std::vector<uint64_t>& layers, const std::vector<SchedulerGpu>& gpus,
                    const std::vector<uint64_t>& free_bytes, const std::vector<uint64_t>& graph,
                    const OllamaDecisions& d) {
  std::vector<Candidate> ranked;
  for (size_t i = 0; i < gpus.size(); ++i) ranked.push_back({i, free_bytes[i]});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate& a, const Candidate& b) { return a.free_bytes > b.free_bytes; });
  size_t last_used = 0;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const size_t g = ranked[i].gpu;
    if (graph[g] != 0) last_used = i;
    const uint64_t minimum = gpus[g].metal ? kMetalMinimumMemoryBytes : kMinimumMemoryBytes;
    const uint64_t reserved = (CheckedBytes(minimum) + d.given.gpu_overhead_bytes + graph[g]).saturated();
    ranked[i].free_bytes = ranked[i].free_bytes > reserved ? ranked[i].free_bytes - reserved : 0;
  }
  const int64_t requested = d.given.num_gpu ? static_cast<int64_t>(*d.given.num_gpu) : -1;
  return assign_layers(layers, ranked, requested, last_used, d.given.sched_spread);
}

}  // namespace

void place_layers(const LayerSizes& sizes, const std::vector<SchedulerGpu>& gpus, OllamaDecisions& d) {
  d.layers_per_gpu.assign(gpus.size(), 0);
  d.estimate_weights_bytes.assign(gpus.size(), 0);
  d.estimate_cache_bytes.assign(gpus.size(), 0);
  d.estimate_graph_bytes.assign(gpus.size(), 0);
  d.graph_partial_bytes = sizes.graph_partial_bytes;
  d.graph_full_bytes = sizes.graph_full_bytes;
  d.gpu_layers = 0;
  if (gpus.empty() || sizes.layer_bytes.empty()) return;
  // One layer's size is kept free on every GPU as a buffer (llamarunner).
  std::vector<uint64_t> free_bytes;
  for (const SchedulerGpu& g : gpus) {
    free_bytes.push_back(g.free_bytes > sizes.first_layer_buffer_bytes ? g.free_bytes - sizes.first_layer_buffer_bytes
                                                                         : 0);
  }
  // The graph is reserved on each GPU a layout uses, and the layout made
  // again, until it uses no more GPUs than the one before.
  std::vector<uint64_t> graph(gpus.size(), 0);
  const uint64_t graph_max = std::max(sizes.graph_partial_bytes, sizes.graph_full_bytes);
  Layout layout, previous;
  for (;;) {
    layout = build_layout(sizes.layer_bytes, gpus, free_bytes, graph, d);
    if (layout.size() <= previous.size()) break;
    for (const GpuShare& s : layout) graph[s.gpu] = graph_max;
    previous = layout;
  }
  const size_t placed = layer_count(layout);
  const uint64_t graph_size = placed < sizes.layer_bytes.size() ? sizes.graph_partial_bytes : sizes.graph_full_bytes;
  for (const GpuShare& s : layout) {
    d.layers_per_gpu[s.gpu] += s.layers.size();
    d.estimate_graph_bytes[s.gpu] = graph_size;
    for (size_t layer : s.layers) {
      d.estimate_weights_bytes[s.gpu] = (CheckedBytes(d.estimate_weights_bytes[s.gpu]) + sizes.weights_bytes[layer]).saturated();
      d.estimate_cache_bytes[s.gpu] = (CheckedBytes(d.estimate_cache_bytes[s.gpu]) +
                                       (sizes.layer_bytes[layer] - sizes.weights_bytes[layer])).saturated();
    }
  }
  d.gpu_layers = placed;
}

}  // namespace memfit::ollama
