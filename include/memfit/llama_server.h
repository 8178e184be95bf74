// llama-server, as the llama.cpp profile (llamacpp.h) meets it: the rules
// in which the server differs from the other tools whose defaults
// LlamaCppSettings holds, and the server's command line for a setting.
// Pure functions (docs/llamacpp-rules.md, "Context sizing").
#ifndef MEMFIT_LLAMA_SERVER_H_
#define MEMFIT_LLAMA_SERVER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// llama-server's --parallel default is "auto": this many slots sharing
// one unified KV cache (tools/server/server.cpp).
inline constexpr uint64_t kLlamaServerAutoSlots = 4;

// Turns settings read with the tools' defaults into what llama-server
// allocates for the same command line:
//   --parallel not given (`parallel_given` false): kLlamaServerAutoSlots
//     slots and kv_unified on;
//   --ctx-size 0: the training context for every stream (the server's
//     default --fit on sizes it so: n_ctx_train x streams, where streams is
//     1 with a unified cache and --parallel otherwise; for a build given
//     from v0.5.0, b11300, x the slots, the unified cache too);
//   --cache-ram and --ctx-checkpoints not given: the server's defaults
//     (kLlamaServerCacheRamMib, kLlamaServerCtxCheckpoints);
//   outputs_max: the slots (llama.cpp #23861: the prompt graph is reserved
//     for one output row a slot), 0 (n_batch) with --embedding or a draft
//     model. llama-cli loads its model through the same server context.
// kOverflow when the training context times the streams passes 64 bits; a
// model that declares no training context keeps ctx_size 0 (the estimate
// then refuses it, naming ctx_size).
Status apply_llama_server_rules(const ModelSpec& spec, bool parallel_given, LlamaCppSettings& settings);

// The llama-server arguments that reproduce `settings`, as separate argv
// words: "-c N" always (a ctx_size of 0 written as the training context,
// which the server would otherwise multiply by the streams), "-np N"
// always (the server's default is auto, not the tools' 1), then only what
// differs from the defaults: -b, -ub, -ctk, -ctv, -fa, --swa-full,
// --kv-unified, --mmproj FILE, --no-mmproj-offload, --lora FILE for each
// adapter (a --lora-scaled one too: its scale changes no memory), --cache-ram N and
// --ctx-checkpoints N (when set and not the server's default).
std::vector<std::string> llama_server_flags(const ModelSpec& spec, const LlamaCppSettings& settings);

// The whole command line a user pastes: "llama-server -m FILE" (`model_path`
// single-quoted for a POSIX shell when it holds anything but letters,
// digits and ._/+-,=:), then llama_server_flags(), then -fa, -ctk and -ctv
// even at their defaults, so that the line says which attention and KV
// cache types the figures assume.
std::string llama_server_command(std::string_view model_path, const ModelSpec& spec,
                                 const LlamaCppSettings& settings);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_LLAMA_SERVER_H_
