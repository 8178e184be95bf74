// The rules, per architecture, that llama.cpp applies to a GGUF model's
// layers beyond the generic keys. Facts from ggml-org/llama.cpp (read, not
// copied; docs/gguf.md cites each): load_hparams in src/llama-model.cpp,
// set_swa_pattern in src/llama-hparams.cpp (a pattern p windows layer i
// when i % p < p - 1: one layer in p is global, the last of each group),
// the Nemotron-H graph in src/models/nemotron-h.cpp, and the Qwen3.5
// loader (full_attention_interval, default 4).
#include "model/gguf/arch_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// Architectures whose layers are all full attention in llama.cpp, with the
// model_type of the same model's config.json.
struct PlainArch {
  std::string_view arch;
  std::string_view model_type;
};
constexpr PlainArch kPlainArchs[] = {
    {"qwen2", "qwen2"},
    {"qwen2moe", "qwen2_moe"},
    {"qwen3", "qwen3"},
    {"qwen3moe", "qwen3_moe"},
    {"phi3", "phi3"},
    {"phi2", "phi"},
    {"phimoe", "phimoe"},
    {"gemma", "gemma"},
    {"command-r", "cohere"},
    {"smollm3", "smollm3"},
    {"glm4", "glm4"},
    {"glm4moe", "glm4_moe"},
    {"chatglm", "chatglm"},
    {"minimax-m2", "minimax_m2"},
    {"starcoder2", "starcoder2"},
    {"granite", "granite"},
    {"granitemoe", "granitemoe"},
    {"internlm2", "internlm2"},
    {"ernie4_5", "ernie4_5"},
    {"ernie4_5-moe", "ernie4_5_moe"},
    {"seed_oss", "seed_oss"},
    {"hunyuan-dense", "hunyuan_v1_dense"},
    {"hunyuan-moe", "hunyuan_v1_moe"},
    {"dots1", "dots1"},
    {"bailingmoe", "bailing_moe"},
    {"bailingmoe2", "bailing_moe_v2"},
    {"grovemoe", "grove_moe"},
    {"arcee", "arcee"},
    {"apertus", "apertus"},
    {"baichuan", "baichuan"},
    {"stablelm", "stablelm"},
    {"gptneox", "gpt_neox"},
    {"gpt2", "gpt2"},
    {"gptj", "gptj"},
    {"falcon", "falcon"},
    {"olmo", "olmo"},
    {"dbrx", "dbrx"},
    {"exaone", "exaone"},
    {"nemotron", "nemotron"},
    {"mistral3", "mistral3"},
    {"deci", "deci"},
};

// Architectures with rules of their own below.
constexpr std::string_view kRuledArchs[] = {
    "llama",   "llama4",     "gemma2",         "gemma3",        "gemma3n",   "gemma4",    "cohere2",
    "gpt-oss", "olmo2",      "exaone4",        "deepseek2",     "deepseek32", "mamba",     "mamba2",
    "jamba",   "nemotron_h", "nemotron_h_moe", "granitehybrid", "falcon-h1", "lfm2",
    "lfm2moe", "rwkv6",      "rwkv7",          "qwen3next",     "qwen35",    "qwen35moe",
    "bert",    "nomic-bert", "jina-bert-v2"};

// "1, 3, 5, ... (one in 2)": the global layers of pattern p.
std::string global_layers(uint64_t p) {
  return fmt::format("{}, {}, {}, ... (one in {})", p - 1, 2 * p - 1, 3 * p - 1, p);
}

class Rules {
 public:
  Rules(const GgufArchKeys& keys, GgufLayers& layers, nlohmann::json& config,
        std::vector<std::string>& assumptions)
      : keys_(keys), layers_(layers), config_(config), assumptions_(assumptions) {}

