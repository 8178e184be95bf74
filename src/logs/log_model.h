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

// How a host model row's note begins when the CPU_REPACK buffer's copies
// are not priced for want of a tensor list.
inline constexpr std::string_view kRepackNeedsTensors = "CPU_REPACK's copies need the tensor list";

// How a host model row's note begins when the CPU_REPACK buffer's copies
// are priced from the dump's type counts alone (repack_of_every_assignment).
inline constexpr std::string_view kRepackFromCounts = "CPU_REPACK's copies priced";

// How model_from_log's warning on block-spread weights begins.
inline constexpr std::string_view kSpreadWarning = "weights: the log's printed file size,";

// `rebuilt` (model_from_log of `dump`) with the tensor list of the GGUF
// llama-quantize writes for `file_type` ("Q4_K_M", as its command line
// names it) from the dump's hyperparameters, when that list holds as many
// tensors of each type as the dump's "- type q4_K: N tensors" lines and
// its bytes lie within the printed file size's rounding (the output
// layer tied or not, as the counts say): weights.verified true, the
// block-spread warning replaced by one naming the check. An error saying
// why not otherwise: no or an unpriced file type, an architecture whose
// converter memfit does not rebuild, counts or a size that differ (a file
// quantized otherwise: an importance matrix, a community mix). `guessed`:
// the log printed the file type "(guessed)" (the file has no
// general.file_type, and llama.cpp names the type most tensors have):
// every file type memfit rebuilds is tried instead, and the one whose
// GGUF agrees is kept when no other agreeing one types a tensor otherwise.
Result<Model> model_with_dump_tensors(const Model& rebuilt, const LogModel& dump,
                                      std::string_view file_type, bool guessed);

// Where model_with_dump_tensors finds no types that hold the log's counts
// (a community mix, an importance-matrix recipe) but memfit builds the
// converter's list for the architecture and it holds as many tensors as
// the log's counts: that list under the file type's rules (the pinned
// release's), each tensor's bytes scaled to its share of the printed file
// size, unverified (the rows modelled). The blocks then weigh what their
// own tensors weigh (a Nemotron-NAS block without attention or FFN
// nothing), not an even share. An error when no list holds the count.
Result<Model> model_with_shaped_weights(const Model& rebuilt, const LogModel& dump, std::string_view file_type);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_LOG_MODEL_H_
