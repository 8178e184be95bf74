// The GGUF header parser (layout and rules in include/memfit/gguf.h).
//
// One pass with a cursor over a window of the file's first bytes. Every
// read checks, in this order, that its bytes lie within the file, within
// kMaxGgufHeaderBytes, and within the window: the first two failures are
// errors, the third stops the parse and says how large a window gets
// further. As the file and the limit are checked first, a parse over a
// short window fails exactly where one over the whole file fails, or stops
// where that one goes on: the reader's outcome never depends on its window.
//
// Counts are weighed against the bytes left before any loop runs on them:
// a metadata entry takes at least 14 bytes (key length 8, a 1-byte key,
// type 4, a 1-byte value), a tensor info 24 (name length 8, n_dims 4, type
// 4, offset 8), an array element its width (a string 8, an array 12).
// Vectors grow as entries are parsed; nothing is reserved from a count.
#include "model/gguf/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memfit/checked_math.h"
#include "memfit/untrusted_text.h"
#include "model/error_text.h"
#include "model/gguf/values.h"

namespace memfit {
namespace {

constexpr std::string_view kMagic = "GGUF";
constexpr uint64_t kMinEntryBytes = 14;
constexpr uint64_t kMinTensorInfoBytes = 24;
constexpr uint64_t kMinStringElementBytes = 8;  // its length
constexpr uint64_t kMinArrayElementBytes = 12;  // element type and count
constexpr uint32_t kMaxDims = 4;                // GGML_MAX_DIMS
constexpr uint32_t kOldestVersion = 2;
constexpr uint32_t kNewestVersion = 3;
constexpr uint32_t kLastValueType = 12;  // kFloat64
constexpr std::string_view kAlignmentKey = "general.alignment";

Error header_error(std::string_view detail) {
  return Error(fmt::format("gguf header: {}", detail));
}

// The first duplicate among `names` (by sorted order), or nullopt.
template <typename Name>
std::optional<std::string_view> find_duplicate(size_t count, const Name& name_of) {
  std::vector<uint32_t> order(count);  // count <= kMaxGgufTensors, checked before
  for (size_t i = 0; i < count; ++i) order[i] = static_cast<uint32_t>(i);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return name_of(a) < name_of(b); });
  for (size_t i = 1; i < count; ++i) {
    if (name_of(order[i - 1]) == name_of(order[i])) return name_of(order[i]);
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view window, uint64_t file_bytes) : window_(window), file_bytes_(file_bytes) {}

  GgufWindowParse run() {
    GgufHeader header;
    header.file_bytes = file_bytes_;
    GgufWindowParse out;
    if (parse(header)) {
      out.header = std::move(header);
    } else if (needed_bytes_ > 0) {
      out.window_bytes_needed = needed_bytes_;
    } else {
      out.header = std::move(*error_);
    }
    return out;
  }

 private:
  // Each step returns false when the parse stops: error_ or needed_bytes_
  // says why.
  bool fail(Error error) {
    error_ = std::move(error);
    return false;
  }

  // The next `length` bytes into *out; `what` names them for an error.
  template <typename What>
  bool take(uint64_t length, const What& what, std::string_view* out) {
    // pos_ <= window_.size() <= file_bytes_, and pos_ <= kMaxGgufHeaderBytes.
    if (length > file_bytes_ - pos_) {
      return fail(
          header_error(fmt::format("{} ({} bytes at byte {}) runs past the end of the "
                                   "{}-byte file",
                                   what(), length, pos_, file_bytes_)));
    }
    if (length > kMaxGgufHeaderBytes - pos_) {
      return fail(
          header_error(fmt::format("{} ({} bytes at byte {}) runs past memfit's "
                                   "{}-byte (256 MiB) header limit",
                                   what(), length, pos_, kMaxGgufHeaderBytes)));
    }
    if (length > window_.size() - pos_) {
      needed_bytes_ = pos_ + length;
      return false;
    }
    *out = window_.substr(pos_, length);
    pos_ += length;
    return true;
  }