  Result<GgufArchOutcome> apply() {
    const std::string& a = keys_.arch();
    Status done = Status::Ok();
    if (const PlainArch* plain = find_plain(a)) {
      model_type(plain->model_type);
    } else if (a == "llama") {
      // Mixtral is llama with experts in GGUF.
      model_type(config_.contains("num_experts") ? "mixtral" : "llama");
    } else if (a == "llama4") {
      done = llama4();
    } else if (a == "gemma2") {
      done = gemma2();
    } else if (a == "gemma3" || a == "gemma3n" || a == "cohere2" || a == "gpt-oss") {
      done = required_window();
    } else if (a == "gemma4") {
      done = gemma4();
    } else if (a == "olmo2") {
      done = olmo2();
    } else if (a == "exaone4") {
      done = exaone4();
    } else if (a == "deepseek2") {
      done = deepseek2();
    } else if (a == "deepseek32") {
      done = deepseek32();
    } else if (a == "mamba" || a == "mamba2" || a == "jamba" || a == "nemotron_h" ||
               a == "nemotron_h_moe" || a == "granitehybrid" || a == "falcon-h1") {
      done = mamba_family();
    } else if (a == "lfm2" || a == "lfm2moe") {
      done = lfm2();
    } else if (a == "rwkv6" || a == "rwkv7") {
      done = rwkv();
    } else if (a == "qwen3next" || a == "qwen35" || a == "qwen35moe") {
      done = gated_delta_net();
    } else if (a == "bert" || a == "nomic-bert" || a == "jina-bert-v2") {
      encoder();
    } else {
      model_type(a);
    }
    if (!done.ok()) return done.error();
    return outcome_;
  }

 private:
  static const PlainArch* find_plain(std::string_view arch) {
    for (const PlainArch& plain : kPlainArchs) {
      if (plain.arch == arch) return &plain;
    }
    return nullptr;
  }

  void model_type(std::string_view type) { config_["model_type"] = std::string(type); }
  void assume(std::string text) { assumptions_.push_back(std::move(text)); }
  uint64_t layer_count() const { return layers_.kinds.size(); }
  std::string why() const { return fmt::format("llama.cpp requires it for {}", keys_.arch()); }

  void no_kv_layers_are(std::string_view kind) {
    for (uint64_t i = 0; i < layer_count(); ++i) {
      if (layers_.kv_heads[i] == 0) layers_.kinds[i] = std::string(kind);
    }
  }
  void every_layer_is(std::string_view kind) {
    layers_.kinds.assign(layer_count(), std::string(kind));
  }

  Result<std::optional<uint64_t>> sliding_window_key() {
    outcome_.window_read = true;
    return keys_.count("attention.sliding_window");
  }

  // Windows the attention layers at `tokens`: those the file's
  // attention.sliding_window_pattern marks (flags, true = windowed, or a
  // count p), else those of llama.cpp's hard-coded `pattern`. With
  // `flags_read` false llama.cpp's loader never reads the flags: an array
  // there (whole or cut by a log's dump) is passed over for `pattern`.
  Status window(uint64_t tokens, uint64_t pattern, bool flags_read = true) {
    outcome_.window_read = true;
    if (tokens == 0) return Status::Ok();
    config_["sliding_window"] = tokens;
    const std::string_view key = "attention.sliding_window_pattern";
    Result<std::optional<std::vector<bool>>> flags = std::optional<std::vector<bool>>();
    if (flags_read) flags = keys_.per_layer_flags(key, layers_.block_count);
    if (!flags.ok()) return flags.error();
    std::vector<bool> windowed(layer_count(), false);
    const GgufValue* stored = keys_.header().find(keys_.key(key));
    if (!flags_read && stored != nullptr && stored->type == GgufValueType::kArray) {
      assume(fmt::format("{}: layers {} attend to the whole context, the others within the "
                         "{}-token window (llama.cpp's rule: its loader does not read {}, an "
                         "array)",
                         keys_.arch(), global_layers(pattern), tokens, quote_untrusted(keys_.key(key))));
      for (uint64_t i = 0; i < layer_count(); ++i) windowed[i] = i % pattern < pattern - 1;
    } else if (flags->has_value()) {
      std::copy_n((*flags)->begin(), layer_count(), windowed.begin());
    } else {
      Result<std::optional<uint64_t>> given = keys_.count(key);
      if (!given.ok()) return given.error();
      const uint64_t p = given->value_or(pattern);
      if (!given->has_value()) {
        assume(
            fmt::format("{}: layers {} attend to the whole context, the others within the "
                        "{}-token window (llama.cpp's rule; the file does not say)",
                        keys_.arch(), global_layers(p), tokens));
      }
      for (uint64_t i = 0; i < layer_count(); ++i) windowed[i] = p == 0 || i % p < p - 1;
    }
    for (uint64_t i = 0; i < layer_count(); ++i) {
      if (windowed[i] && layers_.kinds[i] == kGgufFullAttention) {
        layers_.kinds[i] = std::string(kGgufSlidingAttention);
      }
    }
    return Status::Ok();
  }

