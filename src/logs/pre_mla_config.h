// The config of a DeepSeek run that a llama.cpp build before MLA (#12801)
// logged: that build ran every deepseek2 GGUF decompressed. Private to
// src/logs.
#ifndef MEMFIT_LOGS_PRE_MLA_CONFIG_H_
#define MEMFIT_LOGS_PRE_MLA_CONFIG_H_

#include <string>
#include <vector>

#include "memfit/log_check.h"

namespace memfit::logs {

// Whether the log's KV cache line says the run could not shift its cache
// ("llama_kv_cache_init: ..., can_shift = 0"). For deepseek2 that dates
// the build between ggml-org/llama.cpp #8501 ("llama : disable
// context-shift for DeepSeek v2", 2024-07) and #12801 ("DeepSeek V2/V3 MLA
// implementation", 2025-04, which "adds context shifting ability (for both
// legacy non-MLA GGUF files and new MLA GGUF files)"): a build with no MLA,
// whose deepseek2 cache holds every head's K and V.
bool deepseek2_cannot_shift(const RuntimeLog& log);

// `config_json` as the run's model: a DeepSeek-V3-architecture config
// (model_type deepseek_v3, with kv_lora_rank) of a run that could not
// shift (deepseek2_cannot_shift) reads as model_type deepseek_v2, memfit's
// decompressed layout, the one a GGUF without the MLA keys gets
// (model/gguf/arch_rules.cc), with a note in `notes`; any other config as
// given. kInput when the config is not a JSON object.
Result<std::string> pre_mla_config(const RuntimeLog& log, const std::string& config_json,
                                   std::vector<std::string>& notes);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_PRE_MLA_CONFIG_H_
