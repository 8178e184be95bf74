// Nearest names by edit distance over what the parsed command offers: its
// subcommands (with their aliases) or its flags, long and short.
#include "nearest_name.h"

#include <fmt/format.h>

#include <algorithm>

#include "memfit/edit_distance.h"
#include "memfit/untrusted_text.h"

namespace memfit::cli {
namespace {

// The deepest subcommand the parse entered: where the unknown word was.
const CLI::App* deepest_parsed(const CLI::App& app) {
  const CLI::App* at = &app;
  for (std::vector<CLI::App*> subs = at->get_subcommands(); !subs.empty();
       subs = at->get_subcommands()) {
    at = subs.back();
  }
  return at;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
    for (const std::string& alias : sub->get_aliases()) names.push_back(alias);
  }
  return names;
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

// "memfit inspect": the command as typed, for the message.
std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    const std::string name = at->get_parent() == nullptr ? "memfit" : at->get_name();
    path = path.empty() ? name : name + " " + path;
  }
  return path;
}

std::string with_suggestion(std::string message, std::string_view word,
                            const std::vector<std::string>& candidates) {
  if (std::optional<std::string> near = nearest_name(word, candidates)) {
    message += fmt::format("; did you mean '{}'?", *near);
  }
  return message;
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::optional<std::string> unknown_argument_message(const CLI::App& app) {
  const CLI::App* at = deepest_parsed(app);
  const std::vector<std::string> left = at->remaining();
  if (left.empty()) return std::nullopt;
  const std::string& first = left.front();
  const std::string where = command_path(*at);
  if (first.size() > 1 && first[0] == '-') {
    const std::string flag = first.substr(0, first.find('='));
    return with_suggestion(
        fmt::format("unknown flag {} for '{}'", quote_untrusted(flag), where), flag,
        flag_names(*at));
  }
  const std::vector<std::string> subs = subcommand_names(*at);
  if (subs.empty()) {
    return fmt::format("unexpected argument {} for '{}'", quote_untrusted(first), where);
  }
  return with_suggestion(
      fmt::format("unknown subcommand {} for '{}'", quote_untrusted(first), where), first, subs);
}

}  // namespace memfit::cli
