// Where and how the Hugging Face Hub is read (model_by_name.h, step 3):
// the endpoint, the token and the time allowed per request.
#ifndef MEMFIT_HUB_OPTIONS_H_
#define MEMFIT_HUB_OPTIONS_H_

#include <cstdint>
#include <string>

#include "memfit/environment.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

inline constexpr std::string_view kDefaultHubEndpoint = "https://huggingface.co";
inline constexpr uint64_t kDefaultHubTimeoutMs = 30'000;

struct HubOptions {
  // HF_ENDPOINT, without a trailing '/'. The token is sent to this origin
  // (scheme, host and port) only, never to a host a redirect leads to.
  std::string endpoint{kDefaultHubEndpoint};
  // --token, else HF_TOKEN; "" = read token_path (when it exists).
  std::string token;
  // The token file the Hugging Face CLI writes: HF_TOKEN_PATH, else
  // $HF_HOME/token, else $XDG_CACHE_HOME/huggingface/token, else
  // ~/.cache/huggingface/token.
  std::string token_path;
  // Each request's limit, connecting included (--timeout, in seconds).
  uint64_t timeout_ms = kDefaultHubTimeoutMs;
};

// HF_ENDPOINT, HF_TOKEN (HUGGING_FACE_HUB_TOKEN, the older name, when it is
// unset), HF_TOKEN_PATH and HF_HOME as huggingface_hub reads them; an
// empty variable counts as unset.
HubOptions hub_options_from_environment(const Environment& env);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HUB_OPTIONS_H_
