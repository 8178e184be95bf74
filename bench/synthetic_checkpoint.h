// A synthetic 1-trillion-parameter MoE checkpoint, written as sparse files,
// for the speed benchmarks (make_checkpoint_tool, weights_bench).
//
// Shape (Kimi-K2 / DeepSeek-V3 layout): 61 layers, hidden 7168; layer 0 is
// a dense MLP (intermediate 18432), layers 1-60 hold 384 routed experts and
// one shared expert (moe_intermediate 2048) with every expert matrix its own
// tensor; MLA attention; FP8 (F8_E4M3) linear weights, each with an F32
// weight_scale_inv tensor of 128 x 128 blocks, as DeepSeek-V3 ships them;
// BF16 norms, router, embeddings and head. That is 139,583 tensors
// (60 x 384 x 6 = 138,240 of them expert matrices and scales),
// ~1.03 x 10^12 data bytes, split by bytes into 163 shards named like
// DeepSeek-V3's ("model-00001-of-000163.safetensors").
//
// Each shard is written as the reference writer (safetensors' Rust core)
// lays it out: 8-byte length, compact JSON header padded with spaces to 8
// bytes, "__metadata__" first, then the tensors sorted by dtype alignment
// (widest first) and name, in the same order in the header and in the data
// region, which is left as a hole (the file is only extended): the disk
// cost is the ~18 MB of headers. A config.json is written beside it; the
// index only when asked. --shuffled (keys by name, data in layer order)
// makes the parser sort offsets: the worst case.
//
// Header-only because the bench folder builds one source per program.
#ifndef MEMFIT_BENCH_SYNTHETIC_CHECKPOINT_H_
#define MEMFIT_BENCH_SYNTHETIC_CHECKPOINT_H_

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace memfit::bench {

inline constexpr int kSyntheticShards = 163;

struct SyntheticTensor {
  std::string name;
  const char* dtype;
  std::vector<uint64_t> shape;
  uint64_t bytes;
};

struct SyntheticCheckpointStats {
  uint64_t shard_count = 0;
  uint64_t tensor_count = 0;
  uint64_t header_bytes = 0;  // all shards' JSON headers
  uint64_t data_bytes = 0;    // all tensors' data: what memfit must report
};

// Every tensor of the model, in layer order.
inline std::vector<SyntheticTensor> synthetic_tensors() {
  constexpr uint64_t kHidden = 7168, kLayers = 61, kExperts = 384, kMoeInter = 2048,
                     kDenseInter = 18432, kVocab = 163840, kHeads = 64, kQLora = 1536,
                     kKvLora = 512, kNope = 128, kRope = 64, kVHead = 128, kBlock = 128;
  std::vector<SyntheticTensor> tensors;
  auto add = [&](std::string name, const char* dtype, std::vector<uint64_t> shape) {
    uint64_t bytes = std::string_view(dtype) == "F32"    ? 4
                     : std::string_view(dtype) == "BF16" ? 2
                                                         : 1;
    for (uint64_t dim : shape) bytes *= dim;
    tensors.push_back({std::move(name), dtype, std::move(shape), bytes});
  };
  // An FP8 linear [out, in] and its per-block scales.
  auto linear = [&](const std::string& name, uint64_t out, uint64_t in) {
    add(name + ".weight", "F8_E4M3", {out, in});
    add(name + ".weight_scale_inv", "F32",
        {(out + kBlock - 1) / kBlock, (in + kBlock - 1) / kBlock});
  };
  auto mlp = [&](const std::string& prefix, uint64_t inter) {
    linear(prefix + ".gate_proj", inter, kHidden);
    linear(prefix + ".up_proj", inter, kHidden);
    linear(prefix + ".down_proj", kHidden, inter);
  };
  add("model.embed_tokens.weight", "BF16", {kVocab, kHidden});
  for (uint64_t layer = 0; layer < kLayers; ++layer) {
    const std::string p = fmt::format("model.layers.{}", layer);
    add(p + ".input_layernorm.weight", "BF16", {kHidden});
    add(p + ".post_attention_layernorm.weight", "BF16", {kHidden});
    linear(p + ".self_attn.q_a_proj", kQLora, kHidden);
    add(p + ".self_attn.q_a_layernorm.weight", "BF16", {kQLora});
    linear(p + ".self_attn.q_b_proj", kHeads * (kNope + kRope), kQLora);
    linear(p + ".self_attn.kv_a_proj_with_mqa", kKvLora + kRope, kHidden);
    add(p + ".self_attn.kv_a_layernorm.weight", "BF16", {kKvLora});
    linear(p + ".self_attn.kv_b_proj", kHeads * (kNope + kVHead), kKvLora);
    linear(p + ".self_attn.o_proj", kHidden, kHeads * kVHead);
    if (layer == 0) {
      mlp(p + ".mlp", kDenseInter);
      continue;
    }
    add(p + ".mlp.gate.weight", "BF16", {kExperts, kHidden});
    add(p + ".mlp.gate.e_score_correction_bias", "F32", {kExperts});
    mlp(p + ".mlp.shared_experts", kMoeInter);
    for (uint64_t expert = 0; expert < kExperts; ++expert) {
      mlp(fmt::format("{}.mlp.experts.{}", p, expert), kMoeInter);
    }
  }
  add("model.norm.weight", "BF16", {kHidden});
  add("lm_head.weight", "BF16", {kVocab, kHidden});
  return tensors;
}

inline std::string synthetic_shard_name(int shard) {
  return fmt::format("model-{:05d}-of-{:06d}.safetensors", shard + 1, kSyntheticShards);
}

// config.json of the synthetic model (DeepSeek-V3 architecture, Kimi-K2 sizes).
inline std::string synthetic_config_json() {
  return R"({
  "architectures": ["DeepseekV3ForCausalLM"],
  "model_type": "deepseek_v3",
  "vocab_size": 163840,
  "hidden_size": 7168,
  "intermediate_size": 18432,
  "moe_intermediate_size": 2048,
  "num_hidden_layers": 61,
  "num_attention_heads": 64,
  "num_key_value_heads": 64,
  "n_shared_experts": 1,
  "n_routed_experts": 384,
  "num_experts_per_tok": 8,
  "first_k_dense_replace": 1,
  "moe_layer_freq": 1,
  "q_lora_rank": 1536,
  "kv_lora_rank": 512,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "v_head_dim": 128,
  "max_position_embeddings": 131072,
  "rms_norm_eps": 1e-06,
  "rope_theta": 50000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3",
                          "quant_method": "fp8", "weight_block_size": [128, 128]}
}
)";
}

