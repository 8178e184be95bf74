// The exact part of llama.cpp's context memory: the KV cache
// (src/llama-kv-cache.cpp), the recurrent state
// (src/llama-memory-recurrent.cpp) and the output buffer
// (llama_context::output_reserve). See docs/llamacpp-rules.md.
//
// Per layer with KV:  row(type_k, K width) x cells x streams
//                   + row(type_v, V width) x cells x streams   (no V for MLA)
// where an attention layer's elems_per_token is K + V of equal widths, an
// MLA layer's the one latent row (K only; V is a view of it; a build
// before #19067 also caches V, kv_lora_rank wide: mla_caches_v), and an MLA
// layer cached decompressed (a deepseek2 GGUF without the MLA keys, which
// llama.cpp runs as multi-head attention since #12801 kept that path) K of
// n_head x (qk_nope + qk_rope) beside V of n_head x v_head_dim
// (k_row_elems, v_row_elems: memfit/model_spec.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

bool has_attention_kv(LayerKind kind) {
  return kind == LayerKind::kFullAttention || kind == LayerKind::kSlidingWindow ||
         kind == LayerKind::kChunked;
}

// A layer with a K and a V tensor: attention, or MLA cached decompressed
// (llama_hparams::is_mla() false: both tensors, llama_kv_cache's has_v).
bool caches_k_and_v(const LayerCache& l) { return has_attention_kv(l.kind) || is_decompressed_mla(l); }

// An MLA layer caching its latent alone (is_mla(): no V tensor).
bool caches_latent(const LayerCache& l) { return l.kind == LayerKind::kMlaLatent && !is_decompressed_mla(l); }

// Bytes of one row of `elements` at `type`; kUsage naming `field` when the
// row is not a whole number of the type's blocks.
Result<uint64_t> row_bytes(GgmlType type, uint64_t elements, std::string_view field) {
  const std::array<uint64_t, 1> dims = {elements};
  Result<uint64_t> bytes = ggml_tensor_bytes(type, dims);
  if (!bytes && bytes.error().kind() == ErrorKind::kOverflow) return bytes.error();
  if (!bytes) return Error::usage(field, bytes.error().message());
  return bytes;
}

// Whether the KV cache leaves the NextN/MTP blocks out
// (llama_model::create_memory's layer filter): at v0.4.0 five
// architectures'; from v0.5.0 every model's (filters_every_nextn); GLM-4.5's
// in a build before b7848 too (glm4moe_filters_nextn: n_layer_kv_from_start),
// named glm4moe by a GGUF (a dump rebuilt) and glm4_moe by a config.
bool filters_nextn(std::string_view arch, const LlamaCppSettings& s) {
  const bool glm45 = arch == "glm4moe" || arch == "glm4_moe";
  return filters_every_nextn(s) || arch == "step35" || arch == "hy_v3" || arch == "glm-dsa" ||
         arch == "mimo2" || arch == "deepseek32" || (glm45 && glm4moe_filters_nextn(s));
}

Error overflow(std::string_view what) {
  return Error::overflow(fmt::format("llama.cpp {} overflows 64 bits: the request or the config is absurd", what));
}

// Without flash attention the V cache is transposed and every V row is
// padded to the widest layer's (TAG_V_CACHE_VARIABLE); auto creates the
// cache untransposed, so only an explicit "off" pads.
uint64_t widest_v_row(const ModelSpec& spec) {
  uint64_t widest_v = 0;
  for (const LayerCache& l : spec.layers) {
    if (caches_k_and_v(l)) widest_v = std::max(widest_v, v_row_elems(l));
  }
  return widest_v;
}

// The K and V caches' totals, added to layer by layer.
class KvTotals {
 public:
  KvTotals(const ModelSpec& spec, const LlamaCppContext& c, const LlamaCppSettings& s)
      : c_(c), s_(s), widest_v_(widest_v_row(spec)) {}

  // Adds `count` layers like `l` (an attention or MLA layer); `each` gets
  // one layer's bytes.
  Status add(const LayerCache& l, uint64_t count, uint64_t& each, MemoryParts& parts) {
    const uint64_t cells = is_windowed(l) ? swa_cells(c_, s_, l.window_tokens) : c_.n_ctx_seq;
    const CheckedBytes slots = CheckedBytes(cells) * c_.streams * count;
    Result<uint64_t> k_row = row_bytes(s_.cache_type_k, k_row_elems(l), "cache_type_k");
    if (!k_row) return k_row.error();
    k_total_ += slots * *k_row;
    CheckedBytes one = CheckedBytes(cells) * c_.streams * *k_row;
    CheckedBytes row = *k_row;
    // V's width: an attention layer's own (the widest without flash
    // attention), a latent's kv_lora_rank where the build caches it
    // (every MLA layer of a model alike, so no padding), else none.
    uint64_t v_width = 0;
    if (caches_k_and_v(l)) {
      v_width = s_.flash_attn == FlashAttn::kOff ? widest_v_ : v_row_elems(l);
    } else if (caches_latent(l) && mla_caches_v(s_)) {
      v_width = l.latent_elems;
    }
    if (v_width > 0) {
      Result<uint64_t> v_row = row_bytes(s_.cache_type_v, v_width, "cache_type_v");
      if (!v_row) return v_row.error();
      v_total_ += slots * *v_row;
      one += CheckedBytes(cells) * c_.streams * *v_row;
      row += *v_row;
    }
    // A windowed layer's cells stop at its window: only the others grow
    // with the context.
    if (!is_windowed(l) || full_swa_cache(s_)) per_token_ += row * count;
    each = one.saturated();  // the totals above fail on overflow
    parts.kv_layers = (CheckedBytes(parts.kv_layers) + count).saturated();
    return Status::Ok();
  }

