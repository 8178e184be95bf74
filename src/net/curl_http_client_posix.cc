// The libcurl HttpClient (http_client.h). libcurl is loaded with dlopen on
// the first request, not linked: the memfit command starts without loading
// it and the TLS, compression and IDN libraries behind it (several
// milliseconds on every launch, for the few commands that read the Hub),
// and a machine without libcurl still runs every local command. Only
// <curl/curl.h>'s types and constants are used at build time (Debian:
// libcurl4-openssl-dev).
#include <dlfcn.h>

#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "net/http_client.h"

namespace memfit {
namespace {

// The few entry points used, taken with dlsym. Their types are those the
// header declares.
struct CurlApi {
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
  std::string problem;  // why it could not be loaded; "" when loaded
};

template <typename F>
bool take(void* library, const char* name, F& out) {
  out = reinterpret_cast<F>(::dlsym(library, name));
  return out != nullptr;
}

const CurlApi& curl_api() {
  static CurlApi api;
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef __APPLE__
    const char* const names[] = {"libcurl.4.dylib", "libcurl.dylib"};
#else
    const char* const names[] = {"libcurl.so.4", "libcurl.so"};
#endif
    void* library = nullptr;
    for (const char* name : names) {
      library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library) break;
    }
    if (!library) {
      api.problem = fmt::format("libcurl ({}) could not be loaded: install it to read the Hub",
                                names[0]);
      return;
    }
    const bool all = take(library, "curl_global_init", api.global_init) &&
                     take(library, "curl_easy_init", api.easy_init) &&
                     take(library, "curl_easy_setopt", api.easy_setopt) &&
                     take(library, "curl_easy_perform", api.easy_perform) &&
                     take(library, "curl_easy_getinfo", api.easy_getinfo) &&
                     take(library, "curl_easy_cleanup", api.easy_cleanup) &&
                     take(library, "curl_easy_strerror", api.easy_strerror) &&
                     take(library, "curl_slist_append", api.slist_append) &&
                     take(library, "curl_slist_free_all", api.slist_free_all);
    if (!all) {
      api.problem = "libcurl lacks an expected function: install libcurl 7.68 or later";
      return;
    }
    // Once, before any thread makes a handle (curl_global_init is not
    // thread-safe in older libcurl).
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) api.problem = "libcurl failed to start";
  });
  return api;
}

// What one transfer collects: the body, bounded, and the headers we read.
struct Transfer {
  uint64_t max_body_bytes = 0;
  bool too_large = false;
  HttpGetResponse response;
};

bool header_is(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  }
  return true;
}

std::string_view header_value(std::string_view line, size_t name_size) {
  std::string_view value = line.substr(name_size + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  return value;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  const std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {  // a new response (after 100 Continue): forget the last
    t->response.error_code.clear();
  } else if (header_is(line, "content-length")) {
    const std::string_view v = header_value(line, 14);
    uint64_t length = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), length);
    // A body announced larger than the bound is refused before any of it
    // is received or allocated.
    if (ec == std::errc() && length > t->max_body_bytes) {
      t->too_large = true;
      return 0;
    }
  } else if (header_is(line, "x-error-code")) {
    t->response.error_code = std::string(header_value(line, 12).substr(0, 64));
  }
  return bytes;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  if (bytes > t->max_body_bytes - t->response.body.size()) {
    t->too_large = true;
    return 0;  // aborts the transfer: CURLE_WRITE_ERROR
  }
  t->response.body.append(data, bytes);
  return bytes;
}

class CurlHttpClient final : public HttpClient {
 public:
  HttpOutcome get(const HttpGetRequest& request) override {
    HttpOutcome outcome;
    const CurlApi& api = curl_api();
    if (!api.problem.empty()) {
      outcome.detail = api.problem;
      return outcome;
    }
    CURL* curl = api.easy_init();
    if (!curl) {
      outcome.detail = "libcurl could not make a handle";
      return outcome;
    }
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      headers = api.slist_append(headers, (name + ": " + value).c_str());
    }
    const std::string range =
        request.range ? fmt::format("{}-{}", request.range->first, request.range->second) : "";
    Transfer t;
    t.max_body_bytes = request.max_body_bytes;

    api.easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    api.easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    api.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // the caller follows, host by host
    api.easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    api.easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
    api.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_ms));
    api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.timeout_ms));
    api.easy_setopt(curl, CURLOPT_USERAGENT, "memfit/" MEMFIT_VERSION);
    api.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (request.range) api.easy_setopt(curl, CURLOPT_RANGE, range.c_str());
    api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, &on_header);
    api.easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
    api.easy_setopt(curl, CURLOPT_WRITEDATA, &t);

    const CURLcode code = api.easy_perform(curl);
    if (code == CURLE_OK) {
      outcome.kind = HttpOutcome::Kind::kOk;
      api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &t.response.status);
      char* location = nullptr;
      if (api.easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location) {
        t.response.location = location;
      }
      outcome.response = std::move(t.response);
    } else if (t.too_large) {
      outcome.kind = HttpOutcome::Kind::kBodyTooLarge;
      outcome.detail = fmt::format("the response passed {} bytes", request.max_body_bytes);
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
      outcome.kind = HttpOutcome::Kind::kTimeout;
      outcome.detail = fmt::format("no answer within {} s", request.timeout_ms / 1000.0);
    } else if (code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_CONNECT ||
               code == CURLE_COULDNT_RESOLVE_PROXY) {
      outcome.kind = HttpOutcome::Kind::kCannotConnect;
      outcome.detail = api.easy_strerror(code);
    } else {
      outcome.detail = api.easy_strerror(code);  // libcurl's text names no URL
    }
    api.slist_free_all(headers);
    api.easy_cleanup(curl);
    return outcome;
  }
};

}  // namespace

std::unique_ptr<HttpClient> make_curl_http_client() { return std::make_unique<CurlHttpClient>(); }

}  // namespace memfit
