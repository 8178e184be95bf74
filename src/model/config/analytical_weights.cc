// Config-only weights at the declared quantization
// (model/config/analytical_weights.h): which blocks each scheme packs,
// matched by module path, and their bytes.
#include "model/config/analytical_weights.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "memfit/checked_math.h"
#include "model/error_text.h"
#include "model/config/quant_pricing.h"

namespace memfit {
namespace {

// MLX's default group size, when a config leaves it out.
constexpr uint64_t kMlxDefaultGroupSize = 64;

std::vector<std::string_view> split_dots(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) dot = path.size();
    out.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return out;
}

std::string canonical(std::string_view token) {
  static constexpr std::pair<std::string_view, std::string_view> kSynonyms[] = {
      {"attn", "self_attn"},           {"attention", "self_attn"},
      {"self_attention", "self_attn"}, {"feed_forward", "mlp"},
      {"block_sparse_moe", "mlp"},     {"ffn", "mlp"},
      {"router", "gate"},              {"switch_mlp", "experts"},
      {"shared_expert", "shared_experts"},
      {"w1", "gate_proj"},             {"w3", "up_proj"},
      {"w2", "down_proj"},             {"linear_attn", "mixer"},
      {"mamba", "mixer"},              {"wte", "embed_tokens"},
      {"word_embeddings", "embed_tokens"},
      {"tok_embeddings", "embed_tokens"}};
  for (const auto& [from, to] : kSynonyms) {
    if (token == from) return std::string(to);
  }
  return std::string(token);
}

bool is_index(std::string_view token) {
  return !token.empty() && token.size() <= 9 &&
         std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A block's module path split at its dots, each segment canonical as a
// pattern's are (parse_module_pattern): a block named by its checkpoint's
// word (Gemma 4's "router.proj") meets a config's entry under the same
// word ("language_model.model.layers.0.router.proj", canonical
// "gate.proj").
std::vector<std::string> canonical_path(std::string_view module) {
  std::vector<std::string> out;
  for (std::string_view token : split_dots(module)) out.push_back(canonical(token));
  return out;
}

// Whether `pattern` equals `path` from position `at` on, "*" matching any
// one segment.
bool run_matches(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
                 size_t at) {
  if (at + pattern.size() > path.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != "*" && pattern[i] != path[at + i]) return false;
  }
  return true;
}

// pattern_matches on a block whose module path is already split and canonical.
bool matches_path(const ModulePattern& pattern, const ParamBlock& block,
                  const std::vector<std::string>& path) {
  switch (pattern.scope) {
    case ModulePattern::Scope::kLayers:
      if (!block.layer || (pattern.layer && *pattern.layer != *block.layer)) return false;
      return run_matches(pattern.tokens, path, 0);
    case ModulePattern::Scope::kOutsideLayers:
      return !block.layer && !pattern.tokens.empty() && run_matches(pattern.tokens, path, 0);
    case ModulePattern::Scope::kAnywhere:
      if (pattern.tokens.empty()) return false;
      for (size_t at = 0; at < path.size(); ++at) {
        if (run_matches(pattern.tokens, path, at)) return true;
      }
      return false;
  }
  return false;
}

// Patterns from a config, indexed by the decoder layer they name, so that a
// block is checked against its own layer's patterns and the few that name
// no single layer. A config lists one entry per layer and module at most
// (Qwen3-30B-A3B-FP8: 145); patterns naming no single layer past
// kMaxUnindexedPatterns are ignored, which bounds the work a hostile config
// can cause to blocks x kMaxUnindexedPatterns.
constexpr size_t kMaxUnindexedPatterns = 256;

class PatternIndex {
 public:
  // Pattern ids are the order of add() calls, whether or not the pattern
  // is kept for matching.
  void add(ModulePattern pattern) {
    const size_t id = patterns_.size();
    if (pattern.scope == ModulePattern::Scope::kLayers && pattern.layer) {
      by_layer_[*pattern.layer].push_back(id);
    } else if (unindexed_.size() < kMaxUnindexedPatterns) {
      unindexed_.push_back(id);
    }
    patterns_.push_back(std::move(pattern));
  }
  // The first pattern added that matches `block`, or nullopt.
  std::optional<size_t> first_match(const ParamBlock& block,
                                    const std::vector<std::string>& path) const {
    std::optional<size_t> first;
    auto consider = [&](const std::vector<size_t>& ids) {
      for (size_t id : ids) {
        if (first && *first < id) return;  // ids ascend
        if (matches_path(patterns_[id], block, path)) {
          first = id;
          return;
        }
      }
    };
    if (block.layer) {
      auto it = by_layer_.find(*block.layer);
      if (it != by_layer_.end()) consider(it->second);
    }
    consider(unindexed_);
    return first;
  }