  const CheckedBytes& k_total() const { return k_total_; }
  const CheckedBytes& v_total() const { return v_total_; }
  const CheckedBytes& per_token() const { return per_token_; }

 private:
  const LlamaCppContext& c_;
  const LlamaCppSettings& s_;
  uint64_t widest_v_;
  CheckedBytes k_total_ = 0;
  CheckedBytes v_total_ = 0;
  CheckedBytes per_token_ = 0;  // K + V rows of the layers that grow with the context
};

// What one sequence of a windowed layer keeps in the SWA cache, at most:
// its K and V rows for min(n_ctx_seq, window + n_ubatch) cells.
Result<CheckedBytes> windowed_seq_bytes(const LayerCache& l, const LlamaCppContext& c,
                                        const LlamaCppSettings& s) {
  const uint64_t cells = std::min(c.n_ctx_seq, (CheckedBytes(l.window_tokens) + c.n_ubatch).saturated());
  Result<uint64_t> k_row = row_bytes(s.cache_type_k, k_row_elems(l), "cache_type_k");
  if (!k_row) return k_row.error();
  Result<uint64_t> v_row = row_bytes(s.cache_type_v, v_row_elems(l), "cache_type_v");
  if (!v_row) return v_row.error();
  return CheckedBytes(cells) * (CheckedBytes(*k_row) + *v_row).saturated();
}

// The NextN/MTP blocks after the decoder layers keep a KV cache like the
// last decoder layer's, never windowed, unless the architecture filters
// them out or the model is recurrent or hybrid (whose memory filters them).
Status add_nextn_kv(const ModelSpec& spec, const LlamaCppSettings& s, KvTotals& kv, MemoryParts& parts) {
  const bool recurrent_model = parts.recurrent_layers > 0;
  if (spec.nextn_layers == 0 || recurrent_model || filters_nextn(spec.model_type, s)) return Status::Ok();
  auto last = std::find_if(spec.layers.rbegin(), spec.layers.rend(), [](const LayerCache& l) {
    return caches_k_and_v(l) || caches_latent(l);
  });
  if (last == spec.layers.rend()) return Status::Ok();
  LayerCache nextn = *last;
  if (nextn.kind != LayerKind::kMlaLatent) nextn.kind = LayerKind::kFullAttention;
  nextn.window_tokens = 0;
  return kv.add(nextn, spec.nextn_layers, parts.nextn_layer_bytes, parts);
}

Result<MemoryParts> memory_parts_of(const ModelSpec& spec, const LlamaCppContext& c,
                                    const LlamaCppSettings& s) {
  MemoryParts parts;
  KvTotals kv(spec, c, s);
  CheckedBytes recurrent_total = 0;
  parts.layer_bytes.assign(spec.layers.size(), 0);
  CheckedBytes seq_partial = 0;
  for (size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerCache& l = spec.layers[i];
    if (is_recurrent(l.kind)) seq_partial += l.state_bytes;
    if (is_windowed(l) && !full_swa_cache(s)) {
      Result<CheckedBytes> kept = windowed_seq_bytes(l, c, s);
      if (!kept) return kept.error();
      seq_partial += *kept;
    }
    if (is_recurrent(l.kind)) {
      const CheckedBytes state = CheckedBytes(l.state_bytes) * c.n_seq;
      recurrent_total += state;
      parts.layer_bytes[i] = state.saturated();
      ++parts.recurrent_layers;
      continue;
    }
    if (!caches_k_and_v(l) && !caches_latent(l)) continue;
    if (Status added = kv.add(l, 1, parts.layer_bytes[i], parts); !added.ok()) return added.error();
  }
  if (Status added = add_nextn_kv(spec, s, kv, parts); !added.ok()) return added.error();
  // output_reserve: n_vocab logits a row always, n_embd embeddings too
  // with --embedding; n_seq rows at start-up, and with --embedding every
  // token of a batch is an output, so the first full batch reserves
  // n_batch rows (docs/engine-llamacpp.md, "Releases": before b2537 n_batch
  // rows without it too).
  // Before #14208 (logits_beside_embeddings) --embedding kept no logits,
  // and its n_embd floats only without pooling (a pooled run's vectors
  // live in embd_seq, not in this buffer).
  // A context that asks for embeddings without --embedding (Ollama's runner,
  // output_embeddings) keeps its rows and logits and adds n_embd floats a
  // row: since #14208 has_embd = cparams.embeddings; before it, Ollama's
  // 0003-embeddings.patch gave has_embd = embeddings && pooling NONE (the
  // model's own pooling: a generation model has none).
  const uint64_t rows = s.embedding ? std::max(c.n_batch, c.n_seq) : output_rows(c, s);
  const bool reworked = logits_beside_embeddings(s);
  const std::string_view pooling = pooling_of(spec, s);
  const bool has_logits = !s.embedding || reworked;
  const bool has_embd = (s.embedding && (reworked || pooling.empty() || pooling == "none")) ||
                        keeps_output_embeddings(spec, s);
  const CheckedBytes width = CheckedBytes(has_logits ? spec.geometry.vocab : 0) +
                             (has_embd ? spec.geometry.hidden : 0);
  CheckedBytes output = CheckedBytes(4) * rows * width;
  if (!kv.k_total().value() || !kv.v_total().value()) return overflow("KV cache");
  if (!recurrent_total.value()) return overflow("recurrent state");
  if (!output.value()) return overflow("output buffer");
  parts.k_bytes = *kv.k_total().value();
  parts.v_bytes = *kv.v_total().value();
  parts.kv_bytes_per_token = kv.per_token().saturated();  // at most k + v, checked above
  parts.recurrent_bytes = *recurrent_total.value();
  parts.output_bytes = *output.value();
  if (!seq_partial.value()) return overflow("checkpoint state");
  parts.seq_partial_bytes = *seq_partial.value();
  parts.input_bytes = input_buffer_bytes(spec, c, s);
  return parts;
}

}  // namespace

