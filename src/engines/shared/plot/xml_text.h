// Text for XML documents (the plot's SVG).
#ifndef MEMFIT_ENGINES_SHARED_PLOT_XML_TEXT_H_
#define MEMFIT_ENGINES_SHARED_PLOT_XML_TEXT_H_

#include <string>
#include <string_view>

namespace memfit {

// `text` safe inside XML character data and quoted attribute values: the
// five markup characters become entities, and control characters XML 1.0
// forbids (all below 0x20 but tab and newline) become '?'.
std::string xml_escape(std::string_view text);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PLOT_XML_TEXT_H_