 private:
  std::vector<ModulePattern> patterns_;
  std::unordered_map<uint64_t, std::vector<size_t>> by_layer_;
  std::vector<size_t> unindexed_;
};

enum class Kind { kMlx, kGptq, kAwq, kFp8, kMxfp4, kBnb8, kBnb4 };

struct Scheme {
  Kind kind = Kind::kMlx;
  uint64_t bits = 0;
  uint64_t group_size = 0;
  uint64_t block_rows = 0;
  uint64_t block_cols = 0;
  bool lm_head = false;
  bool double_quant = false;
};

// The scheme `q` declares, or why it cannot be priced.
std::optional<Scheme> scheme_for(const QuantizationInfo& q, std::string& why_not) {
  Scheme s;
  s.bits = q.bits;
  s.group_size = q.group_size;
  if (q.method == "mlx_affine") {
    s.kind = Kind::kMlx;
    if (s.group_size == 0) s.group_size = kMlxDefaultGroupSize;
  } else if (q.method == "gptq") {
    s.kind = Kind::kGptq;
    s.lm_head = q.lm_head_quantized;
  } else if (q.method == "awq") {
    s.kind = Kind::kAwq;
  } else if (q.method == "fp8") {
    s.kind = Kind::kFp8;
    if (q.block_size.size() == 2) {
      s.block_rows = q.block_size[0];
      s.block_cols = q.block_size[1];
    }
  } else if (q.method == "mxfp4") {
    s.kind = Kind::kMxfp4;
  } else if (q.method == "bitsandbytes" && (q.bits == 8 || q.bits == 4)) {
    s.kind = q.bits == 8 ? Kind::kBnb8 : Kind::kBnb4;
    s.double_quant = q.double_quant;
  } else {
    why_not = fmt::format("its quantization {} is not one memfit prices from a config alone",
                          quote_untrusted(q.method));
    return std::nullopt;
  }
  if (s.bits == 0 || s.bits > 16) {
    why_not = fmt::format("its {} quantization states no usable bit width", q.method);
    return std::nullopt;
  }
  return s;
}

std::string describe(const Scheme& s, uint64_t overridden) {
  auto groups = [&] {
    return s.group_size == 0 ? std::string("per channel") : fmt::format("group {}", s.group_size);
  };
  switch (s.kind) {
    case Kind::kMlx:
      if (overridden == 0) return fmt::format("{}-bit MLX affine ({})", s.bits, groups());
      return fmt::format("{}-bit MLX affine ({}; per-module settings on {})", s.bits, groups(),
                         count_noun(overridden, "module", "modules"));
    case Kind::kGptq: return fmt::format("{}-bit GPTQ ({})", s.bits, groups());
    case Kind::kAwq: return fmt::format("{}-bit AWQ ({})", s.bits, groups());
    case Kind::kFp8:
      return s.block_rows > 0 && s.block_cols > 0
                 ? fmt::format("FP8 (block {}x{})", s.block_rows, s.block_cols)
                 : std::string("FP8 (per tensor)");
    case Kind::kMxfp4: return "MXFP4 (4-bit, an 8-bit scale per 32)";
    case Kind::kBnb8: return "8-bit bitsandbytes (LLM.int8)";
    case Kind::kBnb4:
      return s.double_quant ? "4-bit bitsandbytes (double quantization)" : "4-bit bitsandbytes";
  }
  return "";
}

bool quantizes_role(const Scheme& s, ParamRole role) {
  switch (role) {
    case ParamRole::kNorm:
    case ParamRole::kVision: return false;
    case ParamRole::kEmbedding: return s.kind == Kind::kMlx;
    case ParamRole::kLmHead:
      return s.kind == Kind::kMlx || (s.kind == Kind::kGptq && s.lm_head);
    case ParamRole::kRouter:
    case ParamRole::kCompressor:
      return s.kind == Kind::kMlx || s.kind == Kind::kBnb8 || s.kind == Kind::kBnb4;
    case ParamRole::kExperts: return true;
    case ParamRole::kAttention:
    case ParamRole::kMlp:
    case ParamRole::kSharedExperts:
    case ParamRole::kMixer: return s.kind != Kind::kMxfp4;
  }
  return false;
}

// One matrix of `b` at `bits` / `group_size`.
CheckedBytes matrix_bytes(const Scheme& s, const ParamBlock& b, uint64_t bits,
                          uint64_t group_size) {
  switch (s.kind) {
    case Kind::kMlx: return mlx_affine_bytes(CheckedBytes(b.rows) * b.cols, bits, group_size);
    case Kind::kGptq: return gptq_matrix_bytes(b.rows, b.cols, bits, group_size);
    case Kind::kAwq: return awq_matrix_bytes(b.rows, b.cols, bits, group_size);
    case Kind::kFp8: return fp8_matrix_bytes(b.rows, b.cols, s.block_rows, s.block_cols);
    case Kind::kMxfp4: return mxfp4_matrix_bytes(b.rows, b.cols);
    case Kind::kBnb8: return bnb_int8_matrix_bytes(b.rows, b.cols);
    case Kind::kBnb4: return bnb_4bit_matrix_bytes(b.rows, b.cols, s.double_quant);
  }
  return 0;
}

// Every block at 2 bytes but those the checkpoint stores at a fixed width.
AnalyticalWeights unquantized(const std::vector<ParamBlock>& blocks, uint64_t params, std::string why_not) {
  AnalyticalWeights w;
  CheckedBytes bytes = 0;
  for (const ParamBlock& b : blocks) {
    bytes += CheckedBytes(b.rows) * b.cols * b.copies * (b.element_bytes != 0 ? b.element_bytes : 2);
  }
  w.bytes = bytes.saturated();
  w.unquantized_params = params;
  w.detail = fmt::format("{} parameters x 2 bytes", params);
  if (!why_not.empty()) w.detail += fmt::format("; {}, so it was not applied", why_not);
  return w;
}

}  // namespace

