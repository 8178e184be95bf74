// --llamacpp-version: which llama.cpp build's cache rules price the
// estimate, and those rules where builds differ (docs/engine-llamacpp.md,
// "Releases"). A build is llama.cpp's release tag bNNNN: the count of
// commits on master (LLAMA_BUILD_NUMBER), printed as "build: 5361 (...)".
#include <fmt/format.h>

#include <charconv>

#include "engines/llamacpp/parts.h"
#include "memfit/llamacpp.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr size_t kMaxBuildDigits = 7;

// #6122: the output buffer holds n_seq_max rows of logits, not n_batch.
// Its thread dates it: "it works until build b2536" (2024-03-28, posted
// on b2554), and b2459's logs print n_batch rows (62.50 MiB for 32,000
// tokens x 512 x 4 B).
constexpr uint64_t kOutputPerSeqBuild = 2537;  // b12059 has 5; nothing near 10^7 is a build

bool before(const LlamaCppSettings& s, uint64_t first_build) {
  return s.build && *s.build < first_build;
}

}  // namespace

Result<uint64_t> parse_llamacpp_build(std::string_view text) {
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == 'b' || digits.front() == 'B')) digits.remove_prefix(1);
  uint64_t build = 0;
  const char* end = digits.data() + digits.size();
  const auto [at, ec] = std::from_chars(digits.data(), end, build);
  if (digits.empty() || digits.size() > kMaxBuildDigits || ec != std::errc() || at != end ||
      build == 0) {
    return Error::usage("llamacpp_version",
                        fmt::format("{}: expected a build number, e.g. b6500",
                                    quote_untrusted(text)));
  }
  return build;
}

namespace llamacpp {

bool full_swa_cache(const LlamaCppSettings& s) {
  return s.swa_full || before(s, kLlamaCppSwaWindowBuild);
}

bool one_stream(const LlamaCppSettings& s) {
  return s.kv_unified || before(s, kLlamaCppStreamsBuild);
}

uint64_t swa_batch_tokens(const LlamaCppContext& c, const LlamaCppSettings& s) {
  return before(s, kLlamaCppSwaUbatchBuild) ? c.n_batch : c.n_ubatch;
}

uint64_t cell_pad(const LlamaCppSettings& s) {
  const bool pad32 = s.build && *s.build <= kLlamaCppLastPad32Build;
  return pad32 && s.flash_attn == FlashAttn::kOff ? 32 : kLlamaCppCellPad;
}

uint64_t output_rows(const LlamaCppContext& c, const LlamaCppSettings& s) {
  return before(s, kOutputPerSeqBuild) ? c.n_batch : c.n_seq;
}

}  // namespace llamacpp
}  // namespace memfit
