// memfit recommend-quant over a folder of GGUF models (a quant repo):
// every model of it priced for llama.cpp, and the most precise that fits.
#ifndef MEMFIT_CLI_RECOMMEND_GGUF_REPO_H_
#define MEMFIT_CLI_RECOMMEND_GGUF_REPO_H_

#include "estimate_options.h"

namespace memfit::cli {

// True when `options.model` names a folder of GGUF models (a local folder,
// or a Hub name's snapshot in the Hugging Face cache): then it printed the
// table or the JSON answer (or the error) and set `exit_code`. False, with
// nothing printed, for any other model, and with --engine mlxcel (which
// re-prices one model's shapes at MLX widths).
bool run_recommend_gguf_repo(const EstimateOptions& options, int& exit_code);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_RECOMMEND_GGUF_REPO_H_
