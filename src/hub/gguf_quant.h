// Choosing a GGUF repo's file by quant tag, as `org/name:Q4_K_M` asks.
#ifndef MEMFIT_HUB_GGUF_QUANT_H_
#define MEMFIT_HUB_GGUF_QUANT_H_

#include <string>
#include <string_view>
#include <vector>

#include "memfit/file_system.h"
#include "memfit/result.h"

namespace memfit {

// The GGUF models of a repo's tree `dir` (list_folder_gguf_models: whole
// files and the first split of each set, projectors aside), in `dir` and
// in its folders one level down ("Q4_K_M/model-Q4_K_M-00001-of-00002.gguf"),
// as paths relative to `dir`, sorted.
Result<std::vector<std::string>> list_repo_gguf_models(FileSystem& fs, const std::string& dir);

// True when the GGUF model `entry` (a relative path from
// list_repo_gguf_models) is of quant `tag`: its file name without ".gguf"
// and without a split's "-00001-of-00003" is the tag, or ends with '-' or
// '.' then the tag, compared without case. "Qwen3-8B-Q4_K_M.gguf" and
// "llama.Q4_K_M-00001-of-00002.gguf" are Q4_K_M; "Qwen3-8B-Q4_K_M.gguf" is
// not K_M.
bool gguf_model_has_quant(std::string_view entry, std::string_view tag);

// The quant tag `entry`'s file name ends with: the part of its name
// (without ".gguf" and a split's "-00001-of-00003") after the last '-' or
// '.', when that part is spelled as ggml's types are: Q, IQ, TQ, F, BF or
// MXFP (any case) then a digit ("Qwen3-8B-Q4_K_M.gguf": "Q4_K_M",
// "llama.Q8_0-00001-of-00002.gguf": "Q8_0", "model-bf16.gguf": "bf16");
// "" otherwise ("model.gguf", "Qwen3-8B.gguf": "8B" is no type). A tag
// found here always satisfies gguf_model_has_quant(entry, tag).
std::string gguf_model_quant_tag(std::string_view entry);

// The one GGUF model of `dir` of quant `tag`, as a path relative to `dir`.
// kUsage errors, one line: none matches (or the repo holds none), listing
// the repo's GGUF models; several do, listing them (a longer tag, the end
// of one's file name, picks it). `repo_label` names the repo in
// them ("'unsloth/Qwen3-8B-GGUF'").
Result<std::string> find_gguf_quant(FileSystem& fs, const std::string& dir, std::string_view tag,
                                    std::string_view repo_label);

}  // namespace memfit

#endif  // MEMFIT_HUB_GGUF_QUANT_H_
