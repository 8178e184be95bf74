// The tensor list of a model rebuilt from a llama.cpp log's metadata dump
// (model_with_dump_tensors, log_model.h). The dump prints every hparam
// and how many tensors the file holds of each type, never the tensors
// themselves; the list is rebuilt as the GGUF llama-quantize writes for
// the printed file type from those hparams (engines/llamacpp/
// quantize_plan.h: the converter's tensors, each at llama-quantize's
// type), and kept only when it agrees with what the log printed: as many
// tensors of each type, and their bytes within the printed file size's
// rounding. A file quantized otherwise (an importance matrix, a community
// mix, a synthetic model) disagrees and keeps the block-spread weights.
// docs/check-log.md, "Rebuilt from llama.cpp's dump".
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engines/llamacpp/quantize_plan.h"
#include "logs/log_model.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"
#include "model/gguf/config.h"

namespace memfit::logs {
namespace {

using TypeCounts = std::map<std::string, uint64_t>;

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
  return out;
}

// What the converter's tensors are built from beyond the spec: the
// Hugging Face model_type the dump's architecture converts from
// ("qwen3moe" -> "qwen3_moe") and, for a gated delta net model, its
// widths (the config fields model/gguf/arch_rules.cc writes from the
// ssm.* keys).
struct ConvertedFrom {
  std::string model_type;
  std::optional<llamacpp::GatedDeltaWidths> gated_delta;
  // llama-quantize had an importance matrix: it writes the
  // quantize.imatrix.* keys (file, dataset, entries and chunks count) then
  // (tools/quantize/quantize.cpp, LLM_KV_QUANTIZE_IMATRIX_*).
  bool imatrix = false;
  // general.quantized_by, the quantizer a file names (convert_hf_to_gguf's
  // metadata; "Unsloth", "Mungert", ...): "" when absent.
  std::string quantized_by;
  const llamacpp::GatedDeltaWidths* widths() const {
    return gated_delta ? &*gated_delta : nullptr;
  }
  // For deepseek2, its MLA widths (the fields arch_rules.cc writes from
  // the attention.* keys) and the two things the keys alone say: whether
  // the file was converted since #12801 (attention.key_length_mla) and
  // whether its router is sigmoid-gated (expert_gating_func 2, V3: an
  // exp_probs_b tensor).
  std::optional<llamacpp::MlaWidths> mla;
  // BERT's token_types rows: the file's tokenizer.ggml.token_type_count
  // (0 when absent).
  uint64_t token_types = 0;
  // T5's relative attention buckets: attention.relative_buckets_count.
  uint64_t relative_buckets = 0;
  llamacpp::ConverterHints hints() const {
    llamacpp::ConverterHints h;
    h.mla = mla ? &*mla : nullptr;
    h.token_types = token_types;
    h.t5_relative_buckets = relative_buckets;
    return h;
  }
};

// The unsigned value of the key ending in `suffix` ("attention.key_length_mla"
// after the architecture's prefix); nullopt when absent or not unsigned.
std::optional<uint64_t> key_count(const LogModel& dump, std::string_view suffix) {
  for (const GgufKeyValue& kv : dump.metadata) {
    if (!kv.key.ends_with(suffix) || kv.key.size() == suffix.size() ||
        kv.key[kv.key.size() - suffix.size() - 1] != '.') {
      continue;
    }
    if (const uint64_t* v = std::get_if<uint64_t>(&kv.value.data)) return *v;
  }
  return std::nullopt;
}

Result<ConvertedFrom> converted_from(const LogModel& dump) {
  GgufHeader header;
  header.metadata = dump.metadata;
  Result<GgufConfig> config = gguf_config(header);
  if (!config) return config.error();
  ConvertedFrom out;
  out.model_type = config->config.value("model_type", config->architecture);
  out.imatrix = std::any_of(dump.metadata.begin(), dump.metadata.end(), [](const GgufKeyValue& kv) {
    return kv.key.starts_with("quantize.imatrix.");
  });
  for (const GgufKeyValue& kv : dump.metadata) {
    const std::string* name = std::get_if<std::string>(&kv.value.data);
    if (kv.key == "general.quantized_by" && name != nullptr) out.quantized_by = *name;
  }
  const nlohmann::json& c = config->config;
  if (c.contains("linear_num_key_heads")) {
    auto count = [&](const char* field) { return c.value(field, uint64_t{0}); };
    out.gated_delta = llamacpp::GatedDeltaWidths{
        count("linear_num_key_heads"), count("linear_num_value_heads"),
        count("linear_key_head_dim"), count("linear_value_head_dim"),
        count("linear_conv_kernel_dim")};
  }
  out.token_types = key_count(dump, "token_type_count").value_or(0);
  out.relative_buckets = key_count(dump, "attention.relative_buckets_count").value_or(0);
  if (c.contains("kv_lora_rank")) {
    auto count = [&](const char* field) { return c.value(field, uint64_t{0}); };
    out.mla = llamacpp::MlaWidths{count("q_lora_rank"),      count("kv_lora_rank"),
                                  count("qk_nope_head_dim"), count("qk_rope_head_dim"),
                                  count("v_head_dim"),       count("first_k_dense_replace"),
                                  key_count(dump, "attention.key_length_mla").has_value(),
                                  key_count(dump, "expert_gating_func") == uint64_t{2}};
  }
  return out;
}

// The rebuilt GGUF of `type` when it holds the log's counts by type and
// its bytes lie within the printed size's rounding; an error saying which
// differ otherwise.
Result<Model> rebuilt_of_type(const Model& rebuilt, const LogModel& dump,
                              const ConvertedFrom& from, const llamacpp::GgufFileType& type,
                              const TypeCounts& printed) {
  const std::string& model_type = from.model_type;
  // Three things the dump does not announce: the output layer's own
  // matrix (absent when tied to token_embd), the converter's rope_freqs (a
  // llama3-scaled rope bakes its factors into that F32 tensor, and the
  // GGUF keeps no key of the scaling; Phi-3's longrope, two) and an
  // encoder's classification head (a reranker converted from
  // *ForSequenceClassification; its GGUF need not say rank pooling): the
  // counts decide.
  // A fourth for glm4: whether the checkpoint's Q/K/V lack biases (for
  // phi, whether they are one fused attn_qkv)
  // (Glm4Config's attention_bias, True by default, False in GLM-4-32B-0414
  // and GLM-Z1-32B; the GGUF keeps no key of it, and llama.cpp's loader
  // takes either: bq/bk/bv are TENSOR_NOT_REQUIRED).
  struct Variant {
    bool tied = false;
    bool llama3_rope = false;
    bool head = false;
    bool no_qkv_bias = false;
  };
  std::vector<Variant> variants = {{false, false}, {true, false}, {false, true}, {true, true}};
  if (rebuilt.spec.embedding.bidirectional) variants = {{true, false, false}, {true, false, true}};
  // Phi-2's Q/K/V fused or not (ConverterHints::phi2_fused_qkv), as
  // glm4's biases: the counts decide; its output is never tied.
  if (model_type == "phi") variants = {{false, false, false, false}, {false, false, false, true}};
  // T5's encoder: no output layer; a relative attention bias in block 0
  // (T5) or in every block (UMT5; no_qkv_bias carries it), as the counts say.
  if (model_type == "t5encoder") variants = {{true, false, false, false}, {true, false, false, true}};
  if (model_type == "glm4") {
    variants = {{false, false, false, false}, {true, false, false, false}, {false, false, false, true},
                {true, false, false, true}};
  }
  // The rules that changed between llama-quantize releases (the file's
  // quantizing build is not in the log): the pinned release's first, then
  // the older; the counts and the size decide (quantize_plan.h,
  // QuantizeRules).
  struct Attempt {
    llamacpp::QuantizeRules rules;
    Variant variant;
  };
  std::vector<Attempt> attempts;
  for (bool qk64 : {false, true}) {
    for (bool qkv : {false, true}) {
      for (bool iq4nl : {false, true}) {
        for (const Variant& v : variants) attempts.push_back({{from.imatrix, qkv, iq4nl, qk64}, v});
      }
    }
  }
  std::string why;
  bool counts_held = false;  // some rule set gave the printed counts
  for (const auto& [rules, v] : attempts) {
    Model candidate = rebuilt;
    candidate.spec.model_type = model_type;
    candidate.spec.tied_embeddings = v.tied;
    candidate.spec.embedding.reranker = candidate.spec.embedding.reranker || v.head;
    // Phi-3's long-context factors are its rope_factors_long/_short.
    if (v.llama3_rope) candidate.spec.rope_scaling.type = model_type == "phi3" ? "longrope" : "llama3";
    llamacpp::ConverterHints hints = from.hints();
    hints.glm4_no_qkv_bias = model_type == "glm4" && v.no_qkv_bias;
    hints.phi2_fused_qkv = model_type == "phi" && v.no_qkv_bias;
    hints.t5_rel_b_every_block = model_type == "t5encoder" && v.no_qkv_bias;
    Result<Model> quantized = llamacpp::quantized_gguf_model(candidate, type, from.widths(), rules, &hints);
    if (!quantized) {
      // A rule set this model's tensors do not fit (a row no type takes,
      // a K layout of a QK_K = 64 build memfit does not price): the next.
      if (why.empty()) why = std::string(quantized.error().detail());
      continue;
    }
    const TypeCounts built = counts_of(*quantized);
    if (built != printed) {
      if (why.empty()) {
        why = fmt::format("the {} GGUF memfit rebuilds holds {}; the log's file {}", type.name,
                          describe(built), describe(printed));
      }
      continue;
    }
    counts_held = true;
    const uint64_t sum = quantized->weights.bytes;
    const uint64_t size = dump.file_bytes->value;
    const uint64_t off = sum > size ? sum - size : size - sum;
    if (off > dump.file_bytes->band) {
      why = fmt::format("the {} GGUF memfit rebuilds holds the log's tensor types but {} bytes, "
                        "outside the printed file size {} (+- {} bytes)",
                        type.name, sum, escape_untrusted(dump.file_size_text), dump.file_bytes->band);
      continue;
    }
    Model out = std::move(*quantized);
    out.spec = rebuilt.spec;  // the GGUF architecture and its geometry, as rebuilt
    out.spec.tied_embeddings = v.tied;
    out.path = rebuilt.path;
    out.has_config = rebuilt.has_config;
    // Checked against the log: every type's count and the file size.
    out.weights.verified = true;
    std::erase_if(out.warnings, [](const std::string& w) { return w.starts_with(kSpreadWarning); });
    out.warnings.push_back(fmt::format(
        "weights: the {} GGUF llama-quantize writes from the dump's hyperparameters, {} tensors "
        "({}), {} bytes: the log's tensor counts by type and its file size, {}, agree",
        type.name, out.tensors.size(), describe(built), sum, escape_untrusted(dump.file_size_text)) +
        rules_note(rules));
    return out;
  }
  // No rule set of llama-quantize's memfit knows gives the printed counts:
  // what the file says of how it was made, so the note says why.
  std::string made;
  if (from.imatrix) made = "an importance matrix (quantize.imatrix keys)";
  if (!from.quantized_by.empty()) {
    made += fmt::format("{}its quantizer, {} (general.quantized_by)", made.empty() ? "" : " and ",
                        quote_untrusted(from.quantized_by));
  }
  if (!made.empty() && !counts_held) {
    why += fmt::format("; no rules of a llama-quantize release memfit knows give those counts: the "
                       "file names {}: types chosen per tensor (--tensor-type or another tool)",
                       made);
  }
  return Error(why);
}

// Whether two rebuilt lists give every tensor the same type.
bool same_types(const Model& a, const Model& b) {
  return std::equal(a.tensors.begin(), a.tensors.end(), b.tensors.begin(), b.tensors.end(),
                    [](const SafetensorsTensor& x, const SafetensorsTensor& y) {
                      return x.name == y.name && x.dtype == y.dtype;
                    });
}

// A file with no general.file_type: llama.cpp prints the type most of its
// tensors have, "(guessed)" (often "all F32", the norms outnumbering the
// matrices). Every file type memfit rebuilds is tried; the one whose GGUF
// holds the log's counts and size is kept when no other that does types
// a tensor otherwise.
Result<Model> rebuilt_of_guessed_type(const Model& rebuilt, const LogModel& dump,
                                      const ConvertedFrom& from, const TypeCounts& printed) {
  std::optional<Model> found;
  for (const llamacpp::GgufFileType& type : llamacpp::gguf_file_types()) {
    Result<Model> m = rebuilt_of_type(rebuilt, dump, from, type, printed);
    if (!m) continue;
    if (found && !same_types(*found, *m)) {
      return Error("the log's file type is guessed and more than one file type llama-quantize "
                   "writes holds its tensor counts and size");
    }
    if (!found) found = std::move(*m);
  }
  if (!found) {
    return Error(fmt::format("the log's file type is guessed (the file has no general.file_type) "
                             "and no file type memfit rebuilds holds the log's file, {}",
                             describe(printed)));
  }
  return std::move(*found);
}

}  // namespace