// Writes the checkpoint into `dir` (created if needed). Returns what was
// written. Throws std::filesystem::filesystem_error on I/O failure.
inline SyntheticCheckpointStats write_synthetic_checkpoint(const std::string& dir, bool with_index,
                                                           bool shuffled = false) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::vector<SyntheticTensor> tensors = synthetic_tensors();
  uint64_t total_bytes = 0;
  for (const SyntheticTensor& tensor : tensors) total_bytes += tensor.bytes;

  // Shard of each tensor: by its first byte's share of the total, so every
  // shard holds ~total / 163 bytes and tensors stay in layer order.
  // before_bytes < total_bytes <= shard_bytes x kSyntheticShards, so the
  // index stays below kSyntheticShards.
  std::vector<std::vector<const SyntheticTensor*>> shards(kSyntheticShards);
  const uint64_t shard_bytes = (total_bytes + kSyntheticShards - 1) / kSyntheticShards;
  uint64_t before_bytes = 0;
  for (const SyntheticTensor& tensor : tensors) {
    const auto shard = static_cast<size_t>(before_bytes / shard_bytes);
    shards[shard].push_back(&tensor);
    before_bytes += tensor.bytes;
  }

  SyntheticCheckpointStats stats;
  std::vector<std::pair<std::string, std::string>> weight_map;  // tensor -> shard
  for (int shard = 0; shard < kSyntheticShards; ++shard) {
    struct Entry {
      const SyntheticTensor* tensor;
      uint64_t begin;
    };
    std::vector<const SyntheticTensor*> data_order = shards[shard];
    auto width = [](const SyntheticTensor* t) {  // bytes per element
      const std::string_view dtype = t->dtype;
      return dtype == "F32" ? 4 : dtype == "BF16" ? 2 : 1;
    };
    if (!shuffled) {
      std::sort(data_order.begin(), data_order.end(),
                [&](const SyntheticTensor* a, const SyntheticTensor* b) {
                  if (width(a) != width(b)) return width(a) > width(b);
                  return a->name < b->name;
                });
    }
    std::vector<Entry> entries;
    uint64_t offset = 0;
    for (const SyntheticTensor* tensor : data_order) {
      entries.push_back({tensor, offset});
      offset += tensor->bytes;
    }
    if (shuffled) {
      std::sort(entries.begin(), entries.end(),
                [](const Entry& a, const Entry& b) { return a.tensor->name < b.tensor->name; });
    }
    std::string json = R"({"__metadata__":{"format":"pt"})";
    for (const Entry& entry : entries) {
      const SyntheticTensor& t = *entry.tensor;
      json += fmt::format(R"(,"{}":{{"dtype":"{}","shape":[{}],"data_offsets":[{},{}]}})", t.name,
                          t.dtype, fmt::join(t.shape, ","), entry.begin, entry.begin + t.bytes);
      if (with_index) weight_map.emplace_back(t.name, synthetic_shard_name(shard));
    }
    json += "}";
    json.append((8 - json.size() % 8) % 8, ' ');

    const std::string path = dir + "/" + synthetic_shard_name(shard);
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      char prefix[8];
      for (int i = 0; i < 8; ++i) prefix[i] = static_cast<char>((json.size() >> (8 * i)) & 0xff);
      out.write(prefix, 8);
      out.write(json.data(), static_cast<std::streamsize>(json.size()));
      if (!out) {
        throw fs::filesystem_error("writing shard", path,
                                   std::make_error_code(std::errc::io_error));
      }
    }
    fs::resize_file(path, 8 + json.size() + offset);  // the data region is a hole
    stats.shard_count += 1;
    stats.tensor_count += entries.size();
    stats.header_bytes += json.size();
    stats.data_bytes += offset;
  }

  std::ofstream(dir + "/config.json") << synthetic_config_json();
  const std::string index_path = dir + "/model.safetensors.index.json";
  if (with_index) {
    std::sort(weight_map.begin(), weight_map.end());
    std::string json = fmt::format(
        "{{\n  \"metadata\": {{\n    \"total_size\": {}\n  }},\n  \"weight_map\": {{", total_bytes);
    for (size_t i = 0; i < weight_map.size(); ++i) {
      json += fmt::format("{}\n    \"{}\": \"{}\"", i == 0 ? "" : ",", weight_map[i].first,
                          weight_map[i].second);
    }
    json += "\n  }\n}\n";
    std::ofstream(index_path) << json;
  } else {
    fs::remove(index_path);
  }
  return stats;
}

}  // namespace memfit::bench

#endif  // MEMFIT_BENCH_SYNTHETIC_CHECKPOINT_H_
