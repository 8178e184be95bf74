// Parsing and checking Hub names (memfit/hub_name.h). The repo id rules
// are huggingface_hub's validate_repo_id, restricted to ASCII: each side of
// the '/' matches \b[\w\-.]{1,96}\b, and ".." and "--" appear nowhere.
#include "memfit/hub_name.h"

#include <fmt/format.h>

#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A character \w matches in ASCII: a letter, a digit or '_'.
bool is_word(char c) { return is_alnum(c) || c == '_'; }

bool is_name_char(char c) { return is_word(c) || c == '-' || c == '.'; }

Status check_repo_part(std::string_view repo_id, std::string_view part) {
  if (part.empty() || part.size() > kMaxHubNamePartBytes) {
    return Error::usage(fmt::format("{}: each side of a Hugging Face repo id holds 1 to {} "
                                    "characters",
                                    quote_untrusted(repo_id), kMaxHubNamePartBytes));
  }
  for (char c : part) {
    if (!is_name_char(c)) {
      return Error::usage(fmt::format("{}: a Hugging Face repo id holds only letters, digits, "
                                      "'-', '_' and '.'",
                                      quote_untrusted(repo_id)));
    }
  }
  if (!is_word(part.front()) || !is_word(part.back())) {
    return Error::usage(fmt::format("{}: each side of a Hugging Face repo id starts and ends "
                                    "with a letter, a digit or '_'",
                                    quote_untrusted(repo_id)));
  }
  return Status::Ok();
}

// '/'-separated parts of `text`, none empty and none starting with '.'
// (so none is "." or ".."): safe to join under a folder.
bool parts_stay_inside(std::string_view text) {
  size_t start = 0;
  while (true) {
    const size_t slash = text.find('/', start);
    const std::string_view part =
        text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part.front() == '.') return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

}  // namespace

Status check_hub_repo_id(std::string_view repo_id) {
  const size_t slash = repo_id.find('/');
  if (slash == std::string_view::npos || repo_id.find('/', slash + 1) != std::string_view::npos) {
    return Error::usage(fmt::format("{}: a Hugging Face repo id is \"org/name\"",
                                    quote_untrusted(repo_id)));
  }
  if (Status org = check_repo_part(repo_id, repo_id.substr(0, slash)); !org) return org;
  if (Status name = check_repo_part(repo_id, repo_id.substr(slash + 1)); !name) return name;
  if (repo_id.find("..") != std::string_view::npos || repo_id.find("--") != std::string_view::npos) {
    return Error::usage(fmt::format("{}: a Hugging Face repo id may not hold \"..\" or \"--\"",
                                    quote_untrusted(repo_id)));
  }
  return Status::Ok();
}

Status check_hub_revision(std::string_view revision) {
  bool chars_ok = !revision.empty() && revision.size() <= kMaxHubRevisionBytes;
  for (char c : revision) chars_ok = chars_ok && (is_name_char(c) || c == '/');
  // git's ref names hold no ".." anywhere (git check-ref-format).
  if (!chars_ok || !parts_stay_inside(revision) || revision.find("..") != std::string_view::npos) {
    return Error::usage(fmt::format("revision {}: expected a branch, a tag or a commit: 1 to {} "
                                    "letters, digits, '-', '_', '.' and '/', no part empty or "
                                    "starting with '.', no '..'",
                                    quote_untrusted(revision), kMaxHubRevisionBytes));
  }
  return Status::Ok();
}

Status check_hub_quant(std::string_view quant) {
  bool ok = !quant.empty() && quant.size() <= kMaxHubQuantBytes && is_alnum(quant.front());
  for (char c : quant) ok = ok && is_name_char(c);
  if (!ok) {
    return Error::usage(fmt::format("quant {}: expected a GGUF quant tag such as Q4_K_M: 1 to {} "
                                    "letters, digits, '-', '_' and '.'",
                                    quote_untrusted(quant), kMaxHubQuantBytes));
  }
  return Status::Ok();
}

Status check_hub_file(std::string_view file) {
  bool ok = !file.empty() && file.size() <= kMaxHubFileBytes;
  for (char c : file) {
    ok = ok && c >= 0x20 && c < 0x7f && std::string_view("\\:*?\"<>|").find(c) == std::string_view::npos;
  }
  // Parts may start with '.' (".gitattributes") but may not be "." or "..".
  size_t start = 0;
  while (ok) {
    const size_t slash = file.find('/', start);
    const std::string_view part =
        file.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    ok = !part.empty() && part != "." && part != "..";
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (!ok) {
    return Error::usage(fmt::format("{}: expected a path inside the repo: 1 to {} printable "
                                    "characters, '/'-separated, no part empty, \".\" or \"..\"",
                                    quote_untrusted(file), kMaxHubFileBytes));
  }
  return Status::Ok();
}

bool is_hub_commit(std::string_view revision) {
  if (revision.size() != 40) return false;
  for (char c : revision) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool looks_like_hub_name(std::string_view text) {
  return check_hub_repo_id(text.substr(0, text.find_first_of("@:"))).ok();
}

Result<HubModelRef> parse_hub_model_ref(std::string_view text) {
  HubModelRef ref;
  const size_t repo_end = text.find_first_of("@:");
  ref.repo_id = std::string(text.substr(0, repo_end));
  if (Status repo = check_hub_repo_id(ref.repo_id); !repo) {
    return Error::usage("model", repo.error().message());
  }
  std::string_view rest = repo_end == std::string_view::npos ? "" : text.substr(repo_end);
  if (rest.starts_with('@')) {
    const size_t colon = rest.find(':');
    ref.revision = std::string(rest.substr(1, colon == std::string_view::npos ? colon : colon - 1));
    rest = colon == std::string_view::npos ? "" : rest.substr(colon);
    if (Status revision = check_hub_revision(ref.revision); !revision) {
      return Error::usage("model", revision.error().message());
    }
  }
  if (rest.starts_with(':')) {
    ref.quant = std::string(rest.substr(1));
    if (Status quant = check_hub_quant(ref.quant); !quant) {
      return Error::usage("model", quant.error().message());
    }
  }
  return ref;
}

}  // namespace memfit
