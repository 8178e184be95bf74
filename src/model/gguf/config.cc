// gguf_config (model/gguf/config.h): the keys every architecture shares
// (read as llama.cpp's load_hparams reads them before its per-architecture
// switch), then the architecture's rules (model/gguf/arch_rules.h), then the
// layers written as layer_types, or as block_configs where attention layers
// differ in KV heads. The key -> config field table: docs/gguf.md, "The
// generic keys".
#include "model/gguf/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "base/exception_boundary.h"
#include "memfit/untrusted_text.h"
#include "model/config/config_document.h"
#include "model/gguf/arch_rules.h"
#include "model/gguf/keys.h"

namespace memfit {
namespace {

uint64_t largest(const std::vector<uint64_t>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

bool is_attention(std::string_view kind) {
  return kind == kGgufFullAttention || kind == kGgufSlidingAttention ||
         kind == kGgufChunkedAttention;
}

class Translation {
 public:
  Translation(const GgufHeader& header, std::string arch) : keys_(header, arch) {
    out_.architecture = std::move(arch);
    out_.config = nlohmann::json::object();
  }

  Result<GgufConfig> run() {
    if (Status ok = read_layers(); !ok.ok()) return ok.error();
    if (Status ok = write_vocab_and_context(); !ok.ok()) return ok.error();
    if (Status ok = write_rope_scaling(); !ok.ok()) return ok.error();
    if (Status ok = write_moe(); !ok.ok()) return ok.error();
    if (Status ok = write_attention(); !ok.ok()) return ok.error();
    Result<GgufArchOutcome> outcome =
        apply_gguf_arch_rules(keys_, layers_, out_.config, out_.assumptions);
    if (!outcome.ok()) return outcome.error();
    if (!outcome->window_read) {
      if (Status ok = note_unused_window(); !ok.ok()) return ok.error();
    }
    if (Status ok = write_layers(); !ok.ok()) return ok.error();
    out_.config["tie_word_embeddings"] = ties_embeddings();
    return std::move(out_);
  }

 private:
  // Counts per decoder layer: the key's (a scalar or an array of
  // block_count entries), or `fallback` when absent.
  Result<std::vector<uint64_t>> layer_values(std::string_view name,
                                             const std::vector<uint64_t>& fallback) {
    Result<std::optional<std::vector<uint64_t>>> values =
        keys_.per_layer(name, layers_.block_count);
    if (!values.ok()) return values.error();
    if (!values->has_value()) return fallback;
    (*values)->resize(fallback.size());  // the decoder layers, MTP layers dropped
    return std::move(**values);
  }

  Status read_layers() {
    Result<uint64_t> blocks = keys_.required_count("block_count");
    if (!blocks.ok()) return blocks.error();
    if (*blocks == 0 || *blocks > kMaxLayers) {
      return keys_.error("block_count", fmt::format("is {}, outside 1..{}", *blocks, kMaxLayers));
    }
    layers_.block_count = *blocks;
    // Multi-token-prediction layers follow the decoder layers; llama.cpp
    // keeps no cache for them (n_layer_kv_from_start).
    Result<std::optional<uint64_t>> nextn = keys_.count("nextn_predict_layers");
    if (!nextn.ok()) return nextn.error();
    const uint64_t mtp = nextn->value_or(0);
    if (mtp >= *blocks) {
      return keys_.error("nextn_predict_layers",
                         fmt::format("is {}, not fewer than {} {}", mtp,
                                     quote_untrusted(keys_.key("block_count")), *blocks));
    }
    const uint64_t layers = *blocks - mtp;
    out_.nextn_layers = mtp;
    if (mtp > 0) {
      out_.assumptions.push_back(fmt::format(
          "{} multi-token-prediction layer(s) after the {} decoder layers: no cache under "
          "mlxcel; under llamacpp a KV cache where llama.cpp keeps one (docs/llamacpp-rules.md)",
          mtp, layers));
    }
    Result<uint64_t> hidden = keys_.required_count("embedding_length");
    if (!hidden.ok()) return hidden.error();
    if (*hidden == 0) return keys_.error("embedding_length", "is 0");

    Result<std::vector<uint64_t>> heads =
        layer_values("attention.head_count", std::vector<uint64_t>(layers, 0));
    if (!heads.ok()) return heads.error();
    Result<std::vector<uint64_t>> kv = layer_values("attention.head_count_kv", *heads);
    if (!kv.ok()) return kv.error();
    Result<std::vector<uint64_t>> ff =
        layer_values("feed_forward_length", std::vector<uint64_t>(layers, 0));
    if (!ff.ok()) return ff.error();
    layers_.heads = std::move(*heads);
    layers_.kv_heads = std::move(*kv);
    layers_.ff = std::move(*ff);
    for (uint64_t kv_heads : layers_.kv_heads) {
      layers_.kinds.emplace_back(kv_heads > 0 ? kGgufFullAttention : kGgufNoCache);
    }
    out_.config["num_hidden_layers"] = layers;
    out_.config["hidden_size"] = *hidden;
    if (uint64_t inter = largest(layers_.ff)) out_.config["intermediate_size"] = inter;
    return Status::Ok();
  }

  Status write_vocab_and_context() {
    Result<std::optional<uint64_t>> vocab = keys_.count("vocab_size");
    if (!vocab.ok()) return vocab.error();
    const std::string tokens = "tokenizer.ggml.tokens";
    if (vocab->has_value()) {
      out_.config["vocab_size"] = **vocab;
    } else if (keys_.header().find(tokens) != nullptr) {
      Result<uint64_t> count = keys_.header().get_array_count(tokens);
      if (!count.ok()) return count.error();
      out_.config["vocab_size"] = *count;
    } else {
      out_.assumptions.push_back(
          fmt::format("no vocabulary size ({} or {}): the logits are not counted",
                      quote_untrusted(keys_.key("vocab_size")), quote_untrusted(tokens)));
    }
    Result<std::optional<uint64_t>> context = keys_.count("context_length");
    if (!context.ok()) return context.error();
    if (context->has_value()) out_.config["max_position_embeddings"] = **context;
    return Status::Ok();
  }

  // The rope scaling llama.cpp's load_hparams reads, as the config's
  // rope_scaling (model/config/rope_scaling.h) for the engines that derive
  // a context from it: rope.scaling.type ("none", "linear", "yarn",
  // "longrope"; "linear" when absent), rope.scaling.factor (the old
  // rope.scale_linear when absent; 0 is none) and
  // rope.scaling.original_context_length. Nothing when the file states no
  // factor and no type, or the type is "none". llama.cpp's own limit stays
  // context_length (n_ctx_train; docs/engines.md "The model's own context").
  Status write_rope_scaling() {
    std::string type;
    if (keys_.has("rope.scaling.type")) {
      Result<std::string_view> text = keys_.header().get_string(keys_.key("rope.scaling.type"));
      if (!text.ok()) return text.error();
      type = std::string(*text);
    }
    double factor = 0;
    for (const char* name : {"rope.scaling.factor", "rope.scale_linear"}) {
      if (factor != 0 || !keys_.has(name)) continue;
      Result<double> value = keys_.header().get_float(keys_.key(name));
      if (!value.ok()) return value.error();
      factor = *value;
    }
    if (type == "none" || (type.empty() && factor == 0)) return Status::Ok();
    nlohmann::json rope = {{"rope_type", type.empty() ? "linear" : type}};
    if (factor != 0) rope["factor"] = factor;
    Result<std::optional<uint64_t>> original = keys_.count("rope.scaling.original_context_length");
    if (!original.ok()) return original.error();
    if (original->has_value()) rope["original_max_position_embeddings"] = **original;
    out_.config["rope_scaling"] = std::move(rope);
    return Status::Ok();
  }

  Status write_moe() {
    Result<std::optional<uint64_t>> experts = keys_.count("expert_count");
    if (!experts.ok()) return experts.error();
    Result<std::optional<uint64_t>> used = keys_.count("expert_used_count");
    if (!used.ok()) return used.error();
    const uint64_t n = experts->value_or(0), k = used->value_or(0);
    // llama.cpp refuses these files when it loads them.
    if (k > n) {
      return keys_.error(
          "expert_used_count",
          fmt::format("is {}, more than {} {}", k, quote_untrusted(keys_.key("expert_count")), n));
    }
    if (n > 0 && k == 0) {
      return keys_.error("expert_used_count",
                         fmt::format("is {}, but {} is {}", used->has_value() ? "0" : "missing",
                                     quote_untrusted(keys_.key("expert_count")), n));
    }
    if (n == 0) return Status::Ok();
    out_.config["num_experts"] = n;
    out_.config["num_experts_per_tok"] = k;
    for (auto [name, field] :
         {std::pair{"expert_shared_count", "n_shared_experts"},
          {"expert_feed_forward_length", "moe_intermediate_size"},
          {"expert_shared_feed_forward_length", "shared_expert_intermediate_size"},
          {"leading_dense_block_count", "first_k_dense_replace"},
          {"interleave_moe_layer_step", "interleave_moe_layer_step"}}) {
      Result<std::optional<uint64_t>> value = keys_.count(name);
      if (!value.ok()) return value.error();
      if (value->has_value()) out_.config[field] = **value;
    }
    // Qwen2-MoE's shared expert is always loaded, n_ff_shexp wide, else
    // feed_forward_length (llama.cpp's loader, LLM_ARCH_QWEN2MOE:
    // "n_ff_shexp = hparams.n_ff_shexp ? hparams.n_ff_shexp : n_ff"; read
    // in ik_llama.cpp's copy, src/llama-load-tensors.cpp,
    // create_qwen2_moe_tensors): converters before the key
    // expert_shared_feed_forward_length wrote only feed_forward_length
    // (ggml-org/llama.cpp#9628's Qwen2 57B A14B, 20480 wide).
    if (out_.architecture == "qwen2moe" && !out_.config.contains("shared_expert_intermediate_size")) {
      Result<std::optional<uint64_t>> n_ff = keys_.count("feed_forward_length");
      if (!n_ff.ok()) return n_ff.error();
      if (n_ff->value_or(0) > 0) out_.config["shared_expert_intermediate_size"] = **n_ff;
    }
    return Status::Ok();
  }

  Status write_attention() {
    const uint64_t heads = largest(layers_.heads);
    const uint64_t kv = largest(layers_.kv_heads);
    if (heads > 0) out_.config["num_attention_heads"] = heads;
    if (kv > 0) out_.config["num_key_value_heads"] = kv;
    Result<std::optional<uint64_t>> key = keys_.count("attention.key_length");
    if (!key.ok()) return key.error();
    Result<std::optional<uint64_t>> value = keys_.count("attention.value_length");
    if (!value.ok()) return value.error();
    uint64_t head_dim = 0;
    if (key->has_value() || value->has_value()) {
      // K and V of different lengths are both sized at the longer.
      head_dim = std::max(key->value_or(0), value->value_or(0));
      if (key->has_value() && value->has_value() && **key != **value) {
        out_.assumptions.push_back(
            fmt::format("{} {} and {} {} differ: K and V are both sized at {}",
                        quote_untrusted(keys_.key("attention.key_length")), **key,
                        quote_untrusted(keys_.key("attention.value_length")), **value, head_dim));
      }
    } else if (heads > 0) {
      // llama.cpp: embedding_length / the first layer's head count.
      auto first = std::find_if(layers_.heads.begin(), layers_.heads.end(),
                                [](uint64_t h) { return h > 0; });
      head_dim = out_.config["hidden_size"].get<uint64_t>() / *first;
    }
    if (head_dim > 0) out_.config["head_dim"] = head_dim;
    return Status::Ok();
  }

  // Whether the output projection is the token embedding (llama.cpp uses
  // token_embd.weight when the file has no output.weight). Only a file
  // that holds the whole model shows it; otherwise the parameter count
  // takes an output matrix of its own, never fewer parameters.
  bool ties_embeddings() const {
    const GgufHeader& h = keys_.header();
    if (const GgufValue* splits = h.find("split.count")) {
      const auto* count = std::get_if<uint64_t>(&splits->data);
      if (count == nullptr || *count > 1) return false;
    }
    bool embedding = false;
    for (const GgufTensorInfo& tensor : h.tensors) {
      if (tensor.name == "output.weight") return false;
      embedding = embedding || tensor.name == "token_embd.weight";
    }
    return embedding;
  }

  Status note_unused_window() {
    Result<std::optional<uint64_t>> window = keys_.count("attention.sliding_window");
    if (!window.ok()) return window.error();
    if (window->value_or(0) == 0) return Status::Ok();
    out_.assumptions.push_back(
        fmt::format("{} {} is not applied: llama.cpp runs {} layers with full attention",
                    quote_untrusted(keys_.key("attention.sliding_window")), **window,
                    quote_untrusted(out_.architecture)));
    return Status::Ok();
  }

  // layer_types, or block_configs when attention layers differ in KV heads
  // (the config path's per-layer KV heads: n_heads_in_group = heads / KV).
  Status write_layers() {
    std::set<uint64_t> kv_counts;
    bool attention = false, only_full = true;
    for (size_t i = 0; i < layers_.kinds.size(); ++i) {
      const std::string& kind = layers_.kinds[i];
      only_full = only_full && (kind == kGgufFullAttention || kind == kGgufNoCache);
      if (!is_attention(kind)) continue;
      attention = true;
      kv_counts.insert(layers_.kv_heads[i]);
    }
    const uint64_t heads = largest(layers_.heads);
    if (attention && heads == 0) {
      return keys_.error("attention.head_count",
                         "is missing or 0, but the model has attention layers");
    }
    if (kv_counts.size() <= 1) {
      out_.config["layer_types"] = layers_.kinds;
      return Status::Ok();
    }
    nlohmann::json blocks = nlohmann::json::array();
    for (size_t i = 0; i < layers_.kinds.size(); ++i) {
      const uint64_t kv = layers_.kv_heads[i];
      if (!is_attention(layers_.kinds[i])) {
        blocks.push_back({{"attention", {{"no_op", true}}}});
      } else if (only_full && layers_.heads[i] == heads && kv > 0 && heads % kv == 0) {
        blocks.push_back({{"attention", {{"n_heads_in_group", heads / kv}}}});
      } else {
        return keys_.error(
            "attention.head_count_kv",
            fmt::format("gives attention layers {} and {} KV heads: memfit sizes per-layer KV "
                        "heads only where every attention layer is full attention with the "
                        "same head count, a multiple of its KV heads",
                        *kv_counts.begin(), *kv_counts.rbegin()));
      }
    }
    out_.config["block_configs"] = std::move(blocks);
    return Status::Ok();
  }

  GgufArchKeys keys_;
  GgufLayers layers_;
  GgufConfig out_;
};

}  // namespace

Result<GgufConfig> gguf_config(const GgufHeader& header) {
  return without_exceptions("gguf_config", [&]() -> Result<GgufConfig> {
    Result<std::string_view> arch = header.get_string("general.architecture");
    if (!arch.ok()) return arch.error();
    return Translation(header, std::string(*arch)).run();
  });
}

}  // namespace memfit
