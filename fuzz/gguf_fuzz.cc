// libFuzzer target for the GGUF header parser. The input is a whole .gguf
// file in memory: no disk.
//
// Per input: (1) parse_gguf_header over the input as a whole file, and
// each successful header's invariants and getters; (2) the input as the
// first bytes of a 1 TiB file, so that counts and tensors reach past the
// input and the limits on what the file could hold are exercised; (3)
// read_gguf_header over an in-memory FileSystem holding the input, from a
// small window chosen by the input's size: its outcome must be (1)'s, the
// error prefixed with the file's name, whatever the window. Each header
// parsed is also read as a model (model_spec_from_gguf) and as a LoRA
// adapter (llamacpp_lora): a result or a clean message; a model's spec is
// priced by the llama.cpp profile (the compute replay included).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_checks.h"
#include "memfit/checked_math.h"
#include "memfit/file_system.h"
#include "memfit/gguf.h"
#include "memfit/llamacpp.h"
#include "memfit/llamacpp_extras.h"
#include "memfit/model_spec.h"

namespace {

constexpr std::string_view kPath = "model.gguf";

// One file, held in memory.
class OneFileSystem : public memfit::FileSystem {
 public:
  explicit OneFileSystem(std::string_view bytes) : bytes_(bytes) {}

  memfit::Result<memfit::FileStat> stat(const std::string& path) override {
    if (path != kPath) return memfit::FileStat{memfit::FileKind::kMissing, 0};
    return memfit::FileStat{memfit::FileKind::kRegular, bytes_.size()};
  }
  memfit::Result<std::string> read_range(const std::string& path, uint64_t offset_bytes,
                                         uint64_t length_bytes) override {
    // The reader never reads past the file: that would be a bug.
    if (path != kPath || offset_bytes > bytes_.size() ||
        length_bytes > bytes_.size() - offset_bytes) {
      __builtin_trap();
    }
    return std::string(bytes_.substr(offset_bytes, length_bytes));
  }
  memfit::Result<std::vector<std::string>> list_dir(const std::string&) override {
    return std::vector<std::string>{};
  }