  Status llama4() {
    model_type("llama4_text");
    Result<std::optional<uint64_t>> given = sliding_window_key();
    if (!given.ok()) return given.error();
    if (given->has_value() && **given == 0) return Status::Ok();  // llama.cpp: no chunking
    // llama.cpp sets the chunk to 8192 whatever the file says, one layer in
    // four global.
    constexpr uint64_t kChunkTokens = 8192, kPattern = 4;
    config_["attention_chunk_size"] = kChunkTokens;
    for (uint64_t i = 0; i < layer_count(); ++i) {
      if (layers_.kinds[i] == kGgufFullAttention && i % kPattern < kPattern - 1) {
        layers_.kinds[i] = std::string(kGgufChunkedAttention);
      }
    }
    assume(
        fmt::format("llama4: attention within chunks of {} tokens, layers {} global "
                    "(llama.cpp's rule; the file does not say)",
                    kChunkTokens, global_layers(kPattern)));
    return Status::Ok();
  }

  Status gemma2() {
    model_type("gemma2");
    Result<std::optional<uint64_t>> given = sliding_window_key();
    if (!given.ok()) return given.error();
    constexpr uint64_t kDefaultWindow = 4096;
    if (!given->has_value()) {
      assume(fmt::format("{} = {} (llama.cpp's default for gemma2)",
                         quote_untrusted(keys_.key("attention.sliding_window")), kDefaultWindow));
    }
    return window(given->value_or(kDefaultWindow), 2);
  }

  // gemma3 (one layer in 6 global), gemma3n (5), cohere2 (4), gpt-oss (2):
  // the file must give the window.
  Status required_window() {
    const std::string& a = keys_.arch();
    model_type(a == "gemma3"    ? "gemma3_text"
               : a == "gemma3n" ? "gemma3n_text"
               : a == "cohere2" ? "cohere2"
                                : "gpt_oss");
    const uint64_t pattern = a == "gemma3" ? 6 : a == "gemma3n" ? 5 : a == "cohere2" ? 4 : 2;
    Result<uint64_t> tokens = keys_.required_count("attention.sliding_window", why());
    if (!tokens.ok()) return tokens.error();
    // gemma3n: llama.cpp sets one layer in 5 global and reads no flags
    // (load_hparams, LLM_ARCH_GEMMA3N, since the architecture came in,
    // b5757 #14400; from the per-model split, llama_model_gemma3n::
    // load_arch_hparams, a u32 period alone: get_key_or_arr returns false
    // on an array). The converter's bool array (Gemma3nModel, from the
    // config's layer_types) is passed over.
    if (Status ok = window(*tokens, pattern, a != "gemma3n"); !ok.ok()) return ok;
    return a == "gemma3n" ? gemma3n_shared_kv() : Status::Ok();
  }

  // Gemma 3n: layers from the 20th on read the KV of earlier layers.
  Status gemma3n_shared_kv() {
    Result<std::optional<uint64_t>> shared = keys_.count("attention.shared_kv_layers");
    if (!shared.ok()) return shared.error();
    constexpr uint64_t kLayersWithKv = 20;
    uint64_t n =
        shared->value_or(layer_count() > kLayersWithKv ? layer_count() - kLayersWithKv : 0);
    if (!shared->has_value()) {
      assume(
          fmt::format("gemma3n: layers {} on reuse earlier layers' KV (llama.cpp's rule; the "
                      "file does not say)",
                      kLayersWithKv));
    }
    config_["num_kv_shared_layers"] = std::min(n, layer_count());
    return Status::Ok();
  }

