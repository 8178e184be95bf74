// A fake Hugging Face Hub on loopback, for tests and the benchmark: two
// cpp-httplib servers, the Hub itself and a storage host that the Hub's
// file downloads redirect to (as the real Hub redirects LFS files to its
// CDN). It answers:
//
//   GET /api/models/<org>/<name>/revision/<rev>?blobs=true
//       {"sha": ..., "siblings": [{"rfilename", "size", "lfs": {"size"}}]}
//       404 X-Error-Code RepoNotFound / RevisionNotFound
//   GET /<org>/<name>/resolve/<commit>/<path>     (Range: bytes=a-b)
//       206 with the bytes; or 302 to http://127.0.0.1:<storage>/... when
//       redirects are on; 401 X-Error-Code GatedRepo for a gated repo asked
//       without its token; 404 EntryNotFound
//
// A file is its first bytes and a size: the bytes past them read as zeros,
// so a "16 GB" shard costs its header. Every request is recorded.
#ifndef MEMFIT_TESTS_SUPPORT_FAKE_HUB_H_
#define MEMFIT_TESTS_SUPPORT_FAKE_HUB_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace memfit {

struct FakeHubFile {
  std::string bytes;        // the file's first bytes
  uint64_t size_bytes = 0;  // at least bytes.size(); the rest reads as zeros
};

struct FakeHubRepo {
  std::string commit;                        // 40 hex digits
  std::map<std::string, std::string> refs;   // revision -> commit ("main" is added)
  std::map<std::string, FakeHubFile> files;  // by path in the repo
  std::string token;                         // non-empty: gated, this token reads it
  bool lfs = true;                           // sizes under "lfs" (else "size")
};

struct FakeHubRequest {
  std::string host;           // "hub" or "storage"
  std::string path;           // "/org/name/resolve/<commit>/config.json"
  std::string range;          // the Range header, "" if none
  std::string authorization;  // the Authorization header, "" if none
  int status = 0;
  uint64_t body_bytes = 0;    // bytes of the body sent
};

enum class FakeHubMode {
  kNormal,       // Range honoured
  kIgnoreRange,  // every file whole, 200, whatever Range says
  kSlow,         // resolve requests wait until the hub is stopped
};

class FakeHub {
 public:
  FakeHub();  // starts both servers on 127.0.0.1, each on a free port
  ~FakeHub();
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  // Set before requests are made.
  void add_repo(const std::string& repo_id, FakeHubRepo repo);
  void set_redirects(bool on) { redirects_ = on; }  // default on
  void set_mode(FakeHubMode mode) { mode_ = mode; }
  // Each request waits this long before it is answered (the benchmark's
  // network latency); 0 by default.
  void set_latency_ms(int ms) { latency_ms_ = ms; }

  std::string endpoint() const;  // "http://127.0.0.1:<port>"
  int storage_port() const { return storage_port_; }

  std::vector<FakeHubRequest> requests() const;
  void clear_requests();
  // The most requests the storage host was answering at once.
  int most_storage_requests_at_once() const;

 private:
  void record(FakeHubRequest request);
  void wait_latency();

  std::unique_ptr<httplib::Server> hub_;
  std::unique_ptr<httplib::Server> storage_;
  std::thread hub_thread_;
  std::thread storage_thread_;
  int hub_port_ = 0;
  int storage_port_ = 0;
  std::map<std::string, FakeHubRepo> repos_;
  bool redirects_ = true;
  FakeHubMode mode_ = FakeHubMode::kNormal;
  int latency_ms_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  std::vector<FakeHubRequest> requests_;
  int storage_in_flight_ = 0;
  int storage_most_in_flight_ = 0;
};

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_FAKE_HUB_H_