  template <typename What>
  bool read_u32(const What& what, uint32_t* value) {
    std::string_view bytes;
    if (!take(4, what, &bytes)) return false;
    *value = static_cast<uint32_t>(decode_gguf_le(bytes));
    return true;
  }

  template <typename What>
  bool read_u64(const What& what, uint64_t* value) {
    std::string_view bytes;
    if (!take(8, what, &bytes)) return false;
    *value = decode_gguf_le(bytes);
    return true;
  }

  template <typename What>
  bool read_string(const What& what, std::string_view* text) {
    uint64_t length = 0;
    if (!read_u64([&] { return fmt::format("the length of {}", what()); }, &length)) return false;
    return take(length, what, text);
  }

  // Where `count` items of at least `min_each` bytes would have to fit,
  // when they do not ("the 76 bytes left of the 100-byte file", or of the
  // header limit); nullopt when they may.
  std::optional<std::string> no_room(uint64_t count, uint64_t min_each) const {
    const CheckedBytes needed = CheckedBytes(count) * min_each;
    if (needed.saturated() > file_bytes_ - pos_) {
      return fmt::format("the {} bytes left of the {}-byte file", file_bytes_ - pos_, file_bytes_);
    }
    if (needed.saturated() > kMaxGgufHeaderBytes - pos_) {
      return fmt::format("the {} bytes left under memfit's 256 MiB header limit",
                         kMaxGgufHeaderBytes - pos_);
    }
    return std::nullopt;
  }

  bool parse(GgufHeader& header) {
    if (file_bytes_ < kMagic.size()) {
      return fail(
          header_error(fmt::format("file is {} bytes, too short to be a GGUF file", file_bytes_)));
    }
    const auto what = [] { return std::string("the magic"); };
    std::string_view magic;
    if (!take(kMagic.size(), what, &magic)) return false;
    if (magic != kMagic) {
      return fail(header_error(
          fmt::format("not a GGUF file: it starts with {}, not 'GGUF'", quote_untrusted(magic))));
    }
    if (!read_version(header)) return false;
    uint64_t tensor_count = 0;
    uint64_t entry_count = 0;
    if (!read_u64([] { return std::string("the tensor count"); }, &tensor_count) ||
        !read_u64([] { return std::string("the metadata count"); }, &entry_count) ||
        !check_counts(entry_count, tensor_count)) {
      return false;
    }
    for (uint64_t i = 0; i < entry_count; ++i) {
      header.metadata.emplace_back();
      if (!read_entry(i, header.metadata.back())) return false;
    }
    if (auto key = find_duplicate(header.metadata.size(), [&](uint32_t i) -> std::string_view {
          return header.metadata[i].key;
        })) {
      return fail(header_error(fmt::format("key {} appears twice", quote_untrusted(*key))));
    }
    if (!read_alignment(header)) return false;
    for (uint64_t i = 0; i < tensor_count; ++i) {
      header.tensors.emplace_back();
      if (!read_tensor_info(i, header.tensors.back())) return false;
    }
    if (auto name = find_duplicate(header.tensors.size(), [&](uint32_t i) -> std::string_view {
          return header.tensors[i].name;
        })) {
      return fail(
          header_error(fmt::format("tensor name {} appears twice", quote_untrusted(*name))));
    }
    return lay_out(header);
  }

  bool read_version(GgufHeader& header) {
    uint32_t version = 0;
    if (!read_u32([] { return std::string("the version"); }, &version)) return false;
    if (version == 0) return fail(header_error("version 0 is not a GGUF version"));
    // A big-endian file stores version 3 as 00 00 00 03: 0x03000000 here.
    if ((version & 0xffff) == 0) {
      return fail(
          header_error(fmt::format("version reads as {:#010x}: a big-endian GGUF file; "
                                   "memfit reads little-endian files only",
                                   version)));
    }
    if (version < kOldestVersion) {
      return fail(
          header_error("version 1 is no longer read (nor by llama.cpp); convert the "
                       "model again"));
    }
    if (version > kNewestVersion) {
      return fail(
          header_error(fmt::format("version {} is newer than memfit reads (2 and 3)", version)));
    }
    header.version = version;
    return true;
  }

