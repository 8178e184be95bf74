// The Python literals vLLM and SGLang log their settings in: a config's
// keyword list, "model='Qwen/Qwen3-8B', dtype=torch.bfloat16, seed=0"
// (a dataclass's repr), and a dict, "{'model': 'Qwen/Qwen3-8B',
// 'max_model_len': 8192}". Private to src/logs.
#ifndef MEMFIT_LOGS_PYTHON_LITERALS_H_
#define MEMFIT_LOGS_PYTHON_LITERALS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memfit::logs {

// Each "key=value" at the top level of `text`, up to its end or to a
// bracket that closes what it sits in. A quoted value loses its quotes
// (escapes read); any other keeps its text, nested brackets included.
// Stops at the first piece that is not key=value.
std::vector<std::pair<std::string, std::string>> python_keyword_pairs(std::string_view text);

// Each "'key': value" of the dict `text` opens with, values as above.
// Empty when `text` does not start with '{'.
std::vector<std::pair<std::string, std::string>> python_dict_pairs(std::string_view text);

}  // namespace memfit::logs

#endif  // MEMFIT_LOGS_PYTHON_LITERALS_H_
