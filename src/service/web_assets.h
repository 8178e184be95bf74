// The calculator page's files (web/), embedded into the service at build
// time by cmake/embed_web_assets.cmake, and the headers they are served
// with. Private to src/service.
//
// GET / answers calculator.html; GET /<name> answers the file <name>.
// Every answer carries a Content-Security-Policy that allows only this
// origin's scripts, styles and API (no inline script, no other host), so
// the page works, and can only work, without any external network.
#ifndef MEMFIT_SERVICE_WEB_ASSETS_H_
#define MEMFIT_SERVICE_WEB_ASSETS_H_

#include <span>
#include <string_view>

#include "memfit/service.h"

namespace memfit::service {

struct WebAsset {
  std::string_view name;          // the file's name under web/: "calculator.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;          // the file's bytes, unchanged
};

// Every embedded file, in the order src/CMakeLists.txt lists them. The
// bytes are static: they live as long as the program.
std::span<const WebAsset> web_assets();

inline constexpr std::string_view kIndexAsset = "calculator.html";

inline constexpr std::string_view kWebContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The asset a request path names ("/" is kIndexAsset), or nullptr.
const WebAsset* find_web_asset(std::string_view path);

// The 200 answer for an asset: its bytes, its type, the CSP and
// X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer and
// Cache-Control: no-cache (a page served from a new build is never stale).
HttpResponse web_asset_response(const WebAsset& asset);

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_WEB_ASSETS_H_
