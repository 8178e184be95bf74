// parse_double's path for a standard library without std::from_chars for
// double (memfit/number_text.h), compiled on every build so that its test
// (tests/base/number_text_test.cc) runs where from_chars is the path.
// Private to the library.
#ifndef MEMFIT_BASE_NUMBER_TEXT_STREAM_H_
#define MEMFIT_BASE_NUMBER_TEXT_STREAM_H_

#include <optional>
#include <string_view>

namespace memfit {

// parse_double (memfit/number_text.h) with the classic locale's stream
// doing the conversion: the same texts taken and refused, though a
// subnormal value (below about 2.2e-308) may be refused too.
std::optional<double> parse_double_by_stream(std::string_view text);

}  // namespace memfit

#endif  // MEMFIT_BASE_NUMBER_TEXT_STREAM_H_