  // Gemma 4 (llama_model_gemma4::load_arch_hparams, src/models/gemma4.cpp
  // in llama.cpp): the window and its per-layer pattern (flags, true =
  // windowed) are required; the windowed layers' heads are
  // key_length_swa / value_length_swa wide, the global layers'
  // key_length / value_length (llama_hparams::n_embd_head_k(il)); the
  // last shared_kv_layers layers keep no KV of their own
  // (n_layer_kv_from_start = n_layer - shared_kv_layers). Written as the
  // config's head_dim, global_head_dim, num_kv_shared_layers and, where
  // head_count_kv differs between the two kinds of layer,
  // num_global_key_value_heads (model/config/layer_plan.cc).
  Status gemma4() {
    model_type("gemma4_text");
    Result<uint64_t> tokens = keys_.required_count("attention.sliding_window", why());
    if (!tokens.ok()) return tokens.error();
    const std::string_view pattern = "attention.sliding_window_pattern";
    if (!keys_.has(pattern)) return keys_.error(pattern, fmt::format("is missing ({})", why()));
    if (Status ok = window(*tokens, 0); !ok.ok()) return ok;
    uint64_t swa_dim = 0;
    for (std::string_view name : {"attention.key_length_swa", "attention.value_length_swa"}) {
      Result<uint64_t> v = keys_.required_count(name, why());
      if (!v.ok()) return v.error();
      swa_dim = std::max(swa_dim, *v);
    }
    if (config_.contains("head_dim")) config_["global_head_dim"] = config_["head_dim"];
    config_["head_dim"] = swa_dim;
    if (Status ok = gemma4_kv_heads(); !ok.ok()) return ok;
    Result<std::optional<uint64_t>> shared = keys_.count("attention.shared_kv_layers");
    if (!shared.ok()) return shared.error();
    if (shared->value_or(0) >= layer_count()) {
      return keys_.error("attention.shared_kv_layers",
                         fmt::format("is {}, not fewer than the {} layers", **shared,
                                     layer_count()));
    }
    config_["num_kv_shared_layers"] = shared->value_or(0);
    return Status::Ok();
  }

  // A head_count_kv array giving the windowed and the global layers each
  // one count: the windowed layers' is num_key_value_heads, the global
  // layers' num_global_key_value_heads; every layer then reads as the
  // windowed count (the layer plan applies the global one).
  Status gemma4_kv_heads() {
    std::optional<uint64_t> windowed, global;
    for (uint64_t i = 0; i < layer_count(); ++i) {
      std::optional<uint64_t>& own =
          layers_.kinds[i] == kGgufSlidingAttention ? windowed : global;
      if (own.has_value() && *own != layers_.kv_heads[i]) {
        return keys_.error("attention.head_count_kv",
                           "differs between layers of one kind: memfit sizes gemma4 with one "
                           "KV head count for the windowed layers and one for the global");
      }
      own = layers_.kv_heads[i];
    }
    if (!windowed.has_value() || !global.has_value() || *windowed == *global) {
      return Status::Ok();
    }
    config_["num_key_value_heads"] = *windowed;
    config_["num_global_key_value_heads"] = *global;
    layers_.kv_heads.assign(layer_count(), *windowed);
    return Status::Ok();
  }

  Status olmo2() {
    Result<std::optional<uint64_t>> given = sliding_window_key();
    if (!given.ok()) return given.error();
    // OLMo 3 is olmo2 with a window in GGUF, one layer in four global.
    const bool windowed = given->value_or(0) > 0;
    model_type(windowed ? "olmo3" : "olmo2");
    return windowed ? window(**given, 4) : Status::Ok();
  }

