// file_facts (llamacpp/graph/file_facts.h): deepseek2's keys as
// llama.cpp's load_arch_hparams reads them, the tensors its graph builder
// branches on (attn_q for the lite models, exp_probs_b, fused gate_up
// experts), and granitehybrid's RoPE switch.
#include "engines/llamacpp/graph/file_facts.h"

#include <string>
#include <string_view>
#include <unordered_set>

namespace memfit::llamacpp::graph {

namespace {

class Reader {
 public:
  explicit Reader(const GgufHeader& h) : h_(h) {
    for (const GgufTensorInfo& t : h.tensors) names_.insert(t.name);
  }
  bool has_tensor(const std::string& name) const { return names_.count(name) != 0; }
  const GgufTensorInfo* tensor(const std::string& name) const {
    for (const GgufTensorInfo& t : h_.tensors) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }
  // A count key; `fallback` when absent; sets bad_ on a value of another kind.
  uint64_t count(std::string_view name, uint64_t fallback = 0) {
    const std::string key = "deepseek2." + std::string(name);
    if (h_.find(key) == nullptr) return fallback;
    Result<uint64_t> v = h_.get_uint64(key);
    if (!v.ok()) bad_ = true;
    return v.ok() ? *v : 0;
  }
  double real(std::string_view name) {
    const std::string key = "deepseek2." + std::string(name);
    if (h_.find(key) == nullptr) return 0.0;
    Result<double> v = h_.get_float(key);
    if (!v.ok()) bad_ = true;
    return v.ok() ? *v : 0.0;
  }
  bool flag(std::string_view name) {
    const std::string key = "deepseek2." + std::string(name);
    if (h_.find(key) == nullptr) return false;
    Result<bool> v = h_.get_bool(key);
    if (!v.ok()) bad_ = true;
    return v.ok() && *v;
  }
  bool has_key(std::string_view name) const { return h_.find("deepseek2." + std::string(name)) != nullptr; }
  bool bad() const { return bad_; }

 private:
  const GgufHeader& h_;
  std::unordered_set<std::string> names_;
  bool bad_ = false;
};

std::string blk(uint64_t il, std::string_view what) {
  return "blk." + std::to_string(il) + "." + std::string(what);
}

// FileFacts::mla: zero unless the file is a deepseek2 one with MLA.
MlaGraph mla_graph(const GgufHeader& header, uint64_t layers) {
  MlaGraph info;
  Result<std::string_view> arch = header.get_string("general.architecture");
  if (!arch.ok() || *arch != "deepseek2") return info;
  Reader r(header);
  const uint64_t key = r.count("attention.key_length_mla");
  const uint64_t value = r.count("attention.value_length_mla");
  const uint64_t rope = r.count("rope.dimension_count");
  const uint64_t latent = r.count("attention.kv_lora_rank");
  if (key == 0 || value == 0 || latent == 0 || rope == 0 || key <= rope || layers == 0) return info;
  info.latent = latent;
  info.rope = rope;
  info.nope = key - rope;
  info.value = value;
  info.dense_layers = r.count("leading_dense_block_count");
  info.expert_groups = r.count("expert_group_count");
  info.groups_used = r.count("expert_group_used_count");
  info.weights_norm = r.flag("expert_weights_norm");
  const double scale = r.real("expert_weights_scale");
  info.weights_scaled = scale != 0.0 && scale != 1.0;
  // llama.cpp: an absent (or 0) gating function is softmax, except for
  // 47- and 48-block files of one vocabulary (sigmoid); those are left out.
  info.gating = r.count("expert_gating_func");
  if (info.gating == 0) {
    info.gating = 1;
    if (layers + r.count("nextn_predict_layers") == 47 || layers + r.count("nextn_predict_layers") == 48) {
      info.other_graph = true;
    }
  }
  // Temperature scaling and SwiGLU clamps add nodes this replay does not
  // build.
  if (r.real("attention.temperature_scale") != 0.0 || r.has_key("swiglu_clamp_exp") ||
      r.has_key("swiglu_clamp_shexp")) {
    info.other_graph = true;
  }
  // Q through a LoRA pair (attn_q_a's outputs) unless the block has one
  // attn_q; the same in every block, as is the selection bias in every MoE
  // block and the split gate and up experts.
  const GgufTensorInfo* q_a = r.tensor(blk(0, "attn_q_a.weight"));
  const bool lite = r.has_tensor(blk(0, "attn_q.weight"));
  if (!lite && (q_a == nullptr || q_a->n_dims != 2)) info.other_graph = true;
  info.q_lora_rank = lite || q_a == nullptr ? 0 : q_a->dims[1];
  info.selection_bias = r.has_tensor(blk(info.dense_layers, "exp_probs_b.bias"));
  for (uint64_t il = 0; il < layers; ++il) {
    if (r.has_tensor(blk(il, "attn_q.weight")) != lite || r.has_tensor(blk(il, "attn_kv_b.weight")) ||
        r.has_tensor(blk(il, "ffn_gate_up_exps.weight"))) {
      info.other_graph = true;
    }
    if (il >= info.dense_layers && r.has_tensor(blk(il, "exp_probs_b.bias")) != info.selection_bias) {
      info.other_graph = true;
    }
  }
  if (r.bad()) info.other_graph = true;
  return info;
}

}  // namespace

FileFacts file_facts(const GgufHeader& header, uint64_t layers) {
  FileFacts facts;
  facts.mla = mla_graph(header, layers);
  Result<std::string_view> arch = header.get_string("general.architecture");
  if (arch.ok() && *arch == "granitehybrid") {
    Result<bool> rope = header.get_bool("granitehybrid.rope.scaling.finetuned");
    facts.attention_rope = !rope.ok() || *rope;
  }
  return facts;
}

}  // namespace memfit::llamacpp::graph