  bool check_counts(uint64_t entry_count, uint64_t tensor_count) {
    // Saturates rather than wraps: counts near 2^64 read as too many.
    const CheckedBytes min_bytes = CheckedBytes(entry_count) * kMinEntryBytes +
                                   CheckedBytes(tensor_count) * kMinTensorInfoBytes;
    if (auto room = no_room(min_bytes.saturated(), 1)) {
      return fail(header_error(fmt::format(
          "{} and {} cannot fit in {} (an entry takes at least {} bytes, a tensor info {})",
          count_noun(entry_count, "metadata entry", "metadata entries"),
          count_noun(tensor_count, "tensor info", "tensor infos"), *room, kMinEntryBytes,
          kMinTensorInfoBytes)));
    }
    if (entry_count > kMaxGgufMetadataEntries) {
      return fail(header_error(fmt::format("{} metadata entries, more than memfit's limit of {}",
                                           entry_count, kMaxGgufMetadataEntries)));
    }
    if (tensor_count > kMaxGgufTensors) {
      return fail(header_error(fmt::format("{} tensors, more than memfit's limit of {}",
                                           tensor_count, kMaxGgufTensors)));
    }
    return true;
  }

  bool read_entry(uint64_t index, GgufKeyValue& entry) {
    std::string_view key;
    if (!read_string([&] { return fmt::format("the key of metadata entry {}", index); }, &key)) {
      return false;
    }
    if (key.empty()) {
      return fail(header_error(fmt::format("metadata entry {} has an empty key", index)));
    }
    entry.key.assign(key);
    uint32_t type = 0;
    if (!read_u32([&] { return fmt::format("the value type of {}", quote_untrusted(key)); },
                  &type)) {
      return false;
    }
    return read_value(type, key, entry.value);
  }

  bool read_value(uint32_t type, std::string_view key, GgufValue& value) {
    if (type > kLastValueType) {
      return fail(
          header_error(fmt::format("{} has unknown value type {}", quote_untrusted(key), type)));
    }
    const auto what = [&] { return fmt::format("the value of {}", quote_untrusted(key)); };
    if (const uint64_t width = gguf_fixed_width(type); width > 0) {
      std::string_view bytes;
      if (!take(width, what, &bytes)) return false;
      value = decode_gguf_fixed(static_cast<GgufValueType>(type), bytes);
      return true;
    }
    value.type = static_cast<GgufValueType>(type);
    if (value.type == GgufValueType::kString) {
      std::string_view text;
      if (!read_string(what, &text)) return false;
      value.data = std::string(text);
      return true;
    }
    uint32_t element_type = 0;
    uint64_t count = 0;
    if (!read_u32([&] { return fmt::format("the element type of {}", quote_untrusted(key)); },
                  &element_type) ||
        !read_u64([&] { return fmt::format("the element count of {}", quote_untrusted(key)); },
                  &count)) {
      return false;
    }
    GgufArray array;
    if (!read_array(key, 1, element_type, count, &array)) return false;
    value.data = std::move(array);
    return true;
  }

