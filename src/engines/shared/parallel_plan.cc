// plan_parallel(): per-rank estimates of a TP x PP deployment
// (memfit/parallel_plan.h; docs/parallel.md). Every rank of one pipeline
// stage holds the same bytes, so the plan is computed per stage: the
// stage's weights for one TP rank, the model's per-layer cache description
// cut to the stage's layers and to one rank's share of KV heads, then the
// mlxcel profile's estimate_mlxcel() of that "rank model" against one device's
// budget, so headroom, fit and the report follow the single-device rules.
// Weights come from the tensor list when there is one
// (shared/parallel_tensors.cc), else from a proportional split.
#include <fmt/format.h>

#include <algorithm>

#include "engines/shared/fixed_point.h"
#include "memfit/memory_size.h"
#include "memfit/checked_math.h"
#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"

namespace memfit {
namespace {

Error overflow(std::string_view what) {
  return Error::overflow(fmt::format("{} overflows 64 bits: the checkpoint or the plan is absurd", what));
}

bool is_attention(LayerKind kind) {
  return kind == LayerKind::kFullAttention || kind == LayerKind::kSlidingWindow ||
         kind == LayerKind::kChunked;
}

bool is_recurrent(LayerKind kind) {
  return kind == LayerKind::kLinearAttention || kind == LayerKind::kSsm ||
         kind == LayerKind::kConv;
}

uint64_t layer_count(const ModelSpec& spec) {
  return spec.layers.empty() ? spec.geometry.layers : spec.layers.size();
}

// The engine's refusals, worded with the rule that refuses.
Status check_heads(const ModelSpec& spec, const ParallelConfig& c) {
  const uint64_t tp = c.tensor_parallel;
  if (tp <= 1) return Status::Ok();
  const ModelGeometry& g = spec.geometry;
  if (g.heads > 0 && g.heads % tp != 0) {
    return Error::usage(fmt::format(
        "tensor parallel size {} does not divide the model's {} attention heads ({})", tp, g.heads,
        c.sharding == ShardingRules::kVllm
            ? "vLLM requires num_attention_heads % tensor_parallel_size == 0"
            : "mlx-lm's shard() splits the heads evenly"));
  }
  const Mamba2Geometry& m = spec.mamba2;
  if (c.sharding == ShardingRules::kVllm && m.heads != 0) {
    // MambaMixer2's assertions (vLLM model_executor/layers/mamba/mamba_mixer2.py).
    if (m.heads % tp != 0) {
      return Error::usage(fmt::format(
          "tensor parallel size {} does not divide the model's {} Mamba heads (vLLM requires "
          "num_heads % tensor_parallel_size == 0)", tp, m.heads));
    }
    if (m.groups % tp != 0 && m.groups != 1) {
      return Error::usage(fmt::format(
          "tensor parallel size {} does not divide the model's {} Mamba groups (vLLM requires "
          "n_groups % tensor_parallel_size == 0 or n_groups == 1)", tp, m.groups));
    }
  }
  bool attention = std::any_of(spec.layers.begin(), spec.layers.end(),
                               [](const LayerCache& l) { return is_attention(l.kind); });
  uint64_t kv = g.kv_heads;
  if (!attention || kv == 0) return Status::Ok();
  if (c.sharding == ShardingRules::kMlxLm) {
    if (kv % tp != 0) {
      return Error::usage(fmt::format(
          "tensor parallel size {} does not divide the model's {} KV heads (mlx-lm's shard() "
          "splits k_proj and v_proj evenly and cannot replicate KV heads)", tp, kv));
    }
  } else if (kv >= tp && kv % tp != 0) {
    return Error::usage(fmt::format(
        "tensor parallel size {} does not divide the model's {} KV heads (vLLM requires "
        "num_key_value_heads % tensor_parallel_size == 0)", tp, kv));
  } else if (kv < tp && tp % kv != 0) {
    return Error::usage(fmt::format(
        "tensor parallel size {} is not a multiple of the model's {} KV heads (vLLM replicates "
        "KV heads only when tensor_parallel_size % num_key_value_heads == 0)", tp, kv));
  }
  return Status::Ok();
}

// Weights of one TP rank of each stage.
struct StageWeights {
  std::vector<uint64_t> bytes;  // per stage
  bool from_tensor_list = false;
};

struct Placement {
  bool first = false, last = false, every = false;
};

// The stages that hold a tensor outside the layers, by its role.
Placement stages_of(TensorRole role, bool tied, bool vllm) {
  Placement where;
  switch (role) {
    case TensorRole::kEmbedding:
      // vLLM: first stage; with tied embeddings the last stage holds it
      // too, as its LM head. mlx-lm: every stage.
      where.first = true;
      where.last = tied;
      where.every = !vllm;
      break;
    case TensorRole::kLmHead:
    case TensorRole::kFinalNorm:
      where.last = true;
      where.every = !vllm;
      break;
    case TensorRole::kTower:
      where.every = true;
      break;
    default:
      where.every = true;  // anything else outside the layers: conservative
      break;
  }
  return where;
}

// What split_tensor_list left out or counted whole, for the assumptions.
struct SplitNotes {
  uint64_t skipped = 0, skipped_bytes = 0, tower_bytes = 0;
};

void note_split(const SplitNotes& notes, uint64_t layers, bool tied_on_last_stage,
                std::vector<std::string>& assumptions) {
  if (notes.skipped > 0) {
    assumptions.push_back(fmt::format(
        "{} tensors of layers past the {} decoder layers (multi-token prediction) are not loaded "
        "by the engine: {} left out of every rank", notes.skipped, layers,
        format_bytes(notes.skipped_bytes)));
  }
  if (notes.tower_bytes > 0) {
    assumptions.push_back(fmt::format(
        "vision/audio towers and projector ({}) counted whole on every rank",
        format_bytes(notes.tower_bytes)));
  }
  if (tied_on_last_stage) {
    assumptions.push_back("tied embeddings: the last stage holds the embedding as its LM head (vLLM)");
  }
}

Result<StageWeights> split_tensor_list(std::span<const SafetensorsTensor> tensors,
                                       const std::vector<LayerRange>& ranges,
                                       uint64_t layers, const TensorSplit& split,
                                       std::vector<std::string>& assumptions) {
  const size_t stages = ranges.size();
  std::vector<CheckedBytes> sums(stages);
  bool any_layer = false, tied = true;
  SplitNotes notes;
  std::vector<TensorPlacement> placed;
  placed.reserve(tensors.size());
  for (const SafetensorsTensor& t : tensors) {
    placed.push_back(place_tensor(t.name));
    if (placed.back().role == TensorRole::kLmHead) tied = false;
    if (placed.back().layer) any_layer = true;
  }
  if (!any_layer) return StageWeights{};  // no name carries a layer: caller falls back
  const bool vllm = split.sharding == ShardingRules::kVllm;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const SafetensorsTensor& t = tensors[i];
    const TensorPlacement& p = placed[i];
    if (p.layer && *p.layer >= layers) {
      ++notes.skipped;
      notes.skipped_bytes = (CheckedBytes(notes.skipped_bytes) + t.data_bytes).saturated();
      continue;
    }
    Result<uint64_t> share = tp_rank_tensor_bytes(t, p.role, split);
    if (!share) return share.error();
    if (p.layer) {
      // Ranges are contiguous and ordered: the stage is the first whose end
      // lies past the layer.
      auto it = std::upper_bound(ranges.begin(), ranges.end(), *p.layer,
                                 [](uint64_t layer, const LayerRange& r) { return layer < r.end; });
      sums[static_cast<size_t>(it - ranges.begin())] += *share;
      continue;
    }
    if (p.role == TensorRole::kTower) {
      notes.tower_bytes = (CheckedBytes(notes.tower_bytes) + t.data_bytes).saturated();
    }
    const Placement where = stages_of(p.role, tied, vllm);
    for (size_t s = 0; s < stages; ++s) {
      if (where.every || (where.first && s == 0) || (where.last && s + 1 == stages)) {
        sums[s] += *share;
      }
    }
  }
  StageWeights out;
  out.from_tensor_list = true;
  for (const CheckedBytes& b : sums) {
    if (!b.value()) return overflow("stage weights");
    out.bytes.push_back(*b.value());
  }
  note_split(notes, layers, vllm && tied && stages > 1, assumptions);
  return out;
}

Result<StageWeights> split_proportionally(const Model& model,
                                          const std::vector<LayerRange>& ranges, uint64_t layers,
                                          const ParallelConfig& c,
                                          std::vector<std::string>& assumptions) {
  const uint64_t w = model.weights.bytes;
  const ModelGeometry& g = model.spec.geometry;
  const uint64_t params = model.spec.analytical_params;
  // One vocab x hidden matrix at the checkpoint's average bytes per parameter.
  uint64_t matrix = 0;
  if (params > 0 && g.vocab > 0 && g.hidden > 0) {
    CheckedBytes elems = CheckedBytes(g.vocab) * g.hidden;
    if (elems.value()) matrix = mul_div_ceil(w, *elems.value(), params).value_or(w);
    matrix = std::min(matrix, w / 4);
  }
  const uint64_t body = w - 2 * matrix;  // 2 x matrix <= w / 2
  const uint64_t tp = c.tensor_parallel;
  const bool vllm = c.sharding == ShardingRules::kVllm;
  uint64_t matrix_rank = vllm ? *CheckedBytes::ceil_div(matrix, tp).value() : matrix;
  StageWeights out;
  for (size_t s = 0; s < ranges.size(); ++s) {
    uint64_t stage_layers = ranges[s].count();
    std::optional<uint64_t> body_stage =
        layers == 0 ? std::optional<uint64_t>(body) : mul_div_ceil(body, stage_layers, layers);
    if (!body_stage) return overflow("stage weights");
    CheckedBytes bytes = CheckedBytes::ceil_div(*body_stage, tp);
    bool first = s == 0, last = s + 1 == ranges.size();
    if (first || !vllm) bytes += matrix_rank;  // embedding
    if (last || !vllm) bytes += matrix_rank;   // LM head
    if (!bytes.value()) return overflow("stage weights");
    out.bytes.push_back(*bytes.value());
  }
  assumptions.push_back(fmt::format(
      "no per-tensor header list (weights from {}): weights split proportionally, one vocab x "
      "hidden matrix ({}) each for the embedding and an LM head assumed untied, the rest evenly "
      "over the layers and divided by tensor parallelism; not exact",
      to_string(model.weights.source), format_bytes(matrix)));
  return out;
}

// The cache one TP rank of `range` holds: attention layers keep their share
// of KV heads; MLA latents stay whole (every rank caches the full latent);
// recurrent state is split by TP in vLLM and kept whole in mlx-lm.
ModelSpec rank_spec(const ModelSpec& spec, const LayerRange& range, const ParallelConfig& c,
                    uint64_t kv_rank) {
  ModelSpec out = spec;
  out.layers.clear();
  const uint64_t kv = spec.geometry.kv_heads;
  const uint64_t tp = c.tensor_parallel;
  for (uint64_t i = range.begin; i < range.end && i < spec.layers.size(); ++i) {
    LayerCache l = spec.layers[i];
    if (tp > 1 && is_attention(l.kind) && kv > 0) {
      l.elems_per_token = mul_div_ceil(l.elems_per_token, kv_rank, kv).value_or(l.elems_per_token);
    }
    if (tp > 1 && is_recurrent(l.kind) && c.sharding == ShardingRules::kVllm) {
      l.state_bytes = *CheckedBytes::ceil_div(l.state_bytes, tp).value();
    }
    out.layers.push_back(l);
  }
  if (kv > 0) {
    out.geometry.kv_heads = kv_rank;
    if (tp > 1) {
      out.cache_detail = fmt::format("{}; {} of {} KV heads per rank", spec.cache_detail, kv_rank, kv);
    }
  }
  return out;
}

void add_rule_assumptions(const Model& model, const ParallelConfig& c, uint64_t layers,
                          std::vector<std::string>& a) {
  const uint64_t tp = c.tensor_parallel, pp = c.pipeline_parallel;
  if (c.sharding == ShardingRules::kVllm) {
    a.push_back("vllm: embedding on the first stage, final norm and LM head on the last, split by "
                "vocabulary padded to 64 rows; attention and MLP matrices split by tensor "
                "parallelism, norms and routers whole");
  } else {
    a.push_back("mlx: embedding, final norm and LM head whole on every rank; attention and MLP "
                "matrices split by tensor parallelism, norms and routers whole");
    if (pp > 1 && layers % pp != 0) {
      a.push_back(fmt::format(
          "mlx-lm's pipeline start index skips a layer when {} layers do not divide into {} "
          "stages; memfit counts the intended split, which never holds fewer layers per rank",
          layers, pp));
    }
  }
  if (tp <= 1) return;
  const ModelSpec& spec = model.spec;
  const uint64_t kv = spec.geometry.kv_heads;
  bool attention = false, mla = false, recurrent = false;
  for (const LayerCache& l : spec.layers) {
    attention |= is_attention(l.kind);
    mla |= l.kind == LayerKind::kMlaLatent;
    recurrent |= is_recurrent(l.kind);
  }
  if (attention && kv > 0 && kv < tp) {
    a.push_back(fmt::format("{} KV heads for {} tensor-parallel ranks: each rank caches one "
                            "replicated KV head (and holds its k/v projection rows)", kv, tp));
  }
  if (mla) {
    a.push_back("MLA latent cache is not split by tensor parallelism: every rank caches the "
                "whole latent of every token");
  }
  if (recurrent) {
    a.push_back(c.sharding == ShardingRules::kVllm
                    ? "recurrent state split by tensor parallelism (vLLM shards its heads)"
                    : "recurrent state counted whole on every rank");
  }
  if (spec.moe.experts > 0) {
    a.push_back("routed experts split by tensor parallelism (each expert's intermediate "
                "dimension); expert parallelism is not modelled");
  }
  a.push_back("activation reserve counted whole on every rank");
}

}  // namespace

