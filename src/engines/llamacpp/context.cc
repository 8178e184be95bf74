// llama_context's constructor (src/llama-context.cpp at v0.4.0), in order:
// n_seq, n_ctx (0 = training context), n_batch from the unpadded n_ctx,
// n_ubatch, n_ctx padded to 256, then cells per stream. See
// docs/llamacpp-rules.md, "Context sizing"; an older build's differences
// (--llamacpp-version) come from releases.cc.
#include <fmt/format.h>

#include <algorithm>

#include "engines/llamacpp/converted_t5.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit {
namespace llamacpp {

bool is_windowed(const LayerCache& layer) {
  return (layer.kind == LayerKind::kSlidingWindow || layer.kind == LayerKind::kChunked) &&
         layer.window_tokens > 0;
}

uint64_t swa_cells(const LlamaCppContext& c, const LlamaCppSettings& s, uint64_t window_tokens) {
  if (full_swa_cache(s)) return c.n_ctx_seq;
  // window x n_seq <= 2^64 / 256 for any window a config can hold is not
  // guaranteed: saturate, then min() with n_ctx_seq keeps it bounded.
  const uint64_t per_stream_window =
      (CheckedBytes(window_tokens) * (one_stream(s) ? c.n_seq : 1) + swa_batch_tokens(c, s))
          .saturated();
  const uint64_t cells = std::min(c.n_ctx_seq, per_stream_window);
  return round_up(cells, cell_pad(s)).saturated();
}

uint64_t reserved_output_rows(const LlamaCppContext& c) {
  const uint64_t tokens = std::min(c.n_ctx, c.n_ubatch);
  return c.n_outputs_max == 0 ? tokens : std::min(tokens, c.n_outputs_max);
}

std::string_view pooling_of(const ModelSpec& spec, const LlamaCppSettings& s) {
  if (!s.embedding) return "";
  return s.pooling.empty() ? std::string_view(spec.embedding.pooling) : std::string_view(s.pooling);
}

}  // namespace llamacpp

Result<LlamaCppContext> resolve_llamacpp_context(const ModelSpec& spec, const LlamaCppSettings& s) {
  if (s.parallel == 0 || s.parallel > kLlamaCppMaxSequences) {
    return Error::usage("parallel", fmt::format("must be 1 to {}, got {}", kLlamaCppMaxSequences,
                                                s.parallel));
  }
  if (s.batch_size == 0) return Error::usage("batch_size", "must be at least 1");
  if (s.ubatch_size == 0) return Error::usage("ubatch_size", "must be at least 1");
  if (s.flash_attn == FlashAttn::kOff && ggml_type_traits(s.cache_type_v).block_elements > 1) {
    return Error::usage("flash_attn",
                        fmt::format("a quantized V cache ({}) needs flash attention: on or auto",
                                    ggml_type_traits(s.cache_type_v).name));
  }
  LlamaCppContext c;
  c.n_seq = s.parallel;
  uint64_t n_ctx = s.ctx_size != 0 ? s.ctx_size : spec.max_position_tokens;
  if (n_ctx == 0) {
    return Error::usage("ctx_size", "the model declares no training context: give one");
  }
  // With causal attention llama_context caps the batch at the context; an
  // encoder's batch is not capped (src/llama-context.cpp).
  c.n_batch = spec.embedding.bidirectional ? s.batch_size : std::min(n_ctx, s.batch_size);
  // A build before #6017 (b2413) had no n_ubatch: its graph ran n_batch.
  c.n_ubatch = !llamacpp::splits_batch(s) ? c.n_batch : std::min(c.n_batch, s.ubatch_size);
  // n_outputs_max: the caller's, from #23861, unless it is 0 or the model
  // has an encoder (llama_model_has_encoder: T5's architectures), else
  // n_batch, which leaves every token of the ubatch an output row.
  const bool encoder = spec.model_type == "t5" || llamacpp::t5_encoder(spec);
  c.n_outputs_max = llamacpp::limits_outputs(s) && s.outputs_max != 0 && !encoder ? s.outputs_max : c.n_batch;
  const uint64_t pad = llamacpp::cell_pad(s);
  CheckedBytes padded = round_up(n_ctx, pad);
  if (!padded.value()) return Error::overflow(fmt::format("a context of {} tokens overflows", n_ctx));
  n_ctx = *padded.value();
  if (llamacpp::one_stream(s)) {
    c.streams = 1;
    c.n_ctx_seq = n_ctx;
    c.n_ctx = n_ctx;
  } else {
    // floor(n_ctx / n_seq) >= 1 when padded to 256 (n_ctx >= 256 >= n_seq);
    // an older build's pad of 32 can leave a sequence no cell.
    c.streams = c.n_seq;
    if (n_ctx < c.n_seq) {
      return Error::usage("ctx_size", fmt::format("{} cells over {} sequences leave none to each",
                                                  n_ctx, c.n_seq));
    }
    c.n_ctx_seq = round_up(n_ctx / c.n_seq, pad).saturated();
    CheckedBytes total = CheckedBytes(c.n_ctx_seq) * c.n_seq;
    if (!total.value()) return Error::overflow(fmt::format("a context of {} tokens overflows", n_ctx));
    c.n_ctx = *total.value();
  }
  for (const LayerCache& layer : spec.layers) {
    if (llamacpp::is_windowed(layer)) {
      c.swa_cells = std::max(c.swa_cells, llamacpp::swa_cells(c, s, layer.window_tokens));
    }
  }
  // auto starts on and the CPU backend keeps it on; a GPU that cannot run a
  // layer's FLASH_ATTN_EXT turns it off at run time, which memfit takes
  // where a log says so (flash_attn_auto_on).
  c.flash_attn = s.flash_attn == FlashAttn::kOn ||
                 (s.flash_attn == FlashAttn::kAuto && s.flash_attn_auto_on.value_or(true));
  c.v_trans = s.flash_attn == FlashAttn::kOff;
  return c;
}

}  // namespace memfit
