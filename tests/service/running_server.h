// RunningServer: an HttpServer on 127.0.0.1:<a free port> serving from a
// thread for the life of the object, for the tests that talk HTTP. The
// destructor stops and joins it and checks that serve() succeeded.
#ifndef MEMFIT_TESTS_SERVICE_RUNNING_SERVER_H_
#define MEMFIT_TESTS_SERVICE_RUNNING_SERVER_H_

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <utility>

#include "memfit/service.h"

namespace memfit::testing {

class RunningServer {
 public:
  explicit RunningServer(std::unique_ptr<Service> service, HttpServerOptions options = {})
      : service_(std::move(service)), server_(std::make_unique<HttpServer>(*service_, options)) {
    start();
  }
  // Serves `handler` (bodies up to 64 KiB) instead of a Service.
  RunningServer(HttpHandler handler, HttpServerOptions options)
      : server_(std::make_unique<HttpServer>(std::move(handler), 64 * 1024, options)) {
    start();
  }
  ~RunningServer() {
    server_->stop();
    if (thread_.joinable()) thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.error().message();
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  int port() const { return port_; }
  HttpServer& server() { return *server_; }

 private:
  void start() {
    Result<int> port = server_->bind(ListenAddress{"127.0.0.1", 0});
    if (!port.ok()) {
      ADD_FAILURE() << port.error().message();
      return;
    }
    port_ = *port;
    thread_ = std::thread([this] { status_ = server_->serve(); });
  }

  std::unique_ptr<Service> service_;  // outlives server_
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  std::thread thread_;
  Status status_;
};

}  // namespace memfit::testing

#endif  // MEMFIT_TESTS_SERVICE_RUNNING_SERVER_H_
