// parse_listen_address: the --listen value of `memfit serve`.
#include <charconv>

#include <fmt/format.h>

#include "memfit/service.h"
#include "memfit/untrusted_text.h"

namespace memfit {

Result<ListenAddress> parse_listen_address(std::string_view text) {
  const auto fail = [&] {
    return Error::usage(fmt::format("listen address {}: expected host:port with a port 0-65535",
                                    quote_untrusted(text)));
  };
  ListenAddress address;
  std::string_view port = text;
  if (size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {  // [::1]:8765
      host = host.substr(1, host.size() - 2);
    }
    if (host.empty()) return fail();
    address.host = std::string(host);
  }
  int value = -1;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 0 ||
      value > 65535) {
    return fail();
  }
  address.port = value;
  return address;
}

}  // namespace memfit
