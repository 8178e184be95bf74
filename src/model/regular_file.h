// A model file opened for reading its header: the GGUF and safetensors
// readers (model/gguf/header.cc, model/safetensors/header.cc) open it
// alike. Private to the library.
#ifndef MEMFIT_MODEL_REGULAR_FILE_H_
#define MEMFIT_MODEL_REGULAR_FILE_H_

#include <memory>
#include <string>
#include <string_view>

#include "memfit/file_system.h"
#include "memfit/result.h"

namespace memfit {

// `path` opened through `fs` when it is a regular file: one open serves the
// stat (OpenFile::stat) and every read. "<context>: no such file" or
// "<context>: not a regular file" otherwise; the file system's own errors
// as they are.
Result<std::unique_ptr<OpenFile>> open_regular_file(FileSystem& fs, const std::string& path,
                                                    std::string_view context);

}  // namespace memfit

#endif  // MEMFIT_MODEL_REGULAR_FILE_H_