 private:
  std::string_view bytes_;
};

// Bytes of one element of a kept array of numbers (1 for arrays, whose
// elements are never kept, to avoid a division by zero).
uint64_t width(memfit::GgufValueType type) {
  switch (type) {
    case memfit::GgufValueType::kUint16:
    case memfit::GgufValueType::kInt16:
      return 2;
    case memfit::GgufValueType::kUint32:
    case memfit::GgufValueType::kInt32:
    case memfit::GgufValueType::kFloat32:
      return 4;
    case memfit::GgufValueType::kUint64:
    case memfit::GgufValueType::kInt64:
    case memfit::GgufValueType::kFloat64:
      return 8;
    default:
      return 1;
  }
}

template <typename T>
void check_getter(const memfit::Result<T>& result) {
  if (!result.ok()) memfit_fuzz::check_message(result.error().message());
}

// The spec priced by the llama.cpp profile at a small context, with and
// without flash attention: a result or a clean message; a replayed compute
// buffer (a graph built from the header's geometry) holds at least the
// logits' row of one token.
void check_llamacpp(const memfit::ModelSpec& spec) {
  memfit::Model model;
  model.has_config = true;
  model.spec = spec;
  model.weights.bytes = 1;
  const memfit::MemoryBudget budget{1ull << 40, 1ull << 40, memfit::BudgetSource::kExplicit};
  for (memfit::FlashAttn fa : {memfit::FlashAttn::kOn, memfit::FlashAttn::kOff}) {
    memfit::LlamaCppSettings s;
    s.ctx_size = 512;
    s.batch_size = s.ubatch_size = 64;
    s.flash_attn = fa;
    memfit::Result<memfit::LlamaCppEstimate> e = memfit::estimate_llamacpp(model, s, budget);
    if (!e.ok()) {
      memfit_fuzz::check_message(e.error().message());
    } else if (e->compute_replayed && e->compute_bytes < 4 * spec.geometry.vocab) {
      __builtin_trap();
    }
  }
}

// Properties every successful parse has.
void check(const memfit::GgufHeader& header) {
  memfit::CheckedBytes tensor_bytes = 0;
  for (const memfit::GgufTensorInfo& tensor : header.tensors) {
    const memfit::CheckedBytes end =
        memfit::CheckedBytes(header.data_offset_bytes) + tensor.offset_bytes + tensor.data_bytes;
    if (end.saturated() > header.file_bytes || tensor.n_dims > 4) __builtin_trap();
    if (tensor.offset_bytes % header.alignment_bytes != 0) __builtin_trap();
    tensor_bytes += tensor.data_bytes;
  }
  if (tensor_bytes.saturated() != header.tensor_bytes) __builtin_trap();
  if (header.tensor_bytes > header.data_section_bytes && !header.tensors.empty()) __builtin_trap();
  if (header.data_offset_bytes < header.header_bytes ||
      header.data_offset_bytes > header.file_bytes) {
    __builtin_trap();
  }
  if (!header.tensors.empty() && header.data_offset_bytes % header.alignment_bytes != 0) {
    __builtin_trap();
  }
  for (const memfit::GgufKeyValue& entry : header.metadata) {
    if (entry.key.empty()) __builtin_trap();
    if (const auto* array = std::get_if<memfit::GgufArray>(&entry.value.data)) {
      const bool strings = array->element_type == memfit::GgufValueType::kString;
      const uint64_t held =
          strings ? array->strings.size() : array->number_bytes.size() / width(array->element_type);
      if (held != (array->kept ? array->count : 0)) __builtin_trap();
      if (array->element_type == memfit::GgufValueType::kArray && array->kept) __builtin_trap();
    }
    // Every getter on every key: an answer or a clean message.
    check_getter(header.get_uint64(entry.key));
    check_getter(header.get_int64(entry.key));
    check_getter(header.get_float(entry.key));
    check_getter(header.get_bool(entry.key));
    check_getter(header.get_string(entry.key));
    check_getter(header.get_array_count(entry.key));
    check_getter(header.get_uint64_array(entry.key));
    check_getter(header.get_int64_array(entry.key));
    check_getter(header.get_float_array(entry.key));
    check_getter(header.get_string_array(entry.key));
  }
  memfit::Result<memfit::ModelSpec> spec = memfit::model_spec_from_gguf(header);
  check_getter(spec);
  if (spec.ok()) check_llamacpp(*spec);
}

std::string outcome(const memfit::Result<memfit::GgufHeader>& header) {
  if (!header.ok()) return header.error().message();
  return "ok " + std::to_string(header->metadata.size()) + " " +
         std::to_string(header->tensors.size()) + " " + std::to_string(header->header_bytes) + " " +
         std::to_string(header->tensor_bytes);
}

}  // namespace

// The header read as a LoRA adapter (--lora): a clean message, or pairs
// sorted by base name, each half one of the header's tensors.
void check_lora(const memfit::GgufHeader& header) {
  memfit::Result<memfit::LlamaCppLora> lora = memfit::llamacpp_lora(header, "adapter.gguf");
  if (!lora.ok()) {
    memfit_fuzz::check_message(lora.error().message());
    return;
  }
  if (lora->pairs.size() * 2 > header.tensors.size()) __builtin_trap();
  for (size_t i = 1; i < lora->pairs.size(); ++i) {
    if (!(lora->pairs[i - 1].base < lora->pairs[i].base)) __builtin_trap();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);

  memfit::Result<memfit::GgufHeader> header = memfit::parse_gguf_header(file, file.size());
  if (header.ok()) {
    check(*header);
    check_lora(*header);
  } else {
    memfit_fuzz::check_message(header.error().message());
  }

  constexpr uint64_t kTebibyte = 1ull << 40;
  memfit::Result<memfit::GgufHeader> prefix = memfit::parse_gguf_header(file, kTebibyte);
  if (prefix.ok()) {
    check(*prefix);
  } else {
    memfit_fuzz::check_message(prefix.error().message());
  }

  OneFileSystem fs(file);
  const uint64_t window_bytes = 1 + size % 61;
  memfit::Result<memfit::GgufHeader> read =
      memfit::read_gguf_header(fs, std::string(kPath), window_bytes);
  std::string expected = outcome(header);
  if (!header.ok()) expected = "reading 'model.gguf': " + expected;
  if (outcome(read) != expected) __builtin_trap();
  return 0;
}
