// The GGUF header parser over a window of a file's first bytes, shared by
// parse_gguf_header (the window is all it has) and read_gguf_header (which
// grows the window until the header fits).
#ifndef MEMFIT_MODEL_GGUF_PARSER_H_
#define MEMFIT_MODEL_GGUF_PARSER_H_

#include <cstdint>
#include <string_view>

#include "memfit/gguf.h"

namespace memfit {

struct GgufWindowParse {
  // The header, or its error; meaningless when window_bytes_needed > 0.
  Result<GgufHeader> header = Error("");
  // 0, or: the window ended before the header did, and a window of at
  // least this many bytes gets further. Never more than the file's size or
  // kMaxGgufHeaderBytes: a read past either is an error instead, so the
  // outcome never depends on the window's size.
  uint64_t window_bytes_needed = 0;
};

// Parses the header of a file of `file_bytes` bytes from `window`, its
// first window.size() <= file_bytes bytes.
GgufWindowParse parse_gguf_window(std::string_view window, uint64_t file_bytes);

}  // namespace memfit

#endif  // MEMFIT_MODEL_GGUF_PARSER_H_
