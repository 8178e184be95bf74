// The compute buffer, modelled (llamacpp/parts.h): llama.cpp sizes it by
// allocating the worst-case prompt graph, and its allocator frees tensors
// after their last use, so the buffer is the largest phase's live tensors.
// memfit takes the largest of the output, attention and FFN phases (and
// keeps the input rows a host that runs no layer holds). Each phase's bytes,
// why, and how close they came on the pinned library:
// docs/llamacpp-rules.md, "Compute buffers (modelled)".
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/host_attention.h"
#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

// What the phases read from the model and the context.
struct GraphShape {
  uint64_t n_out = 0;     // output rows: reserved_output_rows, min(n_ctx, n_ubatch, n_outputs_max)
  CheckedBytes n_tok;     // tokens: min(n_ctx, n_ubatch) rounded up to a multiple of n_seq
  bool attention = false;  // some layer attends over a KV cache
  uint64_t latent = 0;    // MLA: the cached latent row's width; 0 without MLA
  // MLA in a build before #19067 (mla_caches_v): the V tensor's row, the
  // latent's kv_lora_rank; 0 where V is a view of the latent K.
  uint64_t latent_v = 0;
  uint64_t n_kv = 0;      // the largest cells per stream of any attention layer
  CheckedBytes heads_q;   // heads x the query width (MLA: the latent)
  CheckedBytes heads_d;   // heads x head_dim (decompressed MLA: heads x v_head_dim)
  CheckedBytes kv_k;      // one token's K row: kv_heads x head_dim
  CheckedBytes kv_v;      // one token's V row: kv_heads x head_dim
  // The graph ends in the vocabulary's logits; an encoder's (BERT) has no
  // output head and ends in its hidden states.
  bool logits = true;
  // BERT's absolute position embeddings: the host gathers their rows
  // (get_rows of position_embd, an input-layer tensor) beside the token
  // rows; Jina's BERT v2 (ALiBi) has none.
  bool position_rows = false;
  // Mean pooling's input matrix (llama-graph.cpp's build_inp_mean): f32,
  // n_tokens x the batch's sequences, at most n_seq in the reserved graph.
  CheckedBytes pooling_bytes;
  // The vector-input path's `inp_embd` is in the graph, never freed (the
  // pinned build; a build before #18898 has the token path alone).
  bool input_leaf = true;
  // The final norm is a LayerNorm that takes a block of its own below the
  // logits (a build before #18898, an architecture measured so).
  bool fresh_final_norm = false;
  // The KV store's index inputs (set_rows_kv_store): how many caches take
  // them (an ISWA model's two, else one) and the I64 indices each holds:
  // k_idxs n_tok, v_idxs n_tok, or n_tok x n_embd_v_gqa where V is stored
  // transposed (no flash attention); 0 without set_rows or attention.
  uint64_t kv_stores = 0;
  CheckedBytes v_idx_elems;
  // An ISWA model (windowed and full attention layers): the SWA cache's
  // cells, the columns of its own mask input beside the full one's
  // (llama-graph.cpp, build_attn_inp_kv_iswa: self_kq_mask and
  // self_kq_mask_swa); 0 otherwise.
  uint64_t n_kv_swa = 0;
  // Bytes an element of the host's KQ mask inputs (input_phase): 2 under
  // flash attention from #23764 ("llama: use f16 mask for FA to save VRAM",
  // b9444: the mask is reserved F16, no F32 input and cast), else 4 (F32).
  uint64_t mask_elem = 4;
  // The graph inputs live in a buffer of their own (a build before #6017,
  // separate_input_buffer), not in the host's compute buffer.
  bool inputs_apart = false;
  // The graph of a build before #6122 (early_graph_phases): the phases
  // below take its live tensors.
  bool early_graph = false;
  // A dense SwiGLU FFN of a build before #14158 (split_glu_in_place): SiLU
  // and the product with the up projection run in place.
  bool split_glu = false;
  bool mla() const { return latent > 0; }
};

// The architectures whose graph ends in a LayerNorm (build_norm with
// LLM_NORM: ggml_norm, which ggml-alloc does not run in place, then the
// weight and bias in place), measured on the llama.cpp Ollama vendors
// (ec98e2002, before #18898) rebuilt from its sources, CPU, flash
// attention: the norm takes a block of its own at the bottom of the
// buffer, which the freed inputs left, and the logits go right above it,
// so the output phase is the logits and result_norm alone. Phi-2 104.00
// MiB at 2048 and 4096 cells (the corpus log's figure), 103.25 MiB at
// hidden 2560, 51.62 MiB at U 256; GPT-NeoX (hidden 2048, vocabulary
// 50,304) 102.25 MiB. The other LLM_NORM graphs (gpt2, starcoder, falcon,
// bloom, mpt, stablelm, ...) were not measured and keep the tail.
// Both spellings: a GGUF's architecture and a config.json's model_type
// (model/gguf/arch_rules.cc pairs them).
bool layer_norm_output(std::string_view model_type) {
  return model_type == "phi2" || model_type == "phi" || model_type == "gptneox" ||
         model_type == "gpt_neox";
}