  Status exaone4() {
    model_type("exaone4");
    // llama.cpp windows only the 64-layer (32B) model: 4096 tokens unless
    // the file says, one layer in four global.
    if (layers_.block_count != 64) return Status::Ok();
    Result<std::optional<uint64_t>> given = sliding_window_key();
    if (!given.ok()) return given.error();
    return window(given->value_or(4096), 4);
  }

  // DeepSeek V2/V3 (and Kimi K2): MLA. Files converted since llama.cpp's MLA
  // support carry key_length_mla / value_length_mla and cache one latent
  // (kv_lora_rank + rope) per token; older files run attention
  // decompressed, caching K and V per head (key_length + value_length).
  Status deepseek2() {
    Result<uint64_t> rank = keys_.required_count("attention.kv_lora_rank", why());
    if (!rank.ok()) return rank.error();
    Result<uint64_t> rope = keys_.required_count("rope.dimension_count", why());
    if (!rope.ok()) return rope.error();
    Result<std::optional<uint64_t>> k_mla = keys_.count("attention.key_length_mla");
    if (!k_mla.ok()) return k_mla.error();
    Result<std::optional<uint64_t>> v_mla = keys_.count("attention.value_length_mla");
    if (!v_mla.ok()) return v_mla.error();
    Result<std::optional<uint64_t>> q_rank = keys_.count("attention.q_lora_rank");
    if (!q_rank.ok()) return q_rank.error();
    const bool latent = k_mla->has_value() && v_mla->has_value();
    uint64_t key = 0, value = 0;
    std::string_view key_name = "attention.key_length_mla";
    if (latent) {
      key = **k_mla;
      value = **v_mla;
    } else {
      key_name = "attention.key_length";
      Result<uint64_t> k = keys_.required_count(key_name, why());
      if (!k.ok()) return k.error();
      Result<uint64_t> v = keys_.required_count("attention.value_length", why());
      if (!v.ok()) return v.error();
      key = *k;
      value = *v;
    }
    if (key < *rope) {
      return keys_.error(key_name,
                         fmt::format("is {}, shorter than its rope part, {} {}", key,
                                     quote_untrusted(keys_.key("rope.dimension_count")), *rope));
    }
    // As their configs say: deepseek_v3 caches the latent, deepseek_v2 K and
    // V per head.
    model_type(latent ? "deepseek_v3" : "deepseek_v2");
    config_["kv_lora_rank"] = *rank;
    config_["qk_rope_head_dim"] = *rope;
    config_["qk_nope_head_dim"] = key - *rope;
    config_["v_head_dim"] = value;
    if (q_rank->has_value()) config_["q_lora_rank"] = **q_rank;
    // A converted MLA model is one KV head of the latent's width; its
    // config has as many KV heads as heads, and no head_dim.
    config_.erase("head_dim");
    if (latent && config_.contains("num_attention_heads")) {
      config_["num_key_value_heads"] = config_["num_attention_heads"];
    }
    return Status::Ok();
  }

  // DeepSeek-V3.2: deepseek2's latent (llama.cpp reads the same keys) and
  // a lightning indexer whose key, attention.indexer.key_length wide (one
  // head), llama.cpp caches per token beside the latent in the K type
  // (llama_kv_cache_dsa); as the config's index_head_dim, every MLA layer
  // carries it. memfit takes only files with the latent keys, as the
  // converter writes them.
  Status deepseek32() {
    for (std::string_view key : {"attention.key_length_mla", "attention.value_length_mla"}) {
      Result<uint64_t> v = keys_.required_count(key, "memfit sizes deepseek32 from its latent");
      if (!v.ok()) return v.error();
    }
    Result<uint64_t> index = keys_.required_count("attention.indexer.key_length", why());
    if (!index.ok()) return index.error();
    if (Status done = deepseek2(); !done.ok()) return done;
    model_type("deepseek_v32");
    config_["index_head_dim"] = *index;
    return Status::Ok();
  }

  struct Ssm {
    uint64_t conv = 0, inner = 0, state = 0, heads = 0, groups = 0;
  };