bool is_recurrent(LayerKind kind) {
  return kind == LayerKind::kSsm || kind == LayerKind::kLinearAttention ||
         kind == LayerKind::kConv;
}

// #5100's ctx_input, as llama_new_context_with_model made it from #5100
// until #6017 (b2413) allocated the inputs in the graph: eight tensors
// (ggml_tensor_overhead() x 8), whatever the architecture, sized by the
// context's n_batch and n_ctx, in the host's buffer (32 B alignment). The
// figures of the logs of early 2024 are these sums: n_embd 4096, n_ctx
// 2048, n_batch 512 prints 13.02 MiB (8 MiB rows + 4 MiB mask + 1 MiB mean
// + 22 KiB of ids, positions, ALiBi positions and shifts). The builds
// before the pooling inputs (mean, CLS) and ALiBi positions printed about
// 1 MiB less (7.26 MiB for n_embd 3200 at n_ctx 512): not told apart, so
// priced high there.
uint64_t input_buffer_bytes(const ModelSpec& spec, const LlamaCppContext& c, const LlamaCppSettings& s) {
  if (!separate_input_buffer(s)) return 0;
  const uint64_t align = kCpuTensorAlignment;
  const uint64_t batch = c.n_batch;
  CheckedBytes bytes = round_up(CheckedBytes(4) * batch, align);             // inp_tokens (i32)
  bytes += round_up(CheckedBytes(4) * spec.geometry.hidden * batch, align);  // inp_embd (f32)
  bytes += round_up(CheckedBytes(4) * batch, align);                         // inp_pos (i32)
  bytes += round_up(CheckedBytes(4) * c.n_ctx * batch, align);               // inp_KQ_mask (f32)
  bytes += round_up(CheckedBytes(4) * c.n_ctx, align);                       // inp_KQ_pos (f32)
  bytes += round_up(CheckedBytes(4) * c.n_ctx, align);                       // inp_K_shift (i32)
  bytes += round_up(CheckedBytes(4) * batch * batch, align);                 // inp_mean (f32)
  bytes += round_up(CheckedBytes(4) * batch, align);                         // inp_cls (i32)
  return bytes.saturated();
}

Result<MemoryParts> memory_parts(const ModelSpec& spec, const LlamaCppContext& c,
                                 const LlamaCppSettings& s) {
  // Only a latent cache ties the types: decompressed layers keep a K and a
  // V of their own types, as any attention layer (ggml-org/llama.cpp #9390's
  // DeepSeek-R1 run, q4_0 K beside f16 V, before #12801).
  const bool mla = std::any_of(spec.layers.begin(), spec.layers.end(), caches_latent);
  if (mla && s.cache_type_k != s.cache_type_v) {
    return Error::usage("cache_type_v", "an MLA model's K and V cache types must be equal");
  }

  // A build before #13108 caches an encoder's layers as a decoder's
  // (encoder_kv_cache): K and V of kv_heads x head_dim each.
  const bool encoder_cache = spec.embedding.bidirectional && encoder_kv_cache(s);
  const ModelSpec* priced = &spec;
  ModelSpec cached;
  if (encoder_cache) {
    cached = spec;
    for (LayerCache& l : cached.layers) {
      if (l.kind != LayerKind::kNone) continue;
      l.kind = LayerKind::kFullAttention;
      l.elems_per_token = (CheckedBytes(2) * spec.geometry.kv_heads * spec.geometry.head_dim).saturated();
    }
    priced = &cached;
  }
  return memory_parts_of(*priced, c, s);
}

}  // namespace memfit::llamacpp
