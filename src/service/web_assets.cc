// Serving the embedded page. The bytes themselves are in the generated
// web_assets_data.cc (cmake/embed_web_assets.cmake).
#include "service/web_assets.h"

namespace memfit::service {

const WebAsset* find_web_asset(std::string_view path) {
  if (path.empty() || path.front() != '/') return nullptr;
  const std::string_view name = path == "/" ? kIndexAsset : path.substr(1);
  for (const WebAsset& asset : web_assets()) {
    if (asset.name == name) return &asset;
  }
  return nullptr;
}

HttpResponse web_asset_response(const WebAsset& asset) {
  HttpResponse response;
  response.content_type = std::string(asset.content_type);
  response.body = std::string(asset.body);
  response.headers = {
      {"Content-Security-Policy", std::string(kWebContentSecurityPolicy)},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-cache"},
  };
  return response;
}

}  // namespace memfit::service
