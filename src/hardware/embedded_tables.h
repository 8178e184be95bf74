// The hardware table's files as the build embedded them
// (cmake/embed_text_files.cmake): the bytes of data/hardware/gpus.tsv
// and data/hardware/apple.tsv, unchanged, static for the program's life.
// Private to the library; hardware_table() (memfit/hardware.h) parses them.
#ifndef MEMFIT_SRC_HARDWARE_EMBEDDED_TABLES_H_
#define MEMFIT_SRC_HARDWARE_EMBEDDED_TABLES_H_

#include <string_view>

namespace memfit::hardware {

std::string_view embedded_gpus_tsv();
std::string_view embedded_apple_tsv();

}  // namespace memfit::hardware

#endif  // MEMFIT_SRC_HARDWARE_EMBEDDED_TABLES_H_