Result<std::vector<LayerRange>> pipeline_layer_ranges(ShardingRules rules, uint64_t layers,
                                                      uint64_t stages) {
  if (stages == 0) return Error::usage("pipeline parallel size must be at least 1");
  if (stages > layers) {
    return Error::usage(fmt::format("pipeline parallel size {} exceeds the model's {} layers", stages, layers));
  }
  const uint64_t base = layers / stages, extra = layers % stages;
  std::vector<uint64_t> counts(stages, base);
  for (uint64_t i = 0; i < extra; ++i) {
    // vLLM: stages P-2, P-3, ... (the last stage carries the norm and head).
    // mlx-lm: pipeline ranks 0 .. extra-1, which hold the last layers.
    uint64_t stage = rules == ShardingRules::kVllm ? stages - 2 - i : stages - 1 - i;
    counts[stage] += 1;
  }
  std::vector<LayerRange> ranges;
  uint64_t begin = 0;
  for (uint64_t n : counts) {
    ranges.push_back(LayerRange{begin, begin + n});
    begin += n;
  }
  return ranges;
}

Status check_parallel_config(const ModelSpec& spec, const ParallelConfig& c) {
  if (c.tensor_parallel == 0) return Error::usage("tensor parallel size must be at least 1");
  if (c.pipeline_parallel == 0) return Error::usage("pipeline parallel size must be at least 1");
  CheckedBytes ranks = CheckedBytes(c.tensor_parallel) * c.pipeline_parallel;
  if (ranks.saturated() > kMaxParallelRanks) {
    return Error::usage(fmt::format("{} x {} ranks: more than the {} memfit plans", c.tensor_parallel,
                             c.pipeline_parallel, kMaxParallelRanks));
  }
  const uint64_t layers = layer_count(spec);
  if (c.pipeline_parallel > 1 && layers == 0) {
    return Error::usage("pipeline parallelism needs the model's layer count, and its config gives none");
  }
  if (c.pipeline_parallel > 1 && c.pipeline_parallel > layers) {
    return Error::usage(fmt::format("pipeline parallel size {} exceeds the model's {} layers",
                             c.pipeline_parallel, layers));
  }
  return check_heads(spec, c);
}

