// The graph pieces every llama.cpp builder shares (llamacpp/graph/builders.h):
// matrix products, RMS norms, the Hadamard rotations of a quantized cache
// and build_attn over a KV cache.
#include "engines/llamacpp/graph/builders.h"
#include "memfit/checked_math.h"

#include <algorithm>

namespace memfit::llamacpp::graph {

using ggml_graph::Dims;
using ggml_graph::Op;
using ggml_graph::Type;

namespace {

uint64_t elements(const Graph& g, int t) {
  const Dims& ne = g.at(t).ne;
  return ne[0] * ne[1] * ne[2] * ne[3];
}

bool contiguous(const Graph& g, int t) {
  const ggml_graph::Tensor& x = g.at(t);
  uint64_t stride = x.nb[0];
  for (size_t i = 0; i < 4; ++i) {
    if (x.ne[i] != 1 && x.nb[i] != stride) return false;
    stride *= x.ne[i];
  }
  return true;
}

// A set_rows into the cache: a view of the (external) cache.
// A build before #14959: ggml_cpy into a view of the cache (idxs < 0).
void store(Graph& g, int rows, int idxs, int cache) {
  if (idxs < 0) {
    g.expand(g.op(Op::kCpy, Type::kExternal, {1, 1, 1, 1}, {rows, cache}, "cpy"));
    return;
  }
  g.expand(g.op(Op::kSetRows, Type::kExternal, {1, 1, 1, 1}, {rows, idxs, cache}, "set_rows"));
}

}  // namespace

std::string block_tensor(int layer, std::string_view kind, std::string_view suffix) {
  return "blk." + std::to_string(layer) + "." + std::string(kind) + "." + std::string(suffix);
}

int mul_mat(Graph& g, int w, int b, uint64_t rows) {
  const Dims& ne = g.at(b).ne;
  return g.op(Op::kMulMat, Type::kF32, {rows, ne[1], ne[2], ne[3]}, {w, b});
}

int rms_norm_mul(Graph& g, int x, int w) {
  const int norm = g.op(Op::kRmsNorm, Type::kF32, g.at(x).ne, {x}, "norm");
  return g.op(Op::kMul, Type::kF32, g.at(x).ne, {norm, w});
}

int hadamard(Graph& g, int cur, int rot, uint64_t n) {
  const Dims ne = g.at(cur).ne;
  const uint64_t rows = elements(g, cur) / n;
  const int flat = contiguous(g, cur)
                       ? g.reshape(cur, {n, rows, 1, 1})
                       : g.op(Op::kOther, Type::kF32, {n, rows, 1, 1}, {cur}, "cont");
  const int rotated = mul_mat(g, rot, flat, n);
  return g.reshape(rotated, ne);
}

int token_embeddings(Graph& g, int weight, uint64_t hidden, uint64_t n_tok, bool input_leaf) {
  const int tokens = g.input(Type::kI32, {n_tok, 1, 1, 1}, "inp_tokens");
  const int embd = g.op(Op::kGetRows, Type::kF32, {hidden, n_tok, 1, 1},
                        {g.weight(weight, "token_embd.weight"), tokens}, "embd");
  g.set_host(embd);
  g.expand(embd);
  if (input_leaf) g.expand(g.input(Type::kF32, {hidden, n_tok, 1, 1}, "inp_embd"));
  return embd;
}

void logits_output(Graph& g, int weight, int inp, uint64_t vocab) {
  const int result_norm = rms_norm_mul(g, inp, g.weight(weight, "output_norm.weight"));
  const int logits = mul_mat(g, g.weight(weight, "output.weight"), result_norm, vocab);
  g.set_output(result_norm);
  g.set_output(logits);
  g.expand(logits);
}

AttentionShape attention_shape(const ModelGeometry& geo, const LlamaCppContext& c,
                               const LlamaCppSettings& settings) {
  AttentionShape a;
  a.hidden = geo.hidden;
  a.heads = geo.heads;
  a.kv_heads = geo.kv_heads;
  a.head_dim = geo.head_dim;
  a.n_kv = c.n_ctx_seq;
  a.streams = std::max<uint64_t>(c.streams, 1);
  a.flash_attn = c.flash_attn;
  a.v_trans = c.v_trans;
  a.v_f32 = settings.cache_type_v == GgmlType::kF32;
  a.k_rot = k_rotation(settings.cache_type_k, a.head_dim);
  a.v_rot = v_rotation(settings.cache_type_v, a.head_dim);
  return a;
}

bool covers_cache_types(const LlamaCppContext& c, const LlamaCppSettings& settings) {
  const bool f32_cache = settings.cache_type_k == GgmlType::kF32 || settings.cache_type_v == GgmlType::kF32;
  const bool v_quantized = ggml_type_traits(settings.cache_type_v).block_elements > 1;
  return !(c.flash_attn && f32_cache) && !(!c.flash_attn && v_quantized);
}

uint64_t k_rotation(GgmlType type, uint64_t head_dim) {
  if (ggml_type_traits(type).block_elements <= 1 || head_dim % 64 != 0) return 0;
  uint64_t n = 64;
  while (head_dim % (n * 2) == 0) n *= 2;
  return n;
}

uint64_t v_rotation(GgmlType type, uint64_t head_dim) {
  return ggml_type_traits(type).block_elements > 1 && head_dim % 64 == 0 ? 64 : 0;
}

uint64_t metal_flash_attn_scratch(const AttentionShape& s, uint64_t rows) {
  // Every factor is below kMaxFactor (decoder_shape); CheckedBytes keeps
  // the products from wrapping all the same.
  const uint64_t ns = s.streams;
  const bool vec = rows < 20 && s.head_dim % 32 == 0;
  // 32 workgroups' partials: F32, V's head size + 2 (S and M) per query,
  // head and stream.
  const auto partials = [&](uint64_t queries) {
    return CheckedBytes(4) * queries * s.heads * ns * 32 * (s.head_dim + 2);
  };
  switch (s.metal_rule) {
    case MetalFaScratch::kNone:
      return 0;
    case MetalFaScratch::kVecPartials:
      return vec ? partials(rows).saturated() : 0;
    case MetalFaScratch::kKernelPad:
    case MetalFaScratch::kPad64:
    case MetalFaScratch::kKvF16:
      break;
  }
  // The F16 copy of K and V is used for 32 queries or more of a K type it
  // dequantizes; its padding then reads the copy's head rows.
  const bool f16_copy = s.metal_rule == MetalFaScratch::kKvF16 && rows >= 32 && s.k_f16_copy_type;
  const uint64_t k_row = f16_copy ? 2 * s.head_dim : s.k_cell_bytes;
  const uint64_t v_row = f16_copy ? 2 * s.head_dim : s.v_cell_bytes;
  const uint64_t pad_cells = s.metal_rule == MetalFaScratch::kKernelPad && vec ? 32 : 64;
  // The cells times: K's and V's row stride (nb11, nb21) by their heads and
  // streams (ne12 * ne13), and an F16 mask element per query row and stream.
  const CheckedBytes pad = CheckedBytes(pad_cells) * (CheckedBytes(k_row) * s.kv_heads * ns +
                                                      CheckedBytes(v_row) * s.kv_heads * ns + CheckedBytes(2) * rows * ns);
  const uint64_t queries = vec ? 1 : 8;
  const uint64_t cells = vec ? 32 : 64;
  const CheckedBytes blk = round_up(CheckedBytes((rows + queries - 1) / queries) * ((s.n_kv + cells - 1) / cells) * ns, 32);
  const CheckedBytes tmp = partials(std::min<uint64_t>(rows, 32));
  CheckedBytes total = pad + blk + tmp;
  if (s.metal_rule == MetalFaScratch::kKvF16) {
    // ggml_metal_op_flash_attn_ext_kv_f16_k_size and V's: the views' every
    // element as F16, each padded to 16 B.
    const CheckedBytes view = round_up(CheckedBytes(2) * s.head_dim * s.n_kv * s.kv_heads * ns, 16);
    total = total + view + view;
  }
  return total.saturated();
}

bool metal_copies_k_to_f16(GgmlType type) {
  return type == GgmlType::kQ4_0 || type == GgmlType::kQ4_1 || type == GgmlType::kQ5_0 ||
         type == GgmlType::kQ5_1 || type == GgmlType::kQ8_0;
}

bool set_metal_cache_rows(AttentionShape& a, const LlamaCppSettings& settings) {
  const uint64_t width = (CheckedBytes(a.kv_heads) * a.head_dim).saturated();
  const GgmlTypeTraits& k = ggml_type_traits(settings.cache_type_k);
  const GgmlTypeTraits& v = ggml_type_traits(settings.cache_type_v);
  if (k.block_elements == 0 || v.block_elements == 0 || width % k.block_elements != 0 ||
      width % v.block_elements != 0) {
    return false;
  }
  a.metal_rule = metal_flash_attn_scratch_rule(settings);
  a.k_cell_bytes = width / k.block_elements * k.block_bytes;
  a.v_cell_bytes = width / v.block_elements * v.block_bytes;
  a.k_f16_copy_type = metal_copies_k_to_f16(settings.cache_type_k);
  return true;
}

AttentionInputs attention_inputs(Graph& g, const AttentionShape& s, uint64_t n_tok, int weight) {
  AttentionInputs in;
  in.weight = weight;
  if (s.kv_indices) {
    in.k_idxs = g.input(Type::kI64, {n_tok, 1, 1, 1}, "k_idxs");
    // A transposed V (flash attention asked off) is stored one element a row.
    in.v_idxs = g.input(Type::kI64, {!s.v_trans ? n_tok : n_tok * s.kv_heads * s.head_dim, 1, 1, 1},
                        "v_idxs");
  }
  // Flash attention takes an f16 mask: the input itself, or its cast.
  const Dims mask_ne = {s.n_kv, n_tok / s.streams, 1, s.streams};
  const bool f16_input = s.flash_attn && !s.f32_mask_cast;
  in.mask = g.input(f16_input ? Type::kF16 : Type::kF32, mask_ne, "attn_inp_kq_mask");
  if (s.flash_attn && s.f32_mask_cast) in.mask = g.op(Op::kCpy, Type::kF16, mask_ne, {in.mask}, "kq_mask_cnv");
  if (s.k_rot > 0) in.k_rot = g.input(Type::kF32, {s.k_rot, s.k_rot, 1, 1}, "attn_inp_k_rot");
  if (s.v_rot > 0) in.v_rot = g.input(Type::kF32, {s.v_rot, s.v_rot, 1, 1}, "attn_inp_v_rot");
  return in;
}

int attention(Graph& g, const AttentionShape& s, const AttentionInputs& in, int q, int k, int v,
              uint64_t n_tok) {
  const uint64_t ns = s.streams;
  if (s.k_rot > 0) {
    q = hadamard(g, q, in.k_rot, s.k_rot);
    k = hadamard(g, k, in.k_rot, s.k_rot);
  }
  if (s.v_rot > 0) v = hadamard(g, v, in.v_rot, s.v_rot);
  g.expand(q);
  g.expand(v);
  g.expand(k);

  // cpy_k: a 2-D view of K stored by set_rows (into the cache merged over
  // its streams when there are several).
  const uint64_t kv_width = s.kv_heads * s.head_dim;
  const Dims rows_nb = {4, 4 * kv_width, 4 * kv_width * n_tok, 4 * kv_width * n_tok};
  // This layer's K and V caches (external: never placed).
  const int k_cache = g.cache_external("cache_k");
  const int v_cache = g.cache_external("cache_v");
  const auto cache = [&](int c, bool merged) { return merged ? g.reshape(c, {1, 1, 1, 1}) : c; };
  store(g, g.view(k, {kv_width, n_tok, 1, 1}, rows_nb, 0), in.k_idxs, cache(k_cache, ns > 1));
  // cpy_v: the same with flash attention; without, V one element a row.
  // A V that is a view of a fused QKV product (phi3) is stored as the
  // view with flash attention, and copied contiguous (cont_2d) before its
  // transposed store without (llama-kv-cache.cpp cpy_v).
  if (!s.v_trans) {
    store(g, g.view(v, {kv_width, n_tok, 1, 1}, {4, g.at(v).nb[2], g.at(v).nb[2] * n_tok, g.at(v).nb[2] * n_tok}, 0), in.v_idxs,
          cache(v_cache, ns > 1));
  } else {
    const int v2 = contiguous(g, v) ? g.reshape(v, {kv_width, n_tok, 1, 1})
                                    : g.op(Op::kOther, Type::kF32, {kv_width, n_tok, 1, 1}, {v}, "cont");
    store(g, g.reshape(v2, {1, kv_width * n_tok, 1, 1}), in.v_idxs, cache(v_cache, true));
  }

  // build_attn_mha: Q split into streams and permuted; K and V are views
  // of the cache.
  const ggml_graph::Tensor& qt = g.at(q);
  const int q4 = g.view(q, {qt.ne[0], qt.ne[1], qt.ne[2] / ns, ns},
                        {qt.nb[0], qt.nb[1], qt.nb[2], qt.nb[3] / ns}, 0);
  const int qp = g.permute(q4, 0, 2, 1, 3);
  const int kp = g.permute(cache(k_cache, true), 0, 2, 1, 3);
  const int vp = g.permute(cache(v_cache, true), 0, 2, 1, 3);
  const uint64_t rows = n_tok / ns;
  int cur = -1;
  if (s.flash_attn) {
    const int fa = g.op(Op::kOther, Type::kF32, {s.head_dim, s.heads, rows, ns}, {qp, kp, vp, in.mask},
                        "flash_attn_ext");
    if (s.metal_scratch) g.set_alloc_extra(fa, metal_flash_attn_scratch(s, rows));
    cur = g.reshape(fa, {s.head_dim * s.heads, n_tok, 1, 1});
  } else {
    const int kq = g.op(Op::kMulMat, Type::kF32, {s.n_kv, rows, s.heads, ns}, {kp, qp}, "kq");
    const int soft = g.op(Op::kSoftMax, Type::kF32, {s.n_kv, rows, s.heads, ns}, {kq, in.mask},
                          "kq_soft_max");
    // An untransposed V is copied out transposed first (build_attn_mha:
    // ggml_cont(ggml_transpose(v)), at the cache's type).
    const int vt = s.v_trans ? vp
                             : g.op(Op::kOther, s.v_f32 ? Type::kF32 : Type::kF16,
                                    {s.n_kv, s.head_dim, s.kv_heads, ns}, {vp}, "v_cont");
    const int kqv = g.op(Op::kMulMat, Type::kF32, {s.head_dim, rows, s.heads, ns}, {vt, soft}, "kqv");
    cur = g.op(Op::kOther, Type::kF32, {s.head_dim * s.heads, n_tok, 1, 1}, {g.permute(kqv, 0, 2, 1, 3)},
               "kqv_out");
  }
  g.expand(cur);
  if (s.v_rot > 0) cur = hadamard(g, cur, in.v_rot, s.v_rot);
  return mul_mat(g, g.weight(in.weight, block_tensor(g.layer(), "attn_output")), cur, s.hidden);
}

}  // namespace memfit::llamacpp::graph
