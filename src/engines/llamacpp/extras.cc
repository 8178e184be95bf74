// The llama-server extras (llamacpp_extras.h): what each file holds, and
// the lines they add to a llama.cpp estimate's devices.
#include "memfit/llamacpp_extras.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <unordered_map>
#include <system_error>

#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"

namespace memfit {

Result<LlamaCppProjector> llamacpp_projector(const GgufHeader& h, const std::string& path) {
  Result<std::string_view> arch = h.get_string("general.architecture");
  if (!arch || *arch != "clip") {
    return Error(fmt::format("mmproj {}: not a projector (general.architecture is {}, not clip)",
                             quote_untrusted(path), arch ? quote_untrusted(*arch) : "absent"),
                 ErrorKind::kInput);
  }
  LlamaCppProjector p;
  p.path = path;
  p.weights_bytes = h.tensor_bytes;
  Result<uint64_t> image = h.get_uint64("clip.vision.image_size");
  Result<uint64_t> patch = h.get_uint64("clip.vision.patch_size");
  Result<uint64_t> embd = h.get_uint64("clip.vision.embedding_length");
  Result<uint64_t> ff = h.get_uint64("clip.vision.feed_forward_length");
  Result<uint64_t> heads = h.get_uint64("clip.vision.attention.head_count");
  if (!image || !patch || !embd || !ff || !heads || *patch == 0) return p;  // no vision geometry
  const uint64_t side = *image / *patch;
  const CheckedBytes n = CheckedBytes(side) * side;
  if (!n.value()) return Error::overflow("mmproj: patches overflow 64 bits");
  const CheckedBytes per_patch = CheckedBytes(*embd) * 2 + *ff;
  const CheckedBytes compute = CheckedBytes(4) * *n.value() * per_patch.saturated();
  const CheckedBytes scores = CheckedBytes(4) * *heads * *n.value() * *n.value();
  if (!per_patch.value() || !compute.value() || !scores.value()) {
    return Error::overflow("mmproj: the compute buffer overflows 64 bits");
  }
  p.compute_bytes = *compute.value();
  p.scores_bytes = *scores.value();
  p.compute_modelled = true;
  return p;
}

Result<LlamaCppLora> llamacpp_lora(const GgufHeader& h, const std::string& path) {
  auto input = [&path](std::string what) {
    return Error(fmt::format("lora {}: {}", quote_untrusted(path), what), ErrorKind::kInput);
  };
  Result<std::string_view> type = h.get_string("general.type");
  if (!type || *type != "adapter") {
    return input(fmt::format("expect general.type to be 'adapter', but got {}",
                             type ? quote_untrusted(*type) : "none (not a LoRA adapter)"));
  }
  Result<std::string_view> adapter = h.get_string("adapter.type");
  if (!adapter || *adapter != "lora") {
    return input(fmt::format("expect adapter.type to be 'lora', but got {}",
                             adapter ? quote_untrusted(*adapter) : "none"));
  }
  LlamaCppLora lora;
  lora.path = path;
  if (Result<std::string_view> arch = h.get_string("general.architecture"); arch) lora.architecture = *arch;
  // Pairs by base name (llama.cpp's ordered map: its errors come in name order).
  struct Halves {
    const GgufTensorInfo* a = nullptr;
    const GgufTensorInfo* b = nullptr;
  };
  std::map<std::string_view, Halves> halves;
  for (const GgufTensorInfo& t : h.tensors) {
    const std::string_view name = t.name;
    if (name.ends_with(".lora_a")) {
      halves[name.substr(0, name.size() - 7)].a = &t;
    } else if (name.ends_with(".lora_b")) {
      halves[name.substr(0, name.size() - 7)].b = &t;
    } else if (!name.ends_with("_norm.weight")) {  // norms: skipped by llama.cpp
      return input(fmt::format("LoRA tensor {} has unexpected suffix", quote_untrusted(name)));
    }
  }
  lora.pairs.reserve(halves.size());
  for (const auto& [base, pair] : halves) {
    if (pair.a == nullptr || pair.b == nullptr) {
      return input(fmt::format("LoRA tensor pair for {} is missing one component", quote_untrusted(base)));
    }
    lora.pairs.push_back({std::string(base), pair.a->dims, pair.b->dims, pair.a->data_bytes, pair.b->data_bytes});
  }
  return lora;
}

Result<int64_t> parse_cache_ram(std::string_view field, std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < -1 || value > kLlamaCppMaxCacheRamMib) {
    return Error::usage(field, fmt::format("takes MiB from -1 (no limit) to {}, 0 for none; got {}",
                                           kLlamaCppMaxCacheRamMib, quote_untrusted(text)));
  }
  return value;
}

