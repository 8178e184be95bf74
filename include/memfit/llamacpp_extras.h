// What else a real llama-server holds besides the model's own three
// categories (docs/llamacpp-rules.md, "Server extras"): each is one line of
// the llama.cpp estimate, on a device of the placement, and adds to that
// device's total and to the estimate's total_bytes.
//
//   mmproj   --mmproj FILE: the multimodal projector's weights (exact, the
//            GGUF header's tensor bytes) and its image-encoding compute
//            buffer (modelled), on the first GPU unless --no-mmproj-offload
//            or there is no GPU, else the host
//   prompt cache      --cache-ram N: the server's host prompt cache, at its
//            limit (N MiB; -1 no limit: modelled as the context's KV and
//            recurrent state; 0 off), on the host
//   context checkpoints   --ctx-checkpoints N: per slot, N copies of the
//            state one sequence cannot roll back (its recurrent state and
//            its sliding-window cells), on the host
//   lora     --lora FILE / --lora-scaled FILE SCALE (repeatable): each
//            adapter's tensor pairs, read into memory (resident), each
//            pair in the buffer of the base tensor it adapts (a CPU_REPACK
//            tensor's on the plain host buffer): per adapter, a line on
//            each device holding some of its pairs (exact)
//   draft    --model-draft FILE: the speculative-decoding draft model as a
//            second llama.cpp context (its weights, KV and compute) on the
//            devices of its own placement (-ngld, -ctkd, -ctvd)
#ifndef MEMFIT_LLAMACPP_EXTRAS_H_
#define MEMFIT_LLAMACPP_EXTRAS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/ggml_types.h"
#include "memfit/gguf.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// A projector file (--mmproj), read from its GGUF header.
struct LlamaCppProjector {
  std::string path;            // as given
  uint64_t weights_bytes = 0;  // every tensor's bytes (exact)
  // The image-encoding compute buffer (modelled; 0 when the header has no
  // clip.vision geometry, compute_modelled false), for one image of
  // image_size, N = (image_size / patch_size)^2 patches:
  //   activations  4 x N x (2 x embedding_length + feed_forward_length)
  //                bytes: a block's f32 input, output and FFN rows;
  //   scores       4 x head_count x N^2 bytes: the f32 attention scores of
  //                every head, materialised only with flash attention off
  //                (clip follows -fa; auto takes it on where supported).
  uint64_t compute_bytes = 0;  // the activations
  uint64_t scores_bytes = 0;   // added when flash attention is off
  bool compute_modelled = false;
};

// The projector of a GGUF header (general.architecture "clip"). kInput
// when the file is not a projector (another architecture), naming `path`;
// kOverflow on absurd sizes.
Result<LlamaCppProjector> llamacpp_projector(const GgufHeader& header, const std::string& path);

// A LoRA adapter file (--lora, --lora-scaled; the scale does not change
// its memory), read from its GGUF header: general.type "adapter",
// adapter.type "lora", and its tensors in pairs "<base>.lora_a" and
// "<base>.lora_b" ("*_norm.weight" tensors are skipped, as llama.cpp does).
struct LlamaCppLoraPair {
  std::string base;  // the base model's tensor it adapts
  std::array<uint64_t, 4> a_ne{1, 1, 1, 1};  // lora_a's ne[0..3]
  std::array<uint64_t, 4> b_ne{1, 1, 1, 1};  // lora_b's ne[0..3]
  uint64_t a_bytes = 0;  // ggml_nbytes of lora_a (exact)
  uint64_t b_bytes = 0;  // and of lora_b
};
struct LlamaCppLora {
  std::string path;                     // as given
  std::string architecture;             // general.architecture ("" when absent)
  std::vector<LlamaCppLoraPair> pairs;  // sorted by base name
};

// The adapter of a GGUF header. kInput naming `path` (one line, llama.cpp's
// words) when general.type is not "adapter", adapter.type is not "lora", a
// tensor is neither of a pair nor a norm ("has unexpected suffix"), or a
// pair misses one of its two tensors.
Result<LlamaCppLora> llamacpp_lora(const GgufHeader& header, const std::string& path);

// The most adapters one request may name: each is a file to read (the
// service reads them for anyone); llama-server itself has no limit.
inline constexpr uint64_t kLlamaCppMaxLoraAdapters = 64;

// llama-server's defaults at the pinned release (common/common.h:
// common_params.cache_ram_mib, n_ctx_checkpoints).
inline constexpr int64_t kLlamaServerCacheRamMib = 8192;
inline constexpr uint64_t kLlamaServerCtxCheckpoints = 32;
// --cache-ram takes an int32: -1 .. 2^31 - 1 MiB.
inline constexpr int64_t kLlamaCppMaxCacheRamMib = 2147483647;

// The extras of a llama-server command line, resolved from their files.
struct LlamaCppExtrasSettings {
  std::optional<LlamaCppProjector> mmproj;  // --mmproj
  std::vector<LlamaCppLora> loras;          // --lora / --lora-scaled, in order given
  bool mmproj_offload = true;               // --no-mmproj-offload clears it
  // --cache-ram N (MiB): -1 no limit, 0 off. nullopt: not a server run
  // (the tools and the library keep no prompt cache), no line;
  // apply_llama_server_rules sets kLlamaServerCacheRamMib.
  std::optional<int64_t> cache_ram_mib;
  // --ctx-checkpoints N, per slot; 0 off. nullopt: not a server run, no
  // line; apply_llama_server_rules sets kLlamaServerCtxCheckpoints.
  std::optional<uint64_t> ctx_checkpoints;
  // --model-draft FILE: a GGUF model opened with its tensors (nullptr:
  // none), and its path as given. Its context takes the main one's
  // settings (-c, -np, -b, -ub, -fa, --swa-full, --kv-unified, -sm, -ts,
  // -mg, --no-mmap, --mlock, -nkvo) but not -ot / --n-cpu-moe.
  std::shared_ptr<const Model> draft;
  std::string draft_path;
  std::optional<uint64_t> draft_n_gpu_layers;          // -ngld; nullopt auto / all
  GgmlType draft_cache_type_k = GgmlType::kF16;        // -ctkd
  GgmlType draft_cache_type_v = GgmlType::kF16;        // -ctvd
};

// "--cache-ram" text: an integer -1 .. kLlamaCppMaxCacheRamMib (MiB).
// kUsage naming `field` otherwise.
Result<int64_t> parse_cache_ram(std::string_view field, std::string_view text);

// One extra as the report shows it.
struct LlamaCppExtraLine {
  std::string name;            // "mmproj weights", "mmproj compute", "LoRA adapter", "prompt cache",
                               // "context checkpoints", "draft model", "draft context", "draft compute"
  std::string file;            // the file it comes from, as given; "" for none
  std::string device;          // a placement device: "cuda:0", ..., "cpu"
  uint64_t bytes = 0;
  bool exact = false;          // false: modelled
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMACPP_EXTRAS_H_
