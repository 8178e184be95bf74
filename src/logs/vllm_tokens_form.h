// Which of its two forms a vLLM log's "GPU KV cache size: N tokens" line
// is in, read from the log's own records (docs/check-log.md, "vLLM").
#pragma once

#include <span>

#include "logs/log_builder.h"
#include "logs/log_text.h"

namespace memfit::logs {

// Sets "kv_tokens_form" to "concurrency_x_len" or "blocks_per_group" when
// the log shows which code printed its first "GPU KV cache size" record;
// sets nothing otherwise (the pricer then goes by the release).
void read_kv_tokens_form(std::span<const LogLine> lines, LogBuilder& out);

}  // namespace memfit::logs
