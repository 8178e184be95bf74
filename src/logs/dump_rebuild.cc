// The helpers both steps of a dump's rebuild share (logs/dump_rebuild.h).
#include "logs/dump_rebuild.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "memfit/untrusted_text.h"

namespace memfit::logs {

// "q4_K 193, q6_K 1": a count per type, by name; a name the log printed
// is untrusted text, escaped.
std::string describe(const TypeCounts& counts) {
  std::string out;
  for (const auto& [type, n] : counts) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", escape_untrusted(type), n);
  }
  return out;
}

TypeCounts counts_of(const Model& model) {
  TypeCounts counts;
  for (const SafetensorsTensor& t : model.tensors) ++counts[t.dtype];
  return counts;
}

// What a rebuild took beyond memfit's own rules: "" for those.
std::string rules_note(const llamacpp::QuantizeRules& r) {
  std::string out;
  if (r.imatrix) out += "; with an importance matrix (its quantize.imatrix keys)";
  if (r.qkv_own_rule) out += "; attn_qkv by its own rule (llama-quantize before #19770)";
  if (r.k_fallback_iq4_nl) out += "; Q2_K/Q3_K rows of no whole 256-block as IQ4_NL (an older fallback)";
  if (r.qk_k_64) out += "; K types of 64-element blocks (a build with LLAMA_QKK_64)";
  if (r.mamba1_small_f32) {
    out += "; Mamba's ssm_x and ssm_dt F32 and unquantized (the first Mamba support's converter and "
           "llama-quantize, ggml-org/llama.cpp #5328)";
  }
  return out;
}

std::vector<Attempt> attempts_for(const Model& rebuilt, const ConvertedFrom& from) {
  const std::string& model_type = from.model_type;
  std::vector<Variant> variants = {{false, false}, {true, false}, {false, true}, {true, true}};
  if (rebuilt.spec.embedding.bidirectional) variants = {{true, false, false}, {true, false, true}};
  // Phi-2's Q/K/V fused or not (ConverterHints::phi2_fused_qkv), as
  // glm4's biases: the counts decide; its output is never tied.
  if (model_type == "phi") variants = {{false, false, false, false}, {false, false, false, true}};
  // StableLM's Q/K/V biases (ConverterHints::stablelm_qkv_bias), likewise:
  // its output is never tied (llama.cpp requires it).
  if (model_type == "stablelm") variants = {{false, false, false, false}, {false, false, false, true}};
  // Falcon-H1's Mamba-2 gated norm present or not (ConverterHints::
  // falcon_h1_no_ssm_norm), each beside the output tied or not.
  // ERNIE 4.5 MoE's and Ling 2.0's exp_probs_b present or not
  // (ConverterHints::no_expert_bias), likewise.
  if (model_type == "falcon_h1" || model_type == "ernie4_5_moe" || model_type == "bailing_moe_v2") {
    variants = {{false, false, false, false}, {true, false, false, false}, {false, false, false, true},
                {true, false, false, true}};
  }
  // T5's encoder: no output layer; a relative attention bias in block 0
  // (T5) or in every block (UMT5; bias_variant carries it), as the counts say.
  if (model_type == "t5encoder") variants = {{true, false, false, false}, {true, false, false, true}};
  // Gemma 4: tied (the loader duplicates token_embd when the file has no
  // output), the global layers with attn_v or without (attention_k_eq_v;
  // ConverterHints::gemma4_k_eq_v): the counts decide.
  if (model_type == "gemma4_text") variants = {{true, false, false, false}, {true, false, false, true}};
  // glm4's Q/K/V biases absent, or llama's seven biases present
  // (ConverterHints::glm4_no_qkv_bias, llama_biases), each beside the
  // output tied or not: the counts decide.
  // GLM-4.5's per-head Q/K norms present or not (ConverterHints::
  // glm4moe_qk_norm), likewise.
  if (model_type == "glm4" || model_type == "llama" || model_type == "glm4_moe") {
    variants = {{false, false, false, false}, {true, false, false, false}, {false, false, false, true},
                {true, false, false, true}};
    if (model_type == "llama") {
      variants.insert(variants.begin() + 2, {{false, true, false, false}, {true, true, false, false}});
    }
  }
  // A Mixtral-style file converted before #6387 (ConverterHints::
  // split_experts): its routed experts tensor by tensor.
  if (rebuilt.spec.moe.experts > 0 && rebuilt.spec.moe.shared_experts == 0 &&
      (model_type == "mixtral" || model_type == "llama")) {
    variants.push_back({false, false, false, false, true});
    variants.push_back({true, false, false, false, true});
  }
  // Mamba's ssm_x and ssm_dt F32 and unquantized (the first Mamba
  // support's converter and llama-quantize) or at the file's types (the
  // later ones), each beside the output tied or not.
  if (model_type == "mamba") {
    const size_t n = variants.size();
    for (size_t k = 0; k < n; ++k) {
      Variant old = variants[k];
      old.mamba1_small_f32 = true;
      variants.push_back(old);
    }
  }
  std::vector<Attempt> attempts;
  for (bool qk64 : {false, true}) {
    for (bool qkv : {false, true}) {
      for (bool iq4nl : {false, true}) {
        for (const Variant& v : variants) {
          llamacpp::QuantizeRules rules{from.imatrix, qkv, iq4nl, qk64};
          rules.mamba1_small_f32 = v.mamba1_small_f32;
          attempts.push_back({rules, v});
        }
      }
    }
  }
  return attempts;
}

