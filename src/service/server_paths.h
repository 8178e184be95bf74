// ServerPaths: the folders of the server a client must never see in an
// answer, and the one place every JSON answer passes through on its way out
// (Service::handle), so no handler, error path or warning can leak them.
//
// A model under a root is named by its path relative to the root, as a
// request names it: "/srv/models/Qwen3-8B/config.json: not JSON" is
// answered as "Qwen3-8B/config.json: not JSON", and the bare root as
// "<model root>". The Hugging Face cache is "$HF_HUB_CACHE", the fake
// system root "$MEMFIT_SYSROOT", and the GPU libraries named by
// MEMFIT_NVML_LIBRARY / MEMFIT_ROCM_SMI_LIBRARY their variables' names.
//
// The answer is JSON text; each folder is looked for as JSON writes it and
// as quote_untrusted() writes it (a backslash doubled, a control byte as
// \xNN, a name over kMaxQuotedBytes cut and followed by "..."), and only
// where it ends a path component ("/srv/models-old" is not "/srv/models").
// A folder of "/" alone is never replaced: it is every path.
#ifndef MEMFIT_SERVICE_SERVER_PATHS_H_
#define MEMFIT_SERVICE_SERVER_PATHS_H_

#include <string>
#include <string_view>
#include <vector>

namespace memfit::service {

class ServerPaths {
 public:
  // `folder` (absolute) is shown as `shown`; what lies below it as
  // `shown_below` followed by the rest of the path ("" for a model root:
  // the path relative to it).
  void add(std::string_view folder, std::string_view shown, std::string_view shown_below);

  // Every occurrence in `json_text`, a serialised JSON answer, replaced.
  void redact(std::string& json_text) const;

 private:
  struct Form {
    std::string text;         // the folder as it appears in JSON text
    std::string shown;        // what replaces it alone
    std::string shown_below;  // what replaces it followed by "/"
    bool truncated = false;   // a quoted name cut inside the folder: ends in "..."
  };
  std::vector<Form> forms_;  // longest first, so a root inside a root is taken whole
};

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_SERVER_PATHS_H_
