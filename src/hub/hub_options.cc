// hub_options_from_environment (memfit/hub_options.h).
#include "memfit/hub_options.h"

#include <optional>

#include "memfit/file_system.h"

namespace memfit {
namespace {

std::optional<std::string> non_empty(const Environment& env, const std::string& name) {
  std::optional<std::string> value = env.get(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

}  // namespace

HubOptions hub_options_from_environment(const Environment& env) {
  HubOptions options;
  if (std::optional<std::string> endpoint = non_empty(env, "HF_ENDPOINT")) {
    options.endpoint = *endpoint;
    while (options.endpoint.ends_with('/')) options.endpoint.pop_back();
  }
  if (std::optional<std::string> token = non_empty(env, "HF_TOKEN")) {
    options.token = *token;
  } else if (std::optional<std::string> legacy = non_empty(env, "HUGGING_FACE_HUB_TOKEN")) {
    options.token = *legacy;
  }
  if (std::optional<std::string> path = non_empty(env, "HF_TOKEN_PATH")) {
    options.token_path = *path;
  } else if (std::optional<std::string> home = non_empty(env, "HF_HOME")) {
    options.token_path = join_path(*home, "token");
  } else if (std::optional<std::string> xdg = non_empty(env, "XDG_CACHE_HOME")) {
    options.token_path = join_path(*xdg, "huggingface/token");
  } else if (std::optional<std::string> user = non_empty(env, "HOME")) {
    options.token_path = join_path(*user, ".cache/huggingface/token");
  }
  return options;
}

}  // namespace memfit
