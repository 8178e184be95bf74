// llama-server's defaults over the llama.cpp settings (its auto slots on a
// unified KV cache, the training context, the host caches) and the server
// flags a report prints (memfit/llama_server.h).
#include "memfit/llama_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <optional>

#include "engines/llamacpp/parts.h"
#include "engines/shared/shell_word.h"
#include "memfit/checked_math.h"

namespace memfit {

Status apply_llama_server_rules(const ModelSpec& spec, bool parallel_given, LlamaCppSettings& s) {
  if (!parallel_given) {
    s.parallel = kLlamaServerAutoSlots;
    s.kv_unified = true;
  }
  if (s.ctx_size == 0 && spec.max_position_tokens != 0) {
    // common/fit.cpp's n_ctx_max: the training context x n_streams at
    // v0.4.0 (one stream when unified), x n_seq_max from v0.5.0.
    const uint64_t streams = s.kv_unified && !llamacpp::auto_context_per_sequence(s) ? 1 : s.parallel;
    std::optional<uint64_t> ctx = (CheckedBytes(spec.max_position_tokens) * streams).value();
    if (!ctx) {
      return Error::overflow("ctx_size: the training context times the streams passes 64 bits");
    }
    s.ctx_size = *ctx;
  }
  // The context's n_outputs_max (llama.cpp #23861, kept by #23988:
  // tools/server/server-context.cpp, server_n_outputs_max, later
  // server_output_limits): n_batch for --embedding, whose every token is an
  // output; else the slots times one row and the speculative draft's
  // tokens, at most n_batch. memfit takes no --draft-max, so a run with a
  // draft keeps n_batch (every row: the larger). llama_context honours it
  // from b9460 (LlamaCppContext::n_outputs_max).
  const bool draft = s.extras.draft != nullptr || !s.extras.draft_path.empty();
  s.outputs_max = s.embedding || draft ? 0 : s.parallel;
  // The server's host-side extras at their defaults unless given.
  if (!s.extras.cache_ram_mib) s.extras.cache_ram_mib = kLlamaServerCacheRamMib;
  if (!s.extras.ctx_checkpoints) s.extras.ctx_checkpoints = kLlamaServerCtxCheckpoints;
  return Status::Ok();
}

std::vector<std::string> llama_server_flags(const ModelSpec& spec, const LlamaCppSettings& s) {
  const LlamaCppSettings defaults;
  const uint64_t ctx = s.ctx_size != 0 ? s.ctx_size : spec.max_position_tokens;
  std::vector<std::string> flags = {"-c", std::to_string(ctx), "-np", std::to_string(s.parallel)};
  auto add = [&flags](std::string flag, std::string value) {
    flags.push_back(std::move(flag));
    flags.push_back(std::move(value));
  };
  if (s.batch_size != defaults.batch_size) add("-b", std::to_string(s.batch_size));
  if (s.ubatch_size != defaults.ubatch_size) add("-ub", std::to_string(s.ubatch_size));
  if (s.cache_type_k != defaults.cache_type_k) add("-ctk", std::string(ggml_type_traits(s.cache_type_k).name));
  if (s.cache_type_v != defaults.cache_type_v) add("-ctv", std::string(ggml_type_traits(s.cache_type_v).name));
  if (s.flash_attn != defaults.flash_attn) add("-fa", std::string(to_string(s.flash_attn)));
  if (s.swa_full) flags.emplace_back("--swa-full");
  if (s.kv_unified) flags.emplace_back("--kv-unified");
  if (s.embedding) flags.emplace_back("--embedding");
  if (s.embedding && !s.pooling.empty()) add("--pooling", s.pooling);
  if (s.extras.mmproj) add("--mmproj", s.extras.mmproj->path);
  if (s.extras.mmproj && !s.extras.mmproj_offload) flags.emplace_back("--no-mmproj-offload");
  for (const LlamaCppLora& lora : s.extras.loras) add("--lora", lora.path);
  if (s.extras.draft) {
    add("-md", s.extras.draft_path);
    if (s.extras.draft_n_gpu_layers) add("-ngld", std::to_string(*s.extras.draft_n_gpu_layers));
    if (s.extras.draft_cache_type_k != GgmlType::kF16) {
      add("-ctkd", std::string(ggml_type_traits(s.extras.draft_cache_type_k).name));
    }
    if (s.extras.draft_cache_type_v != GgmlType::kF16) {
      add("-ctvd", std::string(ggml_type_traits(s.extras.draft_cache_type_v).name));
    }
  }
  if (s.extras.cache_ram_mib && *s.extras.cache_ram_mib != kLlamaServerCacheRamMib) {
    add("--cache-ram", std::to_string(*s.extras.cache_ram_mib));
  }
  if (s.extras.ctx_checkpoints && *s.extras.ctx_checkpoints != kLlamaServerCtxCheckpoints) {
    add("--ctx-checkpoints", std::to_string(*s.extras.ctx_checkpoints));
  }
  // The placement, when there are GPUs: -ngl as a number (an explicit
  // -ngl also keeps llama-server's --fit from choosing layers itself) and
  // -ts as the split the plan used, so the server does not re-read free
  // memory.
  const LlamaCppPlacementSettings& p = s.placement;
  if (p.gpus.empty()) return flags;
  const uint64_t slots = spec.layers.size() + spec.nextn_layers + 1;
  add("-ngl", std::to_string(std::min(p.n_gpu_layers.value_or(slots), slots)));
  if (p.n_cpu_moe > 0) add("--n-cpu-moe", std::to_string(p.n_cpu_moe));
  for (const LlamaCppTensorOverride& o : p.overrides) {
    add("-ot", o.pattern + "=" + (o.gpu ? fmt::format("CUDA{}", *o.gpu) : std::string("CPU")));
  }
  if (p.split_mode != SplitMode::kLayer) add("-sm", std::string(to_string(p.split_mode)));
  if (p.gpus.size() > 1 && p.split_mode != SplitMode::kNone) {
    std::string ts;
    for (size_t g = 0; g < p.gpus.size(); ++g) {
      const double v = g < p.tensor_split.size() && !p.tensor_split.empty()
                           ? p.tensor_split[g]
                           : static_cast<double>(p.gpus[g].free_bytes) / static_cast<double>(1ull << 30);
      ts += fmt::format("{}{}", g == 0 ? "" : ",", std::round(v * 100) / 100);
    }
    add("-ts", ts);
  }
  if (p.main_gpu != 0) add("-mg", std::to_string(p.main_gpu));
  if (!p.mmap) flags.emplace_back("--no-mmap");
  if (p.mlock) flags.emplace_back("--mlock");
  if (!p.kv_offload) flags.emplace_back("-nkvo");
  return flags;
}

std::string llama_server_command(std::string_view model_path, const ModelSpec& spec,
                                 const LlamaCppSettings& s) {
  std::vector<std::string> flags = llama_server_flags(spec, s);
  auto has = [&flags](std::string_view flag) {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
  };
  if (!has("-fa")) flags.insert(flags.end(), {"-fa", std::string(to_string(s.flash_attn))});
  if (!has("-ctk")) flags.insert(flags.end(), {"-ctk", std::string(ggml_type_traits(s.cache_type_k).name)});
  if (!has("-ctv")) flags.insert(flags.end(), {"-ctv", std::string(ggml_type_traits(s.cache_type_v).name)});
  std::string out = "llama-server -m " + shell_word(model_path);
  for (const std::string& f : flags) out += " " + shell_word(f);
  return out;
}

}  // namespace memfit