ModulePattern parse_module_pattern(std::string_view path) {
  std::vector<std::string_view> tokens = split_dots(path);
  size_t at = 0;
  bool prefixed = false;
  while (at < tokens.size() && (tokens[at] == "model" || tokens[at] == "language_model")) {
    ++at;
    prefixed = true;
  }
  ModulePattern p;
  p.scope = prefixed ? ModulePattern::Scope::kOutsideLayers : ModulePattern::Scope::kAnywhere;
  if (at + 1 < tokens.size() && (tokens[at] == "layers" || tokens[at] == "layer" ||
                                 tokens[at] == "h" || tokens[at] == "blocks") &&
      (tokens[at + 1] == "*" || is_index(tokens[at + 1]))) {
    p.scope = ModulePattern::Scope::kLayers;
    if (tokens[at + 1] != "*") p.layer = std::stoull(std::string(tokens[at + 1]));
    at += 2;
  }
  for (; at < tokens.size(); ++at) p.tokens.push_back(canonical(tokens[at]));
  return p;
}

bool pattern_matches(const ModulePattern& pattern, const ParamBlock& block) {
  return matches_path(pattern, block, canonical_path(block.module));
}

uint64_t unquantized_width_bytes(std::string_view torch_dtype) {
  return torch_dtype == "float32" ? 4 : 2;
}

