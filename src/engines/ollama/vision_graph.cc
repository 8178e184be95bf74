// gemma3's image encoder graph (vision_graph.h), tensor by tensor in the
// order ggml_build_forward_expand lists it from the projector's output
// (multimodal.go getTensor: computeCtx.Forward(tensors...), one root; a
// depth-first walk of each op's sources in order), at v0.9.6:
//  - model_vision.go VisionModel.Forward: the patch embedding
//    (nn.Conv2D: ggml_conv_2d's im2col of the kernel's type, its product
//    [patches, hidden] and that reshaped, permuted and made contiguous),
//    reshaped [patches, hidden], permuted and made contiguous; plus the
//    position rows (get_rows over Arange's I32 input); per layer
//    LayerNorm (ggml_norm, then mul and add in place), Q, K, V (nn.Linear:
//    the product, the bias added in place), nn.Attention without a cache
//    (ml/nn/attention.go: V permuted contiguous, the scores K x Q at full
//    precision, scaled and soft-maxed in place, their product with V
//    permuted contiguous), the output projection, the residual; LayerNorm,
//    fc1, GELU in place (ggml_gelu_inplace), fc2, the residual; the post
//    LayerNorm.
//  - model.go MultiModalProjector.Forward: the output layer's weight
//    permuted contiguous (the product's first source, so the walk makes it
//    before the encoder: it is live throughout), the encoder's rows
//    permuted contiguous, average-pooled to tokens_per_image, permuted
//    contiguous, RMS-normed, and the product.
// The v.* and mm.* tensors keep the converter's type, F16 for a 2-D or 4-D
// weight (convert/reader.go tensorBase.Kind), never quantized
// (server/quantization.go newType: no "v." or "mm." tensor): the im2col
// and the projector weight's copy are F16. The pixels and the positions
// are Input() tensors: the device holds the scheduler's copies.
#include "engines/ollama/vision_graph.h"

#include "engines/llamacpp/graph/builders.h"
#include "engines/llamacpp/graph/ggml_graph.h"

