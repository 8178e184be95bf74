// parse_ollama_name (memfit/ollama_store.h): Ollama's own name rules, read
// from types/model/name.go (docs/stores.md), strict enough that a parsed
// name joins onto the manifests folder without climbing out of it.
#include <fmt/format.h>

#include "memfit/ollama_store.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

// Ollama's isValidByteFor: letters, digits, '_', '-' and '.', but no '.'
// in a namespace.
bool valid_part(std::string_view part, bool is_namespace) {
  if (part.empty()) return false;
  for (char c : part) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    if (!word && !(c == '.' && !is_namespace)) return false;
  }
  return true;
}

Error bad_name(std::string_view text, std::string_view why) {
  return Error::usage("model", fmt::format("ollama:{}: {}", quote_untrusted(text), why));
}

}  // namespace

std::string OllamaName::manifest_path() const {
  return fmt::format("{}/{}/{}/{}", host, name_space, model, tag);
}

std::string OllamaName::display() const {
  std::string out;
  if (host != kOllamaDefaultHost) {
    out = fmt::format("{}/{}/", host, name_space);
  } else if (name_space != kOllamaDefaultNamespace) {
    out = name_space + "/";
  }
  return out + model + ":" + tag;
}

Result<OllamaName> parse_ollama_name(std::string_view text) {
  if (text.empty()) return bad_name(text, "no model name");
  if (text.size() > kMaxOllamaNameBytes) {
    return bad_name(text.substr(0, 32), fmt::format("an Ollama name is at most {} bytes", kMaxOllamaNameBytes));
  }
  if (text.find("..") != std::string_view::npos) return bad_name(text, "an Ollama name may not hold \"..\"");
  if (text.find_first_of("+@") != std::string_view::npos) {
    return bad_name(text, "give [host/][namespace/]model[:tag], without +build or @digest");
  }
  OllamaName name;
  std::string_view rest = text;
  if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    name.tag = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
    if (!valid_part(name.tag, false)) return bad_name(text, "the tag is 1 or more of A-Z a-z 0-9 . _ -");
  }
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = rest.find('/', start);
    parts.push_back(rest.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() > 3) return bad_name(text, "at most host/namespace/model");
  name.model = std::string(parts.back());
  if (parts.size() >= 2) name.name_space = std::string(parts[parts.size() - 2]);
  if (parts.size() == 3) name.host = std::string(parts[0]);
  if (!valid_part(name.model, false) || !valid_part(name.host, false)) {
    return bad_name(text, "each part is 1 or more of A-Z a-z 0-9 . _ -");
  }
  if (!valid_part(name.name_space, true)) {
    return bad_name(text, "a namespace is 1 or more of A-Z a-z 0-9 _ -");
  }
  return name;
}

}  // namespace memfit
