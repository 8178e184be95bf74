// HttpClient: one HTTP GET at a time, the narrow interface through which
// memfit reads the Hugging Face Hub (src/hub/hub_reader.h). The libcurl
// implementation (curl_http_client_posix.cc) loads libcurl only when the
// first request is made: commands that read no remote model never load it
// or the TLS libraries it needs.
//
// Redirects are not followed here: the caller follows them one hop at a
// time, deciding per host which headers go along (a token goes only to the
// Hub's own origin). TLS certificates and host names are always verified.
#ifndef MEMFIT_NET_HTTP_CLIENT_H_
#define MEMFIT_NET_HTTP_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memfit {

struct HttpGetRequest {
  std::string url;  // http:// or https:// only
  std::vector<std::pair<std::string, std::string>> headers;  // "Authorization", "Bearer ..."
  // Bytes [first, last] of the resource (inclusive, as HTTP writes them):
  // sent as "Range: bytes=first-last".
  std::optional<std::pair<uint64_t, uint64_t>> range;
  // The body is refused past this many bytes: a larger Content-Length stops
  // the transfer before anything is allocated, and a body without one is
  // cut off when it passes the bound (HttpOutcome::kBodyTooLarge).
  uint64_t max_body_bytes = 0;
  uint64_t timeout_ms = 30'000;  // the whole exchange, connecting included
};

struct HttpGetResponse {
  long status = 0;
  std::string body;
  std::string location;      // a redirect's Location, as an absolute URL ("" if none)
  std::string error_code;    // the Hub's X-Error-Code header ("RepoNotFound"), "" if none
};

struct HttpOutcome {
  enum class Kind {
    kOk,             // a response arrived (any status): `response`
    kCannotConnect,  // the host name did not resolve, or nothing answered
    kTimeout,        // timeout_ms passed
    kBodyTooLarge,   // the body passed max_body_bytes
    kFailed,         // anything else (TLS, a broken connection): `detail`
  };
  Kind kind = Kind::kFailed;
  HttpGetResponse response;
  std::string detail;  // one line, never the URL (it may carry credentials)
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Thread-safe: several shards are fetched at once.
  virtual HttpOutcome get(const HttpGetRequest& request) = 0;
};

// The libcurl client (libcurl.so.4, loaded on first use). Where libcurl
// cannot be loaded, every get() fails with kFailed saying so.
std::unique_ptr<HttpClient> make_curl_http_client();

// "https://huggingface.co" for "https://HuggingFace.co/api/x?y": scheme,
// host and port (when given), lower-cased; "" when `url` is not http(s).
std::string url_origin(std::string_view url);

// `text` with every byte outside A-Z a-z 0-9 - . _ ~ (and '/', when
// `keep_slash`) written as %XX.
std::string percent_encode(std::string_view text, bool keep_slash);

}  // namespace memfit

#endif  // MEMFIT_NET_HTTP_CLIENT_H_
