// Ollama's llama-server runs (v0.30.0 on): the flags llm/llama_server.go
// passes, and llama.cpp's --fit choosing the layers where no -ngl is given
// (llama_server.h; docs/engine-ollama.md, "Releases").
#include "engines/ollama/llama_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engines/ollama/releases.h"
#include "memfit/checked_math.h"

namespace memfit::ollama {

// llama-server as llm/llama_server.go starts it (v0.30.0 on): -c num_ctx
// x parallel -np parallel (a stream a slot: no --kv-unified), -b and -ub
// num_batch, the cache types and --flash-attn decided, --embedding for an
// embedding model, no -ngl unless num_gpu gives it; llama-server's own
// defaults for the rest, at the release's LLAMA_CPP_VERSION build, with
// llama.cpp's repacking, windows and output-first offload. The load is
// priced, as inspect --engine llamacpp prices it: the host's prompt cache
// (--cache-ram, 8192 MiB by default, a cap filled by the prompts served)
// and the context checkpoints are not counted.
Status apply_llama_server(const ModelSpec& /*spec*/, const OllamaDecisions& d, LlamaCppSettings& s) {
  s.ctx_size = (CheckedBytes(d.context.num_ctx) * d.parallel).saturated();
  s.parallel = d.parallel;
  s.kv_unified = false;
  s.batch_size = s.ubatch_size = d.num_batch;
  s.build = vendored_llamacpp_build(d.release);
  s.embedding = d.embedding;
  s.cache_type_k = s.cache_type_v = d.kv_type;
  s.flash_attn = d.flash_attn;
  s.placement.mmap = d.mmap;
  s.placement.gpu_margin_bytes = kFitTargetBytes;
  // The server's n_outputs_max (llama.cpp #23861: one row a slot; every
  // token's for --embedding), as apply_llama_server_rules sets it.
  s.outputs_max = d.embedding ? 0 : d.parallel;
  return Status::Ok();
}

// llama.cpp's --fit (common/fit.cpp, common_params_fit_impl; llama.cpp
// #16653, read at ggml-org/llama.cpp 08033df, the stored tree: not
// checked line by line against b10488's), for a run that gives no
// -ngl. Each GPU's target is its free memory less kFitTargetBytes.
//  1. Every layer offloaded at the default split keeps every target: no change.
//  2. The context: Ollama's -c is the user's, which --fit leaves alone.
//  3. Back to front, the last GPU first, each GPU takes the most of the
//     layers not yet given (the output layer and the last blocks) whose
//     memory stays within its target; a MoE model's layers "dense-only"
//     (their experts on the host), the output layer whole.
//  4. A MoE model whose dense weights all fit with room to spare
//     (global_surplus_cpu_moe > 0): front to back, each GPU turns the most
//     dense-only layers into full ones, then tries one more layer with its
//     up experts on it (overflow UP: gate and down to the next GPU, else
//     the host), then its gate too (GATE), else its attention alone (ATTN).
// The search takes the most layers that fit by bisection where llama.cpp
// steps by false position: the same answer when memory grows with the
// layers. The overrides are set_ngl_tensor_split_tbo's (as check-log reads
// a log's choice, src/logs/llamacpp_fit.cc).
namespace {

enum class Fraction { kMoe, kUp, kGate, kAttn };

struct FitDevice {
  uint64_t n_layer = 0;
  uint64_t n_part = 0;  // dense-only layers, the last n_part of its n_layer
  Fraction overflow = Fraction::kMoe;
  std::optional<uint64_t> overflow_gpu;  // the first partial layer's buffer; nullopt: the host
  uint64_t full() const { return n_layer - n_part; }
};

std::string fraction_pattern(uint64_t il, Fraction f) {
  switch (f) {
    case Fraction::kUp:
      return fmt::format("blk\\.{}\\.ffn_(gate|gate_up|down)", il);
    case Fraction::kGate:
      return fmt::format("blk\\.{}\\.ffn_down", il);
    case Fraction::kAttn:
      return fmt::format("blk\\.{}\\.ffn_(gate|up|gate_up|down)", il);
    case Fraction::kMoe:
      break;
  }
  return fmt::format("blk\\.{}\\.ffn_(up|down|gate_up|gate)_(ch)?exps", il);
}

// -ngl, -ts and the overrides of `devices` (set_ngl_tensor_split_tbo).
void set_fit_placement(const std::vector<FitDevice>& devices, uint64_t total, LlamaCppPlacementSettings& p) {
  uint64_t ngl = 0;
  for (const FitDevice& f : devices) ngl += f.n_layer;
  p.n_gpu_layers = ngl;
  p.tensor_split.clear();
  if (devices.size() > 1 && ngl > 0) {
    for (const FitDevice& f : devices) p.tensor_split.push_back(static_cast<double>(f.n_layer));
  }
  p.overrides.clear();
  uint64_t il0 = total - std::min(ngl, total);
  for (const FitDevice& f : devices) {
    il0 += f.full();
    for (uint64_t il = il0; il < il0 + f.n_part; ++il) {
      if (il + 1 >= total) continue;  // the output layer's index: no tensor is "blk.N"
      p.overrides.push_back(il == il0 ? LlamaCppTensorOverride{fraction_pattern(il, f.overflow), f.overflow_gpu}
                                      : LlamaCppTensorOverride{fraction_pattern(il, Fraction::kMoe), std::nullopt});
    }
    il0 += f.n_part;
  }
}

class FitSearch {
 public:
  FitSearch(const Model& model, const MemoryBudget& budget, const LlamaCppSettings& s, uint64_t total)
      : model_(model), budget_(budget), s_(s), total_(total) {}

