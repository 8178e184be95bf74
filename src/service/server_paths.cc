#include "service/server_paths.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "memfit/untrusted_text.h"

namespace memfit::service {
namespace {

// `text` as it appears inside a JSON string of an answer (json_response's
// dump: UTF-8 kept, invalid bytes replaced).
std::string json_inner(std::string_view text) {
  std::string dumped = nlohmann::json(std::string(text))
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return dumped.substr(1, dumped.size() - 2);
}

// Whether a folder's text followed by `c` ends a path there: the end of
// the string, a quote, a separator of the message. Anything else may
// continue the last name ("/srv/models-old", "/srv/models.bak").
bool ends_path(char c) {
  return std::string_view("\"':;, )]\\").find(c) != std::string_view::npos;
}

}  // namespace

void ServerPaths::add(std::string_view folder, std::string_view shown,
                      std::string_view shown_below) {
  while (folder.size() > 1 && folder.back() == '/') folder.remove_suffix(1);
  if (folder.empty() || folder == "/") return;
  // As JSON writes it, and as a message quotes it (quote_untrusted without
  // its quotes; escape_untrusted, which leaves a quote alone).
  const std::string quoted = quote_untrusted(folder);
  const bool truncated = folder.size() > kMaxQuotedBytes;
  std::vector<std::string> texts = {json_inner(folder),
                                    json_inner(quoted.substr(1, quoted.size() - 2)),
                                    json_inner(escape_untrusted(folder))};
  for (size_t i = 0; i < texts.size(); ++i) {
    if (std::find(texts.begin(), texts.begin() + i, texts[i]) != texts.begin() + i) continue;
    forms_.push_back(Form{texts[i], std::string(shown), std::string(shown_below), truncated && i > 0});
  }
  std::stable_sort(forms_.begin(), forms_.end(),
                   [](const Form& a, const Form& b) { return a.text.size() > b.text.size(); });
}

void ServerPaths::redact(std::string& json_text) const {
  for (const Form& form : forms_) {
    size_t at = 0;
    while ((at = json_text.find(form.text, at)) != std::string::npos) {
      const size_t end = at + form.text.size();
      if (form.truncated) {  // the cut name's "..." is kept
        json_text.replace(at, form.text.size(), form.shown + "...");
        at += form.shown.size() + 3;
      } else if (end < json_text.size() && json_text[end] == '/') {
        json_text.replace(at, form.text.size() + 1, form.shown_below);
        at += form.shown_below.size();
      } else if (end == json_text.size() || ends_path(json_text[end])) {
        json_text.replace(at, form.text.size(), form.shown);
        at += form.shown.size();
      } else {
        at += 1;  // a longer name that starts alike
      }
    }
  }
}

}  // namespace memfit::service
