// Windows: no libcurl client yet (http_client.h); every request fails
// saying so, and models are read from local paths and the HF cache only.
#include "net/http_client.h"

namespace memfit {
namespace {

class UnavailableHttpClient final : public HttpClient {
 public:
  HttpOutcome get(const HttpGetRequest&) override {
    HttpOutcome outcome;
    outcome.detail = "reading the Hub is not built for Windows yet";
    return outcome;
  }
};

}  // namespace

std::unique_ptr<HttpClient> make_curl_http_client() {
  return std::make_unique<UnavailableHttpClient>();
}

}  // namespace memfit