GraphShape graph_shape(const ModelSpec& spec, const LlamaCppContext& c, const LlamaCppSettings& s) {
  const ModelGeometry& g = spec.geometry;
  GraphShape sh;
  // The prompt graph's tokens, rounded up to whole sequences
  // (graph_reserve), and its output rows (#23861 caps them from b9460).
  sh.n_tok = round_up(std::min(c.n_ctx, c.n_ubatch), c.n_seq);
  sh.n_out = reserved_output_rows(c);
  sh.input_leaf = vector_input_leaf(s);
  sh.inputs_apart = separate_input_buffer(s);
  sh.early_graph = early_graph_phases(s);
  sh.split_glu = split_glu_in_place(s);
  // A build known to be b9444 or later; with none (the pinned rules) the
  // host keeps the F32 mask: the corpus's logs that name no build and are
  // priced by the pinned rules (a fork's build of 2026-05-14, a Metal run,
  // Ollama's own engine, which builds its own F32 mask and casts it) print
  // it.
  sh.mask_elem = c.flash_attn && s.build && !f32_mask_cast(s) ? 2 : 4;
  if (spec.embedding.bidirectional) {
    // Every token attends to every token of its batch, and there is no
    // cache: the scores span the batch itself.
    sh.attention = true;
    sh.n_kv = std::min(c.n_ctx, c.n_ubatch);
    sh.logits = false;
    sh.position_rows = spec.model_type == "bert" && spec.family != "jina_bert_v2";
  }
  // build_inp_mean: f32 n_tok x n_seqs_unq; n_tok x n_tok in the builds
  // before the embeddings rework (square_mean_matrix).
  if (pooling_of(spec, s) == "mean") {
    sh.pooling_bytes = CheckedBytes(4) * sh.n_tok * (square_mean_matrix(s) ? sh.n_tok : c.n_seq);
  }
  // A decompressed MLA layer is multi-head attention with K heads of
  // qk_nope + qk_rope and V heads of v_head_dim (the query as wide as K).
  const LayerCache* decompressed = nullptr;
  for (const LayerCache& l : spec.layers) {
    if (is_decompressed_mla(l)) {
      decompressed = &l;
    } else if (l.kind == LayerKind::kMlaLatent) {
      sh.latent = std::max(sh.latent, l.elems_per_token);
      if (mla_caches_v(s)) sh.latent_v = std::max(sh.latent_v, l.latent_elems);
    }
    if (is_windowed(l)) {
      sh.attention = true;
      sh.n_kv = std::max(sh.n_kv, c.swa_cells);
    } else if (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
               l.kind == LayerKind::kChunked || l.kind == LayerKind::kMlaLatent) {
      sh.attention = true;
      sh.n_kv = std::max(sh.n_kv, c.n_ctx_seq);
    }
  }
  sh.fresh_final_norm = !sh.input_leaf && layer_norm_output(spec.model_type);
  const bool windowed = std::any_of(spec.layers.begin(), spec.layers.end(),
                                    [](const LayerCache& l) { return is_windowed(l); });
  const bool full = std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerCache& l) {
    return !is_windowed(l) && (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kMlaLatent);
  });
  if (windowed && full) sh.n_kv_swa = c.swa_cells;
  if (sh.attention && !spec.embedding.bidirectional && set_rows_kv_store(s)) {
    sh.kv_stores = windowed && full ? 2 : 1;
    // MLA stores its latent through k_idxs alone (V is a view of it); a
    // build before #19067 stores its V tensor too, kv_lora_rank wide.
    const CheckedBytes v_row = sh.mla() ? CheckedBytes(sh.latent_v) : CheckedBytes(g.kv_heads) * g.head_dim;
    sh.v_idx_elems = sh.mla() && sh.latent_v == 0 ? CheckedBytes(0)
                     : !c.v_trans                 ? sh.n_tok
                                                  : sh.n_tok * v_row;
  }
  const CheckedBytes q_width = sh.mla() ? sh.latent : g.head_dim;
  sh.heads_q = CheckedBytes(g.heads) * q_width;
  sh.heads_d = CheckedBytes(g.heads) * g.head_dim;
  sh.kv_k = CheckedBytes(g.kv_heads) * g.head_dim;
  sh.kv_v = sh.kv_k;
  if (decompressed != nullptr && !sh.mla()) {
    sh.heads_q = k_row_elems(*decompressed);
    sh.heads_d = v_row_elems(*decompressed);
    sh.kv_k = k_row_elems(*decompressed);
    sh.kv_v = v_row_elems(*decompressed);
  }
  return sh;
}

// The input rows: inp_embd, the f32 get_rows of the token embeddings.
CheckedBytes input_rows(const ModelGeometry& g, const GraphShape& sh) {
  return CheckedBytes(4) * sh.n_tok * g.hidden;
}

// Output: logits over the last layer's tail, both n_out rows, without the
// vector input's rows (output_phase adds them where the graph holds them).
CheckedBytes output_tail_phase(const ModelGeometry& g, const GraphShape& sh) {
  // Saturated values: an overflow saturates the max and fails below.
  const uint64_t three_hidden = (CheckedBytes(3) * g.hidden).saturated();
  // A build before #6122 (early_graph) keeps the logits and one n_embd row
  // on the host: ggml-org/ci's b2308 CPU runs of open_llama 3B print 4 x
  // 512 x (32,000 + 3,200) = 68.75 MiB and, at 128 tokens, 17.19 MiB.
  const uint64_t tail =
      sh.mla()               ? (CheckedBytes(2) * g.hidden + sh.heads_q + sh.heads_d).saturated()
      : sh.fresh_final_norm || sh.early_graph ? (CheckedBytes(2) * g.hidden).saturated()
      : sh.attention
          ? std::max(three_hidden, (CheckedBytes(g.hidden) + sh.heads_q + sh.heads_d).saturated())
          : three_hidden;
  // The bottom of the tail, inp_embd, has n_tok rows (counted by
  // output_phase); the rest of it and the logits n_out rows. tail >= hidden
  // by construction.
  const uint64_t vocab = sh.logits ? g.vocab : 0;
  return CheckedBytes(4) * sh.n_out * (CheckedBytes(vocab) + tail - g.hidden) + sh.pooling_bytes;
}

