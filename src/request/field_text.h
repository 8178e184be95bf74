// The texts the request fields' rows read (request_field.h): counts,
// switches and ratios as a flag's argument or a JSON value's text. Each
// fails with a kUsage error naming no field (apply_request_field names it).
#ifndef MEMFIT_REQUEST_FIELD_TEXT_H_
#define MEMFIT_REQUEST_FIELD_TEXT_H_

#include <cstdint>
#include <string_view>

#include "memfit/request_field.h"
#include "memfit/result.h"

namespace memfit::request {

// A kCount field's text: a whole number within [field.min, field.max]; a
// field whose unit is tokens also takes k/K (x 1024) and M (x 2^20):
// "32k" is 32768. Errors: "'abc': expected a positive integer" (a
// non-negative one when min is 0, "an integer from A to B" with a max),
// "expected a positive integer, got 0".
Result<uint64_t> parse_field_count(const RequestField& field, std::string_view text);

// A whole number written in decimal digits, nothing else.
Result<uint64_t> parse_decimal(std::string_view text);
// "true" or false".
Result<bool> parse_switch(std::string_view text);
// A real number in (low, high]: "expected a number in (0, 1], got 1.5".
Result<double> parse_ratio(std::string_view text, double low, double high);

}  // namespace memfit::request

#endif  // MEMFIT_REQUEST_FIELD_TEXT_H_
