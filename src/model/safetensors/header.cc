// Reading safetensors headers from files: exactly the 8-byte prefix and the
// N header bytes are read, never tensor data.
#include <fmt/format.h>

#include <memory>
#include <utility>

#include "base/exception_boundary.h"
#include "memfit/untrusted_text.h"
#include "memfit/safetensors.h"
#include "model/regular_file.h"
#include "model/safetensors/json_parser.h"

namespace memfit {
namespace {

constexpr uint64_t kLengthPrefixBytes = 8;

// Reads the prefix and the header of `path` and parses them with `parser`,
// appending tensors to *tensors when not null.
Result<SafetensorsSummary> read_header(SafetensorsJsonParser& parser, FileSystem& fs,
                                       const std::string& path,
                                       std::vector<SafetensorsTensor>* tensors) {
  const std::string context = fmt::format("reading {}", quote_untrusted(path));
  // One open for the stat and both reads (FileSystem::open_file).
  Result<std::unique_ptr<OpenFile>> opened = open_regular_file(fs, path, context);
  if (!opened.ok()) return opened.error();
  OpenFile& file = **opened;
  const uint64_t file_bytes = file.stat().size_bytes;

  char prefix[kLengthPrefixBytes];
  size_t prefix_bytes = 0;
  if (file_bytes >= kLengthPrefixBytes) {
    if (Status read = file.read_range_into(0, kLengthPrefixBytes, prefix); !read.ok()) {
      return read.error();
    }
    prefix_bytes = kLengthPrefixBytes;
  }
  Result<uint64_t> header_bytes =
      parse_safetensors_length(std::string_view(prefix, prefix_bytes), file_bytes);
  if (!header_bytes.ok()) return header_bytes.error().within(context);

  // Bounded by parse_safetensors_length: at most 256 MiB and within the file.
  char* json = parser.buffer_for(*header_bytes);
  if (Status read = file.read_range_into(kLengthPrefixBytes, *header_bytes, json); !read.ok()) {
    return read.error();
  }
  const uint64_t data_region_bytes = file_bytes - kLengthPrefixBytes - *header_bytes;
  Result<SafetensorsSummary> summary =
      parser.parse_buffer(*header_bytes, data_region_bytes, tensors);
  if (!summary.ok()) return summary.error().within(context);
  return summary;
}

Result<SafetensorsHeader> with_tensors(Result<SafetensorsSummary> summary,
                                       std::vector<SafetensorsTensor> tensors) {
  if (!summary.ok()) return summary.error();
  return SafetensorsHeader{std::move(tensors), summary->data_bytes};
}

}  // namespace

struct SafetensorsHeaderReader::Impl {
  SafetensorsJsonParser parser;
};

SafetensorsHeaderReader::SafetensorsHeaderReader() : impl_(std::make_unique<Impl>()) {}
SafetensorsHeaderReader::~SafetensorsHeaderReader() = default;

// Each entry point runs through without_exceptions(): the parser reports
// every bad header as an Error; only a bug (or an allocation failure) throws.
Result<SafetensorsHeader> SafetensorsHeaderReader::read(FileSystem& fs, const std::string& path) {
  return without_exceptions("SafetensorsHeaderReader::read", [&]() -> Result<SafetensorsHeader> {
    std::vector<SafetensorsTensor> tensors;
    auto summary = read_header(impl_->parser, fs, path, &tensors);
    return with_tensors(std::move(summary), std::move(tensors));
  });
}

Result<SafetensorsSummary> SafetensorsHeaderReader::read_summary(FileSystem& fs,
                                                                 const std::string& path) {
  return without_exceptions("SafetensorsHeaderReader::read_summary",
                            [&] { return read_header(impl_->parser, fs, path, nullptr); });
}

Result<SafetensorsHeader> SafetensorsHeaderReader::parse(std::string_view json,
                                                         uint64_t data_region_bytes) {
  return without_exceptions("SafetensorsHeaderReader::parse", [&]() -> Result<SafetensorsHeader> {
    std::vector<SafetensorsTensor> tensors;
    auto summary = impl_->parser.parse(json, data_region_bytes, &tensors);
    return with_tensors(std::move(summary), std::move(tensors));
  });
}

Result<SafetensorsSummary> SafetensorsHeaderReader::parse_summary(std::string_view json,
                                                                  uint64_t data_region_bytes) {
  return without_exceptions("SafetensorsHeaderReader::parse_summary", [&] {
    return impl_->parser.parse(json, data_region_bytes, nullptr);
  });
}

Result<SafetensorsHeader> parse_safetensors_header(std::string_view json,
                                                   uint64_t data_region_bytes) {
  SafetensorsHeaderReader reader;
  return reader.parse(json, data_region_bytes);
}

}  // namespace memfit
