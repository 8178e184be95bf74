// GGUF headers from bytes in memory and from files. A file is read in a
// growing window of its first bytes, since the header's length is known
// only once it has been parsed; the parser (model/gguf/parser.h) says how
// far each window got.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "base/exception_boundary.h"
#include "memfit/gguf.h"
#include "memfit/untrusted_text.h"
#include "model/gguf/parser.h"
#include "model/regular_file.h"

namespace memfit {

Result<GgufHeader> parse_gguf_header(std::string_view bytes, uint64_t file_bytes) {
  return without_exceptions("parse_gguf_header", [&]() -> Result<GgufHeader> {
    if (bytes.size() > file_bytes) {
      return Error(
          fmt::format("gguf header: {} bytes given for a {}-byte file", bytes.size(), file_bytes));
    }
    GgufWindowParse parse = parse_gguf_window(bytes, file_bytes);
    if (parse.window_bytes_needed > 0) {
      return Error(fmt::format("gguf header: runs past the {} bytes given of the {}-byte file",
                               bytes.size(), file_bytes));
    }
    return std::move(parse.header);
  });
}

Result<GgufHeader> read_gguf_header(FileSystem& fs, const std::string& path,
                                    uint64_t initial_window_bytes) {
  return without_exceptions("read_gguf_header", [&]() -> Result<GgufHeader> {
    const std::string context = fmt::format("reading {}", quote_untrusted(path));
    Result<std::unique_ptr<OpenFile>> opened = open_regular_file(fs, path, context);
    if (!opened.ok()) return opened.error();
    OpenFile& file = **opened;
    const uint64_t file_bytes = file.stat().size_bytes;

    const uint64_t most_bytes = std::min(file_bytes, kMaxGgufHeaderBytes);
    uint64_t window_bytes = std::min(std::max<uint64_t>(initial_window_bytes, 1), most_bytes);
    std::string window;
    while (true) {
      // Only the bytes the last window lacked are read.
      const uint64_t have_bytes = window.size();
      window.resize(window_bytes);
      if (window_bytes > have_bytes) {
        Status read =
            file.read_range_into(have_bytes, window_bytes - have_bytes, window.data() + have_bytes);
        if (!read.ok()) return read.error();
      }
      GgufWindowParse parse = parse_gguf_window(window, file_bytes);
      if (parse.window_bytes_needed == 0) {
        if (!parse.header.ok()) return parse.header.error().within(context);
        return std::move(parse.header);
      }
      // The parser asks for more than the window holds, never more than
      // most_bytes (a read past it is an error): the loop ends.
      window_bytes = std::min(std::max(parse.window_bytes_needed, 2 * window_bytes), most_bytes);
    }
  });
}

}  // namespace memfit