  // The ssm.* keys llama.cpp requires of every Mamba-style architecture;
  // group_count too for Mamba-2 mixers.
  Result<Ssm> ssm(bool mamba2) {
    Ssm s;
    for (auto [name, field] : {std::pair{"ssm.conv_kernel", &s.conv},
                               {"ssm.inner_size", &s.inner},
                               {"ssm.state_size", &s.state},
                               {"ssm.time_step_rank", &s.heads}}) {
      Result<uint64_t> v = keys_.required_count(name, why());
      if (!v.ok()) return v.error();
      *field = *v;
    }
    if (!mamba2) return s;
    Result<uint64_t> groups = keys_.required_count("ssm.group_count", why());
    if (!groups.ok()) return groups.error();
    s.groups = *groups;
    // A Mamba-2 mixer has time_step_rank heads of inner_size / heads.
    if (s.heads == 0 || s.inner % s.heads != 0) {
      return keys_.error("ssm.inner_size",
                         fmt::format("is {}, not a multiple of {} {} (the Mamba-2 heads)", s.inner,
                                     quote_untrusted(keys_.key("ssm.time_step_rank")), s.heads));
    }
    return s;
  }

  // inner_size / hidden, the Mamba expansion; 0 when it does not divide.
  uint64_t expansion(uint64_t inner) const {
    const uint64_t hidden = config_["hidden_size"].get<uint64_t>();
    return inner % hidden == 0 ? inner / hidden : 0;
  }

  Status mamba_family() {
    const std::string& a = keys_.arch();
    const bool mamba2 = a != "mamba" && a != "jamba";
    Result<Ssm> s = ssm(mamba2);
    if (!s.ok()) return s.error();
    const uint64_t head_dim = mamba2 ? s->inner / s->heads : 0;
    if (a == "mamba" || a == "mamba2") {
      model_type(a);
      every_layer_is(kGgufMamba);
      config_["conv_kernel"] = s->conv;
      config_["state_size"] = s->state;
      config_["intermediate_size"] = s->inner;
      if (uint64_t expand = expansion(s->inner)) config_["expand"] = expand;
      if (mamba2) {
        config_["num_heads"] = s->heads;
        config_["head_dim"] = head_dim;
        config_["n_groups"] = s->groups;
      }
    } else if (a == "jamba") {
      model_type("jamba");
      no_kv_layers_are(kGgufMamba);
      const uint64_t expand = expansion(s->inner);
      if (expand == 0) {
        return keys_.error("ssm.inner_size",
                           fmt::format("is {}, not a multiple of {} {}", s->inner,
                                       quote_untrusted(keys_.key("embedding_length")),
                                       config_["hidden_size"].get<uint64_t>()));
      }
      config_["mamba_d_conv"] = s->conv;
      config_["mamba_d_state"] = s->state;
      config_["mamba_expand"] = expand;
    } else if (a == "nemotron_h" || a == "nemotron_h_moe") {
      // A layer with KV heads is attention; without, a layer with no
      // feed-forward is Mamba-2, one with a feed-forward an MLP or MoE block.
      model_type("nemotron_h");
      for (uint64_t i = 0; i < layer_count(); ++i) {
        if (layers_.kv_heads[i] == 0 && layers_.ff[i] == 0)
          layers_.kinds[i] = std::string(kGgufMamba);
      }
      config_["mamba_num_heads"] = s->heads;
      config_["mamba_head_dim"] = head_dim;
      config_["n_groups"] = s->groups;
      config_["ssm_state_size"] = s->state;
      config_["conv_kernel"] = s->conv;
    } else {
      // granitehybrid: a layer without KV heads is Mamba-2. falcon-h1: every
      // layer runs attention and a Mamba-2 mixer side by side.
      model_type(a == "falcon-h1" ? "falcon_h1" : "granitemoehybrid");
      if (a == "granitehybrid") no_kv_layers_are(kGgufMamba);
      config_["mamba_n_heads"] = s->heads;
      config_["mamba_d_head"] = head_dim;
      config_["mamba_n_groups"] = s->groups;
      config_["mamba_d_state"] = s->state;
      config_["mamba_d_conv"] = s->conv;
      config_["mamba_d_ssm"] = s->inner;
    }
    return Status::Ok();
  }

