// Reads a memfit plot back through a real XML parser (python3's
// xml.dom.minidom), for tests that check a figure's content rather than
// its text.
#ifndef MEMFIT_TESTS_SUPPORT_SVG_SUMMARY_H_
#define MEMFIT_TESTS_SUPPORT_SVG_SUMMARY_H_

#include <string>

#include <nlohmann/json.hpp>

namespace memfit::testing {

// Parses `svg` and returns
//   {"ok": true, "root": "svg", "viewBox": "...", "title": "...",
//    "panels": [{<the panel's data-* attributes, "data-" dropped>,
//                "budget_bytes": [..], "budget_labels": [..],
//                "crossings": [{"tokens": N, "label": "..."}],
//                "verdicts": ["..."] (a verdict broken into <tspan> lines
//                             reads as one, the lines joined by spaces),
//                "samples": [{"tokens": N, "weights_bytes": N, ...}]}]}
// or {"ok": false, "error": "<parser message>"} when it is not well-formed
// XML. Byte counts come back as JSON integers.
nlohmann::json summarize_svg(const std::string& svg);

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SUPPORT_SVG_SUMMARY_H_