Candidate candidate_of(const Model& rebuilt, const ConvertedFrom& from, const Variant& v) {
  const std::string& model_type = from.model_type;
  Candidate c{rebuilt, from.hints()};
  c.model.spec.model_type = model_type;
  c.model.spec.tied_embeddings = v.tied;
  c.model.spec.embedding.reranker = c.model.spec.embedding.reranker || v.head;
  // Phi-3's and MiniCPM's long-context factors are their
  // rope_factors_long/_short.
  if (v.llama3_rope) {
    c.model.spec.rope_scaling.type = model_type == "phi3" || model_type == "minicpm" ? "longrope" : "llama3";
  }
  c.hints.glm4_no_qkv_bias = model_type == "glm4" && v.bias_variant;
  c.hints.glm4moe_qk_norm = model_type == "glm4_moe" && v.bias_variant;
  c.hints.phi2_fused_qkv = model_type == "phi" && v.bias_variant;
  c.hints.stablelm_qkv_bias = model_type == "stablelm" && v.bias_variant;
  c.hints.falcon_h1_no_ssm_norm = model_type == "falcon_h1" && v.bias_variant;
  c.hints.no_expert_bias = (model_type == "ernie4_5_moe" || model_type == "bailing_moe_v2") && v.bias_variant;
  c.hints.t5_rel_b_every_block = model_type == "t5encoder" && v.bias_variant;
  c.hints.llama_biases = model_type == "llama" && v.bias_variant;
  c.hints.gemma4_k_eq_v = model_type == "gemma4_text" && v.bias_variant;
  c.hints.split_experts = v.split_experts;
  c.hints.mamba1_small_f32 = v.mamba1_small_f32;
  return c;
}

// `quantized` as the model the check prices: the rebuilt spec and path,
// the weights verified against the log, the spread warning replaced by
// `note`.
Model accepted(Model quantized, const Model& rebuilt, const Variant& v, std::string note) {
  Model out = std::move(quantized);
  out.spec = rebuilt.spec;  // the GGUF architecture and its geometry, as rebuilt
  out.spec.tied_embeddings = v.tied;
  out.path = rebuilt.path;
  out.has_config = rebuilt.has_config;
  // Checked against the log: every type's count and the file size.
  out.weights.verified = true;
  std::erase_if(out.warnings, [](const std::string& w) { return w.starts_with(kSpreadWarning); });
  out.warnings.push_back(std::move(note));
  return out;
}

}  // namespace memfit::logs