AnalyticalWeights price_analytical_weights(const std::vector<ParamBlock>& blocks,
                                           const QuantizationInfo& quantization,
                                           uint64_t unquantized_width, bool experts_mxfp4) {
  const uint64_t params = count_parameters(blocks);
  if (quantization.method.empty()) return unquantized(blocks, params, "");
  std::string why_not;
  std::optional<Scheme> scheme = scheme_for(quantization, why_not);
  if (!scheme) return unquantized(blocks, params, why_not);

  PatternIndex left_out;
  for (const std::string& module : quantization.unquantized_modules) {
    left_out.add(parse_module_pattern(module));
  }
  // MLX per-module settings, in the config's order; the first that names a
  // block applies.
  PatternIndex overridden_modules;
  std::vector<const QuantModuleOverride*> override_of;
  for (const QuantModuleOverride& o : quantization.module_overrides) {
    overridden_modules.add(parse_module_pattern(o.module));
    override_of.push_back(&o);
  }

  CheckedBytes bytes = 0;
  CheckedBytes quantized = 0;
  CheckedBytes kept = 0;
  uint64_t overridden = 0;
  for (const ParamBlock& b : blocks) {
    const std::vector<std::string> path = canonical_path(b.module);
    const CheckedBytes block_params = CheckedBytes(b.rows) * b.cols * b.copies;
    // A vector (a bias, a sink: rows == 1) stays at the checkpoint's
    // dtype: the schemes pack a linear layer's matrix, not its bias.
    bool quantize = b.element_bytes == 0 && b.rows > 1 && quantizes_role(*scheme, b.role) &&
                    !left_out.first_match(b, path);
    uint64_t bits = scheme->bits;
    uint64_t group_size = scheme->group_size;
    if (quantize && scheme->kind == Kind::kMlx) {
      if (std::optional<size_t> o = overridden_modules.first_match(b, path)) {
        ++overridden;
        quantize = override_of[*o]->bits > 0;
        bits = override_of[*o]->bits;
        if (override_of[*o]->group_size > 0) group_size = override_of[*o]->group_size;
      }
      // mlx-lm leaves a layer whose input dimension the group does not divide.
      if (quantize && b.cols % group_size != 0) quantize = false;
    }
    if (quantize && experts_mxfp4 && scheme->kind == Kind::kFp8 && b.role == ParamRole::kExperts) {
      quantized += block_params;
      bytes += mxfp4_matrix_bytes(b.rows, b.cols) * b.copies;
    } else if (quantize) {
      quantized += block_params;
      bytes += matrix_bytes(*scheme, b, bits, group_size) * b.copies;
    } else {
      kept += block_params;
      bytes += block_params * (b.element_bytes != 0 ? b.element_bytes : unquantized_width);
    }
  }
  if (quantized.saturated() == 0) {
    return unquantized(blocks, params, fmt::format("{} applies to none of its parameters",
                                           describe(*scheme, 0)));
  }
  AnalyticalWeights w;
  w.bytes = bytes.saturated();
  w.quantized_params = quantized.saturated();
  w.unquantized_params = kept.saturated();
  w.quantization_applied = true;
  w.detail = fmt::format("{} on {} quantizable parameters", describe(*scheme, overridden),
                         w.quantized_params);
  if (experts_mxfp4 && scheme->kind == Kind::kFp8) w.detail += " (its routed experts MXFP4: 4-bit, an 8-bit scale per 32)";
  if (w.unquantized_params > 0) {
    w.detail += fmt::format(", {}-bit on the remaining {}", unquantized_width * 8,
                            w.unquantized_params);
  }
  return w;
}

uint64_t analytical_tower_bytes(const std::vector<ParamBlock>& blocks,
                                const AnalyticalWeights& priced, uint64_t unquantized_width) {
  CheckedBytes tower = 0;
  for (const ParamBlock& b : blocks) {
    if (b.role == ParamRole::kVision) tower += CheckedBytes(b.rows) * b.cols * b.copies;
  }
  // No scheme packs the tower; an unapplied one prices every parameter at 2 bytes.
  const uint64_t width = priced.quantization_applied ? unquantized_width : 2;
  return std::min(priced.bytes, (tower * width).saturated());
}

}  // namespace memfit