Result<ParallelPlan> plan_parallel(const Model& model, std::span<const SafetensorsTensor> tensors,
                                   const MlxcelInputs& inputs, const MlxcelSettings& settings,
                                   const Platform& platform, const MemoryBudget& per_device,
                                   const ParallelConfig& c) {
  if (Status refused = check_parallel_config(model.spec, c); !refused) return refused.error();
  const uint64_t layers = layer_count(model.spec);
  std::vector<LayerRange> ranges = {LayerRange{0, layers}};
  if (layers > 0) {
    Result<std::vector<LayerRange>> r = pipeline_layer_ranges(c.sharding, layers, c.pipeline_parallel);
    if (!r) return r.error();
    ranges = std::move(*r);
  }

  ParallelPlan plan;
  plan.config = c;
  add_rule_assumptions(model, c, layers, plan.assumptions);
  const uint64_t kv = model.spec.geometry.kv_heads;
  const uint64_t kv_rank = kv_heads_per_rank(kv, c.tensor_parallel);
  TensorSplit split{c.sharding, c.tensor_parallel, kv, model.spec.mamba2};

  StageWeights weights;
  // Without a layer count no tensor can be placed in a stage.
  if (!tensors.empty() && layers > 0) {
    Result<StageWeights> w = split_tensor_list(tensors, ranges, layers, split, plan.assumptions);
    if (!w) return w.error();
    weights = std::move(*w);
    if (!weights.from_tensor_list) {
      plan.assumptions.push_back("no tensor name carries a decoder layer index");
    }
  }
  if (!weights.from_tensor_list) {
    Result<StageWeights> w = split_proportionally(model, ranges, layers, c, plan.assumptions);
    if (!w) return w.error();
    weights = std::move(*w);
  }
  plan.from_tensor_list = weights.from_tensor_list;

  plan.fits = true;
  bool attention = std::any_of(model.spec.layers.begin(), model.spec.layers.end(),
                               [](const LayerCache& l) { return is_attention(l.kind); });
  for (size_t s = 0; s < ranges.size(); ++s) {
    Model rank_model = model;
    rank_model.weights.bytes = weights.bytes[s];
    rank_model.spec = rank_spec(model.spec, ranges[s], c, kv_rank);
    Result<MlxcelEstimate> e = estimate_mlxcel(rank_model, inputs, settings, platform, per_device);
    if (!e) return e.error().within(fmt::format("pipeline stage {}", s));
    plan.fits = plan.fits && e->fits;
    for (uint64_t t = 0; t < c.tensor_parallel; ++t) {
      RankEstimate r;
      r.rank = s * c.tensor_parallel + t;
      r.tp_rank = t;
      r.pp_stage = s;
      r.layers = ranges[s];
      r.kv_heads = attention ? kv_rank : 0;
      r.estimate = *e;
      plan.ranks.push_back(std::move(r));
    }
  }
  return plan;
}

}  // namespace memfit
