// The layer tails llama.cpp's builders share (llamacpp/graph/builders.h):
// the last layer's output rows, build_ffn SiLU-gated and build_moe_ffn,
// each tensor in the order llama.cpp makes it. The facts behind each step:
// docs/llamacpp-rules.md, "Compute buffers (replayed)".
#include <string>
#include <string_view>
#include <vector>

#include "engines/llamacpp/graph/builders.h"

namespace memfit::llamacpp::graph {

using ggml_graph::Dims;
using ggml_graph::Op;
using ggml_graph::Type;

namespace {

// The routing of build_moe_ffn: the experts selected per token (a view
// [used, n] of the argsort) and their weights [1, used, n], expanded.
struct Routing {
  int selected = -1;
  int weights = -1;
};

// The gate's probabilities (softmax or sigmoid), the selection bias added
// for the choice when set, the `used` largest taken, their probabilities
// gathered, normalized and scaled when set.
Routing route(Graph& g, const MoeShape& s, int weight, int cur, uint64_t n) {
  const int logits = mul_mat(g, g.weight(weight, block_tensor(g.layer(), "ffn_gate_inp")), cur, s.experts);
  const int probs = g.op(s.sigmoid ? Op::kUnary : Op::kSoftMax, Type::kF32, {s.experts, n, 1, 1}, {logits},
                         "ffn_moe_probs");
  int selection = probs;
  if (s.selection_bias) {
    const int bias = g.weight(weight, block_tensor(g.layer(), "exp_probs_b", "bias"));
    selection = g.op(Op::kAdd, Type::kF32, {s.experts, n, 1, 1}, {probs, bias}, "ffn_moe_probs_biased");
  }
  const int argsort = g.op(Op::kOther, Type::kI32, {s.experts, n, 1, 1}, {selection}, "ffn_moe_argsort");
  Routing r;
  r.selected = g.view(argsort, {s.used, n, 1, 1}, g.at(argsort).nb, 0);
  const int probs3 = g.reshape(probs, {1, s.experts, n, 1});
  r.weights = g.op(Op::kOther, Type::kF32, {1, s.used, n, 1}, {probs3, r.selected}, "ffn_moe_weights");
  if (s.weights_norm) {
    r.weights = g.reshape(r.weights, {s.used, n, 1, 1});
    int sum = g.op(Op::kOther, Type::kF32, {1, n, 1, 1}, {r.weights}, "ffn_moe_weights_sum");
    sum = g.op(Op::kClamp, Type::kF32, {1, n, 1, 1}, {sum});
    r.weights = g.op(Op::kDiv, Type::kF32, {s.used, n, 1, 1}, {r.weights, sum}, "ffn_moe_weights_norm");
    r.weights = g.reshape(r.weights, {1, s.used, n, 1});
  }
  if (s.weights_scaled) {
    r.weights = g.op(Op::kScale, Type::kF32, {1, s.used, n, 1}, {r.weights}, "ffn_moe_weights_scaled");
  }
  g.expand(r.weights);
  return r;
}

// The selected experts, SwiGLU each, weighted, then one strided view per
// used expert summed: [hidden, n].
int routed_experts(Graph& g, const MoeShape& s, int weight, int cur, const Routing& r, uint64_t n) {
  const int x = g.reshape(cur, {s.hidden, 1, n, 1});
  const Dims wide = {s.expert_ffn, s.used, n, 1};
  const int up =
      g.op(Op::kOther, Type::kF32, wide, {g.weight(weight, block_tensor(g.layer(), "ffn_up_exps")), x, r.selected},
           "ffn_moe_up");
  const int gate =
      g.op(Op::kOther, Type::kF32, wide, {g.weight(weight, block_tensor(g.layer(), "ffn_gate_exps")), x, r.selected},
           "ffn_moe_gate");
  int glu = -1;
  if (s.fused) {
    glu = g.op(Op::kOther, Type::kF32, wide, {gate, up}, "ffn_moe_swiglu");
  } else {
    // ggml_silu(gate) in place, then ggml_mul(up, gate): in place over up.
    const int silu = g.op(Op::kUnary, Type::kF32, wide, {gate}, "ffn_moe_silu");
    glu = g.op(Op::kMul, Type::kF32, wide, {up, silu}, "ffn_moe_gate_par");
  }
  int experts = g.op(Op::kOther, Type::kF32, {s.hidden, s.used, n, 1},
                     {g.weight(weight, block_tensor(g.layer(), "ffn_down_exps")), glu, r.selected}, "ffn_moe_down");
  experts = g.op(Op::kMul, Type::kF32, {s.hidden, s.used, n, 1}, {experts, r.weights}, "ffn_moe_weighted");
  g.expand(experts);
  const Dims et = g.at(experts).nb;
  std::vector<int> views;
  for (uint64_t i = 0; i < s.used; ++i) {
    views.push_back(g.view(experts, {s.hidden, n, 1, 1}, {et[0], et[2], et[2] * n, et[2] * n}, i * et[1]));
    g.expand(views.back());
  }
  int out = views[0];
  for (size_t i = 1; i < views.size(); ++i) {
    out = g.op(Op::kAdd, Type::kF32, {s.hidden, n, 1, 1}, {out, views[i]}, "ffn_moe_out");
    g.expand(out);
  }
  if (views.size() == 1) out = g.op(Op::kOther, Type::kF32, {s.hidden, n, 1, 1}, {out}, "cont");
  return out;
}

}  // namespace

uint64_t keep_output_rows(Graph& g, int out_ids, uint64_t hidden, uint64_t n_out, int& cur, int& residual) {
  cur = g.op(Op::kGetRows, Type::kF32, {hidden, n_out, 1, 1}, {cur, out_ids}, "get_rows");
  residual = g.op(Op::kGetRows, Type::kF32, {hidden, n_out, 1, 1}, {residual, out_ids}, "get_rows");
  return n_out;
}

int swiglu_ffn(Graph& g, int weight, int cur, uint64_t width, uint64_t hidden, bool fused, std::string_view suffix) {
  const auto w = [&](std::string_view kind) {
    return g.weight(weight, block_tensor(g.layer(), std::string(kind) + std::string(suffix)));
  };
  const int down = w("ffn_down");
  const int up = mul_mat(g, w("ffn_up"), cur, width);
  const int gate = mul_mat(g, w("ffn_gate"), cur, width);
  if (!fused) {
    const int silu = g.op(Op::kUnary, Type::kF32, g.at(gate).ne, {gate}, "ffn_silu");
    const int product = g.op(Op::kMul, Type::kF32, g.at(gate).ne, {silu, up}, "ffn_gate_par");
    return mul_mat(g, down, product, hidden);
  }
  const int glu = g.op(Op::kGlu, Type::kF32, g.at(gate).ne, {gate, up}, "ffn_swiglu");
  return mul_mat(g, down, glu, hidden);
}

int merged_swiglu_ffn(Graph& g, int weight, int cur, uint64_t width, uint64_t hidden, bool fused) {
  const uint64_t n = g.at(cur).ne[1];
  const int down = g.weight(weight, block_tensor(g.layer(), "ffn_down"));
  const int up = mul_mat(g, g.weight(weight, block_tensor(g.layer(), "ffn_up")), cur, 2 * width);
  if (fused) {
    const int glu = g.op(Op::kGlu, Type::kF32, {width, n, 1, 1}, {up}, "ffn_swiglu");
    return mul_mat(g, down, glu, hidden);
  }
  const Dims nb = g.at(up).nb;
  const int x0 = g.op(Op::kOther, Type::kF32, {width, n, 1, 1}, {g.view(up, {width, n, 1, 1}, nb, 0)}, "cont");
  const int silu = g.op(Op::kUnary, Type::kF32, {width, n, 1, 1}, {x0}, "ffn_silu");
  const int x1 = g.op(Op::kOther, Type::kF32, {width, n, 1, 1}, {g.view(up, {width, n, 1, 1}, nb, 4 * width)},
                      "cont");
  const int product = g.op(Op::kMul, Type::kF32, {width, n, 1, 1}, {silu, x1}, "ffn_mul");
  return mul_mat(g, down, product, hidden);
}

int moe_ffn(Graph& g, const MoeShape& s, int weight, int cur, uint64_t n) {
  const Routing r = route(g, s, weight, cur, n);
  return routed_experts(g, s, weight, cur, r, n);
}

}  // namespace memfit::llamacpp::graph
