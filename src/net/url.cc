// url_origin and percent_encode (http_client.h).
#include <cctype>
#include <string>
#include <string_view>

#include "net/http_client.h"

namespace memfit {

std::string url_origin(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "";
  std::string origin;
  for (char c : url.substr(0, scheme_end)) origin.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (origin != "http" && origin != "https") return "";
  origin += "://";
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  // User information ("user:pass@") is not part of the origin.
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (rest.empty()) return "";
  for (char c : rest) origin.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return origin;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

}  // namespace memfit