// The output phase on the host: the tail, with the vector input's rows
// where the build's graph holds them. Measured on Ollama's CPU logs (its
// runner vendors llama.cpp from before #18898 at every release memfit
// reads): Qwen2.5 1.5B 302.75 MiB and Llama 3.2 1B 258.50 MiB are the
// logits and two n_embd rows exactly, the input's third row absent.
CheckedBytes output_phase(const ModelGeometry& g, const GraphShape& sh) {
  const CheckedBytes tail = output_tail_phase(g, sh);
  return sh.input_leaf ? tail + input_rows(g, sh) : tail;
}

// The output phase on a GPU: the logits and `result_norm`, the two graph
// outputs (never freed), n_out rows each, and nothing else: the input rows
// stay on the host, the GPU's copy of them is freed after the first layer,
// and the last layer's residual and norm input are freed (or run in place)
// before the logits are placed. Measured to the printed 0.01 MiB on every
// Metal log of the corpus (llama.cpp b4464's pythia 1.4B; Ollama 0.15.4 to
// 0.21.0: Qwen2.5 7B, Llama 3.2 3B, Llama 3 70B), where the host's tail
// (output_phase less the input rows) was one n_embd row too many. MLA and
// an encoder's graph (no logits) keep the host's tail less the input rows
// (no GPU log of either to measure).
// docs/llamacpp-rules.md, "Compute buffers on a GPU".
CheckedBytes offloaded_output_phase(const ModelGeometry& g, const GraphShape& sh) {
  if (sh.mla() || !sh.logits) return output_tail_phase(g, sh);
  return CheckedBytes(4) * sh.n_out * (CheckedBytes(g.vocab) + g.hidden);
}

// Attention: activations, the mask, and without flash attention the scores
// (and MLA's transposed copy of the latent V).
Result<CheckedBytes> attention_phase(const ModelGeometry& g, const GraphShape& sh,
                                     const LlamaCppContext& c, const LlamaCppSettings& s) {
  CheckedBytes attn = 0;
  if (!sh.attention) return attn;
  if (sh.early_graph && !sh.mla()) {
    // A build before #6122 (no flash attention yet: #5021 came later): K
    // and V are copied into the cache (llm_build_kv_store's ggml_cpy) and
    // freed before the scores are made, and the softmax runs in place over
    // them (ggml-alloc's in-place list has SOFT_MAX), so at the scores the
    // live tensors are the split's copy of the input rows and of the f32
    // mask (inputs of the split, kept to its end), the residual, the
    // attention norm's output (freed, a hole the scores do not fit), Q
    // (roped in place) and the scores: ggml-org/ci's b2308 V100 run of
    // open_llama 7B at n_ctx 2048, 4 x 512 x (3 x 4096 + 4096) + 4 x 2048 x
    // 512 x 32 + 4 x 2048 x 512 = 164.00 MiB, the print (Ollama v0.1.28's
    // Mistral 7B the same).
    attn = CheckedBytes(4) * sh.n_tok * (CheckedBytes(3) * g.hidden + sh.heads_q);
    attn += CheckedBytes(4) * sh.n_kv * sh.n_tok * g.heads + CheckedBytes(4) * sh.n_kv * sh.n_tok;
    return attn;
  }
  CheckedBytes per_token =
      sh.mla() ? CheckedBytes(2) * g.hidden + CheckedBytes(2) * sh.heads_q + CheckedBytes(2) * sh.heads_d
               : CheckedBytes(2) * g.hidden + sh.heads_q + sh.kv_k + sh.kv_v + CheckedBytes(2) * sh.heads_d;
  if (!sh.logits && !sh.mla() && !c.flash_attn) {
    // An encoder without flash attention (llm_build_bert; build_attn_mha,
    // no cache): K is read through a permuted view and V made contiguous
    // (ggml_cont of its transpose, V itself freed), so at the scores the
    // live rows are the residual, Q, K and V's copy: ggml-org/ci's
    // bge-small runs (b4343 V100, b4507 T4 Vulkan, b4730 M4 Metal: 384
    // wide, 12 heads, 512 tokens) print 16.00 MiB = 4 x 512 x 4 x 384 +
    // 4 x 512 x 512 x 12 + 4 x 512 x 512, where a decoder's phase (the
    // cache's K and V views, the attention output and its projection
    // beside) counts 3 rows more.
    per_token = CheckedBytes(g.hidden) + sh.heads_q + sh.kv_k + sh.kv_v;
  }
  attn = CheckedBytes(4) * sh.n_tok * per_token;
  if (c.flash_attn) {
    attn += CheckedBytes(2) * sh.n_kv * sh.n_tok;
  } else {
    attn += CheckedBytes(4) * sh.n_kv * sh.n_tok * g.heads + CheckedBytes(4) * sh.n_kv * sh.n_tok;
    // V read as a view of the latent K is copied out transposed
    // (build_attn_mha's v_cont); a build before #19067 reads its own V
    // tensor, stored transposed without flash attention: no copy.
    if (sh.mla() && sh.latent_v == 0) {
      const std::array<uint64_t, 1> row = {sh.latent};
      Result<uint64_t> v_row = ggml_tensor_bytes(s.cache_type_v, row);
      if (!v_row) return v_row.error();
      attn += CheckedBytes(*v_row) * sh.n_kv * c.streams;
    } else if (!sh.mla() && !c.v_trans) {
      // A cache created untransposed (flash attention auto, resolved off):
      // build_attn_mha copies V out transposed (ggml_cont of its
      // transpose), the layer's n_kv cells at the cache's type.
      const std::array<uint64_t, 1> row = {sh.kv_v.saturated()};
      Result<uint64_t> v_row = ggml_tensor_bytes(s.cache_type_v, row);
      if (!v_row) return v_row.error();
      attn += CheckedBytes(*v_row) * sh.n_kv * c.streams;
    }
  }
  return attn;
}