  // The elements of an array at nesting depth `depth` (1: a value's own
  // array), kept in *array when it is not null and they are cheap to keep.
  bool read_array(std::string_view key, uint32_t depth, uint32_t element_type, uint64_t count,
                  GgufArray* array) {
    if (element_type > kLastValueType) {
      return fail(header_error(
          fmt::format("array {} has unknown element type {}", quote_untrusted(key), element_type)));
    }
    const auto type = static_cast<GgufValueType>(element_type);
    if (array != nullptr) {
      array->element_type = type;
      array->count = count;
    }
    const auto what = [&] {
      return fmt::format("array {} of {} {}", quote_untrusted(key), count,
                         gguf_value_type_name(type));
    };
    if (const uint64_t width = gguf_fixed_width(element_type); width > 0) {
      const CheckedBytes length = CheckedBytes(count) * width;
      if (length.overflowed()) {
        return fail(header_error(what() + " is more than 2^64 bytes"));
      }
      std::string_view bytes;
      if (!take(*length.value(), what, &bytes)) return false;
      if (array != nullptr && count <= kMaxGgufKeptNumberElements) {
        array->kept = true;
        array->number_bytes.assign(bytes);
      }
      return true;
    }
    const bool strings = type == GgufValueType::kString;
    const uint64_t min_each = strings ? kMinStringElementBytes : kMinArrayElementBytes;
    if (auto room = no_room(count, min_each)) {
      return fail(header_error(fmt::format("{} cannot fit in {} (each takes at least {} bytes)",
                                           what(), *room, min_each)));
    }
    if (strings) {
      const bool keep = array != nullptr && count <= kMaxGgufKeptStringElements;
      for (uint64_t i = 0; i < count; ++i) {
        std::string_view text;
        if (!read_string([&] { return fmt::format("element {} of {}", i, quote_untrusted(key)); },
                         &text)) {
          return false;
        }
        if (keep) array->strings.emplace_back(text);
      }
      if (keep) array->kept = true;
      return true;
    }
    if (depth >= kMaxGgufArrayDepth) {
      return fail(header_error(fmt::format("{} nests arrays more than {} deep",
                                           quote_untrusted(key), kMaxGgufArrayDepth)));
    }
    for (uint64_t i = 0; i < count; ++i) {
      uint32_t inner_type = 0;
      uint64_t inner_count = 0;
      const auto inner = [&](std::string_view part) {
        return fmt::format("the {} of element {} of {}", part, i, quote_untrusted(key));
      };
      if (!read_u32([&] { return inner("element type"); }, &inner_type) ||
          !read_u64([&] { return inner("element count"); }, &inner_count) ||
          !read_array(key, depth + 1, inner_type, inner_count, nullptr)) {
        return false;
      }
    }
    return true;
  }

  // general.alignment: ggml requires a u32 power of two.
  bool read_alignment(GgufHeader& header) {
    const GgufValue* value = header.find(kAlignmentKey);
    if (value == nullptr) return true;
    if (value->type != GgufValueType::kUint32) {
      return fail(header_error(fmt::format("general.alignment is {}; it must be u32",
                                           gguf_value_type_name(value->type))));
    }
    const uint64_t alignment = std::get<uint64_t>(value->data);
    if (!std::has_single_bit(alignment)) {
      return fail(
          header_error(fmt::format("general.alignment {} is not a power of two", alignment)));
    }
    header.alignment_bytes = alignment;
    return true;
  }

