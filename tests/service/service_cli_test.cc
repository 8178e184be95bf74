// `memfit serve` as a whole process: it prints where it listens, answers
// over HTTP, and exits 0 on SIGTERM and SIGINT; bad options exit 2.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "service/service_fixture.h"
#include "support/http_test_client.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

extern char** environ;

namespace memfit {
namespace {

using testing::kExamplesRoot;
using testing::run_memfit;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `memfit serve --listen 127.0.0.1:0 ...` in the background, its stderr in
// a file, with an open-file limit of `open_files` when it is not 0. The
// destructor kills it if a test left it running.
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& args, int open_files = 0) {
    err_path_ = dir_.file_path("stderr");
    std::vector<std::string> argv;
    if (open_files > 0) {  // the shell sets the limit, then becomes memfit
      argv = {"/bin/sh", "-c",
              "ulimit -n " + std::to_string(open_files) + " && exec \"$0\" \"$@\""};
    }
    for (const char* a : {MEMFIT_CLI_PATH, "serve", "--listen", "127.0.0.1:0"}) argv.push_back(a);
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> argp;
    for (std::string& a : argv) argp.push_back(a.data());
    argp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (posix_spawn(&pid_, argp[0], &actions, nullptr, argp.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // The port from "serving on http://127.0.0.1:<port>", waiting up to 20 s;
  // 0 when the process ended or never said it.
  int wait_for_port() {
    const std::regex line(R"(serving on http://127\.0\.0\.1:(\d+) )");
    for (int i = 0; i < 400 && pid_ > 0; ++i) {
      std::smatch m;
      const std::string err = slurp(err_path_);
      if (std::regex_search(err, m, line)) return std::stoi(m[1]);
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) pid_ = -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
  }

  // Sends `signal` and waits up to 20 s; the exit status, or -1.
  int stop_with(int signal) {
    if (pid_ <= 0) return -1;  // never kill(-1, ...): that signals every process
    kill(pid_, signal);
    for (int i = 0; i < 400; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }

  std::string err() const { return slurp(err_path_); }

 private:
  TempDir dir_;
  std::string err_path_;
  pid_t pid_ = -1;
};

TEST(ServiceCli, ServesUntilSignalled) {
  for (int signal : {SIGTERM, SIGINT}) {
    ServeProcess serve({"--model-root", kExamplesRoot, "--memory-limit", "48GB"});
    const int port = serve.wait_for_port();
    ASSERT_GT(port, 0) << serve.err();
    Result<testing::HttpTestConnection> client = testing::HttpTestConnection::open(port);
    ASSERT_TRUE(client.ok()) << client.error().message();
    Result<testing::HttpReply> r = client->request("GET", "/healthz");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->status, 200);
    r = client->request("POST", "/v1/estimate", R"({"model":"Qwen3-14B-MLX-4bit"})");
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(r->status, 200);
    nlohmann::json j = nlohmann::json::parse(r->body);
    EXPECT_EQ(j["total_bytes"], 11764806400u);
    EXPECT_EQ(j["budget_bytes"], 48'000'000'000u);  // 48GB: 48 x 10^9

    EXPECT_EQ(serve.stop_with(signal), 0) << serve.err();
    EXPECT_NE(serve.err().find("memfit: stopped\n"), std::string::npos) << serve.err();
  }
}

TEST(ServiceCli, LimitFlagsReachTheServer) {
  ServeProcess serve({"--model-root", kExamplesRoot, "--request-deadline-ms", "300",
                      "--max-connections-per-address", "1", "--idle-timeout-ms", "60000"});
  const int port = serve.wait_for_port();
  ASSERT_GT(port, 0) << serve.err();
  // A head that never ends: 408 at the 300 ms deadline (5 s of slack).
  Result<testing::HttpTestConnection> slow = testing::HttpTestConnection::open(port);
  ASSERT_TRUE(slow.ok()) << slow.error().message();
  ASSERT_TRUE(slow->send("GET /healthz HTTP/1.1\r\n").ok());
  std::string received;
  EXPECT_TRUE(slow->closed_within(std::chrono::seconds(5), &received));
  EXPECT_EQ(received.rfind("HTTP/1.1 408 ", 0), 0u) << received;
  // One connection per address: a second from 127.0.0.2 is refused.
  Result<testing::HttpTestConnection> first = testing::HttpTestConnection::open(port, "127.0.0.2");
  ASSERT_TRUE(first.ok()) << first.error().message();
  Result<testing::HttpReply> r = first->request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  Result<testing::HttpTestConnection> second = testing::HttpTestConnection::open(port, "127.0.0.2");
  ASSERT_TRUE(second.ok()) << second.error().message();
  r = second->request("GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(serve.stop_with(SIGTERM), 0) << serve.err();
}

TEST(ServiceCli, LowOpenFileLimitLowersMaxConnections) {
  // 200 descriptors, less the reserve of 64 + 32 + 8 (one per worker
  // thread) = 104: 96 connections.
  ServeProcess serve({"--model-root", kExamplesRoot}, /*open_files=*/200);
  const int port = serve.wait_for_port();
  ASSERT_GT(port, 0) << serve.err();
  EXPECT_NE(serve.err().find("memfit: warning: the open-file limit (200) allows 96 connections: "
                             "--max-connections lowered from 2048 (raise it with ulimit -n)\n"),
            std::string::npos)
      << serve.err();
  Result<testing::HttpReply> r = testing::http_request(port, "GET", "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(serve.stop_with(SIGTERM), 0) << serve.err();
}

TEST(ServiceCli, BadOptionsAreUsageErrors) {
  testing::CommandResult r = run_memfit({"serve", "--listen", "nonsense"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "memfit: serve: --listen: listen address 'nonsense': expected host:port with a port "
            "0-65535\n");
  r = run_memfit({"serve", "--model-root", "/nonexistent/memfit-models"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_memfit({"serve", "--memory-limit", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("memfit: serve: --memory-limit: ", 0), 0u) << r.err;
  r = run_memfit({"serve", "--max-connections", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(ServiceCli, HelpComesFromTheServiceProgram) {
  // `memfit serve` hands every argument to memfit-serve, --help included.
  testing::CommandResult r = run_memfit({"serve", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: memfit serve [OPTIONS]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--model-root"), std::string::npos) << r.out;
  r = run_memfit({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("serve"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace memfit
