// A logged run's model from a config.json given beside the log
// (log_model.cc, which also holds log_check.h's model_from_log). Private
// to src/logs.
#ifndef MEMFIT_LOGS_LOG_MODEL_H_
#define MEMFIT_LOGS_LOG_MODEL_H_

#include <string_view>

#include "memfit/log_check.h"

namespace memfit::logs {

// The model `config_json` describes, as open_model reads a folder holding
// only it: the spec, the weights from the config (kAnalyticalConfig).
// kInput when it is not a config memfit reads, or larger than
// kMaxConfigBytes.
Result<Model> model_from_config(std::string_view config_json);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_MODEL_H_
