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
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engines/llamacpp/quantize_options.h"
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
  llamacpp::ConverterHints hints() const {
    llamacpp::ConverterHints h;
    h.mla = mla ? &*mla : nullptr;
    h.token_types = token_types;
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

// Three things the dump does not announce: the output layer's own
// matrix (absent when tied to token_embd), the converter's rope_freqs (a
// llama3-scaled rope bakes its factors into that F32 tensor, and the
// GGUF keeps no key of the scaling; Phi-3's longrope, two) and an
// encoder's classification head (a reranker converted from
// *ForSequenceClassification; its GGUF need not say rank pooling): the
// counts decide.
// A fourth (bias_variant) for glm4: whether the checkpoint's Q/K/V lack
// biases (Glm4Config's attention_bias, True by default, False in
// GLM-4-32B-0414 and GLM-Z1-32B; the GGUF keeps no key of it, and
// llama.cpp's loader takes either: bq/bk/bv are TENSOR_NOT_REQUIRED); for
// phi, whether Q/K/V are one fused attn_qkv; for llama, whether the
// checkpoint has LlamaConfig's attention and MLP biases (Granite Code).
struct Variant {
  bool tied = false;
  bool llama3_rope = false;
  bool head = false;
  bool bias_variant = false;  // glm4: no Q/K/V biases; phi: one fused attn_qkv; llama: the seven biases
  bool split_experts = false;  // routed experts as 2-D tensors of their own (before #6387)
};

// One rebuild to try: the release's rules and the dump's unannounced
// variant.
struct Attempt {
  llamacpp::QuantizeRules rules;
  Variant variant;
};

// The rule sets that changed between llama-quantize releases (the file's
// quantizing build is not in the log): the pinned release's first, then
// the older; each with every variant the architecture has.
std::vector<Attempt> attempts_for(const Model& rebuilt, const ConvertedFrom& from) {
  const std::string& model_type = from.model_type;
  std::vector<Variant> variants = {{false, false}, {true, false}, {false, true}, {true, true}};
  if (rebuilt.spec.embedding.bidirectional) variants = {{true, false, false}, {true, false, true}};
  // Phi-2's Q/K/V fused or not (ConverterHints::phi2_fused_qkv), as
  // glm4's biases: the counts decide; its output is never tied.
  if (model_type == "phi") variants = {{false, false, false, false}, {false, false, false, true}};
  // glm4's Q/K/V biases absent, or llama's seven biases present
  // (ConverterHints::glm4_no_qkv_bias, llama_biases), each beside the
  // output tied or not: the counts decide.
  if (model_type == "glm4" || model_type == "llama") {
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
  std::vector<Attempt> attempts;
  for (bool qk64 : {false, true}) {
    for (bool qkv : {false, true}) {
      for (bool iq4nl : {false, true}) {
        for (const Variant& v : variants) attempts.push_back({{from.imatrix, qkv, iq4nl, qk64}, v});
      }
    }
  }
  return attempts;
}

// The model and converter hints of one attempt's variant.
struct Candidate {
  Model model;
  llamacpp::ConverterHints hints;
};

Candidate candidate_of(const Model& rebuilt, const ConvertedFrom& from, const Variant& v) {
  const std::string& model_type = from.model_type;
  Candidate c{rebuilt, from.hints()};
  c.model.spec.model_type = model_type;
  c.model.spec.tied_embeddings = v.tied;
  c.model.spec.embedding.reranker = c.model.spec.embedding.reranker || v.head;
  // Phi-3's long-context factors are its rope_factors_long/_short.
  if (v.llama3_rope) c.model.spec.rope_scaling.type = model_type == "phi3" ? "longrope" : "llama3";
  c.hints.glm4_no_qkv_bias = model_type == "glm4" && v.bias_variant;
  c.hints.phi2_fused_qkv = model_type == "phi" && v.bias_variant;
  c.hints.llama_biases = model_type == "llama" && v.bias_variant;
  c.hints.split_experts = v.split_experts;
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

// What fixes a list's bytes on each device whatever the split: per block
// ("blk.N"), and per tensor outside the blocks, the tensors' types and
// bytes (as a multiset: two roles of one shape that trade types leave
// every device's bytes, CPU_REPACK's copies included, as they were).
using PlacementKey = std::map<std::string, std::vector<std::pair<std::string, uint64_t>>>;

PlacementKey placement_key(const Model& m) {
  PlacementKey key;
  for (const SafetensorsTensor& t : m.tensors) {
    std::string group = t.name;
    if (group.starts_with("blk.")) group = group.substr(0, group.find('.', 4));
    key[group].emplace_back(t.dtype, t.data_bytes);
  }
  for (auto& [group, list] : key) std::sort(list.begin(), list.end());
  return key;
}

// The printed counts as ggml types; nullopt when the log names a type
// memfit does not know.
std::optional<llamacpp::QuantizedFileTotals> file_totals(const TypeCounts& printed, const LogModel& dump) {
  llamacpp::QuantizedFileTotals totals;
  for (const auto& [name, n] : printed) {
    const GgmlTypeTraits* traits = nullptr;
    for (const GgmlTypeTraits& t : ggml_type_table()) {
      if (t.name == name) traits = &t;
    }
    if (traits == nullptr) return std::nullopt;
    totals.counts.emplace_back(traits->type, n);
  }
  totals.bytes = dump.file_bytes->value;
  totals.band_bytes = dump.file_bytes->band;
  return totals;
}

// When no release's rules alone give the log's counts: the assignments of
// llama-quantize's options (--token-embedding-type, --output-tensor-type,
// --pure, --tensor-type by role; engines/llamacpp/quantize_options.h)
// over every attempt that hold the counts and the size. Kept when they
// all give every device the same bytes (PlacementKey); an error saying
// why otherwise.
Result<Model> rebuilt_with_options(const Model& rebuilt, const LogModel& dump, const ConvertedFrom& from,
                                   const llamacpp::GgufFileType& type, const TypeCounts& printed) {
  const std::optional<llamacpp::QuantizedFileTotals> totals = file_totals(printed, dump);
  if (!totals) return Error("the log names a tensor type memfit does not know");
  struct Found {
    Model model;
    Variant variant;
    llamacpp::QuantizeRules rules;
    std::vector<std::string> options;
  };
  std::vector<Found> found;
  for (const auto& [rules, v] : attempts_for(rebuilt, from)) {
    Candidate c = candidate_of(rebuilt, from, v);
    Result<std::vector<llamacpp::ConvertedTensor>> tensors =
        llamacpp::converted_tensors(c.model.spec, from.widths(), &c.hints);
    if (!tensors) continue;
    std::vector<llamacpp::TypeChoice> choices;
    Result<std::vector<GgmlType>> types = llamacpp::quantized_types(c.model.spec, *tensors, type, rules, &choices);
    if (!types) continue;
    llamacpp::QuantizeRules effective = rules;
    if (llamacpp::needs_importance_matrix(type)) effective.imatrix = true;
    const llamacpp::RulesRebuild rebuild{*tensors, *types, choices, type.default_type, effective};
    Result<std::vector<llamacpp::OptionsAssignment>> assignments = llamacpp::search_quantize_options(rebuild, *totals);
    if (!assignments) return Error(fmt::format("no release's rules give the log's counts, and {}",
                                               assignments.error().detail()));
    for (const llamacpp::OptionsAssignment& a : *assignments) {
      Result<Model> m = llamacpp::gguf_model_of_types(c.model, *tensors, a.types, rules);
      if (!m) continue;
      found.push_back(Found{std::move(*m), v, rules, a.options});
    }
  }
  if (found.empty()) return Error("");
  const PlacementKey key = placement_key(found.front().model);
  for (const Found& f : found) {
    if (placement_key(f.model) != key) {
      return Error(fmt::format(
          "{} assignments of llama-quantize's options hold the log's counts and size but give the "
          "devices different bytes (e.g. {} and {})",
          found.size(), fmt::join(found.front().options, " "), fmt::join(f.options, " ")));
    }
  }
  Found& f = found.front();
  const uint64_t sum = f.model.weights.bytes;
  const size_t n = f.model.tensors.size();
  std::string note = fmt::format(
      "weights: the {} GGUF llama-quantize writes from the dump's hyperparameters with {}, {} tensors "
      "({}), {} bytes: the log's tensor counts by type and its file size, {}, agree",
      type.name, fmt::join(f.options, " "), n, describe(printed), sum,
      escape_untrusted(dump.file_size_text));
  note += rules_note(f.rules);
  if (found.size() > 1) {
    note += fmt::format("; {} assignments of the options hold them, all with the same bytes on every device",
                        found.size());
  }
  return accepted(std::move(f.model), rebuilt, f.variant, std::move(note));
}

// The rebuilt GGUF of `type` when it holds the log's counts by type and
// its bytes lie within the printed size's rounding; an error saying which
// differ otherwise. With `search_options`, a file no release's rules
// give is searched for llama-quantize's options (rebuilt_with_options).
Result<Model> rebuilt_of_type(const Model& rebuilt, const LogModel& dump,
                              const ConvertedFrom& from, const llamacpp::GgufFileType& type,
                              const TypeCounts& printed, bool search_options) {
  std::string why;
  bool counts_held = false;  // some rule set gave the printed counts
  for (const auto& [rules, v] : attempts_for(rebuilt, from)) {
    const Candidate c = candidate_of(rebuilt, from, v);
    Result<Model> quantized = llamacpp::quantized_gguf_model(c.model, type, from.widths(), rules, &c.hints);
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
    const size_t n = quantized->tensors.size();
    return accepted(std::move(*quantized), rebuilt, v,
                    fmt::format("weights: the {} GGUF llama-quantize writes from the dump's hyperparameters, {} "
                                "tensors ({}), {} bytes: the log's tensor counts by type and its file size, {}, agree",
                                type.name, n, describe(built), sum, escape_untrusted(dump.file_size_text)) +
                        rules_note(rules));
  }
  std::string options_why;
  if (search_options) {
    Result<Model> with_options = rebuilt_with_options(rebuilt, dump, from, type, printed);
    if (with_options) return with_options;
    options_why = std::string(with_options.error().detail());
  }
  if (!options_why.empty()) {
    why += "; " + options_why;
  } else if (search_options && llamacpp::is_float_type(type.default_type)) {
    // llama_model_quantize_impl retypes by --tensor-type (and --pure
    // matters) only under a quantized file type.
    why += fmt::format("; of llama-quantize's options an {} file takes only --token-embedding-type and "
                       "--output-tensor-type, and none gives them with the file size",
                       type.name);
  } else if (search_options) {
    why += "; no assignment of llama-quantize's options (--token-embedding-type, --output-tensor-type, "
           "--pure, --tensor-type by role) gives them with the file size";
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
                       "file names {}: types chosen per tensor (a per-layer --tensor-type pattern or another tool)",
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
    Result<Model> m = rebuilt_of_type(rebuilt, dump, from, type, printed, false);
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
  return rebuilt_of_type(rebuilt, dump, *from, *type, printed, true);
}

}  // namespace memfit::logs
