// One word of a command line a user pastes into a POSIX shell: as it is
// when it holds only letters, digits and . _ / + - , = :, else
// single-quoted (a ' inside written '\'').
#ifndef MEMFIT_ENGINES_SHARED_SHELL_WORD_H_
#define MEMFIT_ENGINES_SHARED_SHELL_WORD_H_

#include <string>
#include <string_view>

namespace memfit {

std::string shell_word(std::string_view word);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_SHELL_WORD_H_
