// The speed tables' files as the build embedded them
// (cmake/embed_text_files.cmake): the bytes of data/speed/models.tsv,
// data/speed/published-runs.tsv and data/speed/moe-experts.tsv, unchanged,
// static for the program's life.
// Private to the library; published_runs() (memfit/published_runs.h)
// parses them.
#ifndef MEMFIT_SRC_SPEED_EMBEDDED_SPEED_TABLES_H_
#define MEMFIT_SRC_SPEED_EMBEDDED_SPEED_TABLES_H_

#include <string_view>

namespace memfit::speed {

std::string_view embedded_models_tsv();
std::string_view embedded_runs_tsv();
std::string_view embedded_experts_tsv();

}  // namespace memfit::speed

#endif  // MEMFIT_SRC_SPEED_EMBEDDED_SPEED_TABLES_H_
