// llama.cpp's own request fields (request_field.h): its flags, with the
// runtime's short spellings, and the JSON request's names for them.
#ifndef MEMFIT_ENGINES_LLAMACPP_FIELDS_H_
#define MEMFIT_ENGINES_LLAMACPP_FIELDS_H_

#include <span>

#include "memfit/request_field.h"

namespace memfit {

// -c, -np, -b, -ub, -fa, --swa-full, --kv-unified, --repack, the placement
// flags (-ngl ... --gpu-margin) and the server extras (--mmproj ... -ctvd),
// in the order `memfit inspect --help` lists them.
std::span<const RequestField> llamacpp_fields();

}  // namespace memfit

#endif  // MEMFIT_ENGINES_LLAMACPP_FIELDS_H_