Result<Model> model_with_dump_tensors(const Model& rebuilt, const LogModel& dump,
                                      std::string_view file_type, bool guessed) {
  if (file_type.empty()) return Error("the log prints no file type (print_info: file type)");
  const llamacpp::GgufFileType* type =
      guessed ? nullptr : llamacpp::find_rebuilt_file_type(file_type);
  if (!guessed && type == nullptr) {
    return Error(fmt::format("the file type {} is not one memfit rebuilds as llama-quantize writes it",
                             quote_untrusted(file_type)));
  }
  if (!dump.file_bytes) return Error("the log prints no file size");
  Result<ConvertedFrom> from = converted_from(dump);
  if (!from) return from.error();
  TypeCounts printed;
  for (const auto& [name, n] : dump.tensor_types) printed[name] += n;
  Model converted = rebuilt;
  converted.spec.model_type = from->model_type;
  const llamacpp::ConverterHints hints = from->hints();
  if (!llamacpp::converted_tensors(converted.spec, from->widths(), &hints)) {
    return Error(fmt::format("memfit does not build the tensors llama.cpp's converter writes for "
                             "{} ({} layout)",
                             quote_untrusted(from->model_type), rebuilt.spec.layout));
  }
  if (guessed) return rebuilt_of_guessed_type(rebuilt, dump, *from, printed);
  return rebuilt_of_type(rebuilt, dump, *from, *type, printed);
}

}  // namespace memfit::logs