// BERT's FFN has no gate: llm_build_bert (src/models/bert.cpp) calls
// build_ffn with up and down alone, LLM_FFN_GELU and LLM_FFN_SEQ for
// LLM_ARCH_BERT (an XLM-RoBERTa converts to it too), and the GELU is a
// unary op ggml-alloc runs in place over the up product; Jina's BERT v2
// (GEGLU) and nomic-bert (SiLU, parallel) are gated. Other sequential FFNs
// (GPT-2, StarCoder, ...) were not measured and keep the gated phase.
bool sequential_ffn(const ModelSpec& spec) {
  return spec.model_type == "bert" && spec.family != "jina_bert_v2";
}

// FFN: the gate, up and gated products of the FFN (MoE: of the routed
// experts, used x expert width; a sequential FFN the up product alone),
// the input, residual and their successors, with the mask of the layers
// still to come.
CheckedBytes ffn_phase(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t used = std::max<uint64_t>(spec.moe.experts_per_token, 1);
  const uint64_t expert_width =
      spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : g.intermediate;
  const CheckedBytes ffn_width = spec.moe.experts > 0
                                     ? CheckedBytes(used) * expert_width + spec.moe.experts
                                     : CheckedBytes(g.intermediate);
  const uint64_t products = sequential_ffn(spec) ? 1 : 3;
  CheckedBytes ffn =
      CheckedBytes(4) * sh.n_tok * (CheckedBytes(products) * ffn_width + CheckedBytes(4) * g.hidden);
  if (sh.early_graph && spec.moe.experts == 0) {
    // A build before #6122 ran SiLU over the gate and multiplied by the up
    // projection as two ops ggml-alloc computes in place (UNARY and MUL are
    // in its in-place list; the fused GLU of #14158/#14181 is not): live
    // are the input rows' and mask's copies, the FFN input and its norm,
    // and the gate and up products. Its MoE layer (one selected expert at
    // a time, Ollama v0.1.28's Mixtral: 192.01 MiB on the GPU at n_ctx
    // 2048) is not derived: it keeps the pinned phase (high, 204 MiB).
    ffn = CheckedBytes(4) * sh.n_tok * (CheckedBytes(3) * g.hidden + CheckedBytes(2) * g.intermediate);
  } else if (sh.split_glu && spec.moe.experts == 0 && !sequential_ffn(spec) && sh.logits) {
    // A build from #6122 to #14158 (llm_build_ffn / build_ffn: tmp = up(cur),
    // cur = gate(cur), ggml_silu(cur), ggml_mul(cur, tmp), both in place):
    // the peak is at the gate's product, beside the FFN input (the residual
    // the FFN's output is added to), its norm (read by both products) and
    // the up product; SiLU and the product take the gate's bytes, and the
    // down projection's output replaces the freed up product and norm.
    // ggml-org/llama.cpp#14075 (b5605, -sm row, flash attention, Llama 70B
    // distill: 8,192 wide, FFN 28,672, 2,048 cells, U 512): CUDA1 and CUDA2,
    // blocks alone, print 146.00 MiB = 4 x 512 x (2 x 8,192 + 2 x 28,672) B
    // + the F16 mask's copy, 2 x 2,048 x 512 B: 32 + 112 + 2 MiB.
    ffn = CheckedBytes(4) * sh.n_tok * (CheckedBytes(2) * g.hidden + CheckedBytes(2) * g.intermediate);
  }
  if (sh.attention) ffn += CheckedBytes(c.flash_attn ? 2 : 4) * sh.n_kv * sh.n_tok;
  return ffn;
}

// The GPU's KQ mask, as the FFN phase counts it.
CheckedBytes gpu_mask(const GraphShape& sh, const LlamaCppContext& c) {
  if (!sh.attention) return 0;
  return CheckedBytes(c.flash_attn ? 2 : 4) * sh.n_kv * sh.n_tok;
}

// A host block's attention run on the GPU by op offload, less the copies of
// its K and V views (ComputePhases::host_attention): the residual, Q, the
// mask, and the scores (no flash attention) or the attention's output.
CheckedBytes host_attention_phase(const ModelGeometry& g, const GraphShape& sh, const LlamaCppContext& c) {
  if (!sh.attention) return 0;
  CheckedBytes bytes = CheckedBytes(4) * sh.n_tok * (CheckedBytes(g.hidden) + sh.heads_q) + gpu_mask(sh, c);
  bytes += c.flash_attn ? CheckedBytes(4) * sh.n_tok * sh.heads_d
                        : CheckedBytes(4) * sh.n_kv * sh.n_tok * g.heads;
  return bytes;
}

// The host's copies of the K and V rows its blocks' KV stores read under
// op offload (ComputePhases::kv_store_copies): f32, n_tok rows each.
CheckedBytes kv_store_copies(const GraphShape& sh) {
  if (!sh.attention) return 0;
  const CheckedBytes row = sh.mla() ? CheckedBytes(sh.latent) + sh.latent_v : sh.kv_k + sh.kv_v;
  return CheckedBytes(4) * sh.n_tok * row;
}

// The KV store's indices, I64 (set_rows_kv_store): k_idxs (n_tok) and
// v_idxs (v_idx_elems; 0 under MLA from #19067) of each cache, each at `align`.
CheckedBytes kv_indices(const GraphShape& sh, uint64_t align) {
  CheckedBytes bytes = 0;
  for (uint64_t i = 0; i < sh.kv_stores; ++i) {
    bytes += round_up(CheckedBytes(8) * sh.n_tok, align);
    bytes += round_up(CheckedBytes(8) * sh.v_idx_elems, align);
  }
  return bytes;
}

