// "GPU KV cache size: N tokens" has meant two things (vllm/v1/core/
// kv_cache_utils.py). Before vllm-project/vllm#41069 (April 2026) vLLM
// logged num_blocks // groups x the smallest block size, then computed the
// maximum concurrency in the statements below it and logged that: the two
// records name source lines 3 to 5 apart (0.8.5: 634 and 637; 0.16.0: 1307
// and 1312). #41069 computes the concurrency first and logs
// int(concurrency x max_model_len) and the concurrency from two adjacent
// statements: their records name consecutive lines (0.20.2: 1708 and 1709;
// 0.22.1: 1733 and 1734); later releases log both in one record ("GPU KV
// cache size: 1,207,072 tokens, Maximum concurrency for 16,384 tokens per
// request: 73.67x", 0.31.0). The two forms differ for a hybrid model (a
// sliding-window group's request needs only its window's blocks), so the
// log's own records say which form it printed better than its release does:
// the patch release that first carried #41069 is not known here.
#include "logs/vllm_tokens_form.h"

#include <optional>
#include <string_view>

namespace memfit::logs {
namespace {

constexpr std::string_view kTokens = "GPU KV cache size: ";
constexpr std::string_view kConcurrency = "Maximum concurrency for ";

// The source line a record names: "[kv_cache_utils.py:1708] GPU ..." -> 1708.
std::optional<uint64_t> source_line(std::string_view text) {
  std::optional<std::string_view> rest = after(text, "kv_cache_utils.py:");
  return rest ? leading_count(*rest) : std::nullopt;
}

}  // namespace

void read_kv_tokens_form(std::span<const LogLine> lines, LogBuilder& out) {
  size_t i = 0;
  while (i < lines.size() && !contains(lines[i].text, kTokens)) ++i;
  if (i == lines.size()) return;
  if (contains(lines[i].text, kConcurrency)) {
    out.setting("kv_tokens_form", "concurrency_x_len");
    return;
  }
  size_t j = i + 1;
  while (j < lines.size() && !contains(lines[j].text, kConcurrency)) ++j;
  if (j == lines.size()) return;
  const std::optional<uint64_t> tokens = source_line(lines[i].text);
  const std::optional<uint64_t> concurrency = source_line(lines[j].text);
  if (!tokens || !concurrency || *concurrency <= *tokens) return;
  out.setting("kv_tokens_form", *concurrency == *tokens + 1 ? "concurrency_x_len" : "blocks_per_group");
}

}  // namespace memfit::logs