  // Each GPU's memory (model + context + compute + extras) at `devices`.
  Result<std::vector<uint64_t>> memory(const std::vector<FitDevice>& devices) const {
    LlamaCppSettings t = s_;
    set_fit_placement(devices, total_, t.placement);
    return memory_of(t);
  }
  Result<std::vector<uint64_t>> memory_of(const LlamaCppSettings& t) const {
    Result<LlamaCppEstimate> e = estimate_llamacpp(model_, t, budget_);
    if (!e) return e.error();
    std::vector<uint64_t> bytes(gpus(), 0);
    for (size_t id = 0; id < gpus(); ++id) {
      for (const LlamaCppDeviceUsage& u : e->placement.devices) {
        if (u.device == s_.placement.gpus[id].device) bytes[id] = u.total_bytes;
      }
    }
    return bytes;
  }
  int64_t target(size_t id) const {
    return static_cast<int64_t>(s_.placement.gpus[id].free_bytes) - static_cast<int64_t>(kFitTargetBytes);
  }
  bool within(const std::vector<uint64_t>& mem, size_t id) const {
    return static_cast<int64_t>(mem[id]) <= target(id);
  }
  size_t gpus() const { return s_.placement.gpus.size(); }
  // The largest v in [lo, hi] whose `at(v)` keeps GPU id within its
  // target, lo taken to fit.
  template <typename At>
  Result<uint64_t> most(uint64_t lo, uint64_t hi, size_t id, At at) const {
    while (hi > lo) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      Result<std::vector<uint64_t>> mem = memory(at(mid));
      if (!mem) return mem.error();
      if (within(*mem, id)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

 private:
  const Model& model_;
  const MemoryBudget& budget_;
  const LlamaCppSettings& s_;
  uint64_t total_;
};

}  // namespace

Status fit_layers(const Model& model, const MemoryBudget& budget, LlamaCppSettings& s, OllamaDecisions& d) {
  const size_t nd = s.placement.gpus.size();
  const uint64_t total = d.total_layers;
  const bool moe = model.spec.moe.experts > 0;
  FitSearch search(model, budget, s, total);
  const auto done = [&](const std::vector<FitDevice>& devices) {
    set_fit_placement(devices, total, s.placement);
    d.gpu_layers = *s.placement.n_gpu_layers;
    d.layers_per_gpu.clear();
    d.overflowing_per_gpu.clear();
    for (const FitDevice& f : devices) {
      d.layers_per_gpu.push_back(f.n_layer);
      d.overflowing_per_gpu.push_back(f.n_part);
    }
    d.fit_placed = true;
    return Status::Ok();
  };
  // Step 1: every layer at llama.cpp's default split.
  {
    LlamaCppSettings t = s;
    t.placement.n_gpu_layers = total;
    Result<std::vector<uint64_t>> mem = search.memory_of(t);
    if (!mem) return mem.error();
    bool fits = true;
    for (size_t id = 0; id < nd; ++id) fits = fits && search.within(*mem, id);
    if (fits) {
      Result<LlamaCppEstimate> e = estimate_llamacpp(model, t, budget);
      if (!e) return e.error();
      s.placement.n_gpu_layers = total;
      d.gpu_layers = total;
      d.layers_per_gpu.assign(nd, 0);
      d.overflowing_per_gpu.assign(nd, 0);
      for (size_t id = 0; id < nd; ++id) {
        for (const LlamaCppDeviceUsage& u : e->placement.devices) {
          if (u.device == s.placement.gpus[id].device) d.layers_per_gpu[id] = u.blocks + (u.output_layer ? 1 : 0);
        }
      }
      d.fit_placed = true;
      return Status::Ok();
    }
  }
  // A MoE model's surplus with every expert on the host.
  int64_t surplus_cpu_moe = 0;
  if (moe) {
    LlamaCppSettings t = s;
    t.placement.n_gpu_layers = total;
    t.placement.overrides = {{"blk\\.\\d+\\.ffn_(up|down|gate_up|gate)_(ch)?exps", std::nullopt}};
    Result<std::vector<uint64_t>> mem = search.memory_of(t);
    if (!mem) return mem.error();
    for (size_t id = 0; id < nd; ++id) surplus_cpu_moe += search.target(id) - static_cast<int64_t>((*mem)[id]);
  }
  // Step 3: back to front.
  std::vector<FitDevice> devices(nd);
  for (size_t id = nd; id-- > 0;) {
    uint64_t unassigned = total;
    for (size_t j = id + 1; j < nd; ++j) unassigned -= devices[j].n_layer;
    const auto at = [&](uint64_t k) {
      std::vector<FitDevice> t = devices;
      t[id].n_layer = k;
      t[id].n_part = !moe ? 0 : id + 1 < nd ? k : (k > 0 ? k - 1 : 0);
      return t;
    };
    Result<uint64_t> k = search.most(0, unassigned, id, at);
    if (!k) return k.error();
    devices = at(*k);
  }
  if (!moe || surplus_cpu_moe <= 0) return done(devices);
  // Step 4: front to back, dense-only layers made full.
  size_t dense_start = nd;
  for (size_t id = nd; id-- > 0;) {
    if (devices[id].n_layer == 0) break;
    dense_start = id;
  }
  for (size_t id = 0; id <= dense_start && dense_start < nd; ++id) {
    // Converting c dense-only layers (from dense_start on) into full ones on GPU id.
    const auto convert = [&](uint64_t c, size_t* start) {
      std::vector<FitDevice> t = devices;
      size_t jd = dense_start;
      uint64_t converted = 0;
      for (; jd < nd; ++jd) {
        const uint64_t n = std::min(c - converted, t[jd].n_part);
        t[jd].n_layer -= n;
        t[jd].n_part -= n;
        t[id].n_layer += n;
        converted += n;
        if (t[jd].n_part > 0) break;
      }
      if (start != nullptr) *start = jd;
      return t;
    };
    uint64_t convertible = 0;
    for (size_t jd = dense_start; jd < nd; ++jd) convertible += devices[jd].n_part;
    Result<uint64_t> c = search.most(0, convertible, id, [&](uint64_t v) { return convert(v, nullptr); });
    if (!c) return c.error();
    size_t start = dense_start;
    devices = convert(*c, &start);
    dense_start = std::min(start, nd - 1);
    // One more layer, part of it on GPU id.
    if (start < nd && devices[dense_start].n_layer > (id + 1 < nd ? 0u : 1u) && devices[dense_start].n_part > 0) {
      std::vector<FitDevice> t = devices;
      t[dense_start].n_layer--;
      t[dense_start].n_part--;
      t[id].n_layer++;
      t[id].n_part++;
      const size_t start_test = t[dense_start].n_part == 0 ? dense_start + 1 : dense_start;
      t[id].overflow_gpu = id + 1 < nd ? std::optional<uint64_t>(id + 1) : std::nullopt;
      const auto try_fraction = [&](Fraction f) -> Result<bool> {
        t[id].overflow = f;
        Result<std::vector<uint64_t>> mem = search.memory(t);
        if (!mem) return mem.error();
        const auto under = [&](size_t i) { return static_cast<int64_t>((*mem)[i]) < search.target(i); };
        if (!under(id) || (id + 1 < nd && !under(id + 1))) return false;
        devices = t;
        dense_start = std::min(start_test, nd - 1);
        return true;
      };
      Result<bool> up = try_fraction(Fraction::kUp);
      if (!up) return up.error();
      if (*up) {
        if (Result<bool> gate = try_fraction(Fraction::kGate); !gate) return gate.error();
      } else if (Result<bool> attn = try_fraction(Fraction::kAttn); !attn) {
        return attn.error();
      }
    }
    if (start >= nd) break;
  }
  return done(devices);
}

}  // namespace memfit::ollama