// A host that runs no layer: the scheduler keeps every graph input on the
// host (ggml-backend.cpp, ggml_backend_sched_backend_id_from_cur: an input
// goes to the last backend, the CPU): token ids, positions, output ids
// (i32), the F32 mask, the KV store's indices (i64, from #14959) and the
// vector-input leaf (from #18898), with the input rows the host gathers
// from the token embeddings (a build before #6017: the rows alone); the copies of the rows and the mask that the
// first layer's device reads live in that device's buffer. Measured: the
// indices are Ollama 0.11.6 and 0.12.6's Metal runs without flash
// attention (Llama 3.2 3B, Llama 3.1 8B: v_idxs 512 x 1,024 x 8 B = 4 MiB
// over the other inputs, 18.01 and 20.01 MiB printed; Qwen2.5 1.5B 512 x
// 256 x 8 B = 1 MiB, 12.01 MiB); the leaf is llama.cpp b7896 to b8133's
// full offloads (4 x 512 x n_embd: Qwen2.5 14B 10 MiB, 84.01 MiB printed;
// TinyLlama 4 MiB, 12.01 MiB). docs/llamacpp-rules.md, "Compute buffers on
// a GPU".
CheckedBytes input_phase(const ModelGeometry& g, const GraphShape& sh) {
  const uint64_t align = kCpuTensorAlignment;
  CheckedBytes input = round_up(input_rows(g, sh), align);
  // Before #6017 the inputs had their own buffer (memory.cc's
  // input_buffer_bytes): the host's compute buffer holds the rows it
  // gathers alone. The logs of early 2024 print 8.00 MiB for n_embd 4096
  // and 512 tokens (CUDA_Host, ROCm_Host, SYCL_Host), 10.00 for 5120.
  if (sh.inputs_apart) return input;
  // BERT (llm_build_bert): the position rows, gathered on the host and
  // added to the token rows there: ggml-org/ci's bge-small runs (b4343,
  // b4507, b4730) print a host buffer of 2.51 MiB = 2 x 4 x 512 x 384 +
  // the inputs, where the token rows alone price 1.76 MiB.
  if (sh.position_rows) input += round_up(input_rows(g, sh), align);
  input += CheckedBytes(2) * round_up(CheckedBytes(4) * sh.n_tok, align);  // token ids, positions
  input += round_up(CheckedBytes(4) * sh.n_out, align);                    // output ids
  // The mask inputs: F32 before #23764 whatever flash attention is
  // (llama-graph.cpp creates self_kq_mask F32 and casts it to F16 in the
  // graph, on the device that reads it: the copy ffn_phase and
  // attention_phase count); from it F16 under flash attention
  // (GraphShape::mask_elem). Measured: Ollama 0.30.10's llama-server (b9672)
  // on an A40, Codestral 22B at 4,096 cells and 512 tokens, 28.01 MiB on
  // the host where an F32 mask priced 32.01 (2 x 4,096 x 512 B = 4 MiB less).
  if (sh.attention) input += round_up(CheckedBytes(sh.mask_elem) * sh.n_kv * sh.n_tok, align);
  input += round_up(CheckedBytes(sh.mask_elem) * sh.n_kv_swa * sh.n_tok, align);  // ISWA's second mask
  input += round_up(sh.pooling_bytes, align);  // inp_mean, an input too
  // The vector-input path's inp_embd (vector_input_leaf): an input, so the
  // host's, never read.
  if (sh.input_leaf) input += round_up(input_rows(g, sh), align);
  // The KV store's indices, I64 (set_rows_kv_store): k_idxs and v_idxs of
  // each cache.
  input += kv_indices(sh, align);
  return input;
}

// Whether the model's first attention layer is windowed (its mask, an
// ISWA model's SWA mask, is the one that layer reads and casts first).
bool windowed_first(const ModelSpec& spec) {
  const auto first = std::find_if(spec.layers.begin(), spec.layers.end(), [](const LayerCache& l) {
    return is_windowed(l) || l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kMlaLatent;
  });
  return first != spec.layers.end() && is_windowed(*first);
}

