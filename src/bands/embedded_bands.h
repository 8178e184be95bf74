// The band table as the build embedded it (cmake/embed_text_files.cmake):
// the bytes of data/bands/bands.tsv, unchanged, static for the program's
// life. Private to the library; corpus_error_bands() parses them.
#ifndef MEMFIT_SRC_BANDS_EMBEDDED_BANDS_H_
#define MEMFIT_SRC_BANDS_EMBEDDED_BANDS_H_

#include <string_view>

namespace memfit::bands {

std::string_view embedded_bands_tsv();

}  // namespace memfit::bands

#endif  // MEMFIT_SRC_BANDS_EMBEDDED_BANDS_H_
