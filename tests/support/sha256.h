// SHA-256 (FIPS 180-4) of bytes in memory, as lower-case hex: what names
// a blob in Ollama's store ("sha256-<hex>"), so tests lay stores out as
// Ollama writes them. For tests only: small inputs, no streaming.
#ifndef MEMFIT_TESTS_SUPPORT_SHA256_H_
#define MEMFIT_TESTS_SUPPORT_SHA256_H_

#include <string>
#include <string_view>

namespace memfit {

std::string sha256_hex(std::string_view bytes);

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_SHA256_H_