namespace memfit::ollama {
namespace {

using ggml_graph::Graph;
using ggml_graph::Op;
using ggml_graph::Type;
namespace lg = llamacpp::graph;

// int(math.Sqrt(float64(x))) for the x the callers bound (below 2^20):
// the largest r with r x r <= x.
uint64_t isqrt_side(uint64_t x) {
  uint64_t r = 0;
  while ((r + 1) * (r + 1) <= x) ++r;
  return r;
}

// nn.LayerNorm: ggml_norm (not in place), then the weight and bias.
int layer_norm(Graph& g, int x, int w) {
  const int norm = g.op(Op::kOther, Type::kF32, g.at(x).ne, {x}, "norm");
  const int scaled = g.op(Op::kMul, Type::kF32, g.at(x).ne, {norm, w}, "norm_w");
  return g.op(Op::kAdd, Type::kF32, g.at(x).ne, {scaled, w}, "norm_b");
}

// nn.Linear with its bias: the product, the bias added in place.
int linear(Graph& g, int w, int x, uint64_t rows) {
  const int y = lg::mul_mat(g, w, x, rows);
  return g.op(Op::kAdd, Type::kF32, g.at(y).ne, {y, w}, "bias");
}

// One VisionEncoderLayer over `h` [hidden, n]: returns the layer's output.
int encoder_layer(Graph& g, const VisionEncoderShape& s, int w, int h, uint64_t n) {
  const uint64_t head_dim = s.hidden / s.heads;
  const int x = layer_norm(g, h, w);
  const int q = g.reshape(linear(g, w, x, s.hidden), {head_dim, s.heads, n, 1});
  const int k = g.reshape(linear(g, w, x, s.hidden), {head_dim, s.heads, n, 1});
  const int v = g.reshape(linear(g, w, x, s.hidden), {head_dim, s.heads, n, 1});
  const int v_cont = g.op(Op::kOther, Type::kF32, {n, head_dim, s.heads, 1}, {g.permute(v, 1, 2, 0, 3)}, "v_cont");
  const int kq = g.op(Op::kMulMat, Type::kF32, {n, n, s.heads, 1}, {g.permute(k, 0, 2, 1, 3), g.permute(q, 0, 2, 1, 3)},
                      "kq");
  const int scaled = g.op(Op::kScale, Type::kF32, g.at(kq).ne, {kq}, "kq_scale");
  const int soft = g.op(Op::kSoftMax, Type::kF32, g.at(kq).ne, {scaled}, "kq_soft_max");
  const int kqv = g.op(Op::kMulMat, Type::kF32, {head_dim, n, s.heads, 1}, {v_cont, soft}, "kqv");
  const int attn = g.op(Op::kOther, Type::kF32, {head_dim, s.heads, n, 1}, {g.permute(kqv, 0, 2, 1, 3)}, "kqv_cont");
  const int out = linear(g, w, g.reshape(attn, {s.hidden, n, 1, 1}), s.hidden);
  const int mid = g.op(Op::kAdd, Type::kF32, g.at(out).ne, {out, h}, "attn_residual");
  const int up = g.op(Op::kUnary, Type::kF32, {s.ffn, n, 1, 1}, {linear(g, w, layer_norm(g, mid, w), s.ffn)}, "gelu");
  const int down = linear(g, w, up, s.hidden);
  return g.op(Op::kAdd, Type::kF32, g.at(down).ne, {down, mid}, "l_out");
}

Graph build(const VisionEncoderShape& s) {
  const uint64_t side = s.image / s.patch;
  const uint64_t n = side * side;
  // ggml_pool_2d with a kernel and stride of k = side / token side, no
  // padding: side / k a side.
  const uint64_t pooled_side = side / (side / isqrt_side(s.tokens_per_image));
  Graph g;
  g.reserve(64 + s.layers * 40);
  const int w = g.external();
  // The projector's weight [text_hidden, hidden] permuted contiguous: F16.
  const int proj_w = g.op(Op::kOther, Type::kF16, {s.hidden, s.text_hidden, 1, 1}, {w}, "mm_proj_w_cont");
  const int pixels = g.input(Type::kF32, {s.image, s.image, s.channels, 1}, "pixels#copy");
  const int im2col =
      g.op(Op::kOther, Type::kF16, {s.channels * s.patch * s.patch, side, side, 1}, {w, pixels}, "im2col");
  const int conv = g.op(Op::kMulMat, Type::kF32, {n, s.hidden, 1, 1}, {g.reshape(im2col, {s.channels * s.patch * s.patch, n, 1, 1}), w},
                        "conv_mul_mat");
  const int conv_cont = g.op(Op::kOther, Type::kF32, {side, side, s.hidden, 1}, {g.reshape(conv, {side, side, 1, s.hidden})},
                             "conv_cont");
  int h = g.op(Op::kOther, Type::kF32, {s.hidden, n, 1, 1}, {g.permute(g.reshape(conv_cont, {n, s.hidden, 1, 1}), 1, 0, 2, 3)},
               "patches_cont");
  const int positions = g.input(Type::kI32, {n, 1, 1, 1}, "positions#copy");
  const int pos_rows = g.op(Op::kGetRows, Type::kF32, {s.hidden, n, 1, 1}, {w, positions}, "position_embd");
  h = g.op(Op::kAdd, Type::kF32, {s.hidden, n, 1, 1}, {h, pos_rows}, "embd");
  for (uint64_t il = 0; il < s.layers; ++il) h = encoder_layer(g, s, w, h, n);
  h = layer_norm(g, h, w);
  // MultiModalProjector.Forward.
  const int t = g.op(Op::kOther, Type::kF32, {n, s.hidden, 1, 1}, {g.permute(h, 1, 0, 2, 3)}, "mm_cont");
  const int pooled = g.op(Op::kOther, Type::kF32, {pooled_side, pooled_side, s.hidden, 1},
                          {g.reshape(t, {side, side, s.hidden, 1})}, "avg_pool");
  const uint64_t tokens = pooled_side * pooled_side;
  const int rows = g.op(Op::kOther, Type::kF32, {s.hidden, tokens, 1, 1},
                        {g.permute(g.reshape(pooled, {tokens, s.hidden, 1, 1}), 1, 0, 2, 3)}, "mm_rows_cont");
  const int normed = lg::rms_norm_mul(g, rows, w);
  g.expand(g.op(Op::kMulMat, Type::kF32, {s.text_hidden, tokens, 1, 1}, {proj_w, normed}, "mm_input_projection"));
  return g;
}

}  // namespace

Result<std::optional<uint64_t>> gemma3_vision_graph_bytes(const VisionEncoderShape& s, uint64_t alignment) {
  for (uint64_t v : {s.layers, s.hidden, s.heads, s.ffn, s.image, s.patch, s.channels, s.text_hidden,
                     s.tokens_per_image}) {
    if (v == 0 || v >= lg::kMaxFactor) return std::optional<uint64_t>();
  }
  if (s.layers > lg::kMaxLayers || s.hidden % s.heads != 0 || s.image % s.patch != 0) return std::optional<uint64_t>();
  const uint64_t side = s.image / s.patch;
  // The pool's kernel: patches a side over the tokens' side (model.go:
  // patchesPerImage / int(sqrt(tokensPerImage))), a whole divisor.
  const uint64_t token_side = isqrt_side(s.tokens_per_image);
  if (side >= lg::kMaxFactor / side || s.channels * s.patch * s.patch >= lg::kMaxFactor || token_side == 0 ||
      token_side > side || side % (side / token_side) != 0) {
    return std::optional<uint64_t>();
  }
  Result<uint64_t> bytes = ggml_graph::replay_allocation(build(s), alignment);
  if (!bytes) return bytes.error();
  return std::optional<uint64_t>(*bytes);
}

}  // namespace memfit::ollama