  // LFM2: a layer without KV heads is a short convolution.
  Status lfm2() {
    model_type(keys_.arch() == "lfm2" ? "lfm2" : "lfm2_moe");
    Result<uint64_t> cache = keys_.required_count("shortconv.l_cache", why());
    if (!cache.ok()) return cache.error();
    config_["conv_L_cache"] = *cache;
    no_kv_layers_are(kGgufConv);
    return Status::Ok();
  }

  Status rwkv() {
    model_type(keys_.arch());
    Result<uint64_t> head = keys_.required_count("wkv.head_size", why());
    if (!head.ok()) return head.error();
    config_["head_size"] = *head;
    every_layer_is(kGgufMamba);
    return Status::Ok();
  }

  // BERT, nomic-bert and Jina's BERT v2 (ALiBi, no position embeddings):
  // bidirectional encoders, for which llama_model::create_memory makes no
  // memory at all (no KV cache; LLM_ARCH_JINA_BERT_V2 is in its list).
  void encoder() {
    const std::string& a = keys_.arch();
    model_type(a == "bert" ? "bert" : a == "nomic-bert" ? "nomic_bert" : "jina_bert_v2");
    every_layer_is(kGgufNoCache);
    assume(fmt::format("{}: a bidirectional encoder; llama.cpp keeps no KV cache for it",
                       keys_.arch()));
  }

  // Qwen3-Next and Qwen3.5: gated delta net layers, every
  // full_attention_interval-th layer full attention (4 when the file does
  // not say).
  Status gated_delta_net() {
    const std::string& a = keys_.arch();
    model_type(a == "qwen3next" ? "qwen3_next"
               : a == "qwen35"  ? "qwen3_5_text"
                                : "qwen3_5_moe_text");
    Result<Ssm> s = ssm(true);
    if (!s.ok()) return s.error();
    Result<std::optional<uint64_t>> interval = keys_.count("full_attention_interval");
    if (!interval.ok()) return interval.error();
    if (interval->value_or(4) == 0) return keys_.error("full_attention_interval", "is 0");
    const uint64_t every = interval->value_or(4);
    if (!interval->has_value()) {
      assume(
          fmt::format("{}: layers {} full attention, the others gated delta net (llama.cpp's "
                      "default full_attention_interval; the file does not say)",
                      a, global_layers(every)));
    }
    for (uint64_t i = 0; i < layer_count(); ++i) {
      if ((i + 1) % every != 0) layers_.kinds[i] = std::string(kGgufLinearAttention);
    }
    config_["linear_num_key_heads"] = s->groups;
    config_["linear_num_value_heads"] = s->heads;
    config_["linear_key_head_dim"] = s->state;
    config_["linear_value_head_dim"] = s->inner / s->heads;
    config_["linear_conv_kernel_dim"] = s->conv;
    return Status::Ok();
  }

  const GgufArchKeys& keys_;
  GgufLayers& layers_;
  nlohmann::json& config_;
  std::vector<std::string>& assumptions_;
  GgufArchOutcome outcome_;
};

}  // namespace

bool is_known_gguf_architecture(std::string_view arch) {
  return std::any_of(std::begin(kPlainArchs), std::end(kPlainArchs),
                     [&](const PlainArch& plain) { return plain.arch == arch; }) ||
         std::find(std::begin(kRuledArchs), std::end(kRuledArchs), arch) != std::end(kRuledArchs);
}

Result<GgufArchOutcome> apply_gguf_arch_rules(const GgufArchKeys& keys, GgufLayers& layers,
                                              nlohmann::json& config,
                                              std::vector<std::string>& assumptions) {
  return Rules(keys, layers, config, assumptions).apply();
}

}  // namespace memfit