  bool read_tensor_info(uint64_t index, GgufTensorInfo& info) {
    std::string_view name;
    if (!read_string([&] { return fmt::format("the name of tensor {}", index); }, &name)) {
      return false;
    }
    info.name.assign(name);
    const auto quoted = [&] { return quote_untrusted(name); };
    if (!read_u32([&] { return fmt::format("the dimension count of {}", quoted()); },
                  &info.n_dims)) {
      return false;
    }
    if (info.n_dims > kMaxDims) {
      return fail(header_error(fmt::format("tensor {} has {} dimensions; ggml allows at most {}",
                                           quoted(), info.n_dims, kMaxDims)));
    }
    const auto dims_what = [&] { return fmt::format("the dims of {}", quoted()); };
    std::string_view dims;
    if (!take(uint64_t{8} * info.n_dims, dims_what, &dims)) return false;
    bool empty = false;
    CheckedBytes elements = 1;
    for (uint32_t i = 0; i < info.n_dims; ++i) {
      const uint64_t dim = decode_gguf_le(dims.substr(8 * i, 8));
      // ggml reads dims as int64_t.
      if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return fail(header_error(fmt::format("tensor {} has a negative dimension: ne[{}] = {}",
                                             quoted(), i, static_cast<int64_t>(dim))));
      }
      info.dims[i] = dim;
      empty = empty || dim == 0;
      elements *= dim;
    }
    if (!empty &&
        elements.saturated() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return fail(header_error(fmt::format("tensor {} has dims {}: 2^63 or more elements", quoted(),
                                           format_shape(info.shape()))));
    }
    uint32_t type_id = 0;
    if (!read_u32([&] { return fmt::format("the ggml type of {}", quoted()); }, &type_id)) {
      return false;
    }
    const GgmlTypeTraits* traits = find_ggml_type(type_id);
    if (traits == nullptr) {
      const std::string_view retired = retired_ggml_type_name(type_id);
      if (!retired.empty()) {
        return fail(
            header_error(fmt::format("tensor {} has ggml type {} ({}), which ggml no "
                                     "longer reads from files",
                                     quoted(), type_id, retired)));
      }
      return fail(
          header_error(fmt::format("tensor {} has unknown ggml type {}", quoted(), type_id)));
    }
    info.type = traits->type;
    Result<uint64_t> bytes = ggml_tensor_bytes(info.type, info.shape());
    if (!bytes.ok()) {
      return fail(Error(fmt::format("gguf header: tensor {} ({} {}): {}", quoted(), traits->name,
                                    format_shape(info.shape()), bytes.error().message()),
                        bytes.error().kind()));
    }
    info.data_bytes = *bytes;
    return read_u64([&] { return fmt::format("the offset of {}", quoted()); }, &info.offset_bytes);
  }

  // Where the data section starts, and each tensor in it: ggml's layout.
  bool lay_out(GgufHeader& header) {
    header.header_bytes = pos_;
    header.data_offset_bytes = pos_;
    if (!header.tensors.empty()) {
      // pos_ <= 256 MiB and the alignment < 2^32: no overflow.
      const uint64_t start = *round_up(pos_, header.alignment_bytes).value();
      if (start > file_bytes_) {
        return fail(
            header_error(fmt::format("the data section would start at byte {}, past the "
                                     "end of the {}-byte file",
                                     start, file_bytes_)));
      }
      header.data_offset_bytes = start;
    }
    uint64_t next_offset = 0;
    for (const GgufTensorInfo& tensor : header.tensors) {
      if (tensor.offset_bytes != next_offset) {
        return fail(header_error(fmt::format(
            "tensor {} is at offset {}, expected {}: tensors lie in order, each padded to the "
            "{}-byte alignment",
            quote_untrusted(tensor.name), tensor.offset_bytes, next_offset,
            header.alignment_bytes)));
      }
      const uint64_t start = header.data_offset_bytes + tensor.offset_bytes;
      if (tensor.data_bytes > file_bytes_ - std::min(start, file_bytes_)) {
        return fail(header_error(
            fmt::format("tensor {} ({} bytes at byte {}) runs past the end "
                        "of the {}-byte file",
                        quote_untrusted(tensor.name), tensor.data_bytes, start, file_bytes_)));
      }
      // Within the file, so only a file of nearly 2^64 bytes could overflow.
      const CheckedBytes padded_end =
          round_up(tensor.offset_bytes + tensor.data_bytes, header.alignment_bytes);
      if (padded_end.overflowed()) {
        return fail(Error::overflow("gguf header: the data section is more than 2^64 bytes"));
      }
      next_offset = *padded_end.value();
      header.tensor_bytes += tensor.data_bytes;
    }
    header.data_section_bytes = next_offset;
    return true;
  }

  std::string_view window_;
  uint64_t file_bytes_;
  uint64_t pos_ = 0;
  std::optional<Error> error_;
  uint64_t needed_bytes_ = 0;
};

}  // namespace

GgufWindowParse parse_gguf_window(std::string_view window, uint64_t file_bytes) {
  return Parser(window.substr(0, std::min<uint64_t>(window.size(), file_bytes)), file_bytes).run();
}

}  // namespace memfit
