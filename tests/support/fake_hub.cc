// FakeHub (fake_hub.h). Note on cpp-httplib: the library slices a body to
// the request's Range itself; the fake answers ranges (or ignores them) on
// its own, so each handler clears the parsed ranges first (the Request is
// the server's own, non-const object, handed over as const).
#include "support/fake_hub.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace memfit {
namespace {

// Bytes [first, last] of `file` (last inside it), zeros past its bytes.
std::string file_slice(const FakeHubFile& file, uint64_t first, uint64_t last) {
  std::string out(last - first + 1, '\0');
  if (first < file.bytes.size()) {
    const uint64_t n = std::min<uint64_t>(file.bytes.size(), last + 1) - first;
    std::copy_n(file.bytes.data() + first, n, out.data());
  }
  return out;
}

// "bytes=a-b" -> {a, b}; false for anything else.
bool parse_range(const std::string& header, uint64_t& first, uint64_t& last) {
  if (header.rfind("bytes=", 0) != 0) return false;
  const size_t dash = header.find('-', 6);
  if (dash == std::string::npos) return false;
  char* end = nullptr;
  first = std::strtoull(header.c_str() + 6, &end, 10);
  last = std::strtoull(header.c_str() + dash + 1, &end, 10);
  return last >= first;
}

void start(httplib::Server& server, int& port, std::thread& thread) {
  port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) {
    std::fprintf(stderr, "FakeHub: cannot bind to 127.0.0.1\n");
    std::abort();
  }
  thread = std::thread([&server] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

FakeHub::FakeHub()
    : hub_(std::make_unique<httplib::Server>()), storage_(std::make_unique<httplib::Server>()) {
  hub_->Get(R"(/api/models/([^/]+)/([^/]+)/revision/(.+))",
            [this](const httplib::Request& req, httplib::Response& res) {
              const_cast<httplib::Request&>(req).ranges.clear();
              wait_latency();
              FakeHubRequest r{"hub", req.path, req.get_header_value("Range"),
                               req.get_header_value("Authorization")};
              const std::string repo_id = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
              const std::string revision = req.matches[3];
              auto repo = repos_.find(repo_id);
              if (repo == repos_.end()) {
                res.status = 404;
                res.set_header("X-Error-Code", "RepoNotFound");
                res.set_content("Repository not found", "text/plain");
              } else {
                auto ref = repo->second.refs.find(revision);
                std::string commit = ref != repo->second.refs.end() ? ref->second : "";
                if (revision == repo->second.commit) commit = revision;
                if (commit.empty()) {
                  res.status = 404;
                  res.set_header("X-Error-Code", "RevisionNotFound");
                  res.set_content("Invalid rev id", "text/plain");
                } else {
                  nlohmann::json siblings = nlohmann::json::array();
                  for (const auto& [path, file] : repo->second.files) {
                    nlohmann::json s = {{"rfilename", path}};
                    if (repo->second.lfs) {
                      s["size"] = 135;  // the pointer file's size, not the file's
                      s["lfs"] = {{"sha256", std::string(64, '0')}, {"size", file.size_bytes},
                                  {"pointerSize", 135}};
                    } else {
                      s["size"] = file.size_bytes;
                    }
                    siblings.push_back(std::move(s));
                  }
                  res.status = 200;
                  res.set_content(nlohmann::json{{"id", repo_id}, {"sha", commit},
                                                 {"siblings", siblings}}
                                      .dump(),
                                  "application/json");
                }
              }
              r.status = res.status;
              r.body_bytes = res.body.size();
              record(std::move(r));
            });

  hub_->Get(R"(/([^/]+)/([^/]+)/resolve/([^/]+)/(.+))",
            [this](const httplib::Request& req, httplib::Response& res) {
              const_cast<httplib::Request&>(req).ranges.clear();
              wait_latency();
              FakeHubRequest r{"hub", req.path, req.get_header_value("Range"),
                               req.get_header_value("Authorization")};
              if (mode_ == FakeHubMode::kSlow) {
                std::unique_lock lock(mutex_);
                stopping_cv_.wait_for(lock, std::chrono::seconds(60), [this] { return stopping_; });
              }
              const std::string repo_id = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
              const std::string commit = req.matches[3];
              const std::string path = req.matches[4];
              auto repo = repos_.find(repo_id);
              if (repo == repos_.end() || repo->second.commit != commit ||
                  !repo->second.files.count(path)) {
                res.status = 404;
                res.set_header("X-Error-Code", repo == repos_.end() ? "RepoNotFound" : "EntryNotFound");
              } else if (!repo->second.token.empty() &&
                         r.authorization != "Bearer " + repo->second.token) {
                res.status = 401;
                res.set_header("X-Error-Code", "GatedRepo");
                res.set_content("Access to this model is restricted", "text/plain");
              } else if (redirects_) {
                res.status = 302;
                res.set_header("Location", "http://127.0.0.1:" + std::to_string(storage_port_) +
                                               "/blob/" + repo_id + "/" + commit + "/" + path +
                                               "?signature=x");
              } else {
                // Served here: the storage handler's own code, below.
                r.status = -1;
              }
              if (r.status == -1) {
                const FakeHubFile& file = repo->second.files.at(path);
                uint64_t first = 0, last = 0;
                if (mode_ != FakeHubMode::kIgnoreRange && parse_range(r.range, first, last) &&
                    first < file.size_bytes) {
                  last = std::min(last, file.size_bytes - 1);
                  res.status = 206;
                  res.set_header("Content-Range", "bytes " + std::to_string(first) + "-" +
                                                      std::to_string(last) + "/" +
                                                      std::to_string(file.size_bytes));
                  res.set_content(file_slice(file, first, last), "application/octet-stream");
                } else {
                  res.status = 200;
                  res.set_content(file.size_bytes ? file_slice(file, 0, file.size_bytes - 1) : "",
                                  "application/octet-stream");
                }
              }
              r.status = res.status;
              r.body_bytes = res.body.size();
              record(std::move(r));
            });

  storage_->Get(R"(/blob/([^/]+)/([^/]+)/([^/]+)/(.+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  const_cast<httplib::Request&>(req).ranges.clear();
                  {
                    std::lock_guard lock(mutex_);
                    storage_most_in_flight_ = std::max(storage_most_in_flight_, ++storage_in_flight_);
                  }
                  wait_latency();
                  FakeHubRequest r{"storage", req.path, req.get_header_value("Range"),
                                   req.get_header_value("Authorization")};
                  const std::string repo_id =
                      std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
                  auto repo = repos_.find(repo_id);
                  const std::string path = req.matches[4];
                  if (repo == repos_.end() || !repo->second.files.count(path)) {
                    res.status = 404;
                  } else {
                    const FakeHubFile& file = repo->second.files.at(path);
                    uint64_t first = 0, last = 0;
                    if (mode_ != FakeHubMode::kIgnoreRange && parse_range(r.range, first, last) &&
                        first < file.size_bytes) {
                      last = std::min(last, file.size_bytes - 1);
                      res.status = 206;
                      res.set_content(file_slice(file, first, last), "application/octet-stream");
                    } else {
                      res.status = 200;
                      res.set_content(file.size_bytes ? file_slice(file, 0, file.size_bytes - 1) : "",
                                      "application/octet-stream");
                    }
                  }
                  r.status = res.status;
                  r.body_bytes = res.body.size();
                  record(std::move(r));
                  std::lock_guard lock(mutex_);
                  --storage_in_flight_;
                });

  start(*hub_, hub_port_, hub_thread_);
  start(*storage_, storage_port_, storage_thread_);
}

FakeHub::~FakeHub() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stopping_cv_.notify_all();
  hub_->stop();
  storage_->stop();
  hub_thread_.join();
  storage_thread_.join();
}

void FakeHub::add_repo(const std::string& repo_id, FakeHubRepo repo) {
  repo.refs.emplace("main", repo.commit);
  repos_[repo_id] = std::move(repo);
}

std::string FakeHub::endpoint() const { return "http://127.0.0.1:" + std::to_string(hub_port_); }

std::vector<FakeHubRequest> FakeHub::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeHub::clear_requests() {
  std::lock_guard lock(mutex_);
  requests_.clear();
}

int FakeHub::most_storage_requests_at_once() const {
  std::lock_guard lock(mutex_);
  return storage_most_in_flight_;
}

void FakeHub::record(FakeHubRequest request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(request));
}

void FakeHub::wait_latency() {
  if (latency_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms_));
}

}  // namespace memfit
