// llama.cpp's print_info (llm_load_print_meta before it) lines: the file
// size (the sum of the tensors' bytes, ml.n_bytes), the file type, and the per-layer
// hyperparameters it prints whole, one value when every layer has it,
// else "[a, b, ...]" with every layer's: what fills a per-layer array the
// metadata dump cut short (llamacpp_metadata.cc).
#include <fmt/format.h>

#include "logs/llamacpp_lines.h"
#include "memfit/untrusted_text.h"

namespace memfit::logs {
namespace {

// print_info's values for a per-layer array of `count` entries: one value
// for every layer, or a list of exactly `count`.
std::optional<std::vector<uint64_t>> per_layer_values(std::string_view printed, uint64_t count) {
  if (count > kMaxGgufKeptNumberElements) return std::nullopt;
  if (!printed.starts_with('[')) {
    const std::optional<uint64_t> one = parse_count(printed);
    if (!one) return std::nullopt;
    return std::vector<uint64_t>(count, *one);
  }
  if (!printed.ends_with(']')) return std::nullopt;
  std::vector<uint64_t> values;
  std::string_view body = printed.substr(1, printed.size() - 2);
  while (!body.empty() && values.size() <= count) {
    const size_t comma = body.find(',');
    const std::optional<uint64_t> v = parse_count(trim(body.substr(0, comma)));
    if (!v) return std::nullopt;
    values.push_back(*v);
    body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
  }
  if (values.size() != count) return std::nullopt;
  return values;
}

// The print_info name of a per-layer key ("qwen3.attention.head_count_kv"
// is n_head_kv); "" for any other key.
std::string_view print_info_name(std::string_view key) {
  if (key.ends_with(".attention.head_count")) return "n_head";
  if (key.ends_with(".attention.head_count_kv")) return "n_head_kv";
  if (key.ends_with(".feed_forward_length")) return "n_ff";
  return "";
}

// The printed value of print_info's `name`; nullptr when not printed.
const std::string* printed_value(const LlamaCppReadState& state, std::string_view name) {
  for (const auto& [printed_name, printed] : state.print_info) {
    if (printed_name == name) return &printed;
  }
  return nullptr;
}

// A whole number the dump printed for `key`; nullopt otherwise.
std::optional<uint64_t> dump_count(const LogModel& model, std::string_view key) {
  for (const GgufKeyValue& kv : model.metadata) {
    if (kv.key != key) continue;
    if (const auto* u = std::get_if<uint64_t>(&kv.value.data)) return *u;
    return std::nullopt;
  }
  return std::nullopt;
}

// A windowed-layer pattern ("<arch>.attention.sliding_window_pattern",
// one flag a layer) the dump cut short, from print_info's n_embd_k_gqa:
// llama.cpp prints each layer's K row width, n_embd_head_k(il) x
// n_head_kv(il), where n_embd_head_k(il) is key_length_swa on a windowed
// layer and key_length on a global one (src/llama-hparams.cpp). A layer
// whose width matches one of the two and not the other is read as that
// kind; nullopt when any layer matches both or neither.
std::optional<std::vector<uint64_t>> window_flags(const LlamaCppReadState& state,
                                                  const LogModel& model, std::string_view key,
                                                  uint64_t count) {
  constexpr std::string_view kSuffix = ".attention.sliding_window_pattern";
  const std::string arch(key.substr(0, key.size() - kSuffix.size()));
  const std::optional<uint64_t> swa = dump_count(model, arch + ".attention.key_length_swa");
  const std::optional<uint64_t> full = dump_count(model, arch + ".attention.key_length");
  const std::string* widths_text = printed_value(state, "n_embd_k_gqa");
  const std::string* kv_text = printed_value(state, "n_head_kv");
  if (!swa || !full || widths_text == nullptr || kv_text == nullptr) return std::nullopt;
  const std::optional<std::vector<uint64_t>> widths = per_layer_values(*widths_text, count);
  const std::optional<std::vector<uint64_t>> kv = per_layer_values(*kv_text, count);
  if (!widths || !kv) return std::nullopt;
  std::vector<uint64_t> flags;
  for (uint64_t i = 0; i < count; ++i) {
    // Products of two printed u32 counts: no wrap in 64 bits.
    const bool windowed = (*widths)[i] == *swa * (*kv)[i];
    const bool global = (*widths)[i] == *full * (*kv)[i];
    if (windowed == global) return std::nullopt;
    flags.push_back(windowed ? 1 : 0);
  }
  return flags;
}

}  // namespace

bool read_print_info_line(const LogLine& line, LlamaCppReadState& state, LogBuilder& out) {
  std::optional<std::string_view> rest = after(line.text, "print_info: ");
  if (!rest) rest = after(line.text, "llm_load_print_meta: ");
  if (!rest) return false;
  const size_t eq = rest->find('=');
  if (eq == std::string_view::npos) return true;
  const std::string_view name = trim(rest->substr(0, eq));
  const std::string_view value = trim(rest->substr(eq + 1));
  if (name == "file size" || name == "model size") {
    if (std::optional<PrintedQuantity> q = leading_quantity(value, binary_units())) {
      LogModel& model = out.model();
      if (!model.file_bytes) {
        model.file_bytes = q->scaled;
        model.file_size_text = std::string(q->text);
      }
    }
  } else if (name == "file type" || name == "model ftype") {
    // llama_model_ftype_name's text ("Q4_K - Medium"): the pricer names
    // the file type from it (gguf_file_type_of_printed).
    out.setting("file_type", value);
  } else if (name == "n_head" || name == "n_head_kv" || name == "n_ff" || name == "n_embd_k_gqa") {
    state.print_info.emplace_back(std::string(name), std::string(value));
  }
  return true;
}

void fill_cut_arrays(const LlamaCppReadState& state, LogBuilder& out) {
  LogModel& model = out.model();
  for (GgufKeyValue& kv : model.metadata) {
    auto* array = std::get_if<GgufArray>(&kv.value.data);
    if (array != nullptr && !array->kept && array->element_type == GgufValueType::kBool &&
        kv.key.ends_with(".attention.sliding_window_pattern") &&
        array->count <= kMaxGgufKeptNumberElements) {
      if (std::optional<std::vector<uint64_t>> flags = window_flags(state, model, kv.key, array->count)) {
        array->number_bytes.clear();
        for (uint64_t f : *flags) append_gguf_number(GgufValue{array->element_type, f != 0}, array->number_bytes);
        array->kept = true;
        std::erase(model.cut_keys, kv.key);
        out.note(fmt::format("{}: the dump cut it short; read from print_info's n_embd_k_gqa "
                             "(a layer's K width is key_length_swa or key_length heads)",
                             escape_untrusted(kv.key)));
      }
      continue;
    }
    const std::string_view name = print_info_name(kv.key);
    if (array == nullptr || array->kept || name.empty() ||
        array->element_type == GgufValueType::kString || array->element_type == GgufValueType::kArray) {
      continue;
    }
    for (const auto& [printed_name, printed] : state.print_info) {
      if (printed_name != name) continue;
      std::optional<std::vector<uint64_t>> values = per_layer_values(printed, array->count);
      if (!values) break;
      array->number_bytes.clear();
      for (uint64_t v : *values) append_gguf_number(GgufValue{array->element_type, v}, array->number_bytes);
      array->kept = true;
      std::erase(model.cut_keys, kv.key);
      out.note(fmt::format("{}: the dump cut it short; read from print_info's {}",
                            escape_untrusted(kv.key), name));
      break;
    }
  }
}

}  // namespace memfit::logs