// The mask's cast on the GPU that runs the first block (ComputePhases::
// mask_cast). A build that casts an F32 mask input to F16 under flash
// attention (llama-graph.cpp: `self_kq_mask` F32, `self_kq_mask_cnv =
// ggml_cast(..., GGML_TYPE_F16)`) keeps the input on the host, as every
// graph input; the cast follows the first block to its GPU (ggml-backend.cpp,
// ggml_backend_sched_split_graph: the unassigned cast takes the backend of
// the GPU ops before it), so that split reads the scheduler's copy of the
// F32 mask, allocated with its other input copies (the input rows) at the
// split's start. build_attn expands Q, K and V and stores K and V before
// the attention reads the cast, so at the cast the live tensors are the two
// copies, the first block's query (4 x n_tok x heads x the query width) and
// the F16 cast itself: (4 + 2) B x n_kv x n_tok of mask. The layout the
// allocator leaves around them (the first block's norm, K and V) is not
// priced. Measured: Ollama's Metal run of Phi-3 mini 128k (131,072 cells,
// U 512: 6 + 256 + 128 + 6 MiB = 396.00 MiB against the printed 396.01) and
// llama.cpp b5384's ROCm0 under a two-GPU split of Qwen3-30B-A3B (32,768
// cells: 4 + 64 + 32 + 8 = 108 MiB against 120.00). 0 without such a cast.
//
// A model with windowed and full attention layers (n_kv_swa > 0) has two
// F32 mask inputs, each cast to F16 (llama-graph.cpp,
// build_attn_inp_kv_iswa: self_kq_mask and self_kq_mask_swa, each with
// its `_cnv`). Both copies are inputs of the GPU's split, allocated at its
// start; each is freed after its cast, its one user, and each cast is
// placed where the first layer of its kind reads it. So at the first
// cast both F32 copies and that cast are live; at the second, the second
// F32 copy and both casts: with `a` the mask the first attention layer
// reads and `b` the other (each n_kv x n_tok),
//   first  = rows + 4 (a + b) + 2 a + query
//   second = rows + 4 b + 2 a + 2 b + query
// (`rows` the input rows' copy, or at a later layer the residual of as
// many bytes), the larger. Gemma 4 26B A4B on one RTX PRO 6000 (b8836,
// 262,144 full and 1,536 SWA cells, U 512; its first layer windowed):
// 5.5 + 512 + 1.5 + 256 + 8 = 783.00 MiB against the printed 829.02,
// where the logits priced 517.50. The query is n_head x the geometry's
// head (Gemma 4: the windowed layers' 256); its full layers' 512
// (key_length) is not in the model spec, and would give 791.00. A model
// whose every attention layer is windowed (no full mask) is not priced
// so: 0.
CheckedBytes mask_cast_phase(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c,
                             const LlamaCppSettings& s) {
  if (!c.flash_attn || !f32_mask_cast(s) || !sh.attention) return 0;
  const auto windowed = [](const LayerCache& l) { return is_windowed(l); };
  const CheckedBytes rows_and_query = input_rows(spec.geometry, sh) + CheckedBytes(4) * sh.n_tok * sh.heads_q;
  if (sh.n_kv_swa == 0) {
    if (std::any_of(spec.layers.begin(), spec.layers.end(), windowed)) return 0;
    return rows_and_query + CheckedBytes(4 + 2) * sh.n_kv * sh.n_tok;
  }
  const CheckedBytes full = CheckedBytes(c.n_ctx_seq) * sh.n_tok;
  const CheckedBytes swa = CheckedBytes(sh.n_kv_swa) * sh.n_tok;
  const bool swa_first = windowed_first(spec);
  const CheckedBytes& a = swa_first ? swa : full;
  const CheckedBytes& b = swa_first ? full : swa;
  const CheckedBytes first = rows_and_query + CheckedBytes(4) * (a + b) + CheckedBytes(2) * a;
  const CheckedBytes second = rows_and_query + CheckedBytes(4) * b + CheckedBytes(2) * (a + b);
  if (first.overflowed() || second.overflowed()) return first.overflowed() ? first : second;
  return std::max(*first.value(), *second.value());
}

// The F32 mask copy a cast under flash attention reads (ComputePhases::
// mask_cast_input): the first attention layer's mask, 4 x n_kv x n_tok (an
// ISWA model whose first layer is windowed: the SWA cache's cells). 0
// without such a cast.
CheckedBytes mask_cast_input(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c,
                             const LlamaCppSettings& s) {
  if (!c.flash_attn || !f32_mask_cast(s) || !sh.attention || spec.embedding.bidirectional) return 0;
  const bool swa_first = sh.n_kv_swa > 0 && windowed_first(spec);
  return CheckedBytes(4) * (swa_first ? sh.n_kv_swa : sh.n_kv) * sh.n_tok;
}

// The KQ masks the graph takes as inputs (llama-graph.cpp's
// build_attn_inp_*: one n_kv x n_tok mask per cache kind): the full cache's
// and, beside windowed layers, the SWA cache's; an encoder's spans its
// batch. F16 under flash attention where the build makes the input F16
// (from #18898), else F32 (f32_mask_cast). 0 without attention.
CheckedBytes mask_inputs(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c,
                         const LlamaCppSettings& s) {
  if (!sh.attention) return 0;
  const uint64_t elem = c.flash_attn && !f32_mask_cast(s) ? 2 : 4;
  if (spec.embedding.bidirectional) return CheckedBytes(elem) * sh.n_kv * sh.n_tok;
  bool full = false, windowed = false;
  for (const LayerCache& l : spec.layers) {
    if (is_windowed(l)) {
      windowed = true;
    } else if (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
               l.kind == LayerKind::kChunked || l.kind == LayerKind::kMlaLatent) {
      full = true;
    }
  }
  const CheckedBytes cells = CheckedBytes(full ? c.n_ctx_seq : 0) + (windowed ? c.swa_cells : 0);
  return CheckedBytes(elem) * sh.n_tok * cells;
}

// The host's graph inputs, each at its 32-B alignment: token ids and
// positions (i32 x n_tok), output ids (i32 x n_out), the masks, mean
// pooling's matrix, the KV store's indices (from #14959) and the
// vector-input leaf (from #18898): every tensor llama-graph.cpp sets an
// input. What pipeline parallelism copies on the host. Measured: Ollama
// 0.11.10's Llama 3.1 70B on two H100 MIG slices (flash attention off,
// v_idxs 8 x 512 x 1,024 = 4 MiB) prints a host of 64.04 MiB = 28 MiB +
// 3 x (8 MiB mask + 4 MiB indices + ids).
CheckedBytes graph_inputs(const ModelGeometry& g, const GraphShape& sh, const CheckedBytes& masks) {
  const uint64_t align = kCpuTensorAlignment;
  CheckedBytes inputs = CheckedBytes(2) * round_up(CheckedBytes(4) * sh.n_tok, align);
  inputs += round_up(CheckedBytes(4) * sh.n_out, align);
  inputs += round_up(masks, align);
  inputs += round_up(sh.pooling_bytes, align);
  inputs += kv_indices(sh, align);
  if (sh.input_leaf) inputs += round_up(input_rows(g, sh), align);
  return inputs;
}

