// Errors as the command line names things: a request field's JSON name in
// a message ("and ctx_size are both the context") becomes its flag
// ("--ctx-size"), so a CLI user reads the spelling they can type. The one
// place the CLI does this is report_error (estimate_options.h).
#ifndef MEMFIT_CLI_FLAG_TEXT_H_
#define MEMFIT_CLI_FLAG_TEXT_H_

#include <string>
#include <string_view>

namespace memfit::cli {

// `text` with every request field name that holds an underscore (a JSON
// spelling no English word has), standing as a whole word outside double
// quotes or quote_untrusted's single quotes, replaced by field_flag
// (request_field.h). Quoted text is left as written: it is a quotation
// (another program's message) or user input.
std::string with_flag_names(std::string_view text);

}  // namespace memfit::cli

#endif  // MEMFIT_CLI_FLAG_TEXT_H_
