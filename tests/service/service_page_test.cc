// The calculator page: GET / and its files are served from the bytes
// embedded at build time, which are exactly the files under web/, with a
// Content-Security-Policy that keeps the page on its own server.
// tests/e2e/ drives the page itself in a browser.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "service/service_fixture.h"
#include "service/web_assets.h"
#include "support/paths.h"

namespace memfit {
namespace {

using testing::error_code;
using testing::kExamplesRoot;
using testing::make_service;

const std::string kWebDir = std::string(MEMFIT_SOURCE_DIR) + "/web";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string header(const HttpResponse& r, std::string_view name) {
  for (const auto& [key, value] : r.headers) {
    if (key == name) return value;
  }
  return "<absent>";
}

TEST(ServicePage, RootIsTheCalculatorWithAStrictPolicy) {
  auto service = make_service({kExamplesRoot});
  HttpResponse r = service->handle("GET", "/", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(r.body, slurp(kWebDir + "/calculator.html"));
  EXPECT_NE(r.body.find("<title>memfit calculator</title>"), std::string::npos);
  EXPECT_EQ(header(r, "Content-Security-Policy"),
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  EXPECT_EQ(header(r, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(header(r, "Referrer-Policy"), "no-referrer");
  EXPECT_EQ(header(r, "Cache-Control"), "no-cache");
  // HEAD is answered as GET, and a query string is ignored.
  EXPECT_EQ(service->handle("HEAD", "/", "").status, 200);
  EXPECT_EQ(service->handle("GET", "/?model=x", "").body, r.body);
}

TEST(ServicePage, ScriptAndStyleAreServedWithTheirTypes) {
  auto service = make_service({kExamplesRoot});
  HttpResponse js = service->handle("GET", "/calculator.js", "");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(js.body, slurp(kWebDir + "/calculator.js"));
  HttpResponse css = service->handle("GET", "/calculator.css", "");
  ASSERT_EQ(css.status, 200);
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
  EXPECT_EQ(css.body, slurp(kWebDir + "/calculator.css"));
  EXPECT_NE(header(css, "Content-Security-Policy"), "<absent>");
}

// The build embeds every file of web/ and nothing else, byte for byte:
// there is no second copy of the page to drift.
TEST(ServicePage, EmbeddedBytesAreTheFilesUnderWeb) {
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(kWebDir)) {
    if (entry.is_regular_file()) on_disk.insert(entry.path().filename().string());
  }
  std::set<std::string> embedded;
  for (const service::WebAsset& asset : service::web_assets()) {
    embedded.insert(std::string(asset.name));
    EXPECT_EQ(asset.body, slurp(kWebDir + "/" + std::string(asset.name))) << asset.name;
    EXPECT_FALSE(asset.body.empty()) << asset.name;
  }
  EXPECT_EQ(embedded, on_disk);
  EXPECT_TRUE(embedded.count("calculator.html"));
}

// The page may fetch only its own server: no absolute URL to anywhere in
// what it loads (the CSP would block one; this says none is attempted).
// The SVG namespace is an identifier, never fetched.
TEST(ServicePage, PageNamesNoOtherHost) {
  const std::string svg_namespace = "http://www.w3.org/2000/svg";
  for (const service::WebAsset& asset : service::web_assets()) {
    std::string body(asset.body);
    for (size_t at; (at = body.find(svg_namespace)) != std::string::npos;) {
      body.erase(at, svg_namespace.size());
    }
    for (const std::string needle : {"http:", "https:", "//cdn", "@import", "url(", "fonts."}) {
      EXPECT_EQ(body.find(needle), std::string::npos) << asset.name << " contains " << needle;
    }
  }
}

TEST(ServicePage, OtherPathsAndMethodsAreRefused) {
  auto service = make_service({kExamplesRoot});
  for (const std::string path :
       {"/index.html", "/calculator", "/web/calculator.js", "//calculator.js", "/calculator.js/",
        "/../CMakeLists.txt", "/CMakeLists.txt"}) {
    HttpResponse r = service->handle("GET", path, "");
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(error_code(r), "not_found") << path;
  }
  HttpResponse post = service->handle("POST", "/", "{}");
  EXPECT_EQ(post.status, 405);
  ASSERT_EQ(post.headers.size(), 1u);
  EXPECT_EQ(post.headers[0], (std::pair<std::string, std::string>{"Allow", "GET"}));
  EXPECT_EQ(service->handle("PUT", "/calculator.js", "").status, 405);
}

TEST(ServicePage, RequestsAreCountedByPath) {
  auto service = make_service({kExamplesRoot});
  ASSERT_EQ(service->handle("GET", "/", "").status, 200);
  ASSERT_EQ(service->handle("GET", "/calculator.js", "").status, 200);
  const std::string m = service->handle("GET", "/metrics", "").body;
  EXPECT_NE(m.find("memfit_requests_total{endpoint=\"/\",code=\"200\"} 1\n"), std::string::npos)
      << m;
  EXPECT_NE(m.find("memfit_requests_total{endpoint=\"/calculator.js\",code=\"200\"} 1\n"),
            std::string::npos)
      << m;
}

}  // namespace
}  // namespace memfit