namespace llamacpp {
namespace {

// Each of the model's tensors by name, to its position in model.tensors
// (and e.placement.tensors).
using TensorIndex = std::unordered_map<std::string_view, size_t>;

// One adapter's lines (llama_adapter_lora_init_impl): each pair is checked
// against its base tensor and goes to the base tensor's buffer (a
// CPU_REPACK one falls back to the plain host buffer: the host either
// way); one buffer per buffer type, each tensor padded to its alignment.
Status add_lora(const Model& model, const TensorIndex& index, LlamaCppEstimate& e,
                const LlamaCppLora& lora) {
  auto input = [&lora](std::string what) {
    return Error(fmt::format("lora {}: {}", quote_untrusted(lora.path), what), ErrorKind::kInput);
  };
  const std::vector<LlamaCppTensorPlace>& places = e.placement.tensors;
  if (model.tensors.empty() || places.size() != model.tensors.size()) {
    return input("the base model's tensor list is needed (a GGUF model)");
  }
  if (lora.architecture != model.spec.model_type) {
    return input(fmt::format("model arch and LoRA arch mismatch ({} and {})", quote_untrusted(model.spec.model_type),
                             quote_untrusted(lora.architecture)));
  }

  const std::vector<LlamaCppDeviceUsage>& devices = e.placement.devices;
  std::vector<CheckedBytes> bytes(devices.size(), CheckedBytes(0));
  std::vector<bool> row_split(devices.size(), false);
  for (const LlamaCppLoraPair& p : lora.pairs) {
    auto found = index.find(p.base);
    if (found == index.end() || !places[found->second].loaded) {
      return input(fmt::format("LoRA tensor {} does not exist in base model (hint: maybe wrong base model?)",
                               quote_untrusted(p.base)));
    }
    // The base's ne[0] and ne[1] (shapes are outermost first).
    const std::vector<uint64_t>& shape = model.tensors[found->second].shape;
    const uint64_t ne0 = shape.empty() ? 1 : shape.back();
    const uint64_t ne1 = shape.size() < 2 ? 1 : shape[shape.size() - 2];
    const auto shape_error = [&] {
      return input(fmt::format("tensor {} has incorrect shape (hint: maybe wrong base model?)", quote_untrusted(p.base)));
    };
    if (p.base.ends_with("token_embd.weight")) {
      // A and B flipped: B not transposed (llm_build_inp_embd).
      if (ne0 != p.b_ne[1] || ne1 != p.a_ne[1]) return shape_error();
    } else {
      if (ne0 != p.a_ne[0] || ne1 != p.b_ne[1]) return shape_error();
      if (p.a_ne[1] != p.b_ne[0]) {
        return input(fmt::format("tensor {}: lora_a is not transposed (its ne[1] {} is not lora_b's ne[0] {})",
                                 quote_untrusted(p.base), p.a_ne[1], p.b_ne[0]));
      }
    }
    const LlamaCppTensorPlace& at = places[found->second];
    if (at.device >= devices.size()) return Error("llama.cpp placement: a tensor's device is out of range");
    const uint64_t align = devices[at.device].device == "cpu" ? kCpuTensorAlignment : kGpuTensorAlignment;
    bytes[at.device] += round_up(p.a_bytes, align) + round_up(p.b_bytes, align);
    if (at.row_split) row_split[at.device] = true;
  }
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!bytes[d].value()) return input("the adapter's bytes overflow 64 bits");
    if (*bytes[d].value() == 0) continue;
    e.extras.push_back({"LoRA adapter", lora.path, devices[d].device, *bytes[d].value(), !row_split[d]});
  }
  return Status::Ok();
}

// The projector's weights and, when its compute buffer is modelled, that
// buffer, on the first GPU ggml lists (clip takes it, not --main-gpu).
Status add_mmproj(LlamaCppEstimate& e) {
  const LlamaCppExtrasSettings& x = e.settings.extras;
  const LlamaCppPlacementSettings& s = e.settings.placement;
  // clip takes the first GPU ggml lists, not --main-gpu.
  const std::string device = x.mmproj_offload && !s.gpus.empty() ? s.gpus.front().device : "cpu";
  e.extras.push_back({"mmproj weights", x.mmproj->path, device, x.mmproj->weights_bytes, true});
  if (x.mmproj->compute_modelled) {
    // clip follows -fa: the scores only without flash attention.
    const uint64_t scores = e.context.flash_attn ? 0 : x.mmproj->scores_bytes;
    const CheckedBytes compute = CheckedBytes(x.mmproj->compute_bytes) + scores;
    if (!compute.value()) return Error::overflow("mmproj: the compute buffer overflows 64 bits");
    e.extras.push_back({"mmproj compute", x.mmproj->path, device, *compute.value(), false});
  }
  return Status::Ok();
}

// Every adapter's lines, in the order given.
Status add_loras(const Model& model, LlamaCppEstimate& e) {
  TensorIndex index;
  index.reserve(model.tensors.size());
  for (size_t i = 0; i < model.tensors.size(); ++i) index.emplace(model.tensors[i].name, i);
  for (const LlamaCppLora& lora : e.settings.extras.loras) {
    if (Status added = add_lora(model, index, e, lora); !added) return added;
  }
  return Status::Ok();
}

