// HubReader: the requests memfit makes to the Hugging Face Hub for one
// repo, and what their failures mean, each as one line naming the model.
//
//   GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true
//       the commit a revision names and the repo's files with their sizes
//   GET {endpoint}/{repo}/resolve/{commit}/{path}   Range: bytes=a-b
//       a file's bytes; the Hub answers with a redirect to a storage host
//
// Redirects are followed here, one hop at a time, at most kMaxRedirects;
// the token goes only to the endpoint's own origin, and an https endpoint
// is never followed to plain http.
#ifndef MEMFIT_HUB_HUB_READER_H_
#define MEMFIT_HUB_HUB_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memfit/header_store.h"
#include "memfit/hub_options.h"
#include "memfit/result.h"
#include "net/http_client.h"

namespace memfit {

inline constexpr int kMaxRedirects = 5;
// The model API's answer: a repo of tens of thousands of files stays well
// under it.
inline constexpr uint64_t kMaxHubListingBytes = 16ull << 20;
// A redirect's body, or an error page, is read up to this many bytes (a
// range read's own bound may be smaller).
inline constexpr uint64_t kMinResponseBoundBytes = 64ull << 10;

struct HubRevision {
  std::string commit;                       // 40 hex digits
  std::vector<StoredListingEntry> listing;  // sorted by path
};

class HubReader {
 public:
  // `label` names the model in every message ("'Qwen/Qwen3-8B'", quoted
  // as the user gave it). `options.token` is the token already resolved.
  HubReader(HttpClient& http, HubOptions options, std::string repo_id, std::string label);

  // The commit `revision` names now, and the files at it. Errors: no such
  // repo, gated or private, no such revision, network, timeout.
  Result<HubRevision> resolve(const std::string& revision);

  // Bytes [first, last] of `path` at `commit`, a file of `file_size_bytes`
  // (last < file_size_bytes). A server that answers with more than was
  // asked (it ignores Range) is refused once the bound is passed.
  Result<std::string> read_range(const std::string& commit, const std::string& path,
                                 uint64_t file_size_bytes, uint64_t first, uint64_t last);

 private:
  // GET `url`, following redirects; a response that is not a redirect.
  Result<HttpGetResponse> get(std::string url, std::optional<std::pair<uint64_t, uint64_t>> range,
                           uint64_t max_body_bytes, std::string_view what);
  Error http_error(const HttpGetResponse& response, std::string_view what) const;

  HttpClient& http_;
  HubOptions options_;
  std::string origin_;  // the one the token goes to: "https://huggingface.co"
  std::string repo_id_;
  std::string label_;
};

// Parses the model API's JSON: the commit ("sha") and each sibling's
// "rfilename" with its size ("lfs"."size" for LFS files, else "size").
// Entries with no size or a name that is no valid repo path are left out.
// kInput errors: not JSON, no 40-hex sha.
Result<HubRevision> parse_hub_listing(std::string_view json);

}  // namespace memfit

#endif  // MEMFIT_HUB_HUB_READER_H_
