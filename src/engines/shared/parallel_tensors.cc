// Which tensors a tensor-parallel rank holds, and how much of each
// (shared/parallel_tensors.h). Tensors are classified by the module segment of
// their name, the last segment that names a known module
// ("model.layers.3.mlp.experts.7.down_proj.weight" -> down_proj,
// row-parallel; "....q_proj.weight.absmax" -> q_proj). The split of each
// module under vLLM and mlx-lm, with the sources behind each row:
// docs/parallel.md, "Tensor parallelism".
#include <fmt/format.h>

#include <array>
#include <charconv>

#include "memfit/untrusted_text.h"
#include "engines/shared/fixed_point.h"
#include "memfit/checked_math.h"
#include "memfit/engine.h"
#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"
#include "memfit/untrusted_text.h"
#include "model/weight_components.h"

namespace memfit {
namespace {

constexpr uint64_t kVocabPaddingRows = 64;  // vLLM DEFAULT_VOCAB_PADDING_SIZE

constexpr std::array<std::string_view, 15> kColumnModules = {
    "q_proj", "q_b_proj", "kv_b_proj", "qkv_proj", "query_key_value", "c_attn", "Wqkv",
    "gate_proj", "up_proj", "gate_up_proj", "w1", "w3", "fc1", "c_fc", "dense_h_to_4h"};
constexpr std::array<std::string_view, 2> kKvModules = {"k_proj", "v_proj"};
constexpr std::array<std::string_view, 9> kRowModules = {
    "o_proj", "down_proj", "w2", "fc2", "c_proj", "dense_4h_to_h", "out_proj", "dense", "wo"};
// Modules every rank keeps whole; listed so that the scan stops at them.
constexpr std::array<std::string_view, 7> kReplicatedModules = {
    "gate", "router", "shared_expert_gate", "q_a_proj", "kv_a_proj_with_mqa",
    "e_score_correction_bias", "rotary_emb"};
constexpr std::array<std::string_view, 6> kEmbeddingModules = {
    "embed_tokens", "wte", "word_embeddings", "tok_embeddings", "embeddings", "embedding"};
constexpr std::array<std::string_view, 2> kLmHeadModules = {"lm_head", "embed_out"};
// Gated-delta-net tensors under a "linear_attn" module: split by TP in
// vLLM, whole in mlx-lm (TensorRole::kLinearAttention).
constexpr std::array<std::string_view, 9> kLinearAttentionModules = {
    "in_proj_qkvz", "in_proj_ba", "in_proj_qkv", "in_proj_z", "in_proj_b",
    "in_proj_a",    "conv1d",     "A_log",       "dt_bias"};
// Mamba mixer tensors under a "mixer" or "mamba" module
// (TensorRole::kSsmInProjection, kSsmConv, kSsmHeads).
constexpr std::array<std::string_view, 2> kSsmParents = {"mixer", "mamba"};
constexpr std::array<std::string_view, 6> kSsmHeadModules = {"A_log", "D",      "dt_bias",
                                                            "norm",  "x_proj", "dt_proj"};
// Fused expert parameters written without a ".weight" leaf (gpt-oss:
// "experts.gate_up_proj_bias", "experts.down_proj_blocks").
constexpr std::array<std::string_view, 3> kFusedSuffixes = {"_bias", "_blocks", "_scales"};

template <size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view s) {
  for (std::string_view m : set) {
    if (m == s) return true;
  }
  return false;
}

std::vector<std::string_view> split_segments(std::string_view name) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    out.push_back(name.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

std::optional<uint64_t> parse_index(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool is_norm(std::string_view s) {
  return s.find("norm") != std::string_view::npos || s.rfind("ln_", 0) == 0 || s == "ln" ||
         s == "ln_f";
}

// The split role of a matrix module named `s`, allowing a fused suffix.
std::optional<TensorRole> matrix_role(std::string_view s, bool& fused_bias) {
  fused_bias = false;
  for (int pass = 0; pass < 2; ++pass) {
    if (contains(kColumnModules, s)) return TensorRole::kColumnParallel;
    if (contains(kKvModules, s)) return TensorRole::kKvProjection;
    if (contains(kRowModules, s)) return TensorRole::kRowParallel;
    if (pass == 1) break;
    bool stripped = false;
    for (std::string_view suffix : kFusedSuffixes) {
      if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
        fused_bias = suffix == "_bias";
        s = s.substr(0, s.size() - suffix.size());
        stripped = true;
        break;
      }
    }
    if (!stripped) break;
  }
  fused_bias = false;
  return std::nullopt;
}

// Output rows of a Mamba-2 in_proj (or channels of its conv1d) in the
// checkpoint and on one of `n` ranks, when vLLM replicates the B/C group
// (n_groups == 1, n > 1); nullopt when the rows split evenly (n_groups a
// multiple of n), when the widths are unknown (Mamba-1), or when vLLM
// refuses the split (n_groups neither 1 nor a multiple of n): ceil(bytes / n)
// then. A tensor's bytes are proportional to its output rows (weight,
// bias, per-channel scales), so bytes x rank / whole is its share.
struct MambaRows {
  uint64_t whole = 0;
  uint64_t rank = 0;
};
std::optional<MambaRows> mamba2_rows(const Mamba2Geometry& m, TensorRole role, uint64_t n) {
  if (m.heads == 0 || m.inner == 0 || m.state == 0 || m.groups != 1 || n <= 1) return std::nullopt;
  // The heads-split part: z, x and dt (in_proj) or x (conv1d).
  const CheckedBytes split = role == TensorRole::kSsmInProjection
                                 ? CheckedBytes(m.inner) * 2 + m.heads
                                 : CheckedBytes(m.inner);
  const CheckedBytes groups = CheckedBytes(m.state) * 2;  // B and C of the one group
  std::optional<uint64_t> whole = (split + groups).value();
  std::optional<uint64_t> rank = (CheckedBytes(split.saturated() / n) + groups).value();
  if (!whole || !rank || *whole == 0) return std::nullopt;
  return MambaRows{*whole, *rank};
}

}  // namespace

std::string_view to_string(ShardingRules rules) {
  return rules == ShardingRules::kMlxLm ? "mlx-lm" : "vllm";
}

Result<ShardingRules> parse_sharding_rules(std::string_view text) {
  // The spelling before the field took the engines' names.
  if (text == "mlx") return ShardingRules::kMlxLm;
  if (const EngineProfile* engine = EngineRegistry::instance().find(text)) {
    for (ShardingRules rules : {ShardingRules::kVllm, ShardingRules::kMlxLm}) {
      if (engine->name() == to_string(rules)) return rules;
    }
  }
  return Error::usage(fmt::format("{}: expected vllm or mlx-lm", quote_untrusted(text)));
}

TensorPlacement place_tensor(std::string_view name) {
  TensorPlacement p;
  if (classify_tensor(name) != WeightComponent::kLanguageModel) {
    p.role = TensorRole::kTower;
    return p;
  }
  std::vector<std::string_view> segments = split_segments(name);
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    std::string_view s = segments[i];
    if (s == "layers" || s == "h" || s == "blocks" || s == "layer") {
      if (std::optional<uint64_t> index = parse_index(segments[i + 1])) {
        p.layer = index;
        break;
      }
    }
  }
  bool bias_leaf = segments.back() == "bias";
  // The last segment naming a module decides; leaves such as "weight",
  // "scales" or "absmax" name none.
  for (size_t k = segments.size(); k-- > 0;) {
    std::string_view s = segments[k];
    bool fused_bias = false;
    if (std::optional<TensorRole> role = matrix_role(s, fused_bias)) {
      p.role = (bias_leaf || fused_bias) && *role == TensorRole::kRowParallel
                   ? TensorRole::kRowParallelBias
                   : *role;
      return p;
    }
    if (k > 0 && segments[k - 1] == "linear_attn" && contains(kLinearAttentionModules, s)) {
      p.role = TensorRole::kLinearAttention;
      return p;
    }
    if (k > 0 && contains(kSsmParents, segments[k - 1])) {
      if (s == "in_proj" || s == "conv1d") {
        p.role = s == "in_proj" ? TensorRole::kSsmInProjection : TensorRole::kSsmConv;
        return p;
      }
      if (contains(kSsmHeadModules, s)) {
        p.role = TensorRole::kSsmHeads;
        return p;
      }
    }
    if (contains(kReplicatedModules, s)) return p;
    if (is_norm(s)) {
      p.role = p.layer ? TensorRole::kReplicated : TensorRole::kFinalNorm;
      return p;
    }
    if (contains(kEmbeddingModules, s)) {
      p.role = TensorRole::kEmbedding;
      return p;
    }
    if (contains(kLmHeadModules, s) || (k == 0 && s == "output")) {
      p.role = TensorRole::kLmHead;
      return p;
    }
  }
  return p;
}