// The output phase on the GPU that holds the output layer of a graph that
// pools its embeddings by the mean (build_inp_mean: an F32 input read by
// the pooling after the logits). The scheduler copies a split's inputs to
// the GPU at the split's start in the order the split first reads them
// (ggml-backend.cpp, ggml_backend_sched_split_graph: split->inputs in node
// order; the graph copy allocates each input's copy before the split's
// nodes), so the mean matrix, read last, sits above the copies of the
// input rows, positions, masks, KV indices and output ids. Those are freed
// after their last reader, leaving a hole below it; the matrix stays until
// the pooling. Logits larger than that hole take the block above the
// highest live tensor (ggml-alloc's best fit falls back to the last block),
// the matrix's at least; result_norm fits the hole. So the phase is the
// copies, the matrix and the logits: ROCm/ROCm#4903 (b5618, Qwen3-Embedding
// 8B, --embeddings --pooling mean, U 2048, 40,960 cells): 32 MiB of rows,
// 2 x 8 KiB of positions and output ids, 320 MiB of F32 mask, 16 MiB of
// matrix and 4 x 2,048 x 151,665 B of logits, 1,628,332,032 B = 1552.90
// MiB, the print. 0 without mean pooling or logits, or where the logits
// fit the hole.
CheckedBytes pooled_output_phase(const ModelGeometry& g, const GraphShape& sh, const CheckedBytes& masks) {
  if (sh.pooling_bytes.saturated() == 0 || !sh.logits || sh.mla()) return 0;
  const uint64_t align = kGpuTensorAlignment;
  CheckedBytes below = round_up(input_rows(g, sh), align) + round_up(CheckedBytes(4) * sh.n_tok, align);
  below += round_up(CheckedBytes(4) * sh.n_out, align) + round_up(masks, align) + kv_indices(sh, align);
  const CheckedBytes logits = CheckedBytes(4) * sh.n_out * g.vocab;
  if (logits.saturated() <= below.saturated()) return 0;
  return below + round_up(sh.pooling_bytes, align) + logits;
}

// The host's buffer where it runs every attention layer's flash attention
// (ComputePhases::host_flash_attn): the graph inputs as input_phase counts
// them, the token rows it gathers, and per layer the copies of Q, its K
// and V views (its cache's cells x one row at the cache's type), the F16
// mask and the sinks (gpt-oss: attn_sinks, one f32 a head), and the
// attention's output. 0 without flash attention, attention or a cache.
Result<uint64_t> host_flash_attn_phase(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c,
                                       const LlamaCppSettings& s) {
  if (!c.flash_attn || !sh.attention || sh.mla() || spec.embedding.bidirectional || sh.inputs_apart ||
      sh.early_graph) {
    return uint64_t{0};
  }
  const ModelGeometry& g = spec.geometry;
  const auto bytes = [](const CheckedBytes& b) { return b.saturated(); };
  graph::HostAttentionShape h;
  h.token_ids = bytes(CheckedBytes(4) * sh.n_tok);
  h.positions = h.token_ids;
  h.output_ids = 4 * sh.n_out;
  h.input_leaf = sh.input_leaf ? bytes(input_rows(g, sh)) : 0;
  h.rows = bytes(input_rows(g, sh));
  h.mask_cast = f32_mask_cast(s);
  const uint64_t mask_elem = h.mask_cast ? 4 : 2;
  h.query = bytes(CheckedBytes(4) * sh.n_tok * sh.heads_q);
  h.output = bytes(CheckedBytes(4) * sh.n_tok * sh.heads_d);
  if (spec.model_type == "gpt_oss") h.sinks = 4 * g.heads;
  const std::array<uint64_t, 1> k_row = {sh.kv_k.saturated()};
  const std::array<uint64_t, 1> v_row = {sh.kv_v.saturated()};
  Result<uint64_t> k_bytes = ggml_tensor_bytes(s.cache_type_k, k_row);
  if (!k_bytes) return k_bytes.error();
  Result<uint64_t> v_bytes = ggml_tensor_bytes(s.cache_type_v, v_row);
  if (!v_bytes) return v_bytes.error();
  for (const LayerCache& l : spec.layers) {
    const bool windowed = is_windowed(l);
    if (!windowed && l.kind != LayerKind::kFullAttention && l.kind != LayerKind::kSlidingWindow &&
        l.kind != LayerKind::kChunked) {
      continue;
    }
    // An ISWA model's windowed layers read the SWA cache (kind 1).
    const int cache = windowed && sh.n_kv_swa > 0 ? 1 : 0;
    const uint64_t cells = windowed ? c.swa_cells : c.n_ctx_seq;
    const size_t k = static_cast<size_t>(cache);
    h.mask[k] = bytes(CheckedBytes(mask_elem) * cells * sh.n_tok);
    if (sh.kv_stores > 0) {
      h.k_idxs[k] = bytes(CheckedBytes(8) * sh.n_tok);
      h.v_idxs[k] = bytes(CheckedBytes(8) * sh.v_idx_elems);
    }
    h.layers.push_back({cache, bytes(CheckedBytes(*k_bytes) * cells), bytes(CheckedBytes(*v_bytes) * cells)});
  }
  return graph::host_attention_bytes(h);
}

