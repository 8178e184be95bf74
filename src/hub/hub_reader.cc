// HubReader (hub_reader.h): the Hub's two requests, redirects followed
// host by host, and each failure as one line naming the model.
#include "hub/hub_reader.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "memfit/hub_name.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

}  // namespace

HubReader::HubReader(HttpClient& http, HubOptions options, std::string repo_id, std::string label)
    : http_(http),
      options_(std::move(options)),
      origin_(url_origin(options_.endpoint)),
      repo_id_(std::move(repo_id)),
      label_(std::move(label)) {}

Result<HttpGetResponse> HubReader::get(std::string url,
                                    std::optional<std::pair<uint64_t, uint64_t>> range,
                                    uint64_t max_body_bytes, std::string_view what) {
  if (origin_.empty()) {
    return Error(fmt::format("{}: HF_ENDPOINT is not an http:// or https:// URL", label_));
  }
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    const std::string origin = url_origin(url);
    HttpGetRequest request;
    request.url = url;
    request.range = range;
    request.max_body_bytes = std::max(max_body_bytes, kMinResponseBoundBytes);
    request.timeout_ms = options_.timeout_ms;
    // The token goes to the Hub itself, never to the storage host (or any
    // other) that a redirect names.
    if (origin == origin_ && !options_.token.empty()) {
      request.headers.emplace_back("Authorization", "Bearer " + options_.token);
    }
    HttpOutcome outcome = http_.get(request);
    switch (outcome.kind) {
      case HttpOutcome::Kind::kOk:
        break;
      case HttpOutcome::Kind::kCannotConnect:
        return Error(fmt::format("{}: cannot reach {} ({}): the network is down or the host is "
                                 "wrong (HF_ENDPOINT)",
                                 label_, hop == 0 ? origin_ : origin, outcome.detail));
      case HttpOutcome::Kind::kTimeout:
        return Error(fmt::format("{}: {} gave no answer within {} s reading {} (--timeout)", label_,
                                 hop == 0 ? origin_ : origin, options_.timeout_ms / 1000.0, what));
      case HttpOutcome::Kind::kBodyTooLarge:
        if (range) {
          return Error(fmt::format("{}: the server ignores Range requests: refused the whole of {} "
                                   "after {} bytes (only its header is read)",
                                   label_, what, request.max_body_bytes));
        }
        return Error(fmt::format("{}: {} is over {} bytes: refused", label_, what,
                                 request.max_body_bytes));
      case HttpOutcome::Kind::kFailed:
        return Error(fmt::format("{}: reading {} from {}: {}", label_, what,
                                 hop == 0 ? origin_ : origin, outcome.detail));
    }
    HttpGetResponse& response = outcome.response;
    if (!is_redirect(response.status)) return std::move(response);
    if (response.location.empty()) {
      return Error(fmt::format("{}: a redirect with no Location reading {}", label_, what));
    }
    const std::string next = url_origin(response.location);
    if (next.empty() || (origin_.starts_with("https:") && next.starts_with("http:"))) {
      return Error(fmt::format("{}: refused a redirect from https to {} reading {}", label_,
                               next.empty() ? "a non-HTTP URL" : "plain http", what));
    }
    url = std::move(response.location);
  }
  return Error(fmt::format("{}: more than {} redirects reading {}", label_, kMaxRedirects, what));
}

Error HubReader::http_error(const HttpGetResponse& response, std::string_view what) const {
  const long status = response.status;
  const std::string& code = response.error_code;
  if (code == "RepoNotFound" || (status == 404 && code.empty() && what == "the file list")) {
    return Error(fmt::format("{}: no such model on the Hub at {} (HTTP {}){}", label_, origin_,
                             status,
                             status == 401 ? "; if it is private, set HF_TOKEN or --token" : ""));
  }
  if (status == 401 || status == 403 || code == "GatedRepo") {
    return Error(fmt::format("{}: gated or private on the Hub (HTTP {}): accept its terms at "
                             "{}/{} and set HF_TOKEN or --token to a token that may read it",
                             label_, status, origin_, repo_id_));
  }
  if (status == 404) {
    return Error(fmt::format("{}: no {} on the Hub (HTTP 404)", label_, what));
  }
  return Error(fmt::format("{}: the Hub answered HTTP {} for {}", label_, status, what));
}

