// model_store_options_from_environment (memfit/model_stores.h): where
// Ollama and LM Studio keep their models on each OS (docs/stores.md gives
// each folder's source).
#include <fmt/format.h>

#include "memfit/model_stores.h"

namespace memfit {
namespace {

// LM Studio's pointer to a relocated home is a short path; anything longer
// is not one.
constexpr uint64_t kMaxPointerBytes = 4096;

// Ollama's envconfig.Var: the value without surrounding white space, then
// without surrounding quotes.
std::string trimmed_variable(std::string text) {
  constexpr std::string_view kSpace = " \t\r\n";
  constexpr std::string_view kQuotes = "\"'";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string::npos) return "";
  text = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  const size_t open = text.find_first_not_of(kQuotes);
  if (open == std::string::npos) return "";
  return text.substr(open, text.find_last_not_of(kQuotes) - open + 1);
}

// The models folder the home pointer file names, "" when there is none
// (no file, an empty or oversized one: absence is normal).
std::string pointed_lmstudio_models(FileSystem& fs, const std::string& home) {
  const std::string pointer = join_path(home, ".lmstudio-home-pointer");
  Result<FileStat> st = fs.stat(pointer);
  if (!st || st->kind != FileKind::kRegular || st->size_bytes == 0 ||
      st->size_bytes > kMaxPointerBytes) {
    return "";
  }
  Result<std::string> text = fs.read_range(pointer, 0, st->size_bytes);
  if (!text) return "";
  const std::string folder = trimmed_variable(*text);
  return folder.empty() ? "" : join_path(folder, "models");
}

}  // namespace

StoreOs build_store_os() {
#if defined(_WIN32)
  return StoreOs::kWindows;
#elif defined(__APPLE__)
  return StoreOs::kMacos;
#else
  return StoreOs::kLinux;
#endif
}

ModelStoreOptions model_store_options_from_environment(const Environment& env, FileSystem& fs,
                                                       StoreOs os) {
  ModelStoreOptions options;
  std::optional<std::string> home = env.get(os == StoreOs::kWindows ? "USERPROFILE" : "HOME");
  if (home && home->empty()) home.reset();
  const std::string ollama_models = trimmed_variable(env.get("OLLAMA_MODELS").value_or(""));
  if (!ollama_models.empty()) {
    options.ollama_dirs.push_back(ollama_models);
  } else {
    if (home) options.ollama_dirs.push_back(join_path(join_path(*home, ".ollama"), "models"));
    // The Linux installer's system service runs as the user "ollama",
    // whose home is /usr/share/ollama.
    if (os == StoreOs::kLinux) options.ollama_dirs.push_back("/usr/share/ollama/.ollama/models");
  }
  if (home) {
    if (std::string pointed = pointed_lmstudio_models(fs, *home); !pointed.empty()) {
      options.lmstudio_dirs.push_back(std::move(pointed));
    }
    const std::string lmstudio = join_path(join_path(*home, ".lmstudio"), "models");
    if (options.lmstudio_dirs.empty() || options.lmstudio_dirs.front() != lmstudio) {
      options.lmstudio_dirs.push_back(lmstudio);
    }
    options.lmstudio_dirs.push_back(join_path(join_path(join_path(*home, ".cache"), "lm-studio"), "models"));
  }
  return options;
}

bool is_store_model_name(std::string_view name) {
  return name.starts_with(kOllamaPrefix) || name.starts_with(kLmStudioPrefix);
}

}  // namespace memfit