uint64_t kv_heads_per_rank(uint64_t kv_heads, uint64_t tensor_parallel) {
  if (kv_heads == 0 || tensor_parallel == 0) return kv_heads;
  return std::max<uint64_t>(1, kv_heads / tensor_parallel);
}

Result<uint64_t> tp_rank_tensor_bytes(const SafetensorsTensor& tensor, TensorRole role,
                                      const TensorSplit& split) {
  const uint64_t bytes = tensor.data_bytes;
  const uint64_t n = split.tensor_parallel;
  if (n <= 1) return bytes;
  CheckedBytes elements = 1;
  for (uint64_t d : tensor.shape) elements *= d;
  // Scalars (per-tensor quantization scales) stay whole on every rank.
  if (tensor.shape.empty() || elements.saturated() <= 1) return bytes;
  std::optional<uint64_t> share;
  switch (role) {
    case TensorRole::kSsmInProjection:
    case TensorRole::kSsmConv:
      if (split.sharding == ShardingRules::kMlxLm) return bytes;
      if (std::optional<MambaRows> rows = mamba2_rows(split.mamba2, role, n)) {
        share = mul_div_ceil(bytes, rows->rank, rows->whole);
        break;
      }
      share = CheckedBytes::ceil_div(bytes, n).value();
      break;
    case TensorRole::kSsmHeads:
    case TensorRole::kLinearAttention:
      // vLLM splits rows (output features, conv channels, heads) by N;
      // Qwen3-Next's interleaved qkvz keeps whole key-head groups, so a
      // rank's share is still bytes / N when N divides the heads.
      if (split.sharding == ShardingRules::kMlxLm) return bytes;
      [[fallthrough]];
    case TensorRole::kColumnParallel:
    case TensorRole::kRowParallel:
      share = CheckedBytes::ceil_div(bytes, n).value();
      break;
    case TensorRole::kKvProjection:
      if (split.sharding == ShardingRules::kVllm && split.kv_heads > 0) {
        share = mul_div_ceil(bytes, kv_heads_per_rank(split.kv_heads, n), split.kv_heads);
      } else {
        share = CheckedBytes::ceil_div(bytes, n).value();
      }
      break;
    case TensorRole::kEmbedding:
    case TensorRole::kLmHead: {
      if (split.sharding == ShardingRules::kMlxLm) return bytes;
      uint64_t rows = tensor.shape[0];
      if (rows == 0) return bytes;
      std::optional<uint64_t> padded = round_up(rows, kVocabPaddingRows).value();
      if (!padded) {
        return Error::overflow(
            fmt::format("{}: vocabulary rows overflow", quote_untrusted(tensor.name)));
      }
      share = mul_div_ceil(bytes, *CheckedBytes::ceil_div(*padded, n).value(), rows);
      break;
    }
    case TensorRole::kRowParallelBias:
    case TensorRole::kFinalNorm:
    case TensorRole::kReplicated:
    case TensorRole::kTower:
      return bytes;
  }
  if (!share) {
    return Error::overflow(
        fmt::format("{}: per-rank bytes overflow 64 bits", quote_untrusted(tensor.name)));
  }
  return *share;
}

}  // namespace memfit
