// A sentence-transformers folder's pooling: modules.json lists the
// pipeline's modules, one of them sentence_transformers.models.Pooling,
// whose folder's config.json says how token states become one vector.
// docs/embedding-models.md. Private to the model area (model_loader.cc).
#ifndef MEMFIT_MODEL_SENTENCE_TRANSFORMERS_H_
#define MEMFIT_MODEL_SENTENCE_TRANSFORMERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "memfit/file_system.h"
#include "memfit/result.h"

namespace memfit {

// modules.json and a pooling config.json larger than this are refused.
inline constexpr uint64_t kMaxSentenceTransformersJsonBytes = 1ull << 20;

// modules.json is a list of {"idx", "name", "path", "type"} objects:
//   [{"idx": 1, "name": "1", "path": "1_Pooling",
//     "type": "sentence_transformers.models.Pooling"}, ...]
// The Pooling module's path, relative to the folder; nullopt when no
// module is a Pooling one. Fails on text that is not a JSON list, a
// Pooling entry without a string path, and a path that leaves the folder
// (absolute, or with a ".." component).
Result<std::optional<std::string>> pooling_module_path(std::string_view modules_json);

// The Pooling module's config.json: its pooling_mode_* switches
// (pooling_mode_cls_token, _mean_tokens, _mean_sqrt_len_tokens,
// _max_tokens, _weightedmean_tokens, _lasttoken). The first one set, in
// that order, as "cls", "mean", "mean", "max", "weightedmean", "last"; ""
// when none is. Fails on text that is not a JSON object.
Result<std::string> pooling_mode(std::string_view pooling_config_json);

// Both read from `dir`: the pooling mode ("" when the Pooling module has
// no config.json), nullopt when the folder has no modules.json or it names
// no Pooling module. Errors name the file.
Result<std::optional<std::string>> read_sentence_transformers_pooling(FileSystem& fs,
                                                                      const std::string& dir);

}  // namespace memfit

#endif  // MEMFIT_MODEL_SENTENCE_TRANSFORMERS_H_
