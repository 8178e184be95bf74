// The tensor list of a model rebuilt from a llama.cpp log's metadata dump
// (model_with_dump_tensors, log_model.h). The dump prints every hparam
// and how many tensors the file holds of each type, never the tensors
// themselves; the list is rebuilt as the GGUF llama-quantize writes for
// the printed file type from those hparams (engines/llamacpp/
// quantize_plan.h: the converter's tensors, each at llama-quantize's
// type), and kept only when it agrees with what the log printed: as many
// tensors of each type, and their bytes within the printed file size's
// rounding. A file quantized otherwise (an importance matrix, a community
// mix, a synthetic model) disagrees; it is then searched for
// llama-quantize's options (logs/dump_rebuild_options.cc) and otherwise
// keeps the block-spread weights. What both steps share:
// logs/dump_rebuild.h. docs/check-log.md, "Rebuilt from llama.cpp's dump".
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engines/llamacpp/quantize_options.h"
#include "engines/llamacpp/quantize_plan.h"
#include "engines/shared/fixed_point.h"
#include "logs/dump_rebuild.h"
#include "logs/log_model.h"
#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"
#include "model/gguf/config.h"

namespace memfit::logs {
namespace {

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

// Whether the log's type counts hold tensors of `type` ("bf16").
bool dump_has_type(const LogModel& dump, std::string_view type) {
  return std::any_of(dump.tensor_types.begin(), dump.tensor_types.end(),
                     [&](const auto& t) { return t.first == type && t.second > 0; });
}

}  // namespace

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
  Result<std::optional<llamacpp::Gemma4Widths>> gemma4 = llamacpp::gemma4_widths_of_gguf(header);
  if (!gemma4) return gemma4.error();
  out.gemma4 = std::move(*gemma4);
  // per_layer_model_proj keeps the converter's type: BF16 where the file
  // holds BF16 tensors and no F16 ones (--outtype bf16 or auto from a BF16
  // checkpoint).
  if (out.gemma4 && dump_has_type(dump, "bf16") && !dump_has_type(dump, "f16")) {
    out.gemma4->kept_type = GgmlType::kBF16;
  }
  if (dump_has_type(dump, "bf16") && !dump_has_type(dump, "f16")) out.gemma3n_kept_type = GgmlType::kBF16;
  Result<std::optional<llamacpp::Mamba1Widths>> mamba1 = llamacpp::mamba1_widths_of_gguf(header);
  if (!mamba1) return mamba1.error();
  out.mamba1 = *mamba1;
  Result<std::optional<llamacpp::DeciWidths>> deci = llamacpp::deci_widths_of_gguf(header);
  if (!deci) return deci.error();
  out.deci = std::move(*deci);
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

namespace {

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

// Which third of the file a tensor's bytes come from: the input layer
// (token_embd and the rest outside the blocks), the output layer (output,
// output_norm) or the blocks.
enum class Third { kInput, kOutput, kBlocks };

Third third_of(const std::string& name) {
  if (name.starts_with("blk.")) return Third::kBlocks;
  return name.starts_with("output") ? Third::kOutput : Third::kInput;
}

// Whether the tensors outside the blocks (token_embd, output, ...) can
// keep their types under the rules: the dump prints, for each of those
// types, at least as many tensors as the outside layers hold of it.
bool outside_types_printed(const Model& quantized, const TypeCounts& printed) {
  TypeCounts outside;
  for (const SafetensorsTensor& t : quantized.tensors) {
    if (third_of(t.name) != Third::kBlocks) ++outside[t.dtype];
  }
  return std::all_of(outside.begin(), outside.end(), [&](const auto& entry) {
    const auto it = printed.find(entry.first);
    return it != printed.end() && it->second >= entry.second;
  });
}

// `quantized`'s tensors with the printed `file_bytes` apportioned. With
// `keep_outside`, the input and output layers keep their bytes under the
// rules (token_embd and output at the file type's own types: a per-layer
// mix such as Unsloth's dynamic quants retypes the blocks' tensors by
// llama-quantize's --tensor-type patterns, while token_embd and output
// take the file type's rule, llama_tensor_get_type, unless
// --token-embedding-type / --output-tensor-type say otherwise) and the
// blocks the rest; without it, as the even spread does outside the blocks
// (placement.cc, spread_unlisted_weights: one share of file / (blocks +
// 2) for the input layer, one for the output layer). The blocks' part goes
// over their tensors by their bytes under the rules (floor of bytes x
// part / their sum, the remainder to the largest): the blocks weigh what
// their own tensors weigh. nullopt when a part has no bytes to shape by,
// or the kept layers weigh the whole file or more.
std::optional<Model> scaled_to(Model quantized, uint64_t file_bytes, uint64_t blocks, bool keep_outside) {
  uint64_t sums[3] = {0, 0, 0};
  for (const SafetensorsTensor& t : quantized.tensors) sums[static_cast<int>(third_of(t.name))] += t.data_bytes;
  for (int k = 0; k < 3; ++k) {
    if (sums[k] == 0) return std::nullopt;
  }
  uint64_t targets[3] = {0, 0, 0};
  if (keep_outside) {
    const CheckedBytes outside = CheckedBytes(sums[0]) + sums[1];
    if (!outside.value() || *outside.value() >= file_bytes) return std::nullopt;
    targets[0] = sums[0];
    targets[1] = sums[1];
    targets[2] = file_bytes - *outside.value();
  } else {
    const uint64_t share = file_bytes / (blocks + 2);
    targets[0] = file_bytes - share * (blocks + 1);
    targets[1] = share;
    targets[2] = share * blocks;
  }
  SafetensorsTensor* largest[3] = {nullptr, nullptr, nullptr};
  uint64_t given[3] = {0, 0, 0};
  for (SafetensorsTensor& t : quantized.tensors) {
    const int k = static_cast<int>(third_of(t.name));
    // data_bytes <= sums[k]: the share is at most the part's target, and
    // never the fallback.
    const uint64_t part = mul_div_floor(t.data_bytes, targets[k], sums[k]).value_or(targets[k]);
    if (largest[k] == nullptr || t.data_bytes > largest[k]->data_bytes) largest[k] = &t;
    t.data_bytes = part;
    given[k] += t.data_bytes;
  }
  for (int k = 0; k < 3; ++k) largest[k]->data_bytes += targets[k] - given[k];
  quantized.weights.bytes = file_bytes;
  return quantized;
}

}  // namespace

Result<Model> model_with_shaped_weights(const Model& rebuilt, const LogModel& dump, std::string_view file_type) {
  const llamacpp::GgufFileType* type = llamacpp::find_rebuilt_file_type(file_type);
  if (type == nullptr || !dump.file_bytes) return Error("no file type or size to shape the weights by");
  // A float file type's rules retype nothing: a dump of one whose counts
  // differ holds types its rules never write (the synthetic mixes), no
  // shape to go by.
  if (llamacpp::is_float_type(type->default_type)) return Error("a float file type: nothing to shape by");
  Result<ConvertedFrom> from = converted_from(dump);
  if (!from) return from.error();
  uint64_t printed = 0;
  TypeCounts counts;
  for (const auto& [name, n] : dump.tensor_types) {
    printed += n;
    counts[name] += n;
  }
  for (const auto& [rules, v] : attempts_for(rebuilt, *from)) {
    if (rules.qkv_own_rule || rules.k_fallback_iq4_nl || rules.qk_k_64) continue;  // the pinned release's
    const Candidate c = candidate_of(rebuilt, *from, v);
    Result<Model> quantized = llamacpp::quantized_gguf_model(c.model, *type, from->widths(), rules, &c.hints);
    if (!quantized || quantized->tensors.size() != printed) continue;
    const size_t n = quantized->tensors.size();
    const uint64_t blocks = rebuilt.spec.layers.size() + rebuilt.spec.nextn_layers;
    const bool keep_outside = outside_types_printed(*quantized, counts);
    std::optional<Model> shaped = scaled_to(std::move(*quantized), dump.file_bytes->value, blocks, keep_outside);
    if (!shaped) continue;
    Model out = std::move(*shaped);
    out.spec = rebuilt.spec;
    out.spec.tied_embeddings = v.tied;
    out.path = rebuilt.path;
    out.has_config = rebuilt.has_config;
    out.weights.verified = false;
    std::erase_if(out.warnings, [](const std::string& w) { return w.starts_with(kSpreadWarning); });
    out.warnings.push_back(fmt::format(
        "{} {}, over the {} tensors the dump's hyperparameters give (the converter's list; the "
        "file's own types differ from llama-quantize's {} rules): {}, the blocks the rest by their "
        "tensors' bytes under those rules (modelled)",
        kSpreadWarning, escape_untrusted(dump.file_size_text), n, type->name,
        keep_outside ? "the input and output layers at those rules' types (types the dump prints)"
                     : "the input and output layers an even share each"));
    return out;
  }
  return Error("no rebuilt list holds the dump's tensor count");
}

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