// The scratch a Metal GPU allocates with flash attention's output
// (ComputePhases::metal_flash_attn): graph::metal_flash_attn_scratch at
// the prompt graph's queries a stream over the largest attention cache's
// cells (the full one's, or the window's where every layer is windowed),
// K's and V's cell rows at the cache's types. ggml-metal sizes every
// FLASH_ATTN_EXT node so; one is live at a time, beside the attention
// phase's tensors. Measured with the replay (docs/llamacpp-rules.md,
// "Metal reorders the split"); on the corpus's phase-priced Metal rows
// another phase is the largest at their builds, so none measures it here.
Result<uint64_t> metal_flash_attn_phase(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c,
                                        const LlamaCppSettings& s) {
  const ModelGeometry& g = spec.geometry;
  if (!c.flash_attn || !sh.attention || sh.mla() || spec.embedding.bidirectional) return 0;
  // A decompressed MLA layer's K and V rows differ from the heads'.
  if (sh.kv_k.value() != std::optional<uint64_t>((CheckedBytes(g.kv_heads) * g.head_dim).value())) return 0;
  const uint64_t streams = std::max<uint64_t>(c.streams, 1);
  if (!sh.n_tok.value() || *sh.n_tok.value() % streams != 0) return 0;
  graph::AttentionShape a;
  a.heads = g.heads;
  a.kv_heads = g.kv_heads;
  a.head_dim = g.head_dim;
  a.n_kv = sh.n_kv;
  a.streams = streams;
  if (!graph::set_metal_cache_rows(a, s)) return 0;
  const uint64_t bytes = graph::metal_flash_attn_scratch(a, *sh.n_tok.value() / streams);
  if (bytes == UINT64_MAX) {
    return Error::overflow("llama.cpp compute buffer overflows 64 bits: the request or the config is absurd");
  }
  return bytes;
}

}  // namespace

Result<ComputePhases> compute_phases(const ModelSpec& spec, const LlamaCppContext& c,
                                     const LlamaCppSettings& s) {
  const ModelGeometry& g = spec.geometry;
  const GraphShape sh = graph_shape(spec, c, s);
  const CheckedBytes output = output_phase(g, sh);
  Result<CheckedBytes> attn = attention_phase(g, sh, c, s);
  if (!attn) return attn.error();
  const CheckedBytes ffn = ffn_phase(spec, sh, c);
  const CheckedBytes input = input_phase(g, sh);
  const CheckedBytes output_offloaded = offloaded_output_phase(g, sh);
  const CheckedBytes mask_cast = mask_cast_phase(spec, sh, c, s);
  const CheckedBytes rows = input_rows(g, sh);
  const CheckedBytes masks = mask_inputs(spec, sh, c, s);
  const CheckedBytes positions = CheckedBytes(4) * sh.n_tok;
  const CheckedBytes inputs = graph_inputs(g, sh, masks);
  const CheckedBytes indices = kv_indices(sh, kGpuTensorAlignment);
  const CheckedBytes host_attention = host_attention_phase(g, sh, c);
  const CheckedBytes mask = gpu_mask(sh, c);
  const CheckedBytes store_copies = kv_store_copies(sh);
  const CheckedBytes pooled_output = pooled_output_phase(g, sh, masks);
  const CheckedBytes cast_input = mask_cast_input(spec, sh, c, s);
  if (cast_input.overflowed() || pooled_output.overflowed() || store_copies.overflowed() || host_attention.overflowed() || mask.overflowed() ||output.overflowed() || attn->overflowed() || ffn.overflowed() || input.overflowed() ||
      output_offloaded.overflowed() || mask_cast.overflowed() || sh.n_tok.overflowed() ||
      rows.overflowed() || masks.overflowed() || positions.overflowed() || inputs.overflowed() ||
      indices.overflowed()) {
    return Error::overflow("llama.cpp compute buffer overflows 64 bits: the request or the config is absurd");
  }
  const uint64_t gpu_output = std::max(*output_offloaded.value(), *pooled_output.value());
  ComputePhases p{*output.value(), *attn->value(), *ffn.value(), *input.value(),
                  gpu_output, *sh.n_tok.value(), *mask_cast.value()};
  // The cast's holes (ComputePhases::mask_cast_holes): the first block's
  // norm and K, 4 x n_tok x (hidden + K row), where there is a cast.
  const CheckedBytes holes = *mask_cast.value() > 0 ? CheckedBytes(4) * sh.n_tok * (CheckedBytes(g.hidden) + sh.kv_k)
                                           : CheckedBytes(0);
  if (holes.overflowed()) return Error::overflow("llama.cpp compute buffer overflows 64 bits: the request or the config is absurd");
  p.mask_cast_holes = *holes.value();
  p.split_rows = *rows.value();
  p.split_masks = *masks.value();
  p.kv_indices = *indices.value();
  p.positions = *positions.value();
  p.output_ids = 4 * sh.n_out;  // n_out <= n_tok: no overflow past positions
  p.graph_inputs = *inputs.value();
  p.host_attention = *host_attention.value();
  p.mask = *mask.value();
  p.kv_store_copies = *store_copies.value();
  p.mask_cast_input = *cast_input.value();
  Result<uint64_t> host_flash_attn = host_flash_attn_phase(spec, sh, c, s);
  if (!host_flash_attn) return host_flash_attn.error();
  p.host_flash_attn = *host_flash_attn;
  Result<uint64_t> metal_flash_attn = metal_flash_attn_phase(spec, sh, c, s);
  if (!metal_flash_attn) return metal_flash_attn.error();
  p.metal_flash_attn = *metal_flash_attn;
  // ffn_phase at width 0 gives the fixed part; the rest is per width.
  if (spec.moe.experts == 0 && g.intermediate > 0) {
    ModelSpec narrow = spec;
    narrow.geometry.intermediate = 0;
    const CheckedBytes fixed = ffn_phase(narrow, sh, c);
    const CheckedBytes varying = ffn - fixed;
    if (fixed.value() && varying.value() && *varying.value() % g.intermediate == 0) {
      p.ffn_fixed = *fixed.value();
      p.ffn_per_width = *varying.value() / g.intermediate;
      p.ffn_width = g.intermediate;
    }
  }
  return p;
}

}  // namespace memfit::llamacpp