Result<HubRevision> HubReader::resolve(const std::string& revision) {
  const std::string url = fmt::format("{}/api/models/{}/revision/{}?blobs=true", options_.endpoint,
                                      repo_id_, percent_encode(revision, false));
  Result<HttpGetResponse> response = get(url, std::nullopt, kMaxHubListingBytes, "the file list");
  if (!response) return response.error();
  if (response->status == 404 && response->error_code == "RevisionNotFound") {
    return Error(fmt::format("{}: no revision {} on the Hub (no such branch, tag or commit)",
                             label_, quote_untrusted(revision)));
  }
  if (response->status != 200) return http_error(*response, "the file list");
  Result<HubRevision> parsed = parse_hub_listing(response->body);
  if (!parsed) return parsed.error().within(label_ + ": the Hub's file list");
  return parsed;
}

Result<std::string> HubReader::read_range(const std::string& commit, const std::string& path,
                                          uint64_t file_size_bytes, uint64_t first, uint64_t last) {
  const std::string url = fmt::format("{}/{}/resolve/{}/{}", options_.endpoint, repo_id_, commit,
                                      percent_encode(path, true));
  const uint64_t wanted = last - first + 1;
  const std::string what = quote_untrusted(path);
  Result<HttpGetResponse> response = get(url, std::pair{first, last}, wanted, what);
  if (!response) return response.error();
  if (response->status == 206) {
    if (response->body.size() != wanted) {
      return Error(fmt::format("{}: {} bytes of {} came back for the {} asked", label_,
                               response->body.size(), what, wanted));
    }
    return std::move(response->body);
  }
  if (response->status == 200) {
    // A server without Range support sends the whole file: usable only
    // when the whole file is what was asked.
    if (first == 0 && response->body.size() == file_size_bytes && last + 1 == file_size_bytes) {
      return std::move(response->body);
    }
    return Error(fmt::format("{}: the server ignores Range requests: refused the whole of {} "
                             "after {} bytes (only its header is read)",
                             label_, what, response->body.size()));
  }
  return http_error(*response, "file " + what);
}

Result<HubRevision> parse_hub_listing(std::string_view json) {
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error("not a JSON object");
  HubRevision revision;
  auto sha = doc.find("sha");
  if (sha == doc.end() || !sha->is_string() || !is_hub_commit(sha->get_ref<const std::string&>())) {
    return Error("no \"sha\" of 40 hex digits");
  }
  revision.commit = sha->get<std::string>();
  auto siblings = doc.find("siblings");
  if (siblings != doc.end() && siblings->is_array()) {
    for (const nlohmann::json& sibling : *siblings) {
      if (!sibling.is_object()) continue;
      auto name = sibling.find("rfilename");
      if (name == sibling.end() || !name->is_string()) continue;
      const std::string& path = name->get_ref<const std::string&>();
      if (!check_hub_file(path)) continue;
      const nlohmann::json* size = nullptr;
      if (auto lfs = sibling.find("lfs"); lfs != sibling.end() && lfs->is_object()) {
        if (auto s = lfs->find("size"); s != lfs->end()) size = &*s;
      }
      if (!size) {
        if (auto s = sibling.find("size"); s != sibling.end()) size = &*s;
      }
      if (!size || !size->is_number_unsigned()) continue;
      revision.listing.push_back({path, size->get<uint64_t>()});
    }
  }
  std::sort(revision.listing.begin(), revision.listing.end(),
            [](const StoredListingEntry& a, const StoredListingEntry& b) { return a.path < b.path; });
  return revision;
}

}  // namespace memfit