// The host vectors llama-server keeps beside the context. The prompt
// cache: at most the limit (server_prompt_cache evicts before it adds and
// skips a state over it); no limit: at most n_ctx tokens of state, the
// context's KV and recurrent state. The context checkpoints: N per slot,
// each one sequence's state that cannot be rolled back.
Status add_host_caches(LlamaCppEstimate& e) {
  const LlamaCppExtrasSettings& x = e.settings.extras;
  if (x.cache_ram_mib && *x.cache_ram_mib != 0) {
    const bool limited = *x.cache_ram_mib > 0;
    const uint64_t bytes = limited ? static_cast<uint64_t>(*x.cache_ram_mib) << 20
                                   : (CheckedBytes(e.kv_bytes) + e.recurrent_bytes).saturated();
    e.extras.push_back({"prompt cache", "", "cpu", bytes, limited});
  }
  if (x.ctx_checkpoints && *x.ctx_checkpoints > 0 && e.checkpoint_bytes > 0) {
    const CheckedBytes bytes = CheckedBytes(*x.ctx_checkpoints) * e.context.n_seq * e.checkpoint_bytes;
    if (!bytes.value()) return Error::overflow("llama-server context checkpoints overflow 64 bits");
    e.extras.push_back({"context checkpoints", "", "cpu", *bytes.value(), false});
  }
  return Status::Ok();
}

// The draft: common_base_params_to_speculative copies the main
// parameters and replaces the model, -ngl, -ot, the devices and the
// cache types with the draft's; its context is estimated by the same
// rules and placement, one line per category on each device.
Status add_draft(LlamaCppEstimate& e, const MemoryBudget& budget) {
  const LlamaCppExtrasSettings& x = e.settings.extras;
  LlamaCppSettings ds = e.settings;
  ds.extras = {};
  ds.cache_type_k = x.draft_cache_type_k;
  ds.cache_type_v = x.draft_cache_type_v;
  ds.placement.n_gpu_layers = x.draft_n_gpu_layers;
  ds.placement.overrides.clear();
  ds.placement.n_cpu_moe = 0;
  Result<LlamaCppEstimate> d = estimate_llamacpp(*x.draft, ds, budget);
  if (!d) return d.error().within("model_draft " + quote_untrusted(x.draft_path));
  for (const LlamaCppDeviceUsage& u : d->placement.devices) {
    if (u.model_bytes > 0) e.extras.push_back({"draft model", x.draft_path, u.device, u.model_bytes, d->model_bytes_exact});
    if (u.context_bytes > 0) e.extras.push_back({"draft context", x.draft_path, u.device, u.context_bytes, true});
    if (u.compute_bytes > 0) e.extras.push_back({"draft compute", x.draft_path, u.device, u.compute_bytes, false});
  }
  return Status::Ok();
}

// Each line on its device (extras_bytes and total), and the estimate's
// extras_bytes and total_bytes.
Status add_lines_to_totals(LlamaCppEstimate& e) {
  CheckedBytes sum = 0;
  for (const LlamaCppExtraLine& line : e.extras) {
    sum += line.bytes;
    for (LlamaCppDeviceUsage& d : e.placement.devices) {
      if (d.device != line.device) continue;
      const CheckedBytes extras = CheckedBytes(d.extras_bytes) + line.bytes;
      const CheckedBytes total = CheckedBytes(d.total_bytes) + line.bytes;
      if (!extras.value() || !total.value()) return Error::overflow("llama.cpp device total overflows 64 bits");
      d.extras_bytes = *extras.value();
      d.total_bytes = *total.value();
    }
  }
  const CheckedBytes total = CheckedBytes(e.total_bytes) + sum.saturated();
  if (!sum.value() || !total.value()) return Error::overflow("llama.cpp total overflows 64 bits");
  e.extras_bytes = *sum.value();
  e.total_bytes = *total.value();
  return Status::Ok();
}

}  // namespace

void refit_devices(LlamaCppEstimate& e) {
  const LlamaCppPlacementSettings& s = e.settings.placement;
  uint64_t pooled = 0;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) pooled = (CheckedBytes(pooled) + d.total_bytes).saturated();
  e.placement.fits = true;
  for (LlamaCppDeviceUsage& d : e.placement.devices) {
    const uint64_t usable = s.gpus.empty() ? e.budget_bytes : d.usable_bytes;
    const uint64_t need = s.unified ? pooled : d.total_bytes;
    d.fits = need <= usable;
    d.short_bytes = d.fits ? 0 : need - usable;
    e.placement.fits = e.placement.fits && d.fits;
  }
  e.fits = e.placement.fits;
}

Status add_extras(const Model& model, LlamaCppEstimate& e, const MemoryBudget& budget) {
  const LlamaCppExtrasSettings& x = e.settings.extras;
  e.extras.clear();
  if (x.mmproj) {
    if (Status added = add_mmproj(e); !added) return added;
  }
  if (!x.loras.empty()) {
    if (Status added = add_loras(model, e); !added) return added;
  }
  if (Status added = add_host_caches(e); !added) return added;
  if (x.draft) {
    if (Status added = add_draft(e, budget); !added) return added;
  }
  if (e.extras.empty()) return Status::Ok();
  if (Status added = add_lines_to_totals(e); !added) return added;
  refit_devices(e);
  return Status::Ok();
}

}  // namespace llamacpp
}  // namespace memfit
